"""A list of many one-line rows of which only the visible ones are ever rendered.

Textual's ``OptionList`` measures every option whenever the options change, which costs a tenth of a
second per few hundred agents, and the agent list changes as each batch of the world is parsed. This
list keeps only keys; a row's text is asked for when the row scrolls into view, so refilling,
re-sorting or recounting hundreds of agents costs a repaint of the visible rows.
"""

from __future__ import annotations

from collections.abc import Callable

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.geometry import Region, Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from soulscope.controls import visible

# A row's text for a key, at a width (so that it can align a right-hand part).
RowLabel = Callable[[str, int], Text]


class VirtualList(ScrollView, can_focus=True):
    """Keys shown one per line through ``label``; a cursor row; enter or a click selects."""

    BINDINGS = [
        Binding("up", "cursor_up", "Up", show=False, id="list.up"),
        Binding("down", "cursor_down", "Down", show=False, id="list.down"),
        Binding("pageup", "page_up", "Page up", show=False, id="list.page_up"),
        Binding("pagedown", "page_down", "Page down", show=False, id="list.page_down"),
        Binding("home", "first", "First", show=False, id="list.first"),
        Binding("end", "last", "Last", show=False, id="list.last"),
        Binding("enter", "select", "Open", show=False, id="list.select"),
    ]

    COMPONENT_CLASSES = {"virtual-list--cursor"}

    class Highlighted(Message):
        """The cursor moved to ``key``."""

        def __init__(self, virtual_list: VirtualList, key: str) -> None:
            super().__init__()
            self.virtual_list = virtual_list
            self.key = key

        @property
        def control(self) -> VirtualList:
            return self.virtual_list

    class Selected(Message):
        """``key`` was chosen (enter, or a click)."""

        def __init__(self, virtual_list: VirtualList, key: str) -> None:
            super().__init__()
            self.virtual_list = virtual_list
            self.key = key

        @property
        def control(self) -> VirtualList:
            return self.virtual_list

    def __init__(self, label: RowLabel, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._label = label
        self._keys: list[str] = []
        self._index: dict[str, int] = {}
        self._cursor = -1
        # Read once per paint (_prepare): the row width and the plain and cursor styles.
        self._width = 0
        self._base = self._cursor_style = Style()

    # -- contents ----------------------------------------------------------------------------
    @property
    def keys(self) -> list[str]:
        return list(self._keys)

    @property
    def highlighted(self) -> str | None:
        """The key under the cursor."""
        return self._keys[self._cursor] if 0 <= self._cursor < len(self._keys) else None

    def set_keys(self, keys: list[str]) -> None:
        """Show these keys, in this order; the cursor stays on its key when it is still there."""
        current = self.highlighted
        self._keys = list(keys)
        self._index = {k: i for i, k in enumerate(self._keys)}
        self._cursor = self._index.get(current, 0) if self._keys else -1
        self.virtual_size = Size(self.scrollable_content_region.width, len(self._keys))
        self._scroll_cursor_visible()
        self.refresh()

    def move_to(self, key: str, announce: bool = False) -> bool:
        """Put the cursor on ``key`` (False when it is not shown)."""
        index = self._index.get(key)
        if index is None:
            return False
        self._move(index, announce)
        return True

    def visible_rows(self) -> list[str]:
        """The plain text of the rows on screen."""
        self._prepare()
        return [
            self.render_line(y).text.rstrip() for y in range(self.scrollable_content_region.height)
        ]

    # -- cursor ------------------------------------------------------------------------------
    def _move(self, index: int, announce: bool = True) -> None:
        if not self._keys:
            return
        index = min(max(index, 0), len(self._keys) - 1)
        if index != self._cursor:
            # The two rows that changed; scrolling (below) repaints the rest when needed.
            if self._cursor >= 0:
                self.refresh_line(self._cursor)
            self.refresh_line(index)
            self._cursor = index
            if announce:
                self.post_message(self.Highlighted(self, self._keys[index]))
        self._scroll_cursor_visible()

    def _scroll_cursor_visible(self) -> None:
        if self._cursor >= 0:
            self.scroll_to_region(
                Region(0, self._cursor, 1, 1), animate=False, immediate=True, force=True
            )

    def action_cursor_up(self) -> None:
        self._move(self._cursor - 1)

    def action_cursor_down(self) -> None:
        self._move(self._cursor + 1)

    def action_page_up(self) -> None:
        self._move(self._cursor - max(self.scrollable_content_region.height - 1, 1))

    def action_page_down(self) -> None:
        self._move(self._cursor + max(self.scrollable_content_region.height - 1, 1))

    def action_first(self) -> None:
        self._move(0)

    def action_last(self) -> None:
        self._move(len(self._keys) - 1)

    def action_select(self) -> None:
        key = self.highlighted
        if key is not None:
            self.post_message(self.Selected(self, key))

    def on_click(self, event: events.Click) -> None:
        row = event.y + int(self.scroll_y)
        if 0 <= row < len(self._keys):
            self._move(row)
            self.post_message(self.Selected(self, self._keys[row]))

    def on_focus(self) -> None:
        self.refresh()  # the cursor row is drawn differently with the focus

    def on_blur(self) -> None:
        self.refresh()

    # -- rendering ---------------------------------------------------------------------------
    def _prepare(self) -> None:
        """Once per paint, not per row: Textual computes a widget's style slowly."""
        self._width = self.scrollable_content_region.width
        self._base = self.rich_style
        self._cursor_style = self._base + self.get_component_rich_style("virtual-list--cursor")

    def render_lines(self, crop: Region) -> list[Strip]:
        self._prepare()
        return super().render_lines(crop)

    def render_line(self, y: int) -> Strip:
        row = y + int(self.scroll_y)
        width, base = self._width, self._base
        if not 0 <= row < len(self._keys):
            return Strip.blank(width, base)
        text = visible(self._label(self._keys[row], width))
        text.truncate(width, overflow="ellipsis")
        style = self._cursor_style if row == self._cursor else base
        segments = [
            Segment(s.text, style + s.style if s.style else style)
            for s in text.render(self.app.console)
        ]
        return Strip(segments).crop_extend(0, width, style)
