"""A soul file as lightly styled text in a virtual view: only the visible rows are ever rendered.

Soul files reach thousands of lines; a widget per block (Textual's ``Markdown``) is too slow for
them, so this is a Line API ``ScrollView`` (the approach of toolong): the file is split into lines
once, lines are word-wrapped to the width by offsets (cheap arithmetic on plain strings), and a row
is styled and rendered only when it scrolls into view, with a small cache of styled lines.
The text is the file's own: styles are applied to spans of it, never by interpreting it as markup.
"""

from __future__ import annotations

import re
from collections import OrderedDict

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from rich.text import Span, Text
from textual.geometry import Region, Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from soulscope.controls import visible
from soulscope.tui.actions import bindings
from soulscope.tui.widgets.scrolling import set_virtual_size

_TITLE = re.compile(r"^# ")
_FRAME = re.compile(r"^##\s*Frame\b", re.I)
_SECTION = re.compile(r"^##")
_SUBHEADING = re.compile(r"^#{3,}")
_COMMENT = re.compile(r"^\s*<!--")
_BULLET = re.compile(r"^(\s*[-*+]\s+)")
# "- Becoming: ..." or "- **Becoming:** ..." (label up to 40 characters, no sentence inside)
_LABEL = re.compile(
    r"^(\s*[-*+]\s+)(\*\*[^*:\n]{1,40}:\*\*|\*\*[^*:\n]{1,40}\*\*:|[A-Za-z][\w ()'/-]{0,39}:)(?=\s|$)"
)
_BOLD = re.compile(r"\*\*[^*\n]+?\*\*")
_REFERENCE = re.compile(r"(?<![\w&])#\d+\b")
_STYLED_CACHE = 512
# The component classes of the view (``soul-text--<name>``), one per kind of styled span.
_STYLE_NAMES = (
    "title", "frame", "section", "subheading", "comment", "bullet", "label", "bold", "reference"
)
# Characters one cell wide, from the blocks soul files are written in (Latin, Greek, Cyrillic,
# punctuation such as dashes and quotes, arrows, box drawing), as Rich measures them.
_SINGLE_CELLS = frozenset(
    ch
    for first, last in (
        (0x20, 0x7E),
        (0xA0, 0x2FF),
        (0x370, 0x482),
        (0x2000, 0x206F),
        (0x2190, 0x21FF),
        (0x2500, 0x25FF),
    )
    for ch in map(chr, range(first, last + 1))
    if cell_len(ch) == 1
)


def slice_text(text: Text, start: int, end: int | None) -> Text:
    """``text[start:end]`` with its spans: cheaper than Rich's slicing, which divides the whole line."""
    stop = len(text) if end is None else end
    piece = Text(text.plain[start:stop], no_wrap=True, end="")
    piece.spans[:] = [
        Span(max(span.start, start) - start, min(span.end, stop) - start, span.style)
        for span in text.spans
        if span.end > start and span.start < stop
    ]
    return piece


def hanging_indent(line: str, width: int) -> int:
    """How far the wrapped rows of a bullet are indented: under its text, not under its dash."""
    m = _BULLET.match(line)
    return min(m.end(), width // 3) if m else 0


def wrap_offsets(line: str, width: int, indent: int = 0) -> list[int]:
    """Where each wrapped row of ``line`` starts, breaking after spaces (hard breaks for long words).

    Rows after the first are ``indent`` cells narrower (they are drawn indented).
    """
    width = max(width, 1)
    rest = max(width - indent, 1)
    starts = [0]
    # One cell per character (ASCII, accents, dashes, quotes, arrows): offsets are cells.
    if _SINGLE_CELLS.issuperset(line):
        start, room = 0, width
        while len(line) - start > room:
            cut = line.rfind(" ", start, start + room + 1)
            cut = start + room if cut <= start else cut + 1
            if cut >= len(line):
                break  # only a space hangs past the edge: it is not worth a row of its own
            starts.append(cut)
            start, room = cut, rest
        return starts
    # Wide or combining characters: measure cells as we go.
    start = 0
    room = width
    used = 0
    last_space = -1
    for i, ch in enumerate(line):
        w = cell_len(ch)
        # Break after the last space; when the word alone is still too long, break it too.
        while used + w > room and i > start:
            cut = last_space + 1 if last_space >= start else i
            starts.append(cut)
            start = cut
            used = cell_len(line[start:i])
            room = rest
            last_space = -1
        used += w
        if ch == " ":
            last_space = i
    return starts


class SoulText(ScrollView, can_focus=True):
    """Scrollable, word-wrapped, styled view of a soul file's text."""

    # j/k and g/G come from the app (they act on whichever view is focused).
    BINDINGS = bindings("soul")

    COMPONENT_CLASSES = {f"soul-text--{name}" for name in _STYLE_NAMES}

    class TopLineChanged(Message):
        """The first visible line changed (1-based file line)."""

        def __init__(self, view: SoulText, line: int) -> None:
            super().__init__()
            self.view = view
            self.line = line

        @property
        def control(self) -> SoulText:
            return self.view

    def __init__(
        self, *, name: str | None = None, id: str | None = None, classes: str | None = None
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self._lines: list[str] = []
        self._row_line: list[int] = []  # row -> line index
        self._row_start: list[int] = []  # row -> offset in its line
        self._line_row: list[int] = []  # line index -> its first row
        self._layout_width = -1
        self._layout_height = -1
        self._styled: OrderedDict[int, Text] = OrderedDict()
        # Rows as painted, so that a row painted once (stepping back, the tab shown again after
        # focus moved) costs nothing; and the widget's base style, which Textual computes slowly.
        self._painted: OrderedDict[int, Strip] = OrderedDict()
        self._base: Style | None = None  # None: to be read again (the styles were updated)
        self._width = 0  # of the rows, as of the paint under way
        self._look: tuple[Style, ...] = ()  # every style the rows were painted with
        self._top_line = 1

    # -- content -----------------------------------------------------------------------------
    def set_text(self, text: str) -> None:
        """Show ``text`` (already decoded for display), scrolled to the top."""
        self._lines = visible(text).split("\n")
        if len(self._lines) > 1 and self._lines[-1] == "":
            self._lines.pop()  # a final newline ends the last line; it is not a line of its own
        self._styled.clear()
        self._painted.clear()
        self._layout_width = -1
        self._relayout()
        self.scroll_to(0, 0, animate=False, immediate=True)
        self._report_top(force=True)
        self.refresh()

    @property
    def line_count(self) -> int:
        return len(self._lines)

    @property
    def top_line(self) -> int:
        """The file line (1-based) at the top of the view."""
        return self._top_line

    def scroll_to_line(self, line: int) -> None:
        """Put file line ``line`` (1-based) at the top of the view."""
        if not self._lines:
            return
        self._relayout()
        index = min(max(line, 1), len(self._lines)) - 1
        self.scroll_to(y=self._line_row[index], animate=False, immediate=True)
        self._report_top()

    # -- layout ------------------------------------------------------------------------------
    def _wrap_width(self) -> int:
        return max(self.scrollable_content_region.width, 10)

    def _relayout(self) -> None:
        width = self._wrap_width()
        if (
            width == self._layout_width
            and self.scrollable_content_region.height == self._layout_height
        ):
            return
        top = self._top_line
        row_line: list[int] = []
        row_start: list[int] = []
        line_row: list[int] = []
        # A line that surely fits (no character is wider than two cells) is one row: most lines of
        # a soul file are, and a 20 MB file has hundreds of thousands of them.
        half = width // 2
        for i, line in enumerate(self._lines):
            line_row.append(len(row_line))
            n = len(line)
            if n <= half or (n <= width and line.isascii()):
                row_line.append(i)
                row_start.append(0)
                continue
            for start in wrap_offsets(line, width, hanging_indent(line, width)):
                row_line.append(i)
                row_start.append(start)
        self._row_line, self._row_start, self._line_row = row_line, row_start, line_row
        self._painted.clear()
        self._layout_width = width
        self._layout_height = self.scrollable_content_region.height
        # Room below the last line, so that any line (a frame heading near the end) can be put at
        # the top of the view, as editors allow scrolling past the end.
        set_virtual_size(self, Size(width, len(row_line) + max(self._layout_height - 1, 0)))
        if self._lines:
            # Keep the same file line at the top when the width changes.
            self.scroll_to(
                y=line_row[min(top, len(self._lines)) - 1], animate=False, immediate=True
            )

    def action_scroll_end(self) -> None:
        """The last page: the last line at the bottom (not at the top, as scrolling past the end allows)."""
        height = self.scrollable_content_region.height
        self.scroll_to(y=max(len(self._row_line) - height, 0), animate=False, immediate=True)

    def on_resize(self) -> None:
        self._relayout()
        self.refresh()

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        self._report_top()

    def _report_top(self, force: bool = False) -> None:
        row = int(self.scroll_y)
        line = self._row_line[row] + 1 if 0 <= row < len(self._row_line) else 1
        if force or line != self._top_line:
            self._top_line = line
            self.post_message(self.TopLineChanged(self, line))

    # -- rendering ---------------------------------------------------------------------------
    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._base = None  # focus moved or the theme changed: read the styles at the next paint

    def _check_look(self) -> Style:
        """The base style; the rows painted are forgotten only when a style really changed (focus
        moving to or from the view updates its styles but changes none of its colours)."""
        if self._base is None:
            self._base = self.rich_style
            look = (self._base, *(self._style(name) for name in _STYLE_NAMES))
            if look != self._look:
                self._look = look
                self._styled.clear()
                self._painted.clear()
        return self._base

    def _style(self, name: str) -> Style:
        return self.get_component_rich_style(f"soul-text--{name}", partial=True)

    def styled_line(self, index: int) -> Text:
        """Line ``index`` (0-based) with its light markdown styling."""
        cached = self._styled.get(index)
        if cached is not None:
            self._styled.move_to_end(index)
            return cached
        line = self._lines[index]
        text = Text(line, no_wrap=True, end="")
        if _TITLE.match(line):
            text.stylize(self._style("title"))
        elif _FRAME.match(line):
            text.stylize(self._style("frame"))
        elif _SECTION.match(line):
            text.stylize(self._style("section"))
        elif _SUBHEADING.match(line):
            text.stylize(self._style("subheading"))
        elif _COMMENT.match(line):
            text.stylize(self._style("comment"))
        else:
            label = _LABEL.match(line)
            bullet = label or _BULLET.match(line)
            if bullet:
                text.stylize(self._style("bullet"), 0, bullet.end(1))
            if label:
                text.stylize(self._style("label"), label.start(2), label.end(2))
            for m in _BOLD.finditer(line, label.end(2) if label else 0):
                text.stylize(self._style("bold"), m.start(), m.end())
            for m in _REFERENCE.finditer(line):
                text.stylize(self._style("reference"), m.start(), m.end())
        self._styled[index] = text
        if len(self._styled) > _STYLED_CACHE:
            self._styled.popitem(last=False)
        return text

    def _prepare(self) -> None:
        """Once per paint, not per row: the layout, the styles, the width."""
        self._relayout()
        self._check_look()
        self._width = self.scrollable_content_region.width

    def render_lines(self, crop: Region) -> list[Strip]:
        self._prepare()
        return super().render_lines(crop)

    def render_line(self, y: int) -> Strip:
        row = y + int(self.scroll_y)
        painted = self._painted.get(row)
        if painted is None:
            painted = self._paint_row(row)
            self._painted[row] = painted
            if len(self._painted) > _STYLED_CACHE:
                self._painted.popitem(last=False)
        return painted

    def _paint_row(self, row: int) -> Strip:
        width, base = self._width, self._base
        if row >= len(self._row_line):
            return Strip.blank(width, base)
        index = self._row_line[row]
        start = self._row_start[row]
        nxt = row + 1
        end = (
            self._row_start[nxt]
            if nxt < len(self._row_line) and self._row_line[nxt] == index
            else None
        )
        piece = slice_text(self.styled_line(index), start, end)
        if start:
            piece = Text(" " * hanging_indent(self._lines[index], self._layout_width)) + piece
        piece.rstrip_end(width)
        segments = [
            Segment(s.text, base + s.style if s.style else base)
            for s in piece.render(self.app.console)
        ]
        return Strip(segments).crop_extend(0, width, base)

    def visible_rows(self) -> list[str]:
        """The plain text of the rows on screen (for tests and for copying)."""
        self._prepare()
        height = self.scrollable_content_region.height
        return [self.render_line(y).text.rstrip() for y in range(height)]
