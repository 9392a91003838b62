"""The World tab: every agent's latest Becoming, shifts, drift, frames and last activity."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import RenderableType
from rich.text import Text
from textual.app import ComposeResult
from textual.renderables.sparkline import Sparkline
from textual.widgets import DataTable

from soulscope.soul.trajectory import ArcSummary
from soulscope.tui.panes.base import Pane
from soulscope.tui.widgets.status_line import StatusLine


DRIFT_WIDTH = 12


def drift_line(drift: tuple[float, ...]) -> RenderableType:
    """An agent's shift magnitudes over time as a sparkline (the first statement has none)."""
    if len(drift) < 2:
        return Text("—")
    return Sparkline(list(drift[1:]), width=min(DRIFT_WIDTH, len(drift) - 1))


class WorldPane(Pane):
    """Filled progressively by the world-parsing worker; enter selects that agent."""

    TAB_ID = "world"
    TAB_TITLE = "World"
    TAB_KEY = "3"

    def __init__(self) -> None:
        super().__init__(id="world-pane")
        self._rows: set[str] = set()
        # Summaries not in the table yet: a hidden tab takes them when it is shown, so that a
        # growing table does not lay out the whole screen again while the user is elsewhere.
        self._pending: dict[str, ArcSummary] = {}
        self._summaries: dict[str, ArcSummary] = {}  # the rows' values, for sorting
        self._sort: tuple[str, bool] | None = None  # (column key, reverse) chosen by the user

    def compose(self) -> ComposeResult:
        yield StatusLine(id="world-status")
        table: DataTable[Text] = DataTable(id="world-table", cursor_type="row", zebra_stripes=True)
        table.add_column("Agent", key="agent")
        table.add_column("Frames", key="frames")
        table.add_column("Shifts", key="shifts")
        table.add_column("Drift", key="drift")
        table.add_column("Last activity", key="last")
        table.add_column("Latest Becoming", key="latest")
        yield table

    @property
    def table(self) -> DataTable[Text]:
        return self.query_one("#world-table", DataTable)

    def summaries_changed(self, summaries: Sequence[ArcSummary]) -> None:
        self._pending.update((s.agent_id, s) for s in summaries)
        if self.region.area:
            self._apply_pending()

    def on_show(self) -> None:
        self._apply_pending()

    def _apply_pending(self) -> None:
        table = self.table
        pending, self._pending = self._pending, {}
        self._summaries.update(pending)
        for s in pending.values():
            cells = (
                Text(s.agent_id),
                Text(str(s.frames), justify="right"),
                Text(str(s.shifts), justify="right"),
                drift_line(s.drift),
                Text(s.last_date or "—"),
                Text(s.latest.role if s.latest else "—"),
            )
            if s.agent_id in self._rows:
                for key, cell in zip(
                    ("agent", "frames", "shifts", "drift", "last", "latest"), cells, strict=True
                ):
                    table.update_cell(s.agent_id, key, cell)
            else:
                self._rows.add(s.agent_id)
                table.add_row(*cells, key=s.agent_id)
        if self._sort is not None and pending:
            self._apply_sort()

    def on_data_table_header_selected(self, event: DataTable.HeaderSelected) -> None:
        """A click on a column's header sorts by it; a second click reverses the order."""
        event.stop()
        column = str(event.column_key.value)
        if self._sort is not None and self._sort[0] == column:
            self._sort = (column, not self._sort[1])
        else:
            # Numbers and dates: the most (the latest) first; text: alphabetical.
            self._sort = (column, column in ("frames", "shifts", "drift", "last"))
        self._apply_sort()

    def _apply_sort(self) -> None:
        if self._sort is None:
            return
        column, reverse = self._sort
        summaries = self._summaries

        def value(agent_cell: Text) -> str | int:
            s = summaries[agent_cell.plain]
            return {
                "agent": s.agent_id,
                "frames": s.frames,
                "shifts": s.shifts,
                "drift": sum(s.drift) / len(s.drift) if s.drift else 0.0,
                "last": s.last_date or "",
                "latest": s.latest.role.lower() if s.latest else "",
            }[column]

        # Sorts are stable: ordering by id first keeps ties in id order, either direction.
        table = self.table
        table.sort("agent", key=lambda cell: cell.plain)
        table.sort("agent", key=value, reverse=reverse)

    def show_progress(self, done: int, total: int) -> None:
        """The status line above the table: how far the world's parsing is."""
        status = self.query_one("#world-status", StatusLine)
        if done < total:
            status.show(Text(f"parsing the world… {done}/{total} agents"))
        else:
            status.show(Text(f"{total} agents  (enter selects one · a click on a header sorts)"))

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        if event.row_key.value is not None:
            self.app.select_agent(event.row_key.value)
