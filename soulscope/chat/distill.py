"""The FileRAG loop: a conversation distilled, block by block, into the user's plain-text soul file.

Every message is appended to ``users/{id}.buffer.jsonl`` (and fsynced) the moment it exists, before
any call to the LLM, so a crash loses nothing; conversations running at once for one user share
the buffer under a lock and lose nothing either. Every ``interval`` user turns, or earlier when the user changes the subject (the new
message's cosine to the centroid of their last ``window`` buffered messages falls below ``drift``),
the buffer becomes a block of short facts appended to ``users/{id}.txt``::

    # User alice
    Facts soulscope remembers about this user, one block per distillation.

    ## Turns 1-5
    - My cat is named Pixel.

A fact already in the file is not written again: the same text (case, spaces and end punctuation
aside), or a rewording of one, that is ``dedup`` or more similar to it by embedding *and* shares
most of its words (an embedding alone cannot tell two facts apart when its model, or a server,
gives near-identical vectors). A block of nothing but such facts is not written; each fact left
out is kept in ``duplicates`` with the fact it repeats, and the chat command says so.
Facts come from the LLM when one is configured, else from the user's own statements (questions
and requests are not facts about them); when the LLM fails or its reply is unusable, from the
statements too, and ``last_error`` says why. :func:`flush_on_signals` distils what is left on SIGINT and
SIGTERM.

:meth:`Distiller.recall` ranks blocks by hybrid search over their facts, where a block's cosine is
its best fact's or clause's less that fact's hubness, and BM25 counts as far as the question's
words are in the file at all (``RecallIndex``'s ``pieces``, ``hubness`` and ``coverage``).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import signal
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from soulscope.atomic import append_atomic, append_durable, cut_torn_tail, write_atomic
from soulscope.config import Settings
from soulscope.llm import LLM, LLMError
from soulscope.recall.chunks import Chunk
from soulscope.recall.hybrid import RecallIndex
from soulscope.recall.semantic import EmbeddingCache, Encoder, EncoderError, embed
from soulscope.soul.model import UNDECODED
from soulscope.world import check_id

_BLOCK = re.compile(r"^## Turns (\d+)-(\d+)\s*$", re.M)
_LISTED = re.compile(r"^\s*[-*] \S", re.M)
_SENTENCE = re.compile(r"(?<=[.!?])\s+")
_ASKING = re.compile(
    r"^(?:(?:and|so|but|ok|okay|also|then|now|well|oh)\b[\s,]*)?"  # "and who started it"
    r"(?:what|who|whom|whose|when|where|why|how|which|can|could|would|should|will|is|are|am|do|"
    r"does|did|tell|explain|describe|show|give|list|please|hey|hi|hello|thanks|thank|remind|"
    r"any\s+idea|wondering|i\s+wonder|i'?m\s+wondering|i\s+am\s+wondering|i'?m\s+curious|"
    r"i\s+am\s+curious|curious\s+(?:whether|if|about|what|who|how)|let\s+me\s+know|"
    r"i(?:\s+want|\s+would\s+(?:like|love)|'d\s+(?:like|love)|\s+need)\s+to\s+"
    r"(?:know|find\s+out|understand)|"
    r"(?:has|have|had|was|were|may|might|shall)\s+(?:you|it|he|she|they|anyone|anybody|"
    r"someone|any|there|the)\b)\b",
    re.I,
)
# Where a fact joins clauses: "I paused X, now fully focused on Y", "... Pixel and she ...".
_CLAUSE = re.compile(r"[,;:]|\b(?:and|but|so|yet|while|whereas|because|although)\b", re.I)
# Recall lowers a fact's cosine by this times its mean cosine to the facts of other blocks most
# like it (hubness, see recall.hybrid): chatter said in many forms stops crowding out a fact.
HUBNESS = 0.5
_FACT_MAX = 240
_ANSWER_MAX = 4000  # characters of an answer kept in the buffer: context for the facts
# On the way out (quit, SIGTERM) the LLM gets this long; after it, the facts are extracted locally.
EXIT_SECONDS = 8.0
_FACTS_PER_BLOCK = 12
DISTIL_PROMPT = (
    "Below is part of a conversation. List the short facts about the user that are worth "
    "remembering in later conversations (who they are, what they do, own, like, plan, and the "
    "people and projects they mention). What the user asked or requested is not a fact about "
    "them: leave questions out. One fact per line, each starting with '- '. Write nothing "
    "else; if there are none, write '- none'."
)


@dataclass(frozen=True)
class DistillSettings:
    """When to distil and what counts as a duplicate; all configurable."""

    interval: int = 5  # user turns per block
    drift: float = 0.25  # below this cosine the topic has changed
    window: int = 4  # buffered user messages the drift is measured against
    dedup: float = 0.92  # at or above this cosine (and with most words shared) a fact repeats one

    @classmethod
    def from_settings(cls, settings: Settings) -> DistillSettings:
        """The ``[chat]`` section of the config file."""
        return cls(
            interval=max(1, settings.distill_interval),
            drift=settings.distill_drift,
            dedup=settings.distill_dedup,
        )


@dataclass(frozen=True, slots=True)
class Block:
    """One distillation: the turns it covers and its facts."""

    first: int
    last: int
    facts: tuple[str, ...]
    line: int = 0  # of its heading in the soul file, once written

    def render(self) -> str:
        body = "".join(f"- {_one_line(f)}\n" for f in self.facts)
        return f"## Turns {self.first}-{self.last}\n{body}\n"

    @property
    def text(self) -> str:
        return "\n".join(self.facts)


class Distiller:
    """The buffer and soul file of one user in one world.

    Several conversations (processes) may talk for one user at once: every read and write of the
    buffer holds ``users/{id}.lock``, and one of them at a time distils (``users/{id}.distil.lock``,
    not waited for: a conversation that finds another distilling leaves its turns for later).
    The LLM is called with neither lock held, after the message is on disk.
    """

    def __init__(
        self,
        folder: Path,
        user_id: str,
        encoder: Encoder | None = None,
        llm: LLM | None = None,
        settings: DistillSettings | None = None,
        cache: EmbeddingCache | None = None,
    ) -> None:
        self.user_id = check_id(user_id)
        self.soul_path = folder / f"{user_id}.txt"
        self.buffer_path = folder / f"{user_id}.buffer.jsonl"
        self.lock_path = folder / f"{user_id}.lock"
        self.encoder = encoder
        self.llm = llm
        self.settings = settings or DistillSettings()
        self.cache = cache
        self.skipped_duplicates = 0  # blocks not written: every fact of theirs was known
        self.duplicates: list[tuple[str, str]] = []  # (fact left out, the written fact it repeats)
        # Messages added ``later`` whose distillation waits for ``settle``.
        self._unsettled: list[tuple[str, str, int, list[dict], list[dict]]] = []
        self.last_error: str | None = None  # why the LLM could not distil (extractive was used)
        self._turn = 0  # the turn of this conversation's last user message
        # Vectors of buffered messages, for the drift check; kept in memory, not in the disk cache,
        # because a message is compared only while it is buffered.
        self._message_vectors: dict[str, np.ndarray] = {}
        # The soul file's blocks, their vectors and an index over them, kept while the file is
        # unchanged: a conversation reads them at every message.
        self._blocks: tuple[tuple[int, int], list[Block]] | None = None
        self._index: tuple[tuple[int, int], RecallIndex] | None = None
        self._block_vectors: dict[str, np.ndarray] = {}

    # -- the buffer -------------------------------------------------------------------------

    def problem(self) -> str | None:
        """Why what the user says cannot be kept (one sentence), or None: asked before the
        first message is read, so that none is taken from the user and then lost."""
        folder = self.buffer_path.parent
        for path in (folder, self.soul_path, self.buffer_path, self.lock_path):
            if path.is_symlink():  # a link would take what is said out of the world
                return (
                    f"{path} is a link (to {os.readlink(path)}); chat never writes through "
                    "links: replace it with the file or folder itself"
                )
        try:
            folder.mkdir(parents=True, exist_ok=True)
            with open(self.buffer_path, "ab"):
                pass
            os.close(os.open(self.lock_path, os.O_RDWR | os.O_CREAT, 0o644))
        except OSError as exc:
            return (
                f"cannot keep what you say in {self.buffer_path} "
                f"({exc.strerror or exc}); chat needs a world it can write"
            )
        return None

    @contextlib.contextmanager
    def _locked(self, suffix: str = "", wait: bool = True) -> Iterator[bool]:
        """Hold ``users/{id}.lock{suffix}``; yields False when ``wait`` is off and it is taken."""
        path = self.lock_path.with_name(self.lock_path.name + suffix)
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
            except BlockingIOError:
                yield False
                return
            yield True
        finally:
            os.close(fd)  # closing releases the lock

    def _read(self) -> tuple[list[dict], int]:
        """The buffered messages and the turn distillation got to (hold the lock)."""
        messages: list[dict] = []
        through = 0
        try:
            data = self.buffer_path.read_text(encoding="utf-8", errors="surrogateescape")
            lines = data.splitlines()
        except FileNotFoundError:
            return messages, through
        for line in lines:
            try:
                entry = json.loads(line)
            except ValueError:
                continue  # a torn last line from a crash mid-write
            if not isinstance(entry, dict):
                continue
            if "through" in entry:
                through = max(through, int(entry["through"]))
            elif {"turn", "role", "text"} <= set(entry):
                messages.append(entry)
        return messages, through

    def _last_turn(self, messages: Sequence[dict], through: int) -> int:
        return max([through, self._last_block_turn()] + [m["turn"] for m in messages])

    def _last_block_turn(self) -> int:
        try:
            text = self.soul_path.read_text(encoding="utf-8", errors="replace")
        except FileNotFoundError:
            return 0
        return max((int(m.group(2)) for m in _BLOCK.finditer(text)), default=0)

    @property
    def pending(self) -> list[dict]:
        """Buffered messages not yet distilled (by every conversation of this user)."""
        with self._locked():
            return self._read()[0]

    def add(self, role: str, text: str, later: bool = False) -> Block | None:
        """Buffer a message (written and fsynced before anything else); distil when the interval
        or a topic drift says so. Returns the block written, if this message caused one.

        ``later``: the distillation this message calls for waits for ``settle`` (a question is
        buffered before it is answered, and distilled after the answer: never ahead of it)."""
        if role != "user":
            text = _capped(text)  # an answer is context for the facts, not one of them
        with self._locked():
            messages, through = self._read()
            if role == "user":
                self._turn = self._last_turn(messages, through) + 1
            turn = self._turn or max(self._last_turn(messages, through), 1)
            entry = {"turn": turn, "role": role, "text": text}
            cut_torn_tail(self.buffer_path)
            append_durable(self.buffer_path, _line(entry))
            earlier = messages
            messages = [*messages, entry]
        # The message is on disk: only now may distillation (and the LLM) run.
        if later:
            self._unsettled.append((role, text, turn, earlier, messages))
            return None
        return self._distil_for(role, text, turn, earlier, messages)

    def settle(self) -> Block | None:
        """Run the distillations that messages added ``later`` called for, in order."""
        written = None
        while self._unsettled:
            written = self._distil_for(*self._unsettled.pop(0)) or written
        return written

    def _distil_for(
        self, role: str, text: str, turn: int, earlier: list[dict], messages: list[dict]
    ) -> Block | None:
        if role == "user":
            turns = _user_turns(earlier)
            if turns >= self.settings.interval or (turns and self._drifted(text, earlier)):
                return self._distil(before=turn)
        elif _user_turns(messages) >= self.settings.interval:
            return self._distil()
        return None

    def _drifted(self, text: str, earlier: Sequence[dict]) -> bool:
        if self.encoder is None:
            return False
        recent = [m["text"] for m in earlier if m["role"] == "user"][-self.settings.window :]
        missing = [t for t in dict.fromkeys([text, *recent]) if t not in self._message_vectors]
        if missing:
            try:
                vectors = self.encoder.encode(missing)
            except EncoderError:
                return False  # no embeddings now: the interval alone decides
            self._message_vectors.update(zip(missing, vectors, strict=True))
        centroid = np.mean([self._message_vectors[t] for t in recent], axis=0)
        norm = float(np.linalg.norm(centroid))
        if norm == 0:
            return False
        return float(self._message_vectors[text] @ centroid) / norm < self.settings.drift

    # -- distillation ----------------------------------------------------------------------

    def flush(self, within: float | None = EXIT_SECONDS) -> Block | None:
        """Distil whatever is buffered (on exit): through the LLM if it answers ``within``
        seconds, else extractively, so that leaving is never held up for long."""
        self._unsettled.clear()  # everything buffered is distilled now
        return self._distil(within=within)

    def _distil(self, before: int | None = None, within: float | None = None) -> Block | None:
        """Distil the buffered messages (those of turns before ``before`` when given), at most
        ``interval`` user turns a block; returns the last block written."""
        with self._locked(".distil", wait=False) as mine:
            if not mine:
                return None  # another conversation is distilling; these turns wait for the next
            with self._locked():
                messages, _ = self._read()
            taken = [m for m in messages if before is None or m["turn"] < before]
            written = None
            for group in _groups(taken, self.settings.interval):
                block = self._block(group, within)
                with self._locked():
                    if block is not None:
                        self._append(block)
                    self._drop(group)
                written = block or written
            self._message_vectors = {}
            return written

    def _block(self, messages: Sequence[dict], within: float | None) -> Block | None:
        # The user's turns: an answer buffered after its question was distilled is context only.
        turns = [m["turn"] for m in messages if m["role"] == "user"] or [
            m["turn"] for m in messages
        ]
        facts = self._facts(messages, within)
        if facts:
            new = self._new_facts(facts)
            if not new:
                self.skipped_duplicates += 1
                return None
            facts = new
        block = Block(min(turns), max(turns), tuple(facts)) if facts else None
        if block is not None and self.encoder is not None:
            with contextlib.suppress(EncoderError):  # (embedded when recall reads it, then)
                self._block_rows(fact_pieces(block.text))  # what recall reads, embedded now
        return block

    def _append(self, block: Block) -> None:
        if not self.soul_path.exists():
            header = (
                f"# User {self.user_id}\n"
                "Facts soulscope remembers about this user, one block per distillation.\n\n"
            )
            append_atomic(self.soul_path, header.encode())
        append_atomic(self.soul_path, _bytes(block.render()))

    def _drop(self, distilled: Sequence[dict]) -> None:
        """Remove distilled messages from the buffer (hold the lock); the rest stays as it is.

        Only the distilling process removes messages, so all of them are still there; what other
        conversations added meanwhile stays, after the turn distillation got to.
        """
        kept, _ = self._read()
        for m in distilled:
            kept.remove(m)
        through = max(m["turn"] for m in distilled)
        write_atomic(
            self.buffer_path, _line({"through": through}) + b"".join(_line(m) for m in kept)
        )

    def _facts(self, messages: Sequence[dict], within: float | None = None) -> list[str]:
        if self.llm is not None:
            transcript = "\n".join(f"{m['role']}: {m['text']}" for m in messages)
            try:
                reply = self.llm.complete(
                    [
                        {"role": "system", "content": DISTIL_PROMPT},
                        {"role": "user", "content": transcript},
                    ],
                    max_tokens=400,
                    within=within,
                )
                if not _LISTED.search(reply):
                    # Neither facts nor "- none": not a distillation, whatever it is.
                    raise LLMError(
                        f"the LLM at {self.llm.endpoint.shown} answered the distillation "
                        "without a list of facts"
                    )
                self.last_error = None
                return [f for f in _bullets(reply) if not asking(f)]
            except LLMError as exc:
                self.last_error = str(exc)  # fall back to extractive: the turns must not be lost
        return extract_facts([m["text"] for m in messages if m["role"] == "user"])

    def _stamp(self) -> tuple[int, int] | None:
        try:
            st = self.soul_path.stat()
        except FileNotFoundError:
            return None
        return (st.st_size, st.st_mtime_ns)

    def blocks(self) -> list[Block]:
        """The blocks of the user's soul file, in order."""
        stamp = self._stamp()
        if stamp is None:
            return []
        if self._blocks is None or self._blocks[0] != stamp:
            text = self.soul_path.read_text(encoding="utf-8", errors="replace")
            heads = list(_BLOCK.finditer(text))
            out = []
            for i, m in enumerate(heads):
                end = heads[i + 1].start() if i + 1 < len(heads) else len(text)
                facts = tuple(_bullets(text[m.end() : end]))
                line = text.count("\n", 0, m.start()) + 1
                out.append(Block(int(m.group(1)), int(m.group(2)), facts, line))
            self._blocks = (stamp, out)
        return self._blocks[1]

    def _block_rows(self, texts: Sequence[str]) -> np.ndarray:
        assert self.encoder is not None
        missing = [t for t in dict.fromkeys(texts) if t not in self._block_vectors]
        if missing:
            vectors = embed(missing, self.encoder, self.cache)
            self._block_vectors.update(zip(missing, vectors, strict=True))
        return np.stack([self._block_vectors[t] for t in texts])

    def _new_facts(self, facts: Sequence[str]) -> list[str]:
        """Those of ``facts`` that no written fact (nor an earlier one of ``facts``) states
        already; each one left out goes to ``duplicates``."""
        existing = [f for b in self.blocks() for f in b.facts]
        known = {_normal(f): f for f in existing}
        vectors = None
        if self.encoder is not None and existing:
            try:
                rows = self._block_rows([*facts, *existing])
                vectors = rows[: len(facts)] @ rows[len(facts) :].T
            except EncoderError:
                pass  # no embeddings now: only the same text is a repeat
        out: list[str] = []
        for i, fact in enumerate(facts):
            same = known.get(_normal(fact))
            if same is None and vectors is not None:
                for j in np.flatnonzero(vectors[i] >= self.settings.dedup):
                    if _shared_words(fact, existing[j]) >= REWORDING_WORDS:
                        same = existing[j]
                        break
            if same is not None:
                self.duplicates.append((fact, same))
            else:
                out.append(fact)
                known[_normal(fact)] = fact
        return out

    def recall(self, question: str, k: int = 3) -> list[str]:
        """The facts of the ``k`` blocks most relevant to ``question`` (hybrid with an encoder)."""
        index = self._soul_index()
        if index is None:
            return []
        mode = "hybrid" if index.dense_ready else "bm25"
        return [
            f for hit in index.search(question, k=k, mode=mode) for f in hit.chunk.text.split("\n")
        ]

    def _soul_index(self) -> RecallIndex | None:
        """An index over the blocks (one chunk each, its facts), rebuilt when the file changes."""
        stamp = self._stamp()
        if stamp is None:
            return None
        if self._index is None or self._index[0] != stamp:
            blocks = [b for b in self.blocks() if b.facts]
            chunks = [
                Chunk(self.user_id, "section", f"Turns {b.first}-{b.last}", b.line, b.text)
                for b in blocks
            ]
            index = RecallIndex(chunks, pieces=fact_pieces, hubness=HUBNESS, coverage=True)
            if self.encoder is not None and chunks:
                # Vectors are kept by text: a fact already embedded is never encoded again.
                try:
                    index.attach(self.encoder, vectors=self._block_rows(index.dense_texts))
                except EncoderError:
                    return index  # BM25 over the facts this time, not kept: dense next time
            self._index = (stamp, index)
        return self._index[1]


def fact_pieces(text: str) -> list[str]:
    """What recall embeds of a block: each fact, and each clause of a fact that joins several."""
    out: list[str] = []
    for fact in text.split("\n"):
        out.append(fact)
        clauses = [c.strip() for c in _CLAUSE.split(fact) if len(c.split()) >= 2]
        if len(clauses) > 1:
            out += clauses
    return out


def asking(sentence: str) -> bool:
    """Whether a sentence asks or requests rather than tells: a question is never a fact about
    the user, with its question mark or without ("remind me what my cat is called")."""
    text = sentence.strip().lstrip("-*• ").strip()
    return text.endswith("?") or _ASKING.match(text) is not None


def extract_facts(statements: Sequence[str]) -> list[str]:
    """The user's own statements, sentence by sentence, without questions, requests or greetings."""
    facts: list[str] = []
    for statement in statements:
        for sentence in _SENTENCE.split(" ".join(statement.split())):
            sentence = sentence.strip()
            if len(sentence.split()) < 3 or asking(sentence) or sentence in facts:
                continue
            facts.append(sentence[:_FACT_MAX])
    return facts[:_FACTS_PER_BLOCK]


# A rewording shares at least this part of its words with the fact it repeats (Jaccard).
REWORDING_WORDS = 0.5
_WORD = re.compile(r"\w+")


def _normal(fact: str) -> str:
    return " ".join(fact.casefold().split()).rstrip(".!;, ")


def _shared_words(a: str, b: str) -> float:
    wa, wb = set(_WORD.findall(a.casefold())), set(_WORD.findall(b.casefold()))
    return len(wa & wb) / len(wa | wb) if wa | wb else 1.0


def _line(entry: dict) -> bytes:
    # ASCII JSON: a typed line's undecodable byte (a lone surrogate) is kept as a \u escape,
    # which JSON reads back as it was.
    return (json.dumps(entry) + "\n").encode("ascii")


def _bytes(text: str) -> bytes:
    """A fact's text as the file's bytes: an undecodable byte the user typed is written back as
    that byte; a lone surrogate that stands for no byte (an LLM's ``\\ud800``) as U+FFFD."""
    try:
        return text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return UNDECODED.sub("\ufffd", text).encode("utf-8")


def _user_turns(messages: Sequence[dict]) -> int:
    return len({m["turn"] for m in messages if m["role"] == "user"})


def _groups(messages: Sequence[dict], size: int) -> list[list[dict]]:
    """Messages in groups of at most ``size`` user turns each (a turn is never split)."""
    turns = sorted({m["turn"] for m in messages if m["role"] == "user"})
    bounds = turns[size::size]  # the first user turn of each group after the first
    groups: list[list[dict]] = [[] for _ in range(len(bounds) + 1)]
    for m in sorted(messages, key=lambda m: m["turn"]):
        groups[sum(m["turn"] >= b for b in bounds)].append(m)
    return [g for g in groups if g]


def _capped(text: str) -> str:
    return text if len(text) <= _ANSWER_MAX else text[: _ANSWER_MAX - 1] + "…"


def _bullets(text: str) -> list[str]:
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line.startswith(("- ", "* ")):
            fact = line[2:].strip()
            if fact and fact.lower().strip(".") != "none":
                out.append(fact[:_FACT_MAX])
    return out[:_FACTS_PER_BLOCK]


def _one_line(text: str) -> str:
    """A fact is one line: newlines would let it open a heading and break the file's blocks."""
    return " ".join(text.split())


@contextlib.contextmanager
def flush_on_signals(distiller: Distiller) -> Iterator[None]:
    """Run a conversation; on normal exit, Ctrl-C (SIGINT) or SIGTERM, distil what is left."""

    def terminate(signum: int, frame: object) -> None:
        raise SystemExit(128 + signum)

    previous = signal.signal(signal.SIGTERM, terminate)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)  # a second TERM must not cut the flush short
        try:
            distiller.flush()
        finally:
            signal.signal(signal.SIGTERM, previous)
