"""The sidebar: every agent of the world in a virtual list, filtered as you type, sortable."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Input, OptionList
from textual.widgets.option_list import Option

from soulscope.soul.trajectory import ArcSummary
from soulscope.tui.widgets.status_line import StatusLine
from soulscope.world import AgentFile

SORTS = ("name", "frames", "activity")


@dataclass
class AgentChosen(Message):
    """The user moved to an agent in the sidebar, or opened it (enter, click: ``open``)."""

    agent_id: str
    open: bool = False


class AgentList(Vertical):
    """A filter box over an ``OptionList`` (one line per agent, rendered only when visible)."""

    def __init__(self, agents: list[AgentFile], names: dict[str, str]) -> None:
        super().__init__(id="sidebar")
        self.agents = agents
        self.names = names  # display names from the registry, by id
        self.summaries: dict[str, ArcSummary] = {}
        self.failed: set[str] = set()
        self.sort = SORTS[0]
        self.query_text = ""
        self._shown: list[str] = []

    def compose(self) -> ComposeResult:
        yield Input(placeholder="filter agents  (/)", id="filter")
        yield OptionList(id="agents")
        yield StatusLine(id="sidebar-status")

    def on_mount(self) -> None:
        self.rebuild()

    @property
    def option_list(self) -> OptionList:
        return self.query_one("#agents", OptionList)

    @property
    def shown(self) -> list[str]:
        """The agent ids the list shows now, in order."""
        return list(self._shown)

    # -- contents ----------------------------------------------------------------------------
    def _matches(self, agent: AgentFile) -> bool:
        q = self.query_text
        return not q or q in agent.id.lower() or q in self.names.get(agent.id, "").lower()

    def _ordered(self, agents: Iterable[AgentFile]) -> list[AgentFile]:
        by_id = sorted(agents, key=lambda a: a.id)
        if self.sort == "frames":
            return sorted(
                by_id, key=lambda a: -self.summaries[a.id].frames if a.id in self.summaries else 1
            )
        if self.sort == "activity":
            # Newest first; agents not parsed yet (or undated) after the dated ones.
            dated = [a for a in by_id if a.id in self.summaries and self.summaries[a.id].last_date]
            dated.sort(key=lambda a: self.summaries[a.id].last_date or "", reverse=True)
            return dated + [a for a in by_id if a not in dated]
        return by_id

    def _prompt(self, agent: AgentFile) -> Text:
        text = Text(agent.id, no_wrap=True, overflow="ellipsis")
        s = self.summaries.get(agent.id)
        if s is not None:
            text.append(f"  {s.frames}f {s.shifts}s", style="dim")
        elif agent.id in self.failed:
            text.append("  unreadable", style="bold")
        return text

    def rebuild(self) -> None:
        """Refill the list from the filter, the sort and the counts, keeping the highlight."""
        options = self.option_list
        current = options.highlighted_option.id if options.highlighted_option else None
        shown = self._ordered(a for a in self.agents if self._matches(a))
        self._shown = [a.id for a in shown]
        options.set_options(Option(self._prompt(a), id=a.id) for a in shown)
        if current in self._shown:
            options.highlighted = self._shown.index(current)
        self._update_status()

    def set_agents(self, agents: list[AgentFile], names: dict[str, str]) -> None:
        """A new listing of the world (files added or removed)."""
        self.agents = agents
        self.names = names
        self.rebuild()

    def set_summaries(self, summaries: Iterable[ArcSummary], failed: Iterable[str] = ()) -> None:
        self.summaries.update((s.agent_id, s) for s in summaries)
        self.failed.update(failed)
        self.rebuild()

    def cycle_sort(self) -> str:
        self.sort = SORTS[(SORTS.index(self.sort) + 1) % len(SORTS)]
        self.rebuild()
        return self.sort

    def highlight(self, agent_id: str) -> None:
        """Move the highlight to ``agent_id`` when it is shown (without announcing it again)."""
        if agent_id in self._shown:
            options = self.option_list
            with options.prevent(OptionList.OptionHighlighted):
                options.highlighted = self._shown.index(agent_id)

    def _update_status(self) -> None:
        total = len(self.agents)
        shown = len(self._shown)
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
        if self._shown:
            self.option_list.highlighted = 0

    def on_input_submitted(self, event: Input.Submitted) -> None:
        """Enter in the filter opens the first match."""
        event.stop()
        if self._shown:
            self.option_list.highlighted = 0
            self.post_message(AgentChosen(self._shown[0], open=True))
        else:
            self.app.notify("No agent matches the filter.", severity="warning", markup=False)

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        # Typing in the filter moves the highlight too; only a move in the list itself selects.
        if event.option.id is not None and self.option_list.has_focus:
            self.post_message(AgentChosen(event.option.id))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id is not None:
            self.post_message(AgentChosen(event.option.id, open=True))
