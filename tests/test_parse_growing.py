"""A soul parsed again as it grows (``GrowingSoul``) is the soul a whole parse of the same bytes
gives, wherever the file stood before (mid-line, mid-heading, mid-character); an edit that is no
growth is parsed whole."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from soulscope.soul.model import FrameColumns, Soul
from soulscope.soul.parse import GrowingSoul, parse
from tests.support.bigworld import frame_entries, soul_header
from tests.support.paths import CORPUS, corpus_dir

FILES = sorted(CORPUS.glob("*/memory/*.md")) + sorted(CORPUS.glob("rappterbook/strays/*.md"))
FILES = FILES or [CORPUS / "rappterbook" / "memory"]


def facts(soul: Soul) -> dict:
    """Everything a parse yields, frames built."""
    columns = soul.frames.columns
    return {
        "columns": {
            name: list(getattr(columns, name))
            for name in FrameColumns.__slots__
            if name not in ("data", "build")
        },
        "frames": list(soul.frames),
        **{
            name: getattr(soul, name)
            for name in (
                "data",
                "preamble",
                "sections",
                "problems",
                "name",
                "identity",
                "agent_id",
                "section_places",
            )
        },
    }


def grown_as_parsed(data: bytes, cuts: list[int]) -> None:
    growing = GrowingSoul("agent-a")
    for cut in [*sorted(min(c, len(data)) for c in cuts), len(data)]:
        assert facts(growing.parse(data[:cut])) == facts(parse(data[:cut], "agent-a"))


PIECES = [
    "# N\n",
    "## Frame 1 — 2026-01-01\n",
    "## Frame  1 —  2026-01-01\n",  # the same heading, spaced: a duplicate
    "## Frame 0 — 2025-12-31 (10:00 UTC)\n",  # dated before the frame above
    "## Frame\n",
    "## Identity\n- **ID:** agent-b\n",
    "- Becoming: the x. From a to b.\n",
    "- **Relationships:** agent-c (ally)\n",
    "  cont\n",
    "<!-- 3 earlier entries archived -->\n",
    "\n",
    "text\n",
    "\r\n",
    "## ",
    "\udcff\udcfe stray bytes\n",
    "é",
]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(PIECES), max_size=30),
    st.lists(st.integers(min_value=0, max_value=600), max_size=6),
)
def test_a_soul_grown_from_any_cut_is_parsed_as_a_whole_one(parts: list[str], cuts: list[int]):
    grown_as_parsed("".join(parts).encode("utf-8", "surrogateescape"), cuts)


def test_entries_appended_frame_by_frame_are_read_once() -> None:
    header = soul_header("grower", 1)
    growing = GrowingSoul("grower")
    data = header.encode()
    first = growing.parse(data)
    for entry in frame_entries(30, seed=5):
        data += entry.encode()
        soul = growing.parse(data)
        assert facts(soul) == facts(parse(data, "grower"))
    # The header's sections were kept, not read again (but the last, which the first entry ended).
    assert soul.sections == first.sections
    assert all(a is b for a, b in zip(soul.sections[:-1], first.sections[:-1], strict=True))
    assert growing.parse(data) is soul  # nothing new: nothing read


def test_an_edit_that_is_no_growth_is_read_whole() -> None:
    data = (soul_header("grower", 1) + "".join(frame_entries(12, seed=5))).encode()
    growing = GrowingSoul("grower")
    growing.parse(data)
    edited = data.replace(b"Frame 3 ", b"Frame 9 ", 1)  # the same size, in place
    assert len(edited) == len(data)
    assert facts(growing.parse(edited)) == facts(parse(edited, "grower"))
    shorter = edited[: len(edited) // 2]
    assert facts(growing.parse(shorter)) == facts(parse(shorter, "grower"))


@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.name}/{p.name[:40]}")
def test_a_real_soul_grown_from_its_beginnings_is_parsed_as_a_whole_one(path: Path) -> None:
    data = corpus_dir(*path.relative_to(CORPUS).parts).read_bytes()
    size = len(data)
    grown_as_parsed(data, [size // 7, size // 3, size // 2 + 1, size - 2])
