"""Every real soul file parses, round-trips byte for byte, and yields the frames and arcs it holds."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from soulscope.soul.parse import parse
from soulscope.soul.trajectory import arc
from tests.support.paths import CORPUS, corpus_dir

# Listed at collection; where the corpus is absent, the one case left skips (fails under CI).
FILES = sorted(CORPUS.glob("*/memory/*.md")) + sorted(CORPUS.glob("rappterbook/strays/*.md"))
FILES = FILES or [CORPUS / "rappterbook" / "memory"]
FRAME_RE = re.compile(rb"(?m)^## Frame\b")
BECOMING_RE = re.compile(rb"(?m)^- (?:\*\*)?Becoming\b")


@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.name}/{p.name[:40]}")
def test_real_file_round_trips_and_counts(path: Path) -> None:
    data = corpus_dir(*path.relative_to(CORPUS).parts).read_bytes()
    soul = parse(data, agent_id=path.stem)
    assert soul.render() == data
    assert len(soul.frames) == len(FRAME_RE.findall(data))
    becoming = sum(len(b.get("Becoming")) for b in soul.blocks)
    assert becoming == len(BECOMING_RE.findall(data))


def test_later_era_counts_match_the_corpus_readme(later_world: Path) -> None:
    expected = {"zion-coder-06": (25, 29), "zion-coder-09": (18, 19), "zion-reviewer-01": (6, 3)}
    for agent, (frames, becoming) in expected.items():
        soul = parse((later_world / "memory" / f"{agent}.md").read_bytes(), agent)
        assert len(soul.frames) == frames
        assert len(arc(soul)) == becoming


def test_early_era_arc_falls_back_to_evolving_position(early_world: Path) -> None:
    soul = parse((early_world / "memory" / "zion-debater-06.md").read_bytes())
    statements = arc(soul)
    data = (early_world / "memory" / "zion-debater-06.md").read_bytes()
    assert statements, "the early era has Evolving position statements"
    assert len(statements) == len(re.findall(rb"(?m)^- (?:\*\*)?Evolving position\b", data))


def test_duplicates_and_time_reversals_are_exposed(early_world: Path, later_world: Path) -> None:
    later = parse((later_world / "memory" / "zion-coder-06.md").read_bytes())
    dup_numbers = [f.number for f in later.duplicates]
    assert 237 in dup_numbers and dup_numbers.count(237) == 4  # frame 237 was written five times
    assert any(p.kind == "duplicate" for p in later.problems)
    reversed_files = 0
    for path in sorted((early_world / "memory").glob("*.md")):
        soul = parse(path.read_bytes())
        if soul.time_reversals:
            reversed_files += 1
            assert all(
                any(p.line == f.line and p.kind == "time" for p in soul.problems)
                for f in soul.time_reversals
            )
    assert reversed_files > 50


def test_strays_parse_without_raising(strays: Path) -> None:
    for path in strays.glob("*.md"):
        soul = parse(path.read_bytes())
        assert soul.render() == path.read_bytes()


# Forms next to the one read in one match: each must read as the general reading reads it.
NEAR_PLAIN = [
    "Frame 3 — 2026-01-01 (03:05 UTC)",
    "Frame 3 — 2026-01-01",
    "Frame 007 — 2026-01-01 (23:59 UTC)",
    "Frame 123456 — 2026-13-45 (25:99 UTC)",
    "Frame 1234567 — 2026-01-01",
    "Frame 3 — 2026-01-01 (3:05 UTC)",
    "Frame 3 — 2026-01-01 (03:05:09 UTC)",
    "Frame 3 — 2026-01-01 (03:05 UTC+05:30)",
    "Frame 3 — 2026-01-01 (03:05 utc)",
    "Frame 3 — 2026-01-01 (03:05 UTC) seed note",
    "Frame 3 — 2026-01-01 03:05 UTC",
    "Frame 3 — 2026-01-01T03:05:00Z",
    "Frame 3 – 2026-01-01 (03:05 UTC)",
    "Frame 3 -- 2026-01-01",
    "Frame 3a — 2026-01-01",
    "Frame 3 solo — 2026-01-01 (07:00 UTC)",
    "Frame  3 — 2026-01-01",
    "Frame 3 —  2026-01-01",
    "Frame 3 — March 14, 2026 (03:05 UTC)",
    "Frame 2026 — 2026-01-01",
    "Frame — 2026-01-01 (03:05 UTC)",
    "Frame 3",
    "Frame 3 — 2026-01-01 (03:05 UTC-05:00)",
    "Frame 3 — 2026-01-01 (03:05 UTC)\u200f",
    "Frame 3 — 2026-01-01 (03:05 UTC)\t",
    "Frame 3\u00a0— 2026-01-01",
    "Frames 3 — 2026-01-01",
    "frame 3 — 2026-01-01",
    "Frame_3 — 2026-01-01",
    "Frame 3 — 2026-01-01 (03:05 UTC) [bold]x[/]",
]


def test_the_plain_heading_reads_as_any_heading() -> None:
    from soulscope.soul.format import BLOCK, is_frame_heading
    from soulscope.soul.model import clean
    from soulscope.soul.parse import _frame_heading, _heading_key, parse_heading, read_heading

    headings = list(NEAR_PLAIN)
    for path in FILES:
        if path.is_file():
            data = path.read_bytes()
            for m in BLOCK.finditer(data):
                line = data[m.end() : data.find(b"\n", m.end())]
                headings.append(line.decode("utf-8", "replace").strip())
    for heading in headings:
        assert parse_heading(heading) == read_heading(heading), heading
        number, suffix, date, time, title = read_heading(heading)
        read = (number, suffix, date, time, clean(title), _heading_key(heading))
        assert _frame_heading(heading) == (read if is_frame_heading(heading) else None), heading
