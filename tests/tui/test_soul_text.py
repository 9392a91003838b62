"""The Soul view: word wrapping (rows cover every character once, within the width), and its
focus styling."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from rich.cells import cell_len
from textual.app import App, ComposeResult
from textual.widgets import Input

from soulscope.tui.widgets.soul_text import SoulText, hanging_indent, wrap_offsets


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


class FocusStyledApp(App[None]):
    """A stylesheet that colours the focused view's frames: the focus still restyles it."""

    CSS = "SoulText:focus > .soul-text--frame { color: red; }"

    def compose(self) -> ComposeResult:
        yield SoulText()
        yield Input()


async def test_a_focus_rule_in_the_stylesheet_still_applies_to_the_view() -> None:
    app = FocusStyledApp()
    async with app.run_test() as pilot:
        view = app.query_one(SoulText)
        view.set_text("# Frame 1\n\nbody\n")
        app.query_one(Input).focus()
        await pilot.pause()
        blurred = view.get_component_rich_style("soul-text--frame", partial=True)
        view.focus()
        await pilot.pause()
        focused = view.get_component_rich_style("soul-text--frame", partial=True)
        assert focused.color is not None and focused.color.name == "#ff0000"
        assert blurred.color is None or blurred.color.name != "#ff0000"
