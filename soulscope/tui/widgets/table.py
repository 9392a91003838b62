"""A ``DataTable`` that keeps its painted rows when its tab is shown again.

Textual's ``DataTable`` forgets every row it has rendered when it is shown (the Show comes with a
Resize, even at the same size) and when it gains or loses focus (a style update); at 160x48 painting
the rows again cost more than the rest of a tab switch. Its row caches are already keyed by the
table's focus and hover state, so this one forgets them only when the size or a colour changed.
New rows lay out the table alone, not the whole screen.

While rows are only appended (the arc of a soul, filled in slices), their order and line offsets
grow with them: Textual's table rebuilds both over every row after each change, which at 72,000
rows took about 50 ms per slice and kept tab keys waiting while a big arc filled in.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TypeVar

from rich.style import Style
from rich.text import TextType
from textual import events
from textual.geometry import Region, Size
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import DataTable
from textual.widgets.data_table import Row, RowKey

from soulscope.tui.widgets.scrolling import SteadyBars, bars_stay

CellType = TypeVar("CellType")


class Table(SteadyBars, DataTable[CellType]):
    """A ``DataTable`` whose rows survive a tab switch and a focus change."""

    _appended: list[Row] | None = None  # (DataTable's own start asks for the rows' order)

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._sized: Size | None = None  # the size the rows were rendered at
        self._painted_at: Size | None = None  # the size of the last paint
        self._looks: dict[object, tuple[Style, ...]] = {}  # focus/hover state -> its styles
        self._look_stale = True
        # The rows in order and their lines' offsets, kept while rows are only appended.
        self._appended: list[Row] | None = []
        self._offsets: list[tuple[RowKey, int]] = []

    # -- rows appended: their order and offsets grow with them ---------------------------------
    def add_row(
        self,
        *cells: CellType,
        height: int | None = 1,
        key: str | None = None,
        label: TextType | None = None,
    ) -> RowKey:
        row_key = super().add_row(*cells, height=height, key=key, label=label)
        if self._appended is not None:
            if height is None:  # measured later: its lines are not known yet
                self._appended = None
            else:
                self._appended.append(self.rows[row_key])
                self._offsets.extend((row_key, y) for y in range(height))
        return row_key

    def clear(self, columns: bool = False) -> Table[CellType]:
        super().clear(columns)
        self._appended, self._offsets = [], []
        return self

    def remove_row(self, row_key: RowKey | str) -> None:
        self._appended = None
        super().remove_row(row_key)

    def sort(self, *args, **kwargs) -> Table[CellType]:
        self._appended = None
        super().sort(*args, **kwargs)
        return self

    def _kept(self) -> bool:
        return self._appended is not None and len(self._appended) == self.row_count

    @property
    def ordered_rows(self) -> list[Row]:
        return self._appended if self._kept() else DataTable.ordered_rows.fget(self)  # type: ignore[attr-defined,return-value]

    @property
    def _y_offsets(self) -> list[tuple[RowKey, int]]:
        return self._offsets if self._kept() else DataTable._y_offsets.fget(self)  # type: ignore[attr-defined]

    def _on_resize(self, event: events.Resize) -> None:
        # Textual calls the handler of every class of the MRO; DataTable's forgets the rows. They
        # depend on the table's size alone: new rows (a new virtual size) renew them anyway.
        if event.size in (self._sized, self._painted_at):
            event.prevent_default()
        self._sized = event.size

    def _update_dimensions(self, new_rows: Iterable[RowKey]) -> None:
        # DataTable sets its virtual size for each batch of new rows, and that lays the whole
        # screen out again (tens of milliseconds at 160x48, while 72,000 rows come in slices):
        # only a scrollbar coming or going needs it.
        old, required = self.virtual_size, self._layout_required
        super()._update_dimensions(new_rows)
        # (A hidden table is laid out when it is shown.)
        shown = self.region.area > 0
        new = self.virtual_size
        if shown and not required and self._layout_required and bars_stay(self, old, new):
            self._layout_required = False
            self._scroll_update(new)

    def notify_style_update(self) -> None:
        # Not DataTable's, which forgets every row: read the styles at the next paint instead.
        Widget.notify_style_update(self)
        self._get_styles_to_render_cell.cache_clear()  # not keyed by focus: cheap to redo
        self._look_stale = True
        self.refresh()

    def render_lines(self, crop: Region) -> list[Strip]:
        # The Resize of a first show comes after its first paint, at the size painted.
        self._painted_at = self.size
        if self._look_stale:
            self._look_stale = False
            state = self.get_pseudo_class_state()
            look = (
                self.rich_style,
                *(self.get_component_rich_style(name) for name in sorted(self.COMPONENT_CLASSES)),
            )
            if self._looks.get(state, look) != look:  # a new theme or stylesheet
                self._looks.clear()
                self._clear_caches()
            self._looks[state] = look
        return super().render_lines(crop)
