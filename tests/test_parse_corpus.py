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
