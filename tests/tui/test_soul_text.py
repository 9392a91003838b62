"""Word wrapping of the Soul view: rows cover every character once, within the width."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from rich.cells import cell_len

from soulscope.tui.widgets.soul_text import hanging_indent, wrap_offsets


def rows(line: str, width: int, indent: int) -> list[str]:
    starts = wrap_offsets(line, width, indent)
    return [line[a:b] for a, b in zip(starts, [*starts[1:], len(line)], strict=True)]


def test_wraps_after_spaces_with_a_hanging_indent() -> None:
    line = "- Becoming: the interface declarer. From integration declarer to one signature."
    indent = hanging_indent(line, 30)
    assert indent == 2
    assert rows(line, 30, indent) == [
        "- Becoming: the interface ",
        "declarer. From integration ",
        "declarer to one signature.",
    ]


def test_wide_characters_are_measured_in_cells() -> None:
    line = "- Voted: 👍 lazy 👎 naive 🚀 bridge 👍 more 👍 words here"
    for row in rows(line, 16, 2)[1:]:
        assert cell_len(row) <= 14


@given(
    st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cc", "Cs"))),
    st.integers(4, 60),
)
def test_rows_cover_the_line_exactly_and_fit(line: str, width: int) -> None:
    indent = hanging_indent(line, width)
    parts = rows(line, width, indent)
    assert "".join(parts) == line
    for i, part in enumerate(parts):
        room = width if i == 0 else width - indent
        # The space a row breaks after may hang past the edge (it is not drawn); a single
        # character wider than the room still gets a row of its own.
        drawn = part[:-1] if part.endswith(" ") else part
        assert (part or line == "") and (cell_len(drawn) <= room or len(part) == 1)
