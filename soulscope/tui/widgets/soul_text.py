"""A soul file as lightly styled text in a virtual view: only the visible rows are ever rendered.

Soul files reach thousands of lines; a widget per block (Textual's ``Markdown``) is too slow for
them, so this is a Line API ``ScrollView`` (the approach of toolong): the file is split into lines
once, lines are word-wrapped to the width by offsets (cheap arithmetic on plain strings), and a row
is styled and rendered only when it scrolls into view, with a small cache of styled lines.
The text is the file's own: styles are applied to spans of it, never by interpreting it as markup.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import compress
from operator import gt, or_

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from rich.text import Span, Text
from textual.geometry import Region, Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widget import Widget

from soulscope.controls import visible
from soulscope.soul.format import (
    BULLET,
    heading_label,
    heading_of,
    is_frame_heading,
    loose_label,
    match_label,
)
from soulscope.tui.actions import bindings
from soulscope.tui.file_lines import FileLines
from soulscope.tui.workarounds.scrolling import SteadyBars, set_virtual_size

_TITLE = re.compile(r"^# ")
_SUBHEADING = re.compile(r"^#{3,}")
_COMMENT = re.compile(r"^\s*<!--")
_BULLET = re.compile(r"^\s*[-*+]\s+")
_BOLD = re.compile(r"\*\*[^*\n]+?\*\*")
_REFERENCE = re.compile(r"(?<![\w&])#\d+\b")
_STYLED_CACHE = 512
# The component classes of the view (``soul-text--<name>``), one per kind of styled span.
_STYLE_NAMES = (
    "title",
    "frame",
    "section",
    "subheading",
    "comment",
    "bullet",
    "label",
    "bold",
    "reference",
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


def line_spans(line: str) -> list[tuple[str, int, int]]:
    """The styled spans of one line of a soul file, as (style name, start, end): the structure
    the parser sees (frame headings, sections, labels: ``soul.format``'s rules, so the screen
    never shows a frame or a label the parser does not read), plus light markdown."""
    if _TITLE.match(line):
        return [("title", 0, len(line))]
    heading = heading_of(line)
    if heading is not None:
        return [("frame" if is_frame_heading(heading) else "section", 0, len(line))]
    if _SUBHEADING.match(line):
        # "### Becoming" names a label: its statement is on the lines below
        return [("label" if heading_label(line) else "subheading", 0, len(line))]
    if _COMMENT.match(line):
        return [("comment", 0, len(line))]
    spans: list[tuple[str, int, int]] = []
    bullet = _BULLET.match(line)
    # A label on a bullet at column 0, or one of the entry's labels off it (``loose_label``).
    line_end = line.rstrip("\r")
    label = match_label(line_end) if BULLET.match(line) else loose_label(line_end)
    if bullet:
        spans.append(("bullet", 0, bullet.end()))
    if label:
        spans.append(("label", label.start, label.end))
    spans += [("bold", m.start(), m.end()) for m in _BOLD.finditer(line, label.end if label else 0)]
    spans += [("reference", m.start(), m.end()) for m in _REFERENCE.finditer(line)]
    return spans


def display_lines(pieces: Iterable[str]) -> list[str]:
    """Text decoded for display, given in pieces that end with a newline (but the last), as the
    view's lines, control characters shown: the costly part of showing a big file, which a worker
    can do (a piece at a time) before the view takes the lines."""
    lines: list[str] = []
    for piece in pieces:
        part = visible(piece).split("\n")
        if piece.endswith("\n"):
            part.pop()  # a newline ends a line; what follows it is not a line of its own
        lines += part
    return lines or [""]


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


@dataclass(frozen=True, slots=True)
class LongLines:
    """The lines longer than ``length`` characters: the only ones that can wrap at widths of
    ``2 * length`` and more. The process that loads a big file finds them before it is shown, so
    that laying it out on the UI thread looks at these alone, and decodes only the ones that do
    wrap: each line's index, length and whether it is ASCII (1) or not (0)."""

    length: int
    indices: Sequence[int]
    lengths: Sequence[int]
    plain: bytes


@dataclass(frozen=True, slots=True)
class Rows:
    """How lines wrap at one width. Most lines are one row: only the lines that wrap are listed,
    with where their rows start and their first row; ``extra[k]``: the rows added by wrapped lines
    0..k."""

    width: int
    count: int  # rows in all
    wrapped: list[int]
    starts: list[list[int]]
    first_rows: list[int]
    extra: list[int]

    @classmethod
    def of(cls, lines: Sequence[str], width: int, long: LongLines | None = None) -> Rows:
        wrapped: list[int] = []
        all_starts: list[list[int]] = []
        first_rows: list[int] = []
        extra: list[int] = []
        added = 0
        # A line that surely fits (no character is wider than two cells) is one row: most lines
        # of a soul file are, and a 20 MB file has hundreds of thousands of them, so only the
        # longer ones are looked at (picked out at C speed).
        half = width // 2
        if long is not None and long.length <= half:
            # Longer than the width, or than half of it with characters that may be wide.
            lengths = long.lengths
            wrap = map(
                or_, map(width.__lt__, lengths), map(gt, map(half.__lt__, lengths), long.plain)
            )
            candidates = compress(long.indices, wrap)
        elif isinstance(lines, FileLines):  # (each line decoded when asked: look at its size)
            candidates = lines.longer_than(half)
        else:
            candidates = compress(range(len(lines)), map(half.__lt__, map(len, lines)))
        for i in candidates:
            line = lines[i]
            if len(line) <= width and line.isascii():
                continue
            starts = wrap_offsets(line, width, hanging_indent(line, width))
            if len(starts) > 1:
                wrapped.append(i)
                all_starts.append(starts)
                first_rows.append(i + added)
                added += len(starts) - 1
                extra.append(added)
        return cls(width, len(lines) + added, wrapped, all_starts, first_rows, extra)

    def line_row(self, index: int) -> int:
        """The first row of line ``index`` (0-based)."""
        k = bisect_left(self.wrapped, index)
        return index + (self.extra[k - 1] if k else 0)

    def place(self, row: int) -> tuple[int, int, int | None]:
        """Row ``row``'s line index and the offsets in that line where the row starts and ends."""
        k = bisect_right(self.first_rows, row) - 1
        if k < 0:
            return row, 0, None
        starts = self.starts[k]
        j = row - self.first_rows[k]
        if j < len(starts):
            return self.wrapped[k], starts[j], starts[j + 1] if j + 1 < len(starts) else None
        return row - self.extra[k], 0, None


_NO_ROWS = Rows(-1, 0, [], [], [], [])


def focus_styled(widget: Widget) -> bool:
    """Whether a rule of the app's stylesheet that may apply to ``widget`` (or to one of its
    component classes) depends on the focus."""
    rules = widget.app.stylesheet.rules_map
    names = widget._selector_names | {f".{name}" for name in widget.COMPONENT_CLASSES}
    return any(
        "focus" in rule.pseudo_classes for name in rules.keys() & names for rule in rules[name]
    )


class SoulText(SteadyBars, ScrollView, can_focus=True):
    """Scrollable, word-wrapped, styled view of a soul file's text."""

    # j/k and g/G come from the app (they act on whichever view is focused).
    BINDINGS = bindings("soul", only=["soul.page_down", "soul.page_up"])

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
        self._lines: Sequence[str] = []
        self._rows = _NO_ROWS
        self._long: LongLines | None = None  # found by whoever cut the lines
        self._layout_height = -1
        self._last_width = -1
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
        self.set_lines(display_lines([text]))

    def set_lines(
        self, lines: Sequence[str], long: LongLines | None = None, keep_place: bool = False
    ) -> None:
        """Show lines that ``display_lines`` cut, or ``FileLines`` (``long``: their long lines),
        scrolled to the top, or with the same line at the top (``keep_place``: more of a text)."""
        self._lines = lines
        self._styled.clear()
        self._painted.clear()
        self._rows, self._long = _NO_ROWS, long
        self._relayout()  # (it keeps the top line)
        if not keep_place:
            self.scroll_to(0, 0, animate=False, immediate=True)
        self._report_top(force=True)
        self.refresh()

    @property
    def layout_width(self) -> int:
        """The width the lines were last wrapped to (-1: not yet)."""
        return self._last_width

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
        if self._rows is _NO_ROWS:
            # Hidden (the tab is being shown): the layout, when it comes, keeps this line on top.
            self._top_line = index + 1
            self.post_message(self.TopLineChanged(self, index + 1))
            return
        self.scroll_to(y=self._rows.line_row(index), animate=False, immediate=True)
        self._report_top()

    # -- layout ------------------------------------------------------------------------------
    def _wrap_width(self) -> int:
        return max(self.scrollable_content_region.width, 10)

    def _relayout(self) -> None:
        if not self.scrollable_content_region.width:
            return  # hidden (another tab is shown): laid out when it is shown, at its width
        width = self._wrap_width()
        height = self.scrollable_content_region.height
        if width == self._rows.width and height == self._layout_height:
            return
        top = self._top_line
        lines = self._lines
        self._rows = Rows.of(lines, width, self._long)
        self._painted.clear()
        self._last_width = width
        self._layout_height = height
        # Room below the last line, so that any line (a frame heading near the end) can be put at
        # the top of the view, as editors allow scrolling past the end.
        set_virtual_size(self, Size(width, self._rows.count + max(height - 1, 0)))
        if lines:
            # Keep the same file line at the top when the width changes.
            self.scroll_to(
                y=self._rows.line_row(min(top, len(lines)) - 1), animate=False, immediate=True
            )

    def action_scroll_end(self, again: bool = True) -> None:
        """The last page: the last line at the bottom (not at the top, as scrolling past the end allows)."""
        self._relayout()
        height = self.scrollable_content_region.height
        if not height or self._rows is _NO_ROWS:
            # Shown by the key before this one and not laid out yet: once it is.
            if again:
                self.call_after_refresh(self.action_scroll_end, False)
            return
        self.scroll_to(y=max(self._rows.count - height, 0), animate=False, immediate=True)

    def on_resize(self) -> None:
        self._relayout()
        self.refresh()

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        self._report_top()

    def _report_top(self, force: bool = False) -> None:
        row = int(self.scroll_y)
        line = self._rows.place(row)[0] + 1 if 0 <= row < self._rows.count else 1
        if force or line != self._top_line:
            self._top_line = line
            self.post_message(self.TopLineChanged(self, line))

    # -- rendering ---------------------------------------------------------------------------
    def watch_has_focus(self, has_focus: bool) -> None:
        # Textual restyles a widget whenever it gains or loses the focus: every rule is set again
        # and its scrollbars repaint (a tenth of a tab switch), though no rule may depend on it.
        if focus_styled(self):
            super().watch_has_focus(has_focus)

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
        for name, start, end in line_spans(line):
            text.stylize(self._style(name), start, end)
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
        if row >= self._rows.count:
            return Strip.blank(width, base)
        index, start, end = self._rows.place(row)
        piece = slice_text(self.styled_line(index), start, end)
        if start:
            piece = Text(" " * hanging_indent(self._lines[index], self._rows.width)) + piece
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
