"""The "why did it shift" panel: one identity statement's dossier, with keys to follow the trail.

Opened with ``w`` on a row of the Becoming tab. The dossier scrolls (arrows, j/k, page keys);
``a`` opens an influencer's arc at the time of the influence, ``o`` a cited frame (a post's
author at the frame it posted in, a mention, a precursor), ``c`` the commit in History and
``p`` the previous statement's dossier.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import Static

from soulscope.controls import visible
from soulscope.history.dossier import InfluencerState, PostInfo, Why
from soulscope.history.git import HistoryError
from soulscope.history.why import explain
from soulscope.llm import LLM, LLMError
from soulscope.soul.model import Soul
from soulscope.tui.actions import bindings
from soulscope.tui.dialogs.base import Dialog
from soulscope.tui.dialogs.pick import PickScreen
from soulscope.world import WorldError

KEYS = "a: influencer then · o: cited frame · c: commit · p: previous · C: what it saw · esc"


@dataclass
class WhyReady(Message):
    """The dossier, or the sentence saying why there is none."""

    why: Why | None
    error: str | None = None


class WhyScreen(Dialog[None]):
    """Why ``agent_id`` holds its ``index``-th statement (1-based, as the Becoming tab numbers it)."""

    BINDINGS = bindings("why")  # keys, palette and help: soulscope/tui/actions.py

    def __init__(
        self, agent_id: str, index: int, soul: Soul | None = None, llm: LLM | None = None
    ) -> None:
        super().__init__(id="why")
        self.agent_id = agent_id
        self.index = index
        self.soul = soul
        self.llm = llm  # writes the narrative; None: offline
        self.why: Why | None = None

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(self._title(), id="why-title", classes="dialog-title")
            with VerticalScroll(id="why-scroll"):
                yield Static(Text("reading memory and history…", style="dim"), id="why-body")

    def _title(self) -> Text:
        return Text.assemble(
            (f"Why {self.agent_id} · statement {self.index}", "bold"), f"  ({KEYS})"
        )

    def on_mount(self) -> None:
        self.query_one("#why-scroll").focus()
        self.load()

    @work(thread=True, exclusive=True, group="why", exit_on_error=False)
    def load(self) -> None:
        try:
            why = explain(
                self.dashboard.world,
                self.agent_id,
                index=self.index,
                soul=self.soul,
                label=self.dashboard.arc_label,
                llm=self.llm,
            )
        except (HistoryError, WorldError, LLMError) as exc:
            self.post_message(WhyReady(None, str(exc)))
            return
        self.post_message(WhyReady(why))

    def on_why_ready(self, message: WhyReady) -> None:
        from soulscope.history.render import why_text

        self.why = message.why
        self.query_one("#why-title", Static).update(self._title())
        body = self.query_one("#why-body", Static)
        body.update(visible(why_text(message.why) if message.why else Text(message.error or "")))
        self.query_one("#why-scroll", VerticalScroll).scroll_home(animate=False)

    def action_scroll(self, direction: str) -> None:
        # A line per key, from where the keys before it left the view: an animated scroll
        # starts from where the view is drawn, and a burst of keys would be lost in it.
        scroll = self.query_one("#why-scroll", VerticalScroll)
        step = 1 if direction == "down" else -1
        scroll.scroll_to(y=scroll.scroll_target_y + step, animate=False, immediate=True)

    # -- following the trail -------------------------------------------------------------------
    def action_influencer(self) -> None:
        """The influencer's arc at the influence's date (a choice when there are several)."""
        why = self.why
        if why is None:
            return
        states = [s for s in why.influencer_states if s.present]
        if states:
            if len(states) == 1:
                s = states[0]
                if s.frame_index is None and s.around_index is not None:
                    self.dashboard.notify(
                        f"No frame of {s.agent} is known to come before this one; showing its "
                        "statement of the same day (the headings cannot order them)."
                    )
                self._open_arc(f"{s.agent}\t{_target(s)}")
                return
            choices = [
                (
                    f"{s.agent}\t{_target(s)}",
                    f"{s.agent}  at frame {s.frame}: {s.becoming or '—'}"
                    if s.frame
                    else f"{s.agent}  (no frame before this one)",
                )
                for s in states
            ]
            self.dashboard.push_screen(
                PickScreen("Whose arc, at that time?", choices), self._open_arc
            )
            return
        # No influencer with a file here: the agents the frame names, as before.
        known = {a.id for a in self.dashboard.world.agents()}
        agents = [a for a in why.agents if a in known]
        if not agents:
            self.dashboard.notify("This statement names no agent of this world.")
            return
        choices = [(f"{a}\t", a) for a in agents]
        if len(choices) == 1:
            self._open_arc(choices[0][0])
        else:
            self.dashboard.push_screen(PickScreen("Go to which agent?", choices), self._open_arc)

    def _open_arc(self, choice: str | None) -> None:
        if choice is None:
            return
        agent_id, _, at = choice.partition("\t")
        self.dismiss()
        self.dashboard.show_arc_at(agent_id, int(at) if at not in ("", "None") else None)

    def action_cited(self) -> None:
        """Open a cited frame in the Soul tab: posts' authors first, then mentions, precursors."""
        why = self.why
        if why is None:
            return
        own = why.citation
        choices = [
            (f"{agent}\t{index}", citation)
            for citation, (agent, index) in why.citations().items()
            if index is not None and citation != own
        ]
        labels = {c: label for c, label in choices}
        ordered = [c for c in (self._post_choice(p) for p in why.posts) if c in labels]
        ordered += [c for c, _ in choices if c not in ordered]
        if not ordered:
            self.dashboard.notify("The dossier cites no other frame.")
            return
        items = [(c, self._label(c, labels[c])) for c in ordered]
        self.dashboard.push_screen(PickScreen("Open which cited frame?", items), self._open_frame)

    @staticmethod
    def _post_choice(post: PostInfo) -> str:
        return f"{post.author}\t{post.frame_index}"

    def _label(self, choice: str, citation: str) -> str:
        why = self.why
        for post in why.posts if why else ():
            if self._post_choice(post) == choice and post.title:
                return f"{citation}  #{post.id} {post.title}"
        return citation

    def _open_frame(self, choice: str | None) -> None:
        if choice is None:
            return
        agent_id, _, index = choice.partition("\t")
        self.dismiss()
        self.dashboard.open_frame(agent_id, int(index))

    def action_previous(self) -> None:
        """The dossier of the statement before this one."""
        why = self.why
        if why is None or why.previous is None:
            self.dashboard.notify("This is the arc's first statement.")
            return
        self.index = why.previous.index + 1
        self.why = None
        self.query_one("#why-body", Static).update(Text("reading memory and history…", style="dim"))
        self.load()

    def action_context(self) -> None:
        """What the brain saw in this statement's frame (the context view)."""
        from soulscope.tui.dialogs.context import ContextScreen

        why = self.why
        if why is None or why.frame is None:
            self.dashboard.notify("This statement is in no frame: no brain was given it.")
            return
        self.dashboard.push_screen(
            ContextScreen(self.agent_id, why.frame.number, why.frame.heading)
        )

    def action_commit(self) -> None:
        why = self.why
        if why is None or why.commit is None:
            self.dashboard.notify(
                (why.note if why and why.note else "No commit is known for this statement."),
            )
            return
        self.dismiss()
        self.dashboard.show_commit(why.commit.sha)


def _target(state: InfluencerState) -> int | None:
    """The frame of the influencer's arc to show: its frame before the statement, else the one
    of the same moment (see ``InfluencerState.around_index``)."""
    return state.frame_index if state.frame_index is not None else state.around_index
