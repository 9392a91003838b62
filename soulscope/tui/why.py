"""The "why did it shift" panel: one Becoming statement explained, with keys to follow the trail.

Opened with ``w`` on a row of the Becoming tab. ``a`` jumps to the agent that influenced the
statement (a choice when it names several), ``c`` shows the commit that introduced it in the
History tab.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Static

from soulscope.controls import visible
from soulscope.history.git import HistoryError
from soulscope.history.why import Why, explain
from soulscope.soul.model import Soul
from soulscope.tui.screens import PickScreen
from soulscope.world import WorldError


@dataclass
class WhyReady(Message):
    """The explanation, or the sentence saying why there is none."""

    why: Why | None
    error: str | None = None


class WhyScreen(ModalScreen[None]):
    """Why ``agent_id`` holds its ``index``-th statement (1-based, as the Becoming tab numbers it)."""

    BINDINGS = [
        Binding("escape,q,w", "dismiss", "Close", id="why.close"),
        Binding("a", "agent", "Influencing agent", id="why.agent"),
        Binding("c", "commit", "Commit in History", id="why.commit"),
    ]

    def __init__(self, agent_id: str, index: int, soul: Soul | None = None) -> None:
        super().__init__(id="why")
        self.agent_id = agent_id
        self.index = index
        self.soul = soul
        self.why: Why | None = None

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(
                Text(f"Why {self.agent_id} shifted  (a: influencing agent · c: commit · esc)"),
                classes="dialog-title",
            )
            with VerticalScroll(id="why-scroll"):
                yield Static(Text("reading memory and history…", style="dim"), id="why-body")

    def on_mount(self) -> None:
        self.query_one("#why-scroll").focus()
        self.load()

    @work(thread=True, group="why", exit_on_error=False)
    def load(self) -> None:
        try:
            why = explain(
                self.app.world,
                self.agent_id,
                index=self.index,
                soul=self.soul,
                label=self.app.arc_label,
            )
        except (HistoryError, WorldError) as exc:
            self.post_message(WhyReady(None, str(exc)))
            return
        self.post_message(WhyReady(why))

    def on_why_ready(self, message: WhyReady) -> None:
        from soulscope.history.render import why_text

        self.why = message.why
        body = self.query_one("#why-body", Static)
        body.update(visible(why_text(message.why) if message.why else Text(message.error or "")))

    def action_agent(self) -> None:
        why = self.why
        if why is None:
            return
        known = {a.id for a in self.app.world.agents()}
        agents = [a for a in (*why.influencers, *why.agents) if a in known]
        agents = list(dict.fromkeys(agents))
        if not agents:
            self.app.notify("This statement names no agent of this world.", markup=False)
            return
        if len(agents) == 1:
            self._go_to_agent(agents[0])
            return
        choices = [(a, f"{a}  (influenced)" if a in why.influencers else a) for a in agents]
        self.app.push_screen(PickScreen("Go to which agent?", choices), self._go_to_agent)

    def _go_to_agent(self, agent_id: str | None) -> None:
        if agent_id is None:
            return
        self.dismiss()
        self.app.select_agent(agent_id)

    def action_commit(self) -> None:
        why = self.why
        if why is None or why.commit is None:
            self.app.notify(
                (why.note if why and why.note else "No commit is known for this statement."),
                markup=False,
            )
            return
        from soulscope.tui.panes.history import HistoryPane

        self.dismiss()
        self.app.show_tab(HistoryPane.TAB_ID)
        self.app.query_one(HistoryPane).select_commit(why.commit.sha)
