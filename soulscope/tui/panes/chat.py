"""The Chat tab: ask the selected agent (in its own voice) or the whole world, with cited frames.

The index is built when the tab is first seen, in a thread worker: BM25 at once, then hybrid search
in stages (``recall.catchup``): the static model once every text has its vectors (seconds), MiniLM
once every text has its own; each stage swaps in a whole new index (the status line says which
model answers, and how far the embedding got; each answer says which answered). Answers stream
through an async worker and a ``PacedStream`` (a few draws a second) into a ``StreamedMarkdown``
(laid out a segment at a time: a long answer keeps the keys quick); the line above the input says
what the answer is doing (searching, waiting for the LLM with the seconds waited, streaming,
answered, cancelled, the error). Esc cancels, a new question cancels the one in flight, a failure
is one sentence and the question goes back into the input. The evidence of the last answer is
listed under it, each passage with the line that found it (a long answer leaves the evidence its
room): enter on one opens that frame in the Soul tab. Every exchange is buffered for
distillation into ``users/ID.txt`` (distilled after its answer, one exchange after another, never
ahead of an answer), and what is left is distilled when the dashboard closes.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.message import Message
from textual.timer import Timer
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from soulscope.chat.distill import Distiller, DistillSettings
from soulscope.chat.session import ChatSession, Citation, offline_answer
from soulscope.config import Settings
from soulscope.controls import visible
from soulscope.llm import LLM, Endpoint, LLMError
from soulscope.recall.background import Background
from soulscope.recall.catchup import DISTILLING, catch_up
from soulscope.recall.encoders import encoder_name, model_label
from soulscope.recall.hybrid import RecallIndex
from soulscope.recall.semantic import EmbeddingCache, Encoder, EncoderError
from soulscope.tui.actions import bindings
from soulscope.tui.focus import focus_now
from soulscope.tui.panes.base import Pane
from soulscope.tui.widgets.paced_stream import PacedStream
from soulscope.tui.widgets.status_line import StatusLine
from soulscope.tui.widgets.streamed_markdown import StreamedMarkdown
from soulscope.world import id_problem

OFFLINE = "offline (no OPENAI_BASE_URL): answers are the evidence"


@dataclass
class Embedding(Message):
    """How far the embedding of the chat's index got: ``stage`` (DISTILLING, or the model
    embedding), texts (or word pieces) done, and to do."""

    stage: str
    done: int
    total: int


@dataclass
class IndexReady(Message):
    """The chat index can answer: with hybrid search on ``model`` (None: BM25 only)."""

    model: str | None
    note: str | None = None  # why the configured model's hybrid search is not available


class ChatPane(Pane):
    """A conversation with the selected agent, or about the world."""

    TAB_ID = "chat"
    MAIN = "#chat-input"

    BINDINGS = bindings("chat")

    def __init__(self) -> None:
        super().__init__(id="chat-pane")
        self.llm: LLM | None = None  # once mounted, from the app's settings
        self.about_world = False  # False: talk to the selected agent
        self.index: RecallIndex | None = None
        self.search_note = "search not started"
        self.citations: list[Citation] = []
        self.distiller: Distiller | None = None
        self._sessions: dict[str | None, ChatSession] = {}  # one conversation per target
        self._index_lock = threading.Lock()
        self._index_stamp: tuple[tuple[str, int, float], ...] = ()
        self._final: str | None = None  # the configured encoder's name, once the worker knows it
        self._final_encoder: Encoder | None = None  # distillation's model, once its stage is in
        self._started = False
        self._embedding: Background | None = None  # the index's embedding, once started
        self.activity = ""  # what the latest answer is doing, as the line above the input says
        self._asked = 0  # questions asked: a cancelled one's last word must not cover a newer one
        self._ticking: Timer | None = None
        # Distillation runs here, one exchange after another, after each answer.
        self._distilling = ThreadPoolExecutor(1, thread_name_prefix="soulscope-distil")

    def compose(self) -> ComposeResult:
        yield StatusLine(id="chat-status")
        yield VerticalScroll(id="chat-log")
        yield OptionList(id="chat-citations")
        yield StatusLine(id="chat-activity")
        yield Input(
            id="chat-input",
            placeholder="Ask… (enter sends · esc cancels · ctrl+t agent / world)",
        )

    @property
    def settings(self) -> Settings:
        return self.dashboard.settings

    def on_mount(self) -> None:
        endpoint = Endpoint.from_settings(self.settings)
        self.llm = LLM(endpoint) if endpoint else None
        self.query_one("#chat-citations", OptionList).display = False
        self._status()

    # -- what is shown ------------------------------------------------------------------------
    @property
    def target(self) -> str | None:
        """The agent talked to, or None when talking about the world."""
        return None if self.about_world else self.agent_id

    def _status(self) -> None:
        who = "about the world" if self.target is None else f"to {self.target}"
        llm = OFFLINE if self.llm is None else f"LLM at {self.llm.endpoint.shown}"
        self.query_one("#chat-status", StatusLine).show(Text(f"{who} · {llm} · {self.search_note}"))

    def _doing(self, text: str, asked: int | None = None) -> None:
        """Say what the answer to question number ``asked`` (default: the latest) is doing."""
        if asked is not None and asked != self._asked:
            return  # a newer question has the line
        self.activity = text
        self.query_one("#chat-activity", StatusLine).show(Text(text, style="dim"))

    def _tick(self, what: str, since: float, asked: int) -> None:
        """Say ``what`` with the seconds since ``since``, every second, until ``_stop_ticking``."""
        self._stop_ticking()

        def say() -> None:
            self._doing(f"{what} ({int(time.monotonic() - since)} s)", asked)

        say()
        self._ticking = self.set_interval(1.0, say)

    def _stop_ticking(self) -> None:
        if self._ticking is not None:
            self._ticking.stop()
            self._ticking = None

    def watch_agent_id(self, agent_id: str | None) -> None:
        self._status()

    def on_show(self) -> None:
        if not self._started:
            self._started = True
            self.search_note = "indexing…"
            self._status()
            self.build_index()
        focus_now(self.query_one("#chat-input", Input))

    # -- the index and the model ----------------------------------------------------------------
    def _ensure_index(self) -> RecallIndex:
        """The index over the world as it is on disk now (safe from any thread).

        Built once, and again when the world's files changed (a frame was run and the world
        reloaded): the embedding cache then embeds only the new chunks.
        """
        with self._index_lock:
            world = self.dashboard.world
            stamp = tuple((a.id, a.size, a.mtime) for a in world.agents())
            if self.index is None or stamp != self._index_stamp:
                index = RecallIndex.for_world(world)
                encoder = self.index.encoder if self.index is not None else None
                if encoder is not None:
                    index.attach(encoder, EmbeddingCache())
                self.index, self._index_stamp = index, stamp
                for session in self._sessions.values():
                    session.index = index
            return self.index

    @work(thread=True, group="chat-index", exit_on_error=False)
    def build_index(self) -> None:
        index = self._ensure_index()
        self.post_message(IndexReady(None))
        self._final = encoder_name(self.settings)
        # In a thread of its own, which quitting stops between two batches (and does not wait
        # for); this worker ends with it, or as soon as it is asked to stop.
        self._embedding = Background(lambda stop: self._catch_up(index, stop), "soulscope-embed")
        self._embedding.wait()

    def _catch_up(self, index: RecallIndex, stop: threading.Event) -> None:
        try:  # outside the lock: questions meanwhile are answered by what is ready
            catch_up(index, self.settings, EmbeddingCache(), self._swap, self._embedded, stop)
        except EncoderError as exc:
            self.post_message(IndexReady(self.index.model if self.index else None, str(exc)))

    def _swap(self, ready: RecallIndex) -> None:
        """A stage's index takes over, whole (from the embedding's thread)."""
        encoder = ready.encoder
        assert encoder is not None
        with self._index_lock:
            if self.index is not None and self.index.chunks is not ready.chunks:
                ready = self.index.dense_copy(encoder, EmbeddingCache())  # rebuilt meanwhile
            self.index = ready
            for session in self._sessions.values():
                session.index = ready
        if ready.model == self._final:
            self._final_encoder = encoder
            if self.distiller is not None:
                self.distiller.encoder = encoder
        self.post_message(IndexReady(ready.model))

    def _embedded(self, stage: str, done: int, total: int) -> None:
        """The embedding's progress, from its thread."""
        self.post_message(Embedding(stage, done, total))

    def _answering(self) -> str:
        """What answers now: the search and its model, and the index's size."""
        index = self.index
        size = len(index) if index is not None else 0
        if index is None or index.model is None:
            return f"BM25, {size} chunks"
        return f"hybrid search ({model_label(index.model)}), {size} chunks"

    def on_embedding(self, message: Embedding) -> None:
        message.stop()
        if self.index is None or self.index.model == self._final:
            return
        if message.stage == DISTILLING:
            doing = f"distilling the static model, {message.done:,} of {message.total:,} pieces"
        else:
            doing = (
                f"embedding {message.done:,} of {message.total:,} for hybrid search "
                f"({model_label(message.stage)})"
            )
        self.search_note = f"{self._answering()} · {doing}"
        self._status()

    def on_index_ready(self, message: IndexReady) -> None:
        if message.note and message.model is None:
            self.search_note = f"BM25 only: {message.note}"
        elif message.note:  # the configured model failed after the static one answered
            self.search_note = f"{self._answering()} · {message.note}"
        elif message.model is None:
            self.search_note = f"{self._answering()} (embedding model loading…)"
        else:
            self.search_note = self._answering()
        self._status()

    def _session(self) -> ChatSession:
        """The conversation with the current target, over an up-to-date index."""
        index = self._ensure_index()
        target = self.target
        session = self._sessions.get(target)
        if session is None:
            session = ChatSession(self.dashboard.world, index, self.llm, agent=target)
            self._sessions[target] = session
        return session

    def _distiller(self) -> Distiller | None:
        if self.distiller is None:
            user = self.settings.chat_user or "you"
            if id_problem(user):
                return None
            # Kept in soulscope's data folder, for the live world also while the dashboard shows
            # the past: talking to a world never changes it.
            from soulscope.chat.memory import users_dir

            self.distiller = Distiller(
                users_dir(self.dashboard.world),
                user,
                encoder=self._final_encoder,  # MiniLM's drift and dedup, never the static model's
                llm=self.llm,
                settings=DistillSettings.from_settings(self.settings),
                cache=EmbeddingCache(),
            )
        return self.distiller

    # -- asking --------------------------------------------------------------------------------
    async def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        question = event.value.strip()
        if not question:
            return
        event.input.value = ""
        log = self.query_one("#chat-log", VerticalScroll)
        asked = Static(
            Text(visible(f"› {question}"), style="bold"), classes="chat-question", markup=False
        )
        answer = StreamedMarkdown(classes="chat-answer")
        await log.mount_all([asked, answer])
        self.call_after_refresh(self._reveal, answer)
        self.ask(question, answer)  # exclusive: a question still streaming is cancelled

    async def _buffered(self, distiller: Distiller, question: str) -> Distiller | None:
        """Keep the question in the distiller's buffer; None (and said) where it cannot be kept:
        the question is answered all the same, never silently dropped."""
        problem = await asyncio.to_thread(distiller.problem)
        try:
            if problem is None:
                await asyncio.to_thread(distiller.add, "user", question, True)
        except OSError as exc:
            problem = f"your message was not kept ({exc.strerror or exc})"
        if problem is None:
            return distiller
        self.notify(visible(f"{problem[:1].upper()}{problem[1:]}."), severity="error")
        return None

    @work(exclusive=True, group="chat-answer", exit_on_error=False)
    async def ask(self, question: str, view: StreamedMarkdown) -> None:
        self._asked += 1
        asked = self._asked
        self._stop_ticking()
        self._doing("searching memory…", asked)
        session = await asyncio.to_thread(self._session)
        distiller = await asyncio.to_thread(self._distiller)
        remembered = await asyncio.to_thread(distiller.recall, question) if distiller else []
        prompt = await asyncio.to_thread(session.prepare, question, remembered)
        self._show_citations(prompt.citations)
        if distiller is not None:  # buffered now, distilled after the answer
            distiller = await self._buffered(distiller, question)
        stream = PacedStream(view)
        pieces: list[str] = []
        started = time.monotonic()
        try:
            if session.llm is None:
                pieces.append(offline_answer(prompt.citations))
                await stream.write(visible(pieces[0]))
            else:
                self._tick("waiting for the LLM", started, asked)
                async for piece in session.astream(prompt):
                    if not pieces:
                        self._tick("streaming the answer", started, asked)
                    pieces.append(piece)
                    await stream.write(visible(piece))
                    self._reveal(view)
        except LLMError as exc:
            self._stop_ticking()
            await stream.stop()
            await view.update(visible(f"*Not answered: {exc}*"))
            self._doing(f"not answered: {exc}", asked)
            self.notify(visible(str(exc)), severity="error")
            entry = self.query_one("#chat-input", Input)
            if not entry.value:
                entry.value = question  # the question goes back, to be sent again
            self._after_answer(distiller, None)
            return
        except asyncio.CancelledError:
            if asked == self._asked:
                self._stop_ticking()
            await stream.stop()  # all that came is shown: the note goes after it
            await view.append("\n\n*(cancelled)*")
            self._doing("cancelled", asked)
            self._after_answer(distiller, None)
            raise
        self._stop_ticking()
        await stream.stop()
        text = "".join(pieces)
        session.remember(question, text)
        sources = len(prompt.citations)
        model = f" ({model_label(prompt.model)})" if prompt.model else ""
        self._doing(
            f"answered with {prompt.search_mode} search{model}, "
            f"{sources} source{'s' * (sources != 1)}"
            + (" (offline: the evidence itself)" if session.llm is None else ""),
            asked,
        )
        self._after_answer(distiller, text)
        # After the layout passes (the citations take room below), so the answer is where it ends.
        self.call_after_refresh(self.call_after_refresh, self._reveal, view)

    def _after_answer(self, distiller: Distiller | None, answer: str | None) -> None:
        """Distil what the exchange calls for, and buffer the answer, after it, in order."""
        if distiller is None:
            return

        def remember() -> None:
            with contextlib.suppress(OSError):  # a read-only world: the buffer waits
                distiller.settle()
                if answer is not None:
                    distiller.add("assistant", answer)

        self._distilling.submit(remember)

    def _reveal(self, answer: StreamedMarkdown) -> None:
        """Keep the new answer in view: all of it while it fits, else from its question down."""
        log = self.query_one("#chat-log", VerticalScroll)
        children = list(log.children)
        if answer not in children:
            return
        asked = children[children.index(answer) - 1]
        tall = asked.outer_size.height + answer.outer_size.height + 1
        if tall > log.scrollable_content_region.height:
            log.scroll_to_widget(asked, top=True, animate=False)
        else:
            log.scroll_end(animate=False)

    def _show_citations(self, citations: list[Citation]) -> None:
        self.citations = citations
        options = self.query_one("#chat-citations", OptionList)
        options.clear_options()
        options.add_options(
            Option(
                Text.assemble(
                    visible(f"{c.number}. {c.tag}  line {c.chunk.line}"),
                    ("\n   " + visible(" ".join(c.found_by.split())), "dim"),
                ),
                id=str(c.number),
            )
            for c in citations
        )
        options.display = bool(citations)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        citation = next(c for c in self.citations if str(c.number) == event.option.id)
        chunk = citation.chunk
        # Focus left in this (now hidden) tab would make the tabs come back here.
        self.screen.set_focus(None)
        self.dashboard.call_after_refresh(lambda: self.dashboard.active_pane.focus_content())
        if chunk.frame_index is not None:
            self.dashboard.open_frame(chunk.agent, chunk.frame_index)
        else:
            self.dashboard.open_line(chunk.agent, chunk.line)

    # -- actions -----------------------------------------------------------------------------
    def action_cancel(self) -> None:
        """Esc: stop the answer being written; with none, leave the input for the conversation."""
        answering = any(
            w.node is self and w.group == "chat-answer" and not w.is_finished for w in self.workers
        )
        if answering:
            self.workers.cancel_group(self, "chat-answer")
        elif isinstance(self.dashboard.focused, Input):
            focus_now(self.query_one("#chat-log"))

    def action_toggle_target(self) -> None:
        self.about_world = not self.about_world
        self._status()

    def test_connection(self) -> None:
        """Say in one sentence whether the LLM answers (the palette's "test connection")."""
        if self.llm is None:
            self.notify(f"Chat is {OFFLINE}.")
            return
        self._check(self.llm)

    @work(thread=True, group="chat-check", exit_on_error=False)
    def _check(self, llm: LLM) -> None:
        try:
            text, severity = llm.check(), "information"
        except LLMError as exc:
            text, severity = str(exc), "error"
        text = text[:1].upper() + text[1:] + "."
        self.dashboard.call_from_thread(self.notify, visible(text), severity=severity)

    def on_unmount(self) -> None:
        if self._embedding is not None:
            self._embedding.stop()  # what it cached is kept; the rest is made next time
        self._stop_ticking()
        self._distilling.shutdown(wait=True)  # the exchanges already answered, in order
        # Quitting the dashboard distils what the conversation left in the buffer.
        if self.distiller is not None:
            # In a read-only world the buffer stays and is distilled next time.
            with contextlib.suppress(OSError):
                self.distiller.flush()
