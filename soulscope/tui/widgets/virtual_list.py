"""A list of many one-line rows of which only the visible ones are ever rendered.

Textual's ``OptionList`` measures every option whenever the options change, which costs a tenth of a
second per few hundred agents, and the agent list changes as each batch of the world is parsed. This
list keeps only keys; a row's text is asked for when the row scrolls into view, so refilling,
re-sorting or recounting hundreds of agents costs a repaint of the visible rows, and a row drawn
before is drawn again only when its owner says its text changed (``forget``). A subclass may keep
lines fixed above the rows (``header_height``, ``render_header``: a table's header).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.geometry import Region, Size, Spacing
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from soulscope.controls import visible
from soulscope.tui.workarounds.scrolling import SteadyBars, set_virtual_size

# A row's text for a key, at a width (so that it can align a right-hand part).
RowLabel = Callable[[str, int], Text]

MAX_DRAWN = 2000  # rows kept as drawn; scrolling through more starts the store again

_POSITIONS: list[str] = []


def positions(count: int) -> list[str]:
    """The keys ``"0"`` to ``str(count - 1)``, for rows known by their position (made once)."""
    if len(_POSITIONS) < count:
        _POSITIONS.extend(map(str, range(len(_POSITIONS), count)))
    return _POSITIONS[:count]


class VirtualList(SteadyBars, ScrollView, can_focus=True):
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

    header_height = 0  # lines fixed above the rows, drawn by ``render_header``

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
        self._key_rows: dict[str, int] | None = {}  # key -> row, made when first asked for
        self._cursor = -1
        self._styles: dict[str, Style] = {}  # for the lines of one render (see ``style_of``)
        # Rows as last drawn, with the width and style they were drawn at: a repaint redraws only
        # the rows whose text changed (``forget``), moved under the cursor, or changed style.
        self._drawn: dict[str, tuple[tuple[int, Style], Strip]] = {}

    # -- contents ----------------------------------------------------------------------------
    @property
    def keys(self) -> list[str]:
        return list(self._keys)

    @property
    def highlighted(self) -> str | None:
        """The key under the cursor."""
        return self._keys[self._cursor] if 0 <= self._cursor < len(self._keys) else None

    def set_keys(self, keys: list[str]) -> None:
        """Show these keys, in this order; the cursor stays on its key when it is still there.

        Rows added below the screen (a list growing as a world is parsed) repaint nothing but the
        scrollbar."""
        current = self.highlighted
        before = self._on_screen(), self._cursor - int(self.scroll_y)
        self._keys = list(keys)
        self._key_rows = None  # made when asked for (tens of ms for 70,000 keys)
        self._cursor = self._row_of(current) or 0 if self._keys else -1
        set_virtual_size(
            self, Size(self.scrollable_content_region.width, len(self._keys) + self.header_height)
        )
        self._scroll_cursor_visible()
        if (self._on_screen(), self._cursor - int(self.scroll_y)) != before:
            self.refresh()

    @property
    def _index(self) -> dict[str, int]:
        if self._key_rows is None:
            self._key_rows = {k: i for i, k in enumerate(self._keys)}
        return self._key_rows

    def _row_of(self, key: str | None) -> int | None:
        """The row of ``key``; found without the index while none is made (a scan at C speed)."""
        if key is None:
            return None
        if self._key_rows is not None:
            return self._key_rows.get(key)
        try:
            return self._keys.index(key)
        except ValueError:
            return None

    def _on_screen(self) -> list[str]:
        """The keys of the rows on screen now."""
        first = int(self.scroll_y)
        return self._keys[first : first + self.scrollable_content_region.height]

    def forget(self, keys: Iterable[str] | None = None) -> None:
        """The text of these rows (of every row: None) changed; those on screen are drawn again."""
        if keys is None:
            self._drawn.clear()
            self.refresh()
            return
        first = int(self.scroll_y)
        last = first + self.scrollable_content_region.height
        for key in keys:
            self._drawn.pop(key, None)
            row = self._index.get(key)
            if row is not None and first <= row < last:
                self.refresh_line(row + self.header_height)

    @property
    def cursor_row(self) -> int:
        """The row of the cursor (-1 while there are no rows)."""
        return self._cursor

    @property
    def row_count(self) -> int:
        return len(self._keys)

    def move_cursor(self, row: int, announce: bool = True) -> None:
        """Put the cursor on row ``row`` (the nearest row there is), scrolled into view;
        ``Highlighted`` is posted when it moved and ``announce`` is set."""
        self._move(row, announce)

    def move_to(self, key: str, announce: bool = False) -> bool:
        """Put the cursor on ``key`` (False when it is not shown)."""
        index = self._index.get(key)
        if index is None:
            return False
        self._move(index, announce)
        return True

    def visible_rows(self) -> list[str]:
        """The plain text of the rows on screen."""
        return [
            self.render_line(y).text.rstrip() for y in range(self.scrollable_content_region.height)
        ]

    # -- cursor ------------------------------------------------------------------------------
    def _move(self, index: int, announce: bool = True) -> None:
        if not self._keys:
            return
        index = min(max(index, 0), len(self._keys) - 1)
        if index != self._cursor:
            # The two rows that changed (below the header); scrolling (below) repaints the rest
            # when needed.
            if self._cursor >= 0:
                self.refresh_line(self._cursor + self.header_height)
            self.refresh_line(index + self.header_height)
            self._cursor = index
            if announce:
                self.post_message(self.Highlighted(self, self._keys[index]))
        self._scroll_cursor_visible()

    def _scroll_cursor_visible(self) -> None:
        if self._cursor >= 0:
            header = self.header_height
            self.scroll_to_region(
                Region(0, self._cursor + header, 1, 1),
                spacing=Spacing(top=header),
                animate=False,
                immediate=True,
                force=True,
            )

    @property
    def _page(self) -> int:
        return max(self.scrollable_content_region.height - self.header_height - 1, 1)

    def action_cursor_up(self) -> None:
        self._move(self._cursor - 1)

    def action_cursor_down(self) -> None:
        self._move(self._cursor + 1)

    def action_page_up(self) -> None:
        self._move(self._cursor - self._page)

    def action_page_down(self) -> None:
        self._move(self._cursor + self._page)

    def action_first(self) -> None:
        self._move(0)

    def action_last(self) -> None:
        self._move(len(self._keys) - 1)

    def action_select(self) -> None:
        key = self.highlighted
        if key is not None:
            self.post_message(self.Selected(self, key))

    def on_click(self, event: events.Click) -> None:
        if event.y < self.header_height:
            self.header_clicked(event)
            return
        row = event.y - self.header_height + int(self.scroll_y)
        if 0 <= row < len(self._keys):
            self._move(row)
            self.post_message(self.Selected(self, self._keys[row]))

    def header_clicked(self, event: events.Click) -> None:
        """A click on the lines above the rows (a subclass with a header acts on it)."""

    def on_focus(self) -> None:
        self.refresh()  # the cursor row is drawn differently with the focus

    def on_blur(self) -> None:
        self.refresh()

    # -- rendering ---------------------------------------------------------------------------
    def render_lines(self, crop: Region) -> list[Strip]:
        self._styles.clear()  # the styles may have changed since the last render (focus, theme)
        return super().render_lines(crop)

    def style_of(self, component: str | None = None) -> Style:
        """The widget's style, with ``component``'s over it, computed once per render: computing
        one walks every ancestor, and was a fifth of a repaint when asked for every line."""
        style = self._styles.get(component or "")
        if style is None:
            style = self.rich_style
            if component is not None:
                style += self.get_component_rich_style(component)
            self._styles[component or ""] = style
        return style

    def render_header(self, y: int, width: int) -> Strip:
        """Line ``y`` of the lines above the rows (``header_height`` of them)."""
        return Strip.blank(width, self.style_of())

    def row_style(self, row: int) -> Style:
        """The style of row number ``row`` under its text (a subclass may stripe them)."""
        return self.style_of()

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        if y < self.header_height:
            return self.render_header(y, width)
        row = y - self.header_height + int(self.scroll_y)
        if not 0 <= row < len(self._keys):
            return Strip.blank(width, self.style_of())
        style = self.row_style(row)
        if row == self._cursor:
            style = style + self.style_of("virtual-list--cursor")
        key = self._keys[row]
        drawn = self._drawn.get(key)
        if drawn is not None and drawn[0] == (width, style):
            return drawn[1]
        strip = self.text_strip(self._label(key, width), width, style)
        if len(self._drawn) >= MAX_DRAWN:
            self._drawn.clear()
        self._drawn[key] = ((width, style), strip)
        return strip

    def text_strip(self, text: Text, width: int, style: Style) -> Strip:
        """A line of ``text`` over ``style``, cut to ``width`` with an ellipsis (controls shown)."""
        text = visible(text)
        text.truncate(width, overflow="ellipsis")
        segments = [
            Segment(s.text, style + s.style if s.style else style)
            for s in text.render(self.app.console)
        ]
        return Strip(segments).crop_extend(0, width, style)
