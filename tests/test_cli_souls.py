"""The CLI as a user runs it: JSON shapes, errors and exit codes, and what a command imports."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.support.cli import soulscope
from tests.support.paths import ROOT


def test_agents_json_on_the_early_corpus(early_world: Path) -> None:
    out = soulscope("agents", "--world", str(early_world), "--json")
    assert out.returncode == 0, out.stderr
    rows = json.loads(out.stdout)
    assert len(rows) == 116
    assert set(rows[0]) == {
        "id",
        "name",
        "path",
        "frames",
        "becoming",
        "bytes",
        "last_frame",
        "problems",
    }
    debater = next(r for r in rows if r["id"] == "zion-debater-06")
    assert (
        debater["frames"] > 10
        and debater["becoming"] > 0
        and debater["last_frame"].startswith("Frame")
    )


def test_becoming_json_marks_shifts(later_world: Path) -> None:
    out = soulscope("becoming", "zion-coder-06", "--world", str(later_world), "--json")
    rows = json.loads(out.stdout)
    assert len(rows) == 29
    assert {"frame", "date", "heading", "text", "line", "shift"} <= set(rows[0])
    framed = [r for r in rows if r["frame"] is not None]
    assert framed[0]["frame"] == 216 and framed[0]["date"] == "2026-03-22"
    assert any(r["shift"] for r in rows)


def test_becoming_json_gives_every_statement_a_chapter_and_marks_turning_points(
    early_world: Path, later_world: Path
) -> None:
    # Neither agent is the arc the shift classes fail on most: any real arc of 10+ statements.
    for world, agent in ((early_world, "zion-storyteller-03"), (later_world, "zion-coder-09")):
        rows = json.loads(soulscope("becoming", agent, "--world", str(world), "--json").stdout)
        n = len(rows)
        chapters = [r["chapter"] for r in rows]
        assert chapters == sorted(chapters) and chapters[0] == 1
        assert 2 <= chapters[-1] <= n / 3
        assert set(chapters) == set(range(1, chapters[-1] + 1))
        turning = [i for i, r in enumerate(rows) if r["turning_point"]]
        assert 1 <= len(turning) <= max(3, int(0.3 * n))
        # A chapter opens at each turning point.
        assert [i for i in range(1, n) if chapters[i] != chapters[i - 1]] == turning


def test_becoming_chapters_lists_them_titled(early_world: Path) -> None:
    out = soulscope(
        "becoming", "zion-coder-08", "--world", str(early_world), "--chapters", "--json"
    )
    chapters = json.loads(out.stdout)
    statements = json.loads(
        soulscope("becoming", "zion-coder-08", "--world", str(early_world), "--json").stdout
    )
    assert [c["chapter"] for c in chapters] == list(range(1, len(chapters) + 1))
    assert sum(c["statements"] for c in chapters) == len(statements)
    assert chapters[0]["first_statement"] == 1 and chapters[-1]["last_statement"] == len(statements)
    for c in chapters:
        assert 2 <= len(c["title"].replace(",", "").split()) <= 5
        first = statements[c["first_statement"] - 1]
        assert (first["frame"], first["date"]) == (c["first_frame"], c["first_date"])
    table = soulscope("becoming", "zion-coder-08", "--world", str(early_world), "--chapters")
    assert table.returncode == 0 and chapters[-1]["title"].split(",")[0] in table.stdout


def test_summaries_show_a_position_by_its_own_words(early_world: Path) -> None:
    # Early-era statements open with counters ("twenty-eighth bet."): the opening noun phrase is
    # a fragment, never what the agent said.
    rows = json.loads(soulscope("overview", "--world", str(early_world), "--json").stdout)
    agent = next(r for r in rows if r["id"] == "zion-contrarian-04")
    assert agent["latest"]["headline"].rstrip("…") in agent["latest"]["text"]
    assert agent["latest"]["role"] is None  # a position names no role
    assert len(agent["latest"]["headline"].split()) > 5
    assert agent["turning_points"] >= 1 and agent["chapters"] >= 2
    table = soulscope("overview", "--world", str(early_world), env={"COLUMNS": "300"}).stdout
    line = next(x for x in table.splitlines() if "zion-contrarian-04" in x)
    assert agent["latest"]["headline"][:40] in line
    compared = soulscope(
        "compare",
        "zion-contrarian-04",
        "zion-debater-06",
        "--world",
        str(early_world),
        env={"COLUMNS": "300"},
    ).stdout
    assert agent["latest"]["headline"][:40] in compared


def test_show_whole_soul_and_one_frame(later_world: Path) -> None:
    whole = json.loads(soulscope("show", "zion-coder-06", "-w", str(later_world), "--json").stdout)
    assert whole["id"] == "zion-coder-06" and whole["identity"]["Archetype"] == "Coder"
    assert len(whole["frames"]) == 25
    assert {"number", "date", "heading", "line", "observations"} <= set(whole["frames"][0])
    frame = json.loads(
        soulscope(
            "show", "zion-coder-06", "-w", str(later_world), "--frame", "221", "--json"
        ).stdout
    )
    assert frame["number"] == 221
    assert any(o["label"] == "Becoming" for o in frame["observations"])


def test_errors_are_one_line_and_nonzero(later_world: Path, tmp_path: Path) -> None:
    for args, needle in [
        (("becoming", "nobody", "-w", str(later_world)), "no agent 'nobody'"),
        (("becoming", "../etc", "-w", str(later_world)), "not a valid agent id"),
        (("agents", "-w", str(tmp_path / "missing")), "no such file or folder"),
        (("show", "zion-coder-06", "-w", str(later_world), "--frame", "9999"), "no frame 9999"),
    ]:
        out = soulscope(*args)
        assert out.returncode != 0
        assert (
            needle in out.stderr and out.stderr.count("\n") == 1 and "Traceback" not in out.stderr
        )


def test_reading_commands_stay_light(later_world: Path) -> None:
    code = (
        "import sys; from soulscope.cli import main;"
        f"main(['agents', '--world', {str(later_world)!r}, '--json']);"
        f"main(['becoming', 'zion-coder-06', '--world', {str(later_world)!r}]);"
        "heavy = [m for m in ('torch', 'sentence_transformers', 'openai', 'textual') if m in sys.modules];"
        "print('HEAVY', heavy)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120
    )
    assert "HEAVY []" in out.stdout, out.stdout[-500:] + out.stderr[-500:]


def test_core_packages_import_without_ui_or_models() -> None:
    code = (
        "import sys, importlib, pkgutil, soulscope;"
        "mods = [m.name for m in pkgutil.walk_packages(soulscope.__path__, 'soulscope.')"
        " if not m.name.startswith(('soulscope.tui', 'soulscope.cli.dashboard', 'soulscope.__main__'))];"
        "[importlib.import_module(m) for m in mods];"
        "print('HEAVY', [m for m in ('torch', 'sentence_transformers', 'openai', 'textual') if m in sys.modules])"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120
    )
    assert "HEAVY []" in out.stdout, out.stdout[-500:] + out.stderr[-500:]


def test_show_json_streams_the_text_json_would_print(tmp_path: Path) -> None:
    """`show --json` writes a soul frame by frame; what it prints is exactly json.dumps of the
    whole soul at indent 2, control characters escaped, whatever the frames hold."""
    from soulscope.soul import export
    from soulscope.soul.parse import read_soul
    from tests.support.bigworld import write_soul

    path = write_soul(tmp_path / "memory" / "odd-one.md", 30)
    with open(path, "ab") as f:
        f.write(
            "## Frame 31 — 2026-02-01\n- Named: ünïcode \x1b[2J and \x9b C1, tab\tend\n"
            '- "quoted" \\ back\\slash\n  continued\n\n## Frame 32\n\n'
            "## Notes\n- loose: \xff bytes\n".encode("utf-8", "surrogateescape")
        )
    out = soulscope("show", "odd-one", "-w", str(tmp_path), "--json")
    assert out.returncode == 0, out.stderr
    soul = read_soul(path)
    whole = {
        k: list(v) if k in ("sections", "frames", "problems") else v
        for k, v in export.soul_stream(soul).items()
    }
    expected = json.dumps(whole, ensure_ascii=False, indent=2).replace("\x9b", "\\u009b")
    assert out.stdout == expected + "\n"
    assert "\x1b" not in out.stdout and "\x9b" not in out.stdout
    assert json.loads(out.stdout)["frames"][30]["observations"][0]["text"].endswith("tab\tend")


def test_emit_json_matches_json_dumps(capsys) -> None:
    """Every shape a command prints comes out as json.dumps(indent=2) would print it."""
    from soulscope.cli.output import emit_json

    values = [
        {"a": [1, 2.5, None, True, False], "b": {}, "c": [], "d": {"e": [{"f": "g\nh"}]}},
        [],
        {},
        "plain",
        3,
        [{"x": ()}, (1, "two")],
        {1: "int key", "s": [float("inf")]},
        {"mixed": [[], [[]], {"k": {}}], "del": "\x7f"},
        # Flat dicts (a statement, a hit): every scalar, as json writes it
        [{"f": 0.1, "g": -0.0, "h": 1e300, "i": float("nan"), "j": float("-inf"), "k": True}],
        {"a": {"s": 'é\u2014"q"\\\n', "n": None, "b": False, "i": -7, "big": 10**30}},
    ]
    for value in values:
        emit_json(value)
        printed = capsys.readouterr().out
        assert (
            printed
            == json.dumps(value, ensure_ascii=False, indent=2).replace("\x7f", "\\u007f") + "\n"
        ), value
    emit_json({"head": 1, "items": iter([{"n": 1}, {"n": 2}]), "none": iter([])})
    assert json.loads(capsys.readouterr().out) == {
        "head": 1,
        "items": [{"n": 1}, {"n": 2}],
        "none": [],
    }


def test_emit_json_writes_a_long_iterator_as_json_dumps_its_list(capsys) -> None:
    """An iterator of hundreds of items (flat dicts written in batches, other items between them,
    controls escaped) prints as json.dumps of its list; when it fails, what came before is out."""
    import pytest

    from soulscope.cli.output import emit_json

    def items(fail: bool = False):
        for n in range(700):
            if n % 97 == 5:
                yield {"n": n, "nested": [n, {"deep": "x"}]}
            elif n % 131 == 7:
                yield [n, "‮"]
            else:
                yield {"n": n, "text": f"réle — {n}‮", "m": n / 7}
            if fail and n == 600:
                raise ValueError("the source went away")

    emit_json(items())
    printed = capsys.readouterr().out
    expected = json.dumps(list(items()), ensure_ascii=False, indent=2)
    assert printed == expected.replace("\x7f", "\\u007f").replace("\u202e", "\\u202e") + "\n"
    with pytest.raises(ValueError):
        emit_json(items(fail=True))
    printed = capsys.readouterr().out
    assert '"n": 600,' in printed and printed.rstrip().endswith("}")  # (none held back)


def test_becoming_json_streams_the_text_json_would_print(tmp_path: Path) -> None:
    """`becoming --json` writes the arc a statement at a time (a big soul's arc is never held as
    dicts or as one string); what it prints is exactly json.dumps of the whole list at indent 2."""
    from soulscope.soul import export
    from soulscope.soul.parse import read_soul
    from soulscope.soul.trajectory import arc
    from tests.support.bigworld import write_soul

    path = write_soul(tmp_path / "memory" / "long-arc.md", 600)
    out = soulscope("becoming", "long-arc", "-w", str(tmp_path), "--json")
    assert out.returncode == 0, out.stderr
    statements = arc(read_soul(path))
    assert len(statements) == 200
    expected = [{**export.statement_dict(s), "magnitude": s.magnitude} for s in statements]
    assert out.stdout == json.dumps(expected, ensure_ascii=False, indent=2) + "\n"
    empty = write_soul(tmp_path / "memory" / "no-arc.md", 2)  # frames 1 and 2: no Becoming yet
    assert soulscope("becoming", empty.stem, "-w", str(tmp_path), "--json").stdout == "[]\n"


MIXED_ARC = """# Mixed Arc

## Identity

- **ID:** mixed-arc

## Notes

- Becoming: the Quiet Archivist-in-Training, before any frame.

## Frame 7b — 2026-02-01 (08:15 UTC)
- Becoming: a cartographer of threads. From the quiet archivist to a cartographer of threads.

## Frame 12 solo — 2026-02-03
- Becoming: a cartographer of threads, still; surer now.

## Frame 2026-02-04 (10:00 UTC)
- Becoming: the RELUCTANT skeptic, from "maps" to doubts.

## Frame 13 — 2026-02-05
- Becoming: the RELUCTANT skeptic, from "maps" to doubts.

## Frame 14 — 2026-02-06
- Evolving position: the evidence now shifted from anecdotes to counts; I concede the map.
- Becoming: Cartographer of threads (again), with café notes — naïve no more.
"""


def test_becoming_json_reads_every_field_off_the_arc(tmp_path: Path) -> None:
    """`becoming --json` writes each statement as its `Statement` says it (a statement outside
    frames, suffixed, unnumbered and repeated frames, "From Y to Z", a return; positions too)."""
    from soulscope.soul import export
    from soulscope.soul.parse import read_soul
    from soulscope.soul.trajectory import arc

    path = tmp_path / "memory" / "mixed-arc.md"
    path.parent.mkdir()
    path.write_text(MIXED_ARC, encoding="utf-8")
    found = {}
    for label in (None, "Evolving position"):
        statements = arc(read_soul(path), label)
        expected = [export.statement_dict(s) for s in statements]
        args = ("--label", label) if label else ()
        out = soulscope("becoming", "mixed-arc", "-w", str(tmp_path), "--json", *args)
        assert out.returncode == 0, out.stderr
        assert json.loads(out.stdout) == expected
        found[label] = expected
    roles = found[None]
    assert [s["label"] for s in roles] == [None, "7b", "12 solo", "2026-02-04", "13", "14"]
    assert roles[0]["heading"] == "Notes" and roles[0]["chapter"] == 1
    assert roles[1]["from"] == "the quiet archivist" and roles[4]["kind"] == "repeat"
    (position,) = found["Evolving position"]
    assert position["role"] is None and position["headline"].startswith("the evidence now")
