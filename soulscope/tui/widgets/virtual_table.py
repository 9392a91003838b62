"""A table of many rows of which only the visible ones are ever rendered: a ``VirtualList`` with
columns and a header.

Textual's ``DataTable`` holds every cell of every row and measures each row as it is added: a
world of 10,000 agents took seconds to show, and every sort moved every row. This table holds keys
only, in the order its owner gives (``set_keys``); a row's cells are asked for when the row is
drawn. Columns are as wide as their title or their widest value (``fit``: the owner reports widths
as values come), the last one takes the room left, and where the room is short long titles give up
cells first, then columns whose values may be cut (``least``), then short titles, so the table
always fits its width; a value cut short ends (or, cut at its start, begins) with an ellipsis. Where
values that are never cut do not fit (a narrow pane), a row stops at the table's edge: the column
there ends with an ellipsis only when a value of it is cut, and the columns after it are left out.
The sort mark follows its column's title, in the cell after it when the title fills the column.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from rich.style import Style
from rich.text import Text
from textual import events
from textual.message import Message
from textual.strip import Strip

from soulscope.controls import visible
from soulscope.tui.widgets.virtual_list import VirtualList

PAD = 1  # blank cells on each side of a value (the right one holds a full title's sort mark)
SHORT_TITLE = 8  # a title this short is cut only when long ones cannot give more
NARROWEST = 4  # a column is never cut below this (three cells of its title and an ellipsis)
LAST_AT_LEAST = 18  # the last column keeps this much room before it cuts itself short


@dataclass(frozen=True)
class Column:
    key: str
    title: str
    justify: Literal["left", "right"] = "left"
    # Cells its values may be cut to where the room is short (None: never below the widest), and
    # which end of a value gives way ("start" keeps the newest end of a sparkline).
    least: int | None = None
    cut: Literal["start", "end"] = "end"


# The cells of the row of a key, one per column.
RowCells = Callable[[str], Sequence[Text]]


def _narrowed(widths: list[int], least: list[int], short: int) -> int:
    """Take up to ``short`` cells off ``widths``, each from the column with the most above its
    ``least``; returns the cells still missing."""
    while short > 0:
        i = max(range(len(widths)), key=lambda i: widths[i] - least[i])
        if widths[i] <= least[i]:
            break
        widths[i] -= 1
        short -= 1
    return short


def _joined(parts: list[Text], width: int) -> Text:
    """The columns' texts side by side, up to the one at the edge of ``width`` cells: that one is
    cut there, with an ellipsis only when more than its padding is cut."""
    line = Text(no_wrap=True, end="")
    for part in parts:
        room = width - line.cell_len
        if part.cell_len > room:
            part.rstrip()
            part.truncate(max(room, 0), overflow="ellipsis")
            line.append_text(part)
            break
        line.append_text(part)
    return line


class VirtualTable(VirtualList):
    """Rows of cells under a header; a click on a column's title posts ``HeaderSelected``."""

    COMPONENT_CLASSES = VirtualList.COMPONENT_CLASSES | {
        "virtual-table--header",
        "virtual-table--even-row",
    }

    header_height = 1

    class HeaderSelected(Message):
        """The title of column ``column`` (its key) was clicked."""

        def __init__(self, table: VirtualTable, column: str) -> None:
            super().__init__()
            self.table = table
            self.column = column

        @property
        def control(self) -> VirtualTable:
            return self.table

    def __init__(
        self, columns: Sequence[Column], cells: RowCells, *, id: str | None = None
    ) -> None:
        super().__init__(self._row, id=id)
        self._cells = cells
        self._mark: tuple[str, bool] | None = None
        # The band of each row (an arc's chapter): rows are striped band by band, not one by one.
        self.band: Callable[[int], int] | None = None
        self.set_columns(columns)

    # -- columns -------------------------------------------------------------------------------
    def set_columns(self, columns: Sequence[Column]) -> None:
        """Show these columns (their widths start again from their titles)."""
        self.columns = tuple(columns)
        self._widest = {c.key: 0 for c in self.columns}  # the widest value of each column
        self._widths: tuple[int, list[int]] | None = None  # (table width, column widths)
        self.forget()

    def fit(self, column: str, width: int) -> None:
        """Column ``column`` holds a value ``width`` cells wide (a column never narrows)."""
        if width > self._widest[column]:
            self._widest[column] = width
            self._widths = None
            self.forget()

    def mark(self, column: str, reverse: bool) -> None:
        """Show the rows as sorted by ``column`` (▲ ascending, ▼ with ``reverse``)."""
        self._mark = (column, reverse)
        self.refresh()

    @property
    def marked(self) -> tuple[str, bool] | None:
        return self._mark

    def column_widths(self, width: int) -> list[int]:
        """Each column's width (without its padding) in a table ``width`` cells wide."""
        if self._widths is None or self._widths[0] != width:
            self._widths = (width, self._fitted(width))
        return self._widths[1]

    def _fitted(self, width: int) -> list[int]:
        *first, last = self.columns
        widths = [max(len(c.title), self._widest[c.key]) for c in first]
        last_wants = max(len(last.title), self._widest[last.key])
        room = width - 2 * PAD * len(self.columns)
        short = sum(widths) + min(last_wants, LAST_AT_LEAST) - room
        # Long titles give way first (values that may be cut, too), then those values down to
        # their least, short titles only when that is not enough; other values never (the last
        # column takes what is left).
        values = [self._widest[c.key] if c.least is None else c.least for c in first]
        for least in (
            [max(v, SHORT_TITLE) for v in values],
            [
                w if c.least is None else max(v, NARROWEST)
                for c, v, w in zip(first, values, widths, strict=True)
            ],
            [max(v, NARROWEST) for v in values],
        ):
            short = _narrowed(
                widths, [min(w, n) for w, n in zip(widths, least, strict=True)], short
            )
        return [*widths, max(room - sum(widths), 0)]

    def column_at(self, x: int) -> str | None:
        """The key of the column under content column ``x``."""
        edge = 0
        widths = self.column_widths(self.scrollable_content_region.width)
        for column, w in zip(self.columns, widths, strict=True):
            edge += w + 2 * PAD
            if x < edge:
                return column.key
        return None

    # -- rendering -----------------------------------------------------------------------------
    def _line(self, cells: Sequence[Text], width: int) -> Text:
        parts = []
        pad = " " * PAD
        for column, w, cell in zip(self.columns, self.column_widths(width), cells, strict=True):
            cell = visible(cell)
            if column.cut == "start" and cell.cell_len > w:
                while cell.cell_len > max(w - 1, 0):
                    cell = cell[1:]
                cell = Text("…")[:w] + cell
            cell.truncate(w, overflow="ellipsis")
            cell.align(column.justify, w)
            parts.append(Text(pad) + cell + Text(pad))
        return _joined(parts, width)

    def _row(self, key: str, width: int) -> Text:
        return self._line(self._cells(key), width)

    def render_header(self, y: int, width: int) -> Strip:
        parts = []
        for column, w in zip(self.columns, self.column_widths(width), strict=True):
            title = Text(column.title)
            title.truncate(w, overflow="ellipsis")
            if self._mark is not None and self._mark[0] == column.key:
                title.append("▼" if self._mark[1] else "▲")
            # Titles are left-aligned over every column, as in a DataTable.
            cell = Text(" " * PAD) + title
            cell.align("left", w + 2 * PAD)
            parts.append(cell)
        return self.text_strip(_joined(parts, width), width, self.style_of("virtual-table--header"))

    def row_style(self, row: int) -> Style:
        stripe = row if self.band is None else self.band(row)
        return self.style_of("virtual-table--even-row" if stripe % 2 == 0 else None)

    def header_clicked(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        column = self.column_at(offset.x) if offset is not None else None
        if column is not None:
            self.post_message(self.HeaderSelected(self, column))
