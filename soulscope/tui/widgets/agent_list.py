"""The sidebar: every agent of the world in a virtual list, filtered as you type, sortable."""

from __future__ import annotations

import builtins
from collections.abc import Iterable
from dataclasses import dataclass

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.geometry import Size
from textual.message import Message
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Input

from soulscope.soul.trajectory import ArcSummary
from soulscope.tui.actions import bindings
from soulscope.tui.focus import focus_now
from soulscope.tui.reach import dashboard
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
        focus_now(self)

    def on_click(self) -> None:
        self.activate()

    def on_blur(self) -> None:
        self.can_focus = False

    def _watch_value(self, value: str) -> None:
        # Input sets its virtual size (its width, one line) on every keystroke, a reactive that
        # lays out the whole screen when it changes (the first keystroke: 40 ms at 10,000 agents);
        # its scrollbars never show, so the size is set without that, and Input's own is then
        # the same.
        self.set_reactive(Widget.virtual_size, Size(self.content_width, 1))
        super()._watch_value(value)

    def action_leave(self) -> None:
        """Esc: the keys go back to the list, at once (the keys typed after Esc go there too)."""
        if isinstance(self.parent, AgentList):
            focus_now(self.parent.list)

    async def action_submit(self) -> None:
        """Enter opens the match under the cursor at once, not through a message: the keys typed
        after Enter go to the agent it opened."""
        if isinstance(self.parent, AgentList):
            self.parent.open_highlighted()


class AgentRows(VirtualList):
    """The agent ids; Enter opens the one under the cursor at once (as in ``FilterInput``)."""

    def action_select(self) -> None:
        if isinstance(self.parent, AgentList) and self.highlighted is not None:
            self.parent.open_agent(self.highlighted)


@dataclass
class AgentChosen(Message):
    """The user moved to an agent in the sidebar (opening one is ``SoulscopeApp.open_agent``)."""

    agent_id: str


class AgentList(Vertical):
    """A filter box over a ``VirtualList`` of agent ids (only the visible rows are rendered)."""

    def __init__(self, agents: list[AgentFile], names: dict[str, str]) -> None:
        super().__init__(id="sidebar")
        self.agents = agents
        self.names = names  # display names from the registry, by id
        self._search = self._searched()
        self.summaries: dict[str, ArcSummary] = {}
        self.failed: set[str] = set()
        self.sort = SORTS[0]
        self.query_text = ""
        self._pending: Timer | None = None  # the debounced selection of the cursor's agent

    def compose(self) -> ComposeResult:
        yield FilterInput(placeholder="filter agents  (/)", id="filter")
        yield AgentRows(self.row, id="agents")
        yield StatusLine(id="sidebar-status")

    def on_mount(self) -> None:
        self.rebuild()

    def focus_filter(self) -> None:
        self.query_one(FilterInput).activate()

    @property
    def list(self) -> VirtualList:
        return self.query_one("#agents", VirtualList)

    @property
    def shown(self) -> builtins.list[str]:
        """The agent ids the list shows now, in order."""
        return self.list.keys

    # -- contents ----------------------------------------------------------------------------
    def _searched(self) -> builtins.list[tuple[str, str]]:
        """Each agent's id and what the filter looks in (its id and name, lowercased), by id."""
        return sorted((a.id, f"{a.id}\n{self.names.get(a.id, '')}".lower()) for a in self.agents)

    def _matching(self) -> builtins.list[str]:
        """The ids the filter lets through, in id order."""
        q = self.query_text  # one line: it never matches across the id and the name
        return [agent_id for agent_id, text in self._search if q in text]

    def _ordered(self, by_id: builtins.list[str]) -> builtins.list[str]:
        summaries = self.summaries
        if self.sort == "frames":
            # Most frames first; agents not parsed yet last.
            return sorted(by_id, key=lambda a: -summaries[a].frames if a in summaries else 1)
        if self.sort == "activity":
            # Newest first; agents not parsed yet (or undated) after the dated ones.
            def newest(agent_id: str) -> tuple[bool, str]:
                s = summaries.get(agent_id)
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
        self.list.set_keys(self._ordered(self._matching()))
        self._update_status()

    def set_agents(self, agents: builtins.list[AgentFile], names: dict[str, str]) -> None:
        """A new listing of the world (files added or removed)."""
        self.agents = agents
        self.names = names
        self._search = self._searched()
        self.list.forget()
        self.rebuild()

    def set_summaries(self, summaries: Iterable[ArcSummary], failed: Iterable[str] = ()) -> None:
        summaries = list(summaries)
        failed = list(failed)
        self.summaries.update((s.agent_id, s) for s in summaries)
        self.failed.update(failed)
        self.list.forget([*(s.agent_id for s in summaries), *failed])
        if self.sort == "name":
            # The order stands; only the counts of rows change.
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
        agents = "agent" if total == 1 else "agents"
        parts = [f"{shown} of {total} {agents}" if shown != total else f"{total} {agents}"]
        if parsed < total:
            parts.append(f"parsing {parsed}/{total}")
        parts.append(f"sort: {self.sort} (s)")
        self.query_one("#sidebar-status", StatusLine).show(Text(" · ".join(parts)))

    # -- events ------------------------------------------------------------------------------
    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        self.query_text = event.value.strip().lower()
        self.rebuild()  # the cursor stays on its agent while it matches, else goes to the first

    def open_highlighted(self) -> None:
        """Enter in the filter opens the match under the cursor."""
        agent_id = self.list.highlighted
        if agent_id is not None:
            self.open_agent(agent_id)
        else:
            self.app.notify("No agent matches the filter.", severity="warning")
            focus_now(self.list)

    def on_virtual_list_highlighted(self, event: VirtualList.Highlighted) -> None:
        """Moving through the list shows each agent once the cursor rests (held keys stay fast)."""
        event.stop()
        if self._pending is not None:
            self._pending.stop()
        key = event.key
        self._pending = self.set_timer(SELECT_DELAY, lambda: self._choose(key))

    def on_virtual_list_selected(self, event: VirtualList.Selected) -> None:
        """A click on a row."""
        event.stop()
        self.open_agent(event.key)

    def open_agent(self, agent_id: str) -> None:
        """Show ``agent_id`` and give its tab the keys, before the next key is handled."""
        self._stop_pending()
        dashboard(self).open_agent(agent_id)

    def _choose(self, agent_id: str) -> None:
        self._stop_pending()
        self.post_message(AgentChosen(agent_id))

    def _stop_pending(self) -> None:
        if self._pending is not None:
            self._pending.stop()
            self._pending = None
