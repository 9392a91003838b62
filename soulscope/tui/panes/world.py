"""The World tab: every agent's latest Becoming, shifts, drift, frames and last activity."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import RenderableType
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.renderables.sparkline import Sparkline
from textual.widgets import DataTable
from textual.widgets.data_table import ColumnKey

from soulscope.controls import visible
from soulscope.soul.trajectory import ArcSummary
from soulscope.tui.actions import BY_ID, bindings
from soulscope.tui.panes.base import Pane
from soulscope.tui.widgets.sliced import SlicedFill
from soulscope.tui.widgets.status_line import StatusLine
from soulscope.tui.widgets.table import Table

# The table's columns: key and title. Numbers and dates sort the most (the latest) first.
COLUMNS = (
    ("agent", "Agent"),
    ("frames", "Frames"),
    ("shifts", "Shifts"),
    ("drift", "Drift"),
    ("last", "Last activity"),
    ("posts", "Posts/comments"),
    ("latest", "Latest Becoming"),
)
COLUMN_KEYS = tuple(key for key, _ in COLUMNS)
DESCENDING = {"frames", "shifts", "drift", "last", "posts"}
DRIFT_WIDTH = 12


def drift_line(drift: tuple[float, ...]) -> RenderableType:
    """An agent's shift magnitudes over time as a sparkline (the first statement has none)."""
    if len(drift) < 2:
        return Text("—")
    return Sparkline(list(drift[1:]), width=min(DRIFT_WIDTH, len(drift) - 1))


class WorldPane(Pane):
    """Filled progressively by the world-parsing worker; enter selects that agent; ``s`` sorts by
    the next column and ``S`` reverses (a click on a header sorts by it)."""

    BINDINGS = bindings("world")

    TAB_ID = "world"
    TAB_TITLE = "World"
    MAIN = "#world-table"

    def __init__(self) -> None:
        super().__init__(id="world-pane")
        self._rows: set[str] = set()  # agents in the table or waiting to be added
        self._added: set[str] = set()  # agents in the table
        self._filling: SlicedFill[str] | None = None
        # Summaries not in the table yet: a hidden tab takes them when it is shown, so that a
        # growing table does not lay out the whole screen again while the user is elsewhere.
        self._pending: dict[str, ArcSummary] = {}
        self._summaries: dict[str, ArcSummary] = {}  # the rows' values, for sorting
        self._sort: tuple[str, bool] | None = None  # (column key, reverse) chosen by the user
        # Posts and comments by agent, from the world's community store (None: not read yet).
        self._activity: dict[str, tuple[int, int]] = {}
        self._activity_read = False

    def compose(self) -> ComposeResult:
        yield StatusLine(id="world-status")
        table: Table[Text] = Table(id="world-table", cursor_type="row", zebra_stripes=True)
        for key, title in COLUMNS:
            # Two cells to spare for the sort mark, so that marking a column never re-lays the table.
            table.add_column(Text(f"{title}  "), key=key)
        yield table

    @property
    def table(self) -> DataTable[Text]:
        return self.query_one("#world-table", DataTable)

    def summaries_changed(self, summaries: Sequence[ArcSummary]) -> None:
        self._pending.update((s.agent_id, s) for s in summaries)
        if self.region.area:
            self._apply_pending()

    def on_show(self) -> None:
        if not self._activity_read:
            self._activity_read = True
            self.count_activity()
        self._apply_pending()

    @work(thread=True, group="world-activity", exit_on_error=False)
    def count_activity(self) -> None:
        """Posts and comments per agent, where the world keeps a community store."""
        from soulscope.sim.community import COMMUNITY_DIR, Community

        root = self.app.world.root
        if not (root / COMMUNITY_DIR).is_dir():
            return
        try:
            activity = Community.load(root).activity
        except OSError:
            return
        self.app.call_from_thread(self._show_activity, activity)

    def _show_activity(self, activity: dict[str, tuple[int, int]]) -> None:
        self._activity = activity
        for agent_id in self._added:  # rows still waiting are added with their counts
            self.table.update_cell(agent_id, "posts", self._activity_cell(agent_id))

    def _activity_cell(self, agent_id: str) -> Text:
        counts = self._activity.get(agent_id)
        return Text(f"{counts[0]} / {counts[1]}" if counts else "—", justify="right")

    def _apply_pending(self) -> None:
        table = self.table
        pending, self._pending = self._pending, {}
        self._summaries.update(pending)
        new = []
        for s in pending.values():
            if s.agent_id in self._rows:
                if s.agent_id in self._added:
                    for key, cell in zip(COLUMN_KEYS, self._cells(s), strict=True):
                        table.update_cell(s.agent_id, key, cell)
                # else: still waiting to be added; it is added with its newest summary
            else:
                self._rows.add(s.agent_id)
                new.append(s.agent_id)
        if self._filling is None or self._filling.finished:
            # Thousands of new rows go in slices, so that keys are answered meanwhile.
            self._filling = SlicedFill(self, new, self._add_row, self._filled)
        else:
            self._filling.extend(new)
        if not new and self._sort is not None and pending:
            self._apply_sort()

    def _cells(self, s: ArcSummary) -> tuple[Text, ...]:
        return (
            Text(s.agent_id),
            Text(str(s.frames), justify="right"),
            Text(str(s.shifts), justify="right"),
            drift_line(s.drift),
            Text(s.last_date or "—"),
            self._activity_cell(s.agent_id),
            Text(visible(s.latest.role) if s.latest else "—"),
        )

    def _add_row(self, agent_id: str) -> None:
        self.table.add_row(*self._cells(self._summaries[agent_id]), key=agent_id)
        self._added.add(agent_id)

    def _filled(self) -> None:
        if self._sort is not None:
            self._apply_sort()

    def on_data_table_header_selected(self, event: DataTable.HeaderSelected) -> None:
        """A click on a column's header sorts by it; a second click reverses the order."""
        event.stop()
        column = str(event.column_key.value)
        if self._sort is not None and self._sort[0] == column:
            self._sort = (column, not self._sort[1])
        else:
            self._sort = (column, column in DESCENDING)
        self._apply_sort()

    def action_sort_next(self) -> None:
        """Sort by the column after the one sorted by now (the first when none is)."""
        keys = [key for key, _ in COLUMNS]
        now = keys.index(self._sort[0]) if self._sort is not None else -1
        column = keys[(now + 1) % len(keys)]
        self._sort = (column, column in DESCENDING)
        self._apply_sort()

    def action_sort_reverse(self) -> None:
        column, reverse = self._sort or ("agent", False)
        self._sort = (column, not reverse)
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
                "posts": sum(self._activity.get(s.agent_id, (0, 0))),
                "latest": s.latest.role.lower() if s.latest else "",
            }[column]

        # Sorts are stable: ordering by id first keeps ties in id order, either direction.
        table = self.table
        table.sort("agent", key=lambda cell: cell.plain)
        table.sort("agent", key=value, reverse=reverse)
        for key, title in COLUMNS:
            mark = ("▼" if reverse else "▲") if key == column else " "
            table.columns[ColumnKey(key)].label = Text(f"{title} {mark}")
        table.refresh()

    def show_progress(self, done: int, total: int) -> None:
        """The status line above the table: how far the world's parsing is."""
        status = self.query_one("#world-status", StatusLine)
        if done < total:
            status.show(Text(f"parsing the world… {done}/{total} agents"))
        else:
            keys = " / ".join(self.app.keys_of(BY_ID["world.sort"]))
            status.show(
                Text(f"{total} agents  (enter selects one · {keys} or a click on a header sorts)")
            )

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        if event.row_key.value is not None:
            self.app.select_agent(event.row_key.value)
