"""Start-up: a command imports what it needs, and nothing is lost by importing less."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

from soulscope import __version__
from soulscope.cli import AREAS, areas_of, build_parser
from tests.support.cli import soulscope
from tests.support.paths import ROOT
from tests.support.worlds import write_small_world


def loaded_after(argv: list[str]) -> tuple[str, set[str]]:
    """What ``main(argv)`` printed and the modules it left imported, in a fresh interpreter."""
    code = (
        "import sys; from soulscope.cli import main; main(sys.argv[1:]);"
        "print('MODULES', ' '.join(sorted(sys.modules)))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, *argv], capture_output=True, text=True, cwd=ROOT, timeout=120
    )
    printed, _, modules = out.stdout.rpartition("MODULES ")
    return printed, set(modules.split())


def test_version_imports_no_command_and_no_numpy() -> None:
    printed, modules = loaded_after(["--version"])
    assert printed.strip() == f"soulscope {__version__}"
    ours = {m for m in modules if m.startswith("soulscope")}
    assert ours == {"soulscope", "soulscope.cli"}
    assert "numpy" not in modules


def test_a_reading_command_leaves_the_recall_stack_alone(later_world: Path) -> None:
    printed, modules = loaded_after(["agents", "--world", str(later_world), "--json"])
    assert '"zion-coder-06"' in printed
    assert not {m for m in modules if m.startswith(("soulscope.recall", "soulscope.chat"))}


# What a BM25 search does not need: numpy and what stands on it (a tenth of a second to import).
HEAVY = ("numpy", "torch", "sentence_transformers", "rank_bm25", "scipy")


def test_a_warm_bm25_search_imports_no_numpy(tmp_path: Path) -> None:
    world = str(write_small_world(tmp_path / "world"))
    searches = [
        ["search", "Indexed #12", "-w", world, "--mode", "bm25", "--json"],
        ["search", "cataloguer", "-w", world, "--mode", "bm25", "--json", "-a", "ada-01"],
        ["search", "contrarian", "-w", world, "--mode", "bm25", "--json", "--frames", "2-3"],
        ["search", "when did ada first argue", "-w", world, "--mode", "bm25", "--json"],
    ]
    cold = [soulscope(*argv) for argv in searches]  # the index is kept in the cache folder
    assert all(out.returncode == 0 and out.stderr == "" for out in cold)
    assert all('"ada-01' in out.stdout or '"bo-02' in out.stdout for out in cold)
    # The same searches in one fresh interpreter, from the kept index: the same answers.
    code = (
        "import json, sys; from soulscope.cli import main\n"
        "for argv in json.loads(sys.argv[1]): main(argv); print('END')\n"
        "print('MODULES', ' '.join(sorted(sys.modules)))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, json.dumps(searches)],
        capture_output=True, text=True, cwd=ROOT, timeout=120,
    )  # fmt: skip
    assert out.returncode == 0 and out.stderr == "", out.stderr  # (no index rebuilt)
    printed, _, modules = out.stdout.rpartition("MODULES ")
    assert printed.split("END\n")[:-1] == [c.stdout for c in cold]
    heavy = set(HEAVY) & set(modules.split())
    assert not heavy, f"a warm BM25 search imported {sorted(heavy)}"


def options(parser: argparse.ArgumentParser, command: str) -> dict[str, object]:
    sub = parser._subparsers._group_actions[0].choices[command]  # type: ignore[union-attr]
    return {
        " ".join(a.option_strings) or a.dest: (a.default, a.choices, a.nargs) for a in sub._actions
    } | {"run": sub.get_default("run").__qualname__}


def test_a_command_parsed_with_its_own_areas_is_the_command_of_the_whole_parser() -> None:
    whole = build_parser()
    commands = {c for names in AREAS.values() for c in names}
    assert commands == set(whole._subparsers._group_actions[0].choices)  # type: ignore[union-attr]
    for command in commands:
        assert options(build_parser(areas_of(command)), command) == options(whole, command), command


def test_help_still_lists_every_command() -> None:
    out = soulscope("--help")
    assert out.returncode == 0, out.stderr
    for commands in AREAS.values():
        for command in commands:
            assert command in out.stdout


def test_the_dashboard_opens_written_as_each_command_is(
    later_world: Path, monkeypatch, tmp_path: Path, capsys
) -> None:
    """``soulscope WORLD``, ``soulscope dashboard WORLD`` and ``soulscope --world WORLD`` open
    the same world; a folder named ``dashboard`` is still a world."""
    from soulscope.cli import main
    from soulscope.tui.app import SoulscopeApp

    opened: list[Path] = []
    monkeypatch.setattr(SoulscopeApp, "run", lambda app, **_: opened.append(app.world.root))
    for argv in (
        [str(later_world)],
        ["dashboard", str(later_world)],
        ["--world", str(later_world)],
        ["dashboard", "-w", str(later_world)],
    ):
        assert main(argv) == 0, argv
    assert len(opened) == 4 and len(set(opened)) == 1
    assert main(["dashboard", "--world", str(tmp_path / "nowhere")]) != 0
    assert "nowhere" in capsys.readouterr().err
    (tmp_path / "dashboard" / "memory").mkdir(parents=True)
    (tmp_path / "dashboard" / "memory" / "a-01.md").write_text("# A\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert main(["dashboard"]) == 0
    assert opened[-1].name == "dashboard"
