"""Markdown that grows as an answer streams, at a cost per word that does not grow with the answer.

Textual's ``Markdown`` is a widget per block, and every layout of the screen visits every widget
and measures every block of a document whose height changed: appending to one long ``Markdown``
costs the length of the answer each time (the square of it over the answer), and the keys pressed
meanwhile (Esc) wait behind the layout. ``StreamedMarkdown`` holds the document in segments, each
a ``Markdown`` of about ``SEGMENT_BLOCKS`` blocks. Text goes to the last segment only; once that
one has more blocks, its finished blocks stay (the segment is sealed) and the block still growing
moves into a new segment. A sealed segment's height is then fixed, so it is never measured again,
and while it is far from the scrolled view its blocks are hidden, so the layout does not visit
them: what the screen lays out is the last segment and what is in view, however long the answer.

It shows what one ``Markdown`` shows: ``Markdown.append`` never parses a block again once a block
after it began, so the segments hold the same blocks; a segment ends only before a block with no
margin above it (a paragraph), so the gaps between blocks are the same too.
"""

from __future__ import annotations

import asyncio
import re

from textual.app import ComposeResult
from textual.containers import ScrollableContainer
from textual.events import Resize
from textual.geometry import Size
from textual.widget import Widget
from textual.widgets import Markdown

SEGMENT_BLOCKS = 16
# Line breaks other than "\n" (and "\r\n"): str.splitlines counts them, the Markdown parser does
# not, so a segment holding one is never cut.
_OTHER_BREAKS = re.compile(r"\r(?!\n)|[\x0b\x0c\x1c-\x1e\x85\u2028\u2029]")


class StreamedMarkdown(Widget):
    """A Markdown document that is appended to, shown in segments."""

    DEFAULT_CSS = """
    StreamedMarkdown {
        height: auto;
        layout: vertical;
    }
    """

    def __init__(self, *, classes: str | None = None) -> None:
        super().__init__(classes=classes)
        self._sealed: list[str] = []  # the source of each segment but the last
        self._fixed: dict[Markdown, bool] = {}  # a sealed segment of fixed height: blocks shown?
        self._width = 0  # the width the fixed heights were measured at
        self._lock = asyncio.Lock()

    def compose(self) -> ComposeResult:
        yield Markdown()

    def on_mount(self) -> None:
        scroller = next((a for a in self.ancestors if isinstance(a, ScrollableContainer)), None)
        if scroller is not None:
            self.watch(scroller, "scroll_y", self._scrolled, init=False)

    @property
    def segments(self) -> list[Markdown]:
        return list(self.query_children(Markdown))

    @property
    def source(self) -> str:
        """The whole document."""
        return "".join(self._sealed) + self.segments[-1].source

    async def append(self, markdown: str) -> None:
        """Add ``markdown`` at the end of the document."""
        async with self._lock:
            await self.segments[-1].append(markdown)
            await self._seal()

    async def update(self, markdown: str) -> None:
        """Show ``markdown`` instead (in one segment: a text that comes whole lays out once)."""
        async with self._lock:
            segment = Markdown()
            with self.app.batch_update():
                await self.remove_children()
                self._sealed.clear()
                self._fixed.clear()
                await self.mount(segment)
                await segment.append(markdown)

    async def _seal(self) -> None:
        """Seal the last segment once it has enough blocks; the block still growing starts the
        next segment."""
        last = self.segments[-1]
        blocks = list(last.children)
        if len(blocks) <= SEGMENT_BLOCKS or blocks[-1].styles.margin.top:
            return  # (a gap above the growing block would not merge with the one below the last)
        source = last.source
        growing = blocks[-1]
        start = getattr(growing, "source_range", (0, 0))[0]
        lines = source.splitlines(keepends=True)
        if _OTHER_BREAKS.search(source) or not 0 < start < len(lines):
            return
        segment = Markdown()
        with self.app.batch_update():
            await growing.remove()
            self._sealed.append("".join(lines[:start]))
            await self.mount(segment)
            # (appended, not updated: after ``Markdown.update`` an append parses again from the
            # last line only, which splits a table or a list that is still growing)
            await segment.append("".join(lines[start:]))
        self._fix(last)
        self.call_after_refresh(self._in_view)

    # -- the sealed segments: fixed heights, blocks hidden far from the view ---------------------
    def _fix(self, segment: Markdown) -> None:
        """Fix the height of a sealed segment, as the layout would measure it at this width."""
        width = self.size.width
        if not width:
            return  # not laid out yet (a hidden tab): fixed on the first resize
        gutter = segment.styles.gutter
        size = Size(width, 0)
        height = segment.get_content_height(size, size, width - gutter.width) + gutter.height
        segment.styles.height = height
        self._fixed[segment] = True

    def _scrolled(self) -> None:
        # (once the screen is laid out at the new offset: the segments' places are known then)
        self.call_after_refresh(self._in_view)

    def _in_view(self) -> None:
        """Show the blocks of the sealed segments within a screen of the view, hide the others."""
        scroller = next((a for a in self.ancestors if isinstance(a, ScrollableContainer)), None)
        if scroller is None:
            return
        view = scroller.content_region
        top, bottom = view.y - view.height, view.bottom + view.height
        for segment, shown in self._fixed.items():
            region = segment.region
            near = not region or (region.y < bottom and region.bottom > top)
            if near != shown:
                self._fixed[segment] = near
                for block in segment.children:
                    block.display = near

    def on_resize(self, event: Resize) -> None:
        if event.size.width == self._width:
            return
        # Another width: the segments wrap anew, measured with all their blocks shown.
        self._width = event.size.width
        for segment in self.segments[:-1]:
            for block in segment.children:
                block.display = True
            self._fix(segment)
        self.call_after_refresh(self._in_view)
