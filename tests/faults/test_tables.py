"""CLI tables piped or at 80 columns: no column dropped to nothing, no cell lost."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.faults.conftest import Run
from tests.support.simworld import make_world


@pytest.fixture
def long_world(tmp_path: Path) -> Path:
    root = make_world(tmp_path / "w", agents=2)
    soul = root / "memory" / "zion-coder-01.md"
    text = soul.read_text().replace(
        "# Coder 1", "# Coder 1, keeper of the very long names of things"
    )
    soul.write_text(
        text
        + "\n## Frame 2026-03-15 (19:20 UTC) — the longest heading a writer ever gave a frame\n"
        + "- Becoming: the keeper of long names. From a short name to a long one.\n"
    )
    return root


def column_texts(out: str) -> list[str]:
    """Each column's cells, every line of them joined without spaces (folded cells whole)."""
    lines = [line.strip("│").split("│") for line in out.splitlines() if line.startswith("│")]
    return ["".join("".join(cells[i].split()) for cells in lines) for i in range(len(lines[0]))]


def header_cells(out: str) -> list[str]:
    line = next(line for line in out.splitlines() if line.startswith("┃"))
    return [c.strip() for c in line.strip("┃").split("┃")]


@pytest.mark.parametrize("columns", [None, "80", "70"])
def test_agents_keeps_every_column_and_cell(
    long_world: Path, soulscope: Run, monkeypatch: pytest.MonkeyPatch, columns: str | None
) -> None:
    if columns:
        monkeypatch.setenv("COLUMNS", columns)
    code, out, err = soulscope("agents", "-w", str(long_world))
    assert code == 0, err
    assert header_cells(out) == ["id", "name", "frames", "becoming", "KB", "last frame", "problems"]
    if columns:
        assert max(len(line) for line in out.splitlines()) <= int(columns)
    code, listed, _ = soulscope("agents", "-w", str(long_world), "--json")
    texts = column_texts(out)
    for row in json.loads(listed):
        for i, key in ((0, "id"), (1, "name"), (2, "frames"), (5, "last_frame")):
            assert "".join(str(row[key] or "").split()) in texts[i], (key, out)


def test_overview_and_becoming_keep_every_column_at_80(
    long_world: Path, soulscope: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    code, out, err = soulscope("overview", "-w", str(long_world))
    assert header_cells(out) == ["id", "frames", "shifts", "turns", "last", "becoming"]
    code, out, err = soulscope("becoming", "zion-coder-01", "-w", str(long_world))
    heads = header_cells(out)
    assert heads == ["#", "frame", "when", "kind", "drift", "turn", "chapter", "role", "statement"]
    statement = column_texts(out)[heads.index("statement")]
    assert "thekeeperoflongnames.Fromashortnametoalongone." in statement


def test_a_long_line_piped_stays_one_line(tmp_path: Path, soulscope: Run) -> None:
    root = make_world(tmp_path / ("a-world-whose-path-is-long-" * 4), agents=1)
    junk = root / "memory" / ("not an agent id, " * 5 + ".md")
    junk.write_text("junk\n")
    code, out, err = soulscope("agents", "-w", str(root))
    assert code == 0, err
    assert f"skipped {junk}: " in out
