"""The Log tab: every frame of every agent as one stream, in the frames' own time (``runs.log``).

A frame cursor walks the stream: ``]``/``[`` a frame, ``}``/``{`` a day; enter opens the agent at
that frame. ``f`` follows the world: while a simulation advances it (``soulscope frame`` in
another terminal), new frames are read in as their commits land and the cursor goes to the last.
The log is read in a worker, and a table draws only the rows on screen, so stepping the cursor
costs a repaint of a row or two.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from typing import ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.timer import Timer

from soulscope.controls import visible
from soulscope.runs.log import LogEntry, WorldLog, world_log
from soulscope.tui.actions import bindings
from soulscope.tui.panes.base import Pane
from soulscope.tui.widgets.status_line import StatusLine
from soulscope.tui.widgets.virtual_list import VirtualList, positions
from soulscope.tui.widgets.virtual_table import Column, VirtualTable
from soulscope.world import World

COLUMNS = (
    Column("when", "When (UTC)"),
    Column("agent", "Agent"),
    Column("heading", "Frame"),
    Column("commit", "Commit"),
)
FOLLOW_SECONDS = 1.0  # how often a followed world is looked at


def world_signature(world: World) -> tuple:
    """What changes when a frame lands: the files' sizes and times, and git's HEAD."""
    from soulscope.history.git import HistoryError
    from soulscope.history.timeline import timeline_for

    world.refresh()
    files = tuple((a.path.name, a.size, a.mtime_ns) for a in world.agents())
    try:
        head = timeline_for(world).git.head()
    except HistoryError:
        head = None
    return (files, head)


class LogPane(Pane):
    """The world's frames as one stream with a frame cursor."""

    BINDINGS: ClassVar[list[BindingType]] = [*bindings("log")]

    TAB_ID = "log"
    MAIN = "#log-table"

    def __init__(self) -> None:
        super().__init__(id="log-pane")
        self.entries: list[LogEntry] = []
        self._days: list[str] = []  # each entry's date ("" undated), for the day steps
        self._agents = 0  # agents with a frame in the log
        self._loaded = False
        self._follow: Timer | None = None
        self._signature: tuple | None = None

    def compose(self) -> ComposeResult:
        yield StatusLine(id="log-status")
        yield VirtualTable(COLUMNS, self._cells, id="log-table")

    @property
    def table(self) -> VirtualTable:
        return self.query_one("#log-table", VirtualTable)

    @property
    def world(self) -> World:
        return self.dashboard.world

    @property
    def following(self) -> bool:
        return self._follow is not None

    def on_show(self) -> None:
        if not self._loaded:
            self._loaded = True
            self._status(Text("reading the world's log…"))
            self.read_log()

    # -- reading -----------------------------------------------------------------------------
    @work(thread=True, exclusive=True, group="log", exit_on_error=False)
    def read_log(self, to_end: bool = False) -> None:
        world = self.world
        signature = world_signature(world)
        log = world_log(world)
        self.dashboard.call_from_thread(self._show_log, log, signature, to_end)

    def _show_log(self, log: WorldLog, signature: tuple, to_end: bool) -> None:
        self._signature = signature
        self.entries = log.entries
        self._days = [e.date or "" for e in log.entries]
        self._agents = len({e.agent for e in log.entries})
        table = self.table
        if self.entries:
            table.fit("when", 16)
            table.fit("agent", max(len(e.agent) for e in self.entries))
            table.fit("heading", min(60, max(len(e.heading) for e in self.entries)))
            table.fit("commit", 7 if any(e.commit for e in self.entries) else 1)
        table.forget()
        table.set_keys(positions(len(self.entries)))
        if to_end and self.entries:
            table.move_cursor(len(self.entries) - 1)
        self._show_place()
        for problem in log.unreadable:
            self.dashboard.notify(f"skipped: {problem}", severity="warning")

    def _cells(self, key: str) -> tuple[Text, ...]:
        e = self.entries[int(key)]
        when = f"{e.date or 'undated'} {e.time or ''}".rstrip()
        return (
            Text(when),
            Text(e.agent),
            Text(visible(e.heading)),
            Text(e.commit[:7] if e.commit else "—"),
        )

    # -- the cursor --------------------------------------------------------------------------
    @property
    def cursor(self) -> int:
        return self.table.cursor_row

    def step(self, rows: int) -> None:
        """Move the frame cursor ``rows`` frames on (back when negative)."""
        if self.entries:
            self.table.move_cursor(max(0, min(len(self.entries) - 1, self.cursor + rows)))

    def step_day(self, forward: bool) -> None:
        """Move the cursor to the first frame of the next (or of this, then the previous) day."""
        if not self.entries:
            return
        day = self._days[self.cursor]
        if forward:
            row = bisect_right(self._days, day)
            if row >= len(self._days):
                return
        else:
            start = bisect_left(self._days, day)
            row = (
                start
                if start < self.cursor
                else bisect_left(self._days, self._days[max(0, start - 1)])
            )
        self.table.move_cursor(row)

    def action_step(self, rows: int) -> None:
        self.step(rows)

    def action_step_day(self, forward: bool) -> None:
        self.step_day(forward)

    def on_virtual_list_highlighted(self, event: VirtualList.Highlighted) -> None:
        event.stop()
        self._show_place()

    def on_virtual_list_selected(self, event: VirtualList.Selected) -> None:
        """Enter: the agent's soul at that frame."""
        event.stop()
        e = self.entries[int(event.key)]
        self.dashboard.open_line(e.agent, e.line)

    def _show_place(self) -> None:
        if not self.entries:
            self._status(Text("no frames in this world"))
            return
        e = self.entries[self.cursor]
        follow = " · following" if self.following else ""
        self._status(
            Text(
                f"frame {self.cursor + 1} of {len(self.entries)} · {self._agents} agents · "
                f"{e.date or 'undated'}{follow}"
            )
        )

    def _status(self, text: Text) -> None:
        self.query_one("#log-status", StatusLine).show(text)

    # -- trends -------------------------------------------------------------------------------
    def action_trends(self) -> None:
        """Ask for terms, then chart how they spread, per day."""
        from soulscope.tui.dialogs.prompt import PromptScreen

        def asked(text: str | None) -> None:
            terms = [t.strip() for t in (text or "").split(",") if t.strip()]
            if terms:
                self.chart_trends(terms)

        self.dashboard.push_screen(
            PromptScreen("Chart which terms?", "words, comma-separated"), asked
        )

    @work(thread=True, exclusive=True, group="log-trends", exit_on_error=False)
    def chart_trends(self, terms: list[str]) -> None:
        from soulscope.runs.trends import trend
        from soulscope.soul.terms import Term

        world = self.world
        try:
            wanted = [Term(t) for t in terms]
        except ValueError as exc:
            self.dashboard.call_from_thread(self.dashboard.notify, str(exc), severity="error")
            return
        log = world_log(world)
        found = [trend(world, log, t) for t in wanted]
        self.dashboard.call_from_thread(self._show_trends, found, world.name)

    def _show_trends(self, found: list, world: str) -> None:
        from soulscope.tui.dialogs.trends import TrendScreen

        self.dashboard.push_screen(TrendScreen(found, world))

    # -- following a running world -------------------------------------------------------------
    def action_follow(self) -> None:
        """Follow the world as frames land, or stop following."""
        if self._follow is not None:
            self._follow.stop()
            self._follow = None
        elif self.world.read_only:
            self.dashboard.notify(
                "A world as of a past point does not move: come back to follow it."
            )
            return
        else:
            self._follow = self.set_interval(FOLLOW_SECONDS, self.look)
            self.step(len(self.entries))
        self._show_place()

    @work(thread=True, exclusive=True, group="log-follow", exit_on_error=False)
    def look(self) -> None:
        """Read the log again when the world changed since it was read."""
        world = self.world
        if world_signature(world) == self._signature:
            return
        signature = world_signature(world)
        log = world_log(world)
        self.dashboard.call_from_thread(self._landed, log, signature)

    def _landed(self, log: WorldLog, signature: tuple) -> None:
        self._show_log(log, signature, to_end=True)
        self.dashboard.reload_world()
