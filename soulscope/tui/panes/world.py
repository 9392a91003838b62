"""The World tab: every agent's latest Becoming, shifts, turning points, drift, frames and last
activity.

A world may hold 10,000 agents: the table draws only the rows on screen (``VirtualTable``) and this
pane keeps their order. A batch from the world-parsing worker is placed into that order (each new
row inserted where the sort puts it) instead of sorting every row again.
"""

from __future__ import annotations

from bisect import insort
from collections.abc import Callable, Sequence

from rich.console import Console
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.renderables.sparkline import Sparkline

from soulscope.controls import visible
from soulscope.soul.chapters import TURN_MARK
from soulscope.soul.trajectory import ArcSummary
from soulscope.tui.actions import BY_ID, bindings
from soulscope.tui.panes.base import Pane
from soulscope.tui.widgets.status_line import StatusLine
from soulscope.tui.widgets.virtual_list import VirtualList
from soulscope.tui.widgets.virtual_table import Column, VirtualTable

# The table's columns. Numbers and dates sort the most (the latest) first.
COLUMNS = (
    Column("agent", "Agent"),
    Column("frames", "Frames", "right"),
    Column("shifts", "Shifts", "right"),
    Column("turns", TURN_MARK, "right"),  # turning points: where the arc really moved
    Column("drift", "Drift", least=len("Drift"), cut="start"),  # the latest statements stay
    Column("last", "Last activity"),
    Column("posts", "Posts/comments", "right"),
    Column("latest", "Latest Becoming"),
)
COLUMN_KEYS = tuple(c.key for c in COLUMNS)
DESCENDING = {"frames", "shifts", "turns", "drift", "last", "posts"}
DRIFT_WIDTH = 12
# A batch of more rows than this share of the table is sorted in with them, not inserted one by one.
INSERT_SHARE = 0.25


def drift_line(drift: tuple[float, ...], console: Console) -> Text:
    """An agent's shift magnitudes over time as a sparkline (the first statement has none)."""
    if len(drift) < 2:
        return Text("—")
    sparkline = Sparkline(list(drift[1:]), width=min(DRIFT_WIDTH, len(drift) - 1))
    return Text.assemble(
        *((s.text, s.style or "") for s in console.render(sparkline, console.options))
    )


class Descending:
    """A sort value that orders the other way round (a reversed sort keeps ties in id order)."""

    __slots__ = ("value",)

    def __init__(self, value: str | int | float) -> None:
        self.value = value

    def __lt__(self, other: Descending) -> bool:
        return other.value < self.value  # type: ignore[operator]  # (one column: one kind)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Descending) and self.value == other.value


class WorldPane(Pane):
    """Filled progressively by the world-parsing worker; enter selects that agent; ``s`` sorts by
    the next column and ``S`` reverses (a click on a header sorts by it)."""

    BINDINGS = bindings("world")

    TAB_ID = "world"
    MAIN = "#world-table"

    def __init__(self) -> None:
        super().__init__(id="world-pane")
        self._summaries: dict[str, ArcSummary] = {}  # the rows' values, by agent
        self._order: list[str] = []  # the rows: by arrival, or as sorted
        self._sort: tuple[str, bool] | None = None  # (column key, reverse) chosen by the user
        # Posts and comments by agent, from the world's community store (empty until it is read).
        self._activity: dict[str, tuple[int, int]] = {}
        self._activity_read = False

    def compose(self) -> ComposeResult:
        yield StatusLine(id="world-status")
        table = VirtualTable(COLUMNS, self._cells, id="world-table")
        for column in COLUMNS:
            table.fit(column.key, 1)  # "—"
        yield table

    @property
    def table(self) -> VirtualTable:
        return self.query_one("#world-table", VirtualTable)

    @property
    def rows(self) -> list[str]:
        """The agents of the table, in its order."""
        return list(self._order)

    def on_show(self) -> None:
        if not self._activity_read:
            self._activity_read = True
            self.count_activity()

    @work(thread=True, group="world-activity", exit_on_error=False)
    def count_activity(self) -> None:
        """Posts and comments per agent, where the world keeps a community store."""
        from soulscope.sim.community import COMMUNITY_DIR, Community

        root = self.dashboard.world.root
        if not (root / COMMUNITY_DIR).is_dir():
            return
        try:
            activity = Community.load(root).activity
        except OSError:
            return
        self.dashboard.call_from_thread(self._show_activity, activity)

    def _show_activity(self, activity: dict[str, tuple[int, int]]) -> None:
        self._activity = activity
        table = self.table
        for posts, comments in activity.values():
            table.fit("posts", len(f"{posts} / {comments}"))
        if self._sort is not None and self._sort[0] == "posts":
            self._apply_sort()
        table.forget()

    # -- rows ----------------------------------------------------------------------------------
    def summaries_changed(self, summaries: Sequence[ArcSummary]) -> None:
        table = self.table
        new: list[str] = []
        changed: list[str] = []
        for s in summaries:
            old = self._summaries.get(s.agent_id)
            if old == s:
                continue  # reported again unchanged (a reload reuses the index's rows)
            (new if old is None else changed).append(s.agent_id)
            self._summaries[s.agent_id] = s
        if not new and not changed:
            return
        table.forget(changed)
        rows = [self._summaries[a] for a in new + changed]
        table.fit("agent", max(len(s.agent_id) for s in rows))
        table.fit("frames", len(str(max(s.frames for s in rows))))
        table.fit("shifts", len(str(max(s.shifts for s in rows))))
        table.fit("turns", len(str(max(s.turning_points for s in rows))))
        table.fit("drift", min(DRIFT_WIDTH, max(len(s.drift) for s in rows) - 1))
        table.fit("last", max(len(s.last_date or "—") for s in rows))
        # The last column takes the room left, but keeps what its longest role needs (up to a
        # point) before the other titles are cut.
        table.fit("latest", max(len(s.latest.headline) if s.latest else 1 for s in rows))
        if self._sort is None:
            self._order.extend(new)  # by arrival; a changed row keeps its place
        elif len(new) + len(changed) > INSERT_SHARE * len(self._order):
            self._apply_sort()
            return
        else:
            # Each row into its place: O(rows) per batch, where a sort would compare them all.
            if changed:
                moved = set(changed)
                self._order = [a for a in self._order if a not in moved]
            place = self._place_key()
            for agent_id in new + changed:
                insort(self._order, agent_id, key=place)
        table.set_keys(self._order)

    def _cells(self, agent_id: str) -> tuple[Text, ...]:
        s = self._summaries[agent_id]
        counts = self._activity.get(agent_id)
        return (
            Text(s.agent_id),
            Text(str(s.frames)),
            Text(str(s.shifts)),
            Text(str(s.turning_points)),
            drift_line(s.drift, self.dashboard.console),
            Text(s.last_date or "—"),
            Text(f"{counts[0]} / {counts[1]}" if counts else "—"),
            Text(visible(s.latest.headline) if s.latest else "—"),
        )

    # -- sorting -------------------------------------------------------------------------------
    def _value(self, agent_id: str, column: str) -> str | int | float:
        s = self._summaries[agent_id]
        if column == "agent":
            return s.agent_id
        if column == "frames":
            return s.frames
        if column == "shifts":
            return s.shifts
        if column == "turns":
            return s.turning_points
        if column == "drift":
            return sum(s.drift) / len(s.drift) if s.drift else 0.0
        if column == "last":
            return s.last_date or ""
        if column == "posts":
            return sum(self._activity.get(agent_id, (0, 0)))
        return s.latest.headline.lower() if s.latest else ""

    def _place_key(self) -> Callable[[str], tuple[object, str]]:
        """The key that orders rows as ``_apply_sort`` does: by the value, ties by id."""
        assert self._sort is not None
        column, reverse = self._sort
        value = self._value
        if reverse:
            return lambda a: (Descending(value(a, column)), a)
        return lambda a: (value(a, column), a)

    def on_virtual_table_header_selected(self, event: VirtualTable.HeaderSelected) -> None:
        """A click on a column's header sorts by it; a second click reverses the order."""
        event.stop()
        column = event.column
        if self._sort is not None and self._sort[0] == column:
            self._sort = (column, not self._sort[1])
        else:
            self._sort = (column, column in DESCENDING)
        self._apply_sort()

    def action_sort_next(self) -> None:
        """Sort by the column after the one sorted by now (the first when none is)."""
        now = COLUMN_KEYS.index(self._sort[0]) if self._sort is not None else -1
        column = COLUMN_KEYS[(now + 1) % len(COLUMN_KEYS)]
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
        values = {a: self._value(a, column) for a in self._summaries}
        # Sorts are stable: ordering by id first keeps ties in id order, either direction.
        order = sorted(values)
        order.sort(key=values.__getitem__, reverse=reverse)
        self._order = order
        table = self.table
        table.mark(column, reverse)
        table.set_keys(order)

    # -- status and selection ------------------------------------------------------------------
    def show_progress(self, done: int, total: int) -> None:
        """The status line above the table: how far the world's parsing is."""
        status = self.query_one("#world-status", StatusLine)
        if done < total:
            status.show(Text(f"parsing the world… {done}/{total} agents"))
        else:
            keys = " / ".join(self.dashboard.keys_of(BY_ID["world.sort"]))
            status.show(
                Text(f"{total} agents  (enter selects one · {keys} or a click on a header sorts)")
            )

    def on_virtual_list_selected(self, event: VirtualList.Selected) -> None:
        event.stop()
        self.dashboard.select_agent(event.key)
