"""Retrieve -> prompt -> stream: a conversation with one agent, or about the whole world.

Talking *to an agent*, the model answers in that agent's voice from its own soul file; talking
*about the world*, it is an analyst over every soul file. Either way the prompt holds the
retrieved chunks, each under the tag answers cite (``[zion-coder-06 · frame 221 · 2026-03-22]``).
Without an endpoint the answer is the evidence itself, ranked and cited, and nothing touches the
network.
"""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator, Iterator, Sequence
from dataclasses import dataclass, field

from soulscope.llm import LLM, Message
from soulscope.recall.chunks import Chunk
from soulscope.recall.hybrid import RecallIndex, holding_bullet
from soulscope.recall.temporal import asked_in
from soulscope.soul.model import Soul, clean
from soulscope.world import World, WorldError

HISTORY_TURNS = 3  # earlier exchanges kept in the prompt
MAX_ANSWER_CHARS = 50_000  # an answer past this is cut: a model that never stops is not read out
OFFLINE_NOTE = (
    "Offline mode: no LLM endpoint is configured (set OPENAI_BASE_URL or [llm] base_url), "
    "so here is the evidence from memory, best first."
)


@dataclass(frozen=True, slots=True)
class Citation:
    """A chunk the answer may cite, numbered in retrieval order."""

    number: int
    chunk: Chunk
    bullet: int = 0  # index in ``chunk.bullets`` of the bullet that found it

    @property
    def tag(self) -> str:
        return self.chunk.citation

    @property
    def found_by(self) -> str:
        """The bullet that found the chunk; for a chunk without bullets, its text after the
        heading."""
        if self.chunk.bullets:
            return self.chunk.bullets[self.bullet]
        return "\n".join(self.chunk.text.splitlines()[1:]).strip()


@dataclass(frozen=True)
class Prompt:
    """What goes to the model, and the evidence it was given."""

    question: str
    messages: list[Message]
    citations: list[Citation]
    search_mode: str  # "hybrid", or "bm25" while the embedding model is not loaded
    model: str | None = None  # the encoder hybrid search used (``RecallIndex.model``)
    remembered: tuple[str, ...] = ()  # facts kept from earlier conversations with this user


@dataclass
class ChatSession:
    """A conversation: with ``agent`` when given, else about the whole world."""

    world: World
    index: RecallIndex
    llm: LLM | None = None
    agent: str | None = None
    k: int = 6
    history: list[tuple[str, str]] = field(default_factory=list)

    @property
    def offline(self) -> bool:
        return self.llm is None

    def prepare(self, question: str, remembered: Sequence[str] = ()) -> Prompt:
        """Retrieve evidence for ``question`` and build the messages.

        ``remembered`` are facts distilled from earlier conversations with this user.
        """
        index = self.index  # (swapped whole when a better one is ready: read it once)
        mode = "hybrid" if index.dense_ready else "bm25"
        found = index.find(question, k=self.k, mode=mode, agent=self.agent)
        topic = found.intent.asked or asked_in(question)
        hits = [holding_bullet(h, topic) for h in found.hits]
        citations = [Citation(i, h.chunk, h.bullet) for i, h in enumerate(hits, 1)]
        messages: list[Message] = [
            {"role": "system", "content": self._system(citations, remembered)}
        ]
        for asked, answered in self.history[-HISTORY_TURNS:]:
            messages += [
                {"role": "user", "content": asked},
                {"role": "assistant", "content": answered},
            ]
        messages.append({"role": "user", "content": question})
        return Prompt(question, messages, citations, mode, index.model, tuple(remembered))

    def answer(self, prompt: Prompt, cancel: threading.Event | None = None) -> Iterator[str]:
        """The answer's text as it streams (offline: the evidence, at once)."""
        if self.llm is None:
            yield offline_answer(prompt.citations, prompt.remembered)
            return
        cancel = cancel or threading.Event()
        cap = _AnswerCap()
        for piece in self.llm.stream(prompt.messages, cancel=cancel):
            yield from cap.take(piece)
            if cap.full:
                cancel.set()  # closes the request
                return

    async def astream(self, prompt: Prompt) -> AsyncIterator[str]:
        """Like :meth:`answer`, for asyncio (the dashboard); needs an LLM."""
        assert self.llm is not None
        cap = _AnswerCap()
        stream = self.llm.astream(prompt.messages)
        try:
            async for piece in stream:
                for shown in cap.take(piece):
                    yield shown
                if cap.full:
                    return
        finally:
            await stream.aclose()  # closes the request

    def remember(self, question: str, answer: str) -> None:
        """Keep a finished exchange for the next prompts."""
        self.history.append((question, answer))

    def _system(self, citations: Sequence[Citation], remembered: Sequence[str]) -> str:
        evidence = "\n\n".join(f"{c.tag}\n{c.chunk.text}" for c in citations) or "(nothing found)"
        user = ""
        if remembered:
            user = "\n\nWhat you remember about the person you are talking to:\n" + "\n".join(
                f"- {fact}" for fact in remembered
            )
        cite = (
            "Cite the entries you draw on with their tags exactly as written, for example "
            f"{citations[0].tag}. "
            if citations
            else ""
        )
        if self.agent is None:
            return (
                "You are an analyst of a community of AI agents. Each agent keeps a soul file: "
                "an identity header, then one entry per simulation frame (actions, Named, "
                "Influenced by, Surprised by, Reinforced, Becoming, Relationships). Answer from "
                f"the entries below only; say so when they do not tell. {cite}\n\n"
                f"Entries:\n\n{evidence}{user}"
            )
        soul = self._soul()
        name = (soul.name if soul else None) or self.world.display_name(self.agent) or self.agent
        header = _identity_header(soul) if soul else ""
        return (
            f"You are {clean(name)} ({self.agent}), an agent in a simulated community. Speak in "
            "the first person, in your own voice, from your memory below; do not invent "
            f"memories it does not hold. {cite}\n\nWho you are:\n{header}\n\n"
            f"From your memory:\n\n{evidence}{user}"
        )

    def _soul(self) -> Soul | None:
        try:
            return self.world.read(self.agent) if self.agent else None
        except WorldError:
            return None


class _AnswerCap:
    """Passes an answer through up to ``MAX_ANSWER_CHARS``, then says it was cut."""

    def __init__(self) -> None:
        self.length = 0

    @property
    def full(self) -> bool:
        return self.length >= MAX_ANSWER_CHARS

    def take(self, piece: str) -> list[str]:
        piece = piece[: MAX_ANSWER_CHARS - self.length]
        self.length += len(piece)
        if self.full:
            return [piece, f"\n\n[answer cut at {MAX_ANSWER_CHARS:,} characters]"]
        return [piece]


def _identity_header(soul: Soul) -> str:
    lines = [f"- {k}: {clean(v)}" for k, v in soul.identity.items()]
    for title in ("Convictions", "Interests"):
        items = soul.items(title)
        if items:
            lines.append(f"- {title}: " + "; ".join(clean(i) for i in items))
    return "\n".join(lines)


def offline_answer(citations: Sequence[Citation], remembered: Sequence[str] = ()) -> str:
    """The evidence as a Markdown answer: ranked, cited, each entry quoted whole; first what
    earlier conversations kept about the user that bears on the question."""
    kept = (
        ["From earlier conversations with you:\n" + "\n".join(f"- {f}" for f in remembered)]
        if remembered
        else []
    )
    if not citations:
        return "\n\n".join([OFFLINE_NOTE, *kept, "Nothing in memory matches the question."])
    parts = [OFFLINE_NOTE, *kept]
    for c in citations:
        quoted = "\n".join("> " + line for line in c.chunk.text.splitlines())
        parts.append(f"{c.number}. **{c.tag}** (line {c.chunk.line})\n\n{quoted}")
    return "\n\n".join(parts)
