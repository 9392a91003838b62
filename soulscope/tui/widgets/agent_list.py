"""The sidebar: every agent of the world in a virtual list, filtered as you type, sortable."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.timer import Timer
from textual.widgets import Input

from soulscope.soul.trajectory import ArcSummary
from soulscope.tui.actions import bindings
from soulscope.tui.widgets.status_line import StatusLine
from soulscope.tui.widgets.virtual_list import VirtualList
from soulscope.world import AgentFile

SORTS = ("name", "frames", "activity")
# How long the cursor rests on an agent before it is shown: a switch costs a repaint of every pane.
SELECT_DELAY = 0.12


class FilterInput(Input):
    """The filter box: it takes keys only once asked to (``/`` or a click), and Esc leaves it.

    Out of the focus chain otherwise, so that focus falling back (a tab hidden, a dialog closed,
    Tab from the last widget) never lands in it and the next ``j`` or ``q`` is never typed here.
    """

    BINDINGS = bindings("filter")

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.can_focus = False

    def activate(self) -> None:
        self.can_focus = True
        self.focus()

    def on_click(self) -> None:
        self.activate()

    def on_blur(self) -> None:
        self.can_focus = False

    def action_leave(self) -> None:
        self.post_message(FilterLeft())


class FilterLeft(Message):
    """Esc in the filter box: the keys go back to the list."""


@dataclass
class AgentChosen(Message):
    """The user moved to an agent in the sidebar, or opened it (enter, click: ``open``)."""

    agent_id: str
    open: bool = False


class AgentList(Vertical):
    """A filter box over a ``VirtualList`` of agent ids (only the visible rows are rendered)."""

    def __init__(self, agents: list[AgentFile], names: dict[str, str]) -> None:
        super().__init__(id="sidebar")
        self.agents = agents
        self.names = names  # display names from the registry, by id
        self.summaries: dict[str, ArcSummary] = {}
        self.failed: set[str] = set()
        self.sort = SORTS[0]
        self.query_text = ""
        self._pending: Timer | None = None  # the debounced selection of the cursor's agent

    def compose(self) -> ComposeResult:
        yield FilterInput(placeholder="filter agents  (/)", id="filter")
        yield VirtualList(self.row, id="agents")
        yield StatusLine(id="sidebar-status")

    def on_mount(self) -> None:
        self.rebuild()

    def focus_filter(self) -> None:
        self.query_one(FilterInput).activate()

    @property
    def list(self) -> VirtualList:
        return self.query_one("#agents", VirtualList)

    @property
    def shown(self) -> list[str]:
        """The agent ids the list shows now, in order."""
        return self.list.keys

    # -- contents ----------------------------------------------------------------------------
    def _matches(self, agent: AgentFile) -> bool:
        q = self.query_text
        return not q or q in agent.id.lower() or q in self.names.get(agent.id, "").lower()

    def _ordered(self, agents: Iterable[AgentFile]) -> list[AgentFile]:
        by_id = sorted(agents, key=lambda a: a.id)
        summaries = self.summaries
        if self.sort == "frames":
            # Most frames first; agents not parsed yet last.
            return sorted(by_id, key=lambda a: -summaries[a.id].frames if a.id in summaries else 1)
        if self.sort == "activity":
            # Newest first; agents not parsed yet (or undated) after the dated ones.
            def newest(a: AgentFile) -> tuple[bool, str]:
                s = summaries.get(a.id)
                return (s is not None and s.last_date is not None, s.last_date or "" if s else "")

            return sorted(by_id, key=newest, reverse=True) if summaries else by_id
        return by_id

    def row(self, agent_id: str, width: int) -> Text:
        """An agent's line: its id, and its counts (frames, shifts) at the right edge."""
        s = self.summaries.get(agent_id)
        if s is not None:
            counts = Text(f" {s.frames}f {s.shifts}s", style="dim")
        elif agent_id in self.failed:
            counts = Text(" unreadable", style="bold")
        else:
            counts = Text("")
        name = Text(agent_id, no_wrap=True, overflow="ellipsis")
        room = max(width - len(counts), 1)
        name.truncate(room, overflow="ellipsis", pad=True)
        return name + counts

    def rebuild(self) -> None:
        """Refill the list from the filter, the sort and the counts, keeping the cursor's agent."""
        shown = self._ordered(a for a in self.agents if self._matches(a))
        self.list.set_keys([a.id for a in shown])
        self._update_status()

    def set_agents(self, agents: list[AgentFile], names: dict[str, str]) -> None:
        """A new listing of the world (files added or removed)."""
        self.agents = agents
        self.names = names
        self.rebuild()

    def set_summaries(self, summaries: Iterable[ArcSummary], failed: Iterable[str] = ()) -> None:
        self.summaries.update((s.agent_id, s) for s in summaries)
        self.failed.update(failed)
        if self.sort == "name":
            # The order stands; only the counts of visible rows change.
            self.list.refresh()
            self._update_status()
        else:
            self.rebuild()

    def cycle_sort(self) -> str:
        self.sort = SORTS[(SORTS.index(self.sort) + 1) % len(SORTS)]
        self.rebuild()
        return self.sort

    def highlight(self, agent_id: str) -> None:
        """Move the cursor to ``agent_id`` when it is shown (without announcing it again)."""
        self.list.move_to(agent_id)

    def _update_status(self) -> None:
        total = len(self.agents)
        shown = len(self.list.keys)
        parsed = len(self.summaries) + len(self.failed)
        parts = [f"{shown} of {total} agents" if shown != total else f"{total} agents"]
        if parsed < total:
            parts.append(f"parsing {parsed}/{total}")
        parts.append(f"sort: {self.sort} (s)")
        self.query_one("#sidebar-status", StatusLine).show(Text(" · ".join(parts)))

    # -- events ------------------------------------------------------------------------------
    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        self.query_text = event.value.strip().lower()
        self.rebuild()
        if self.shown:
            self.list.move_to(self.shown[0])

    def on_input_submitted(self, event: Input.Submitted) -> None:
        """Enter in the filter opens the first match."""
        event.stop()
        if self.shown:
            self.list.move_to(self.shown[0])
            self._choose(self.shown[0], open=True)
        else:
            self.app.notify("No agent matches the filter.", severity="warning")
            self.list.focus()

    def on_filter_left(self, event: FilterLeft) -> None:
        event.stop()
        self.list.focus()

    def on_virtual_list_highlighted(self, event: VirtualList.Highlighted) -> None:
        """Moving through the list shows each agent once the cursor rests (held keys stay fast)."""
        event.stop()
        if self._pending is not None:
            self._pending.stop()
        key = event.key
        self._pending = self.set_timer(SELECT_DELAY, lambda: self._choose(key))

    def on_virtual_list_selected(self, event: VirtualList.Selected) -> None:
        event.stop()
        self._choose(event.key, open=True)

    def _choose(self, agent_id: str, open: bool = False) -> None:
        if self._pending is not None:
            self._pending.stop()
            self._pending = None
        self.post_message(AgentChosen(agent_id, open=open))
