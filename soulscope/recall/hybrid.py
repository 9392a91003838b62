"""One index over a world's chunks: BM25, dense cosine, and their score fusion.

Retrieval scores units (a chunk's bullets, see ``chunks.units_of``) and returns chunks, each scored
by its best unit, so a hit cites a whole frame but was found by the bullet that answers. Hybrid
search fuses the two lists by score: each side is min-max normalised over the rows searched, then
``(1 - DENSE_WEIGHT) * bm25 + DENSE_WEIGHT * cosine``, and each unit gains ``SMOOTHING`` times the
better fused score of its neighbours in the same block (an answer is often spread over two
bullets). Every row searched is scored, so the first 10 hits of a k=50 search are the k=10 search.
On LoCoMo (bench/locomo.py) this beats reciprocal rank fusion, which fell below BM25 alone.

Three options, off for a world's index and on for a user's distilled soul file (``chat.distill``),
where questions are paraphrases of facts buried among hundreds of statements about other things:

- ``pieces`` splits a unit's dense text into pieces (a fact and its clauses), and the unit's
  cosine is that of its best piece: "paused X, now fully focused on Y" is found by "focused on Y".
- ``hubness`` lowers each piece's cosine by that much times its mean cosine to its ``NEIGHBOURS``
  nearest pieces of other chunks (CSLS, Conneau et al. 2018): a statement made in many similar
  forms ("I read 40 pages of a book on ...") is near every query, a fact said once is not.
- ``coverage`` scales the BM25 side by the share of the question's IDF on words the index holds,
  a word it lacks weighing as the rarest: a question that shares one word with the memory ("runs"
  and "running shoes") gets little from BM25, the dense side decides.

On LoCoMo, hubness 0.5 with coverage keeps hybrid recall@10 (0.772 -> 0.771) and lifts recall@1
(0.348 -> 0.357); it stays off there because the neighbour search grows with the square of a
soul's bullets.

Everything that does not depend on the query is computed when the index is built (tokens,
postings, a unit-length embedding matrix, each agent's row range, neighbours), so a query is one
encoder call, a few vector additions and one matrix-vector product. In a process that has not
imported numpy (a search from the command line, read from the kept index) a BM25 search scores
the postings of its words and ranks the units they hold in plain Python, and numpy is never
imported; the dense side and building an index import it where they need it.
"""

from __future__ import annotations

import copy
import sys
import time
from bisect import bisect_left
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from functools import cached_property
from itertools import accumulate, chain, repeat
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

from soulscope.errors import SoulscopeError
from soulscope.recall.chunks import DEFAULT_MAX_CHARS, Chunk, Unit, units_of
from soulscope.recall.lexical import LexicalIndex, tokenize
from soulscope.recall.prepared import (
    ChunkColumns,
    KeptChunks,
    PreparedCache,
    unit_counts,
    world_index,
)
from soulscope.recall.semantic import EmbeddingCache, Encoder, EncoderError, Progress, embed
from soulscope.recall.temporal import GATE, HOLDS, TOP, Asked, Intent, read_intent
from soulscope.soul import when
from soulscope.world import World

MODES = ("hybrid", "bm25", "dense")
DENSE_WEIGHT = 0.5
SMOOTHING = 0.2
NEIGHBOURS = 10  # pieces of other chunks whose mean cosine is a piece's hubness
HALF_FROM = 20_000  # bullets: from here the dense product may use bfloat16 (see _fastest_product)


class RecallError(SoulscopeError):
    """A search that cannot run as asked (unknown mode, model not loaded); one sentence."""


@dataclass(frozen=True, slots=True)
class Hit:
    """A retrieved chunk, its score in the mode asked for, and the bullet that scored it."""

    chunk: Chunk
    score: float
    bullet: int = 0  # index of the best bullet in ``chunk.bullets``

    @property
    def best(self) -> str:
        """The text of the bullet that found the chunk (the whole text if it has none)."""
        bullets = self.chunk.bullets
        return bullets[self.bullet] if bullets else self.chunk.text


@dataclass(frozen=True, slots=True)
class Found:
    """Hits for a question, how its time was read, and how many hits lead in time order."""

    hits: list[Hit]
    intent: Intent
    timely: int = 0  # the first ``timely`` hits are in ``intent.order``, the rest by score
    ties: frozenset[int] = frozenset()  # timely hits not placed apart from the one before
    # How the timely hits hold the asked words (``temporal.HOLDS``: "as written", "as words",
    # "by stem"); "nothing" where no frame holds them (then no hit is in time order); None
    # where the question asked no order.
    held: str | None = None

    @property
    def reordered(self) -> str | None:
        """ "earliest" or "latest" when hits were put in time order, else None."""
        return self.intent.order if self.timely else None


@dataclass(frozen=True, slots=True)
class FrameRange:
    """Frames ``first..last`` by number and dated ``since..until`` (ISO), ends included;
    any end may be open. A bound on numbers (dates) leaves out frames without one."""

    first: int | None = None
    last: int | None = None
    since: str | None = None
    until: str | None = None

    @property
    def bounded(self) -> bool:
        return any(v is not None for v in (self.first, self.last, self.since, self.until))

    def holds(self, number: int, date: str) -> bool:
        """Whether a frame numbered ``number`` (-1: none) dated ``date`` ("": none) is in it."""
        if self.first is not None or self.last is not None:
            if number < 0 or (self.first is not None and number < self.first):
                return False
            if self.last is not None and number > self.last:
                return False
        if self.since is not None or self.until is not None:
            if not date or (self.since is not None and date < self.since):
                return False
            if self.until is not None and date > self.until:
                return False
        return True

    def narrowed(self, intent: Intent) -> FrameRange:
        """This range within the bounds a question wrote (the tighter end wins)."""

        def tight(a, b, pick):  # noqa: ANN001, ANN202
            return b if a is None else a if b is None else pick(a, b)

        return FrameRange(
            tight(self.first, intent.first_frame, max),
            tight(self.last, intent.last_frame, min),
            tight(self.since, intent.since, max),
            tight(self.until, intent.until, min),
        )

    @classmethod
    def parse(cls, text: str) -> FrameRange:
        """``220-240``, ``220-``, ``-240`` or ``231``."""
        head, sep, tail = text.strip().partition("-")
        try:
            first = int(head) if head.strip() else None
            last = int(tail) if tail.strip() else None
        except ValueError:
            raise RecallError(
                f"'{text}' is not a frame range (write 220-240, 220-, -240 or 231)"
            ) from None
        return cls(first, last if sep else first)


class RecallIndex:
    """BM25 and (once vectors are attached) dense retrieval over a fixed list of chunks."""

    def __init__(
        self,
        chunks: Sequence[Chunk],
        skipped: Sequence[str] = (),
        pieces: Callable[[str], list[str]] | None = None,
        hubness: float = 0.0,
        coverage: bool = False,
        lexical: LexicalIndex | None = None,
        columns: ChunkColumns | None = None,
        notes: Sequence[str] = (),
    ) -> None:
        """``lexical``: the BM25 index of the chunks' units when the caller has it (from the
        cache of prepared soul files), else the units are tokenized here; ``columns``: the
        chunks' (``prepared.ChunkColumns``) when the caller has them: kept chunks are then read
        only when shown."""
        self.chunks: Sequence[Chunk] = chunks if isinstance(chunks, KeptChunks) else list(chunks)
        self.skipped = list(skipped)  # files that could not be read, each with the reason
        self.notes = list(notes)  # kept indexes found unusable and rebuilt, one sentence each
        self.hubness = hubness
        self.coverage = coverage
        self._split = pieces
        self._hub: np.ndarray | None = None
        self._columns = columns = columns or ChunkColumns.of(self.chunks)
        # The units (``chunks.units_of``) without making them: a chunk's bullets, or its whole
        # text as one unit, chunk ``c``'s units ``_start[c]:_start[c + 1]``. ``units`` and the
        # dense texts are made when asked for.
        self._start = list(accumulate(columns.units, initial=0))
        n = self._start[-1]
        if lexical is None:
            lexical = LexicalIndex(unit_counts(self.chunks))
        if lexical.size != n:
            raise ValueError(f"a lexical index of {lexical.size} units for {n}")
        self.lexical = lexical
        self._size = n
        self._agents: dict[str, slice] = {}
        done = 0  # chunks of the agents before
        for agent, count in columns.agents:
            if agent in self._agents:  # chunks of one agent are contiguous when built per soul
                raise ValueError(f"chunks of {agent} are not contiguous")
            self._agents[agent] = slice(self._start[done], self._start[done + count])
            done += count
        self.encoder: Encoder | None = None
        self.vectors: np.ndarray | None = None
        self._product: Callable[[int, int, np.ndarray], np.ndarray] | None = None
        # Why the last hybrid search was BM25 only (the encoder failed on its query), or None.
        self.dense_problem: str | None = None

    @classmethod
    def for_world(
        cls,
        world: World,
        agents: Iterable[str] | None = None,
        max_chars: int = DEFAULT_MAX_CHARS,
        cache: PreparedCache | None = None,
    ) -> RecallIndex:
        """Chunks of every agent of ``world`` (or of ``agents``); unreadable files are skipped.

        Files are read every time; those the cache of prepared soul files holds (by content) are
        not parsed or tokenized again (``cache``: that cache, by default the one in the cache
        folder)."""
        ids = list(agents) if agents is not None else [a.id for a in world.agents()]
        found = world_index(world, ids, max_chars, cache or PreparedCache())
        return cls(
            found.chunks,
            found.skipped,
            lexical=found.lexical,
            columns=found.columns,
            notes=found.notes,
        )

    def __len__(self) -> int:
        return len(self.chunks)

    @cached_property
    def _owners(self) -> list[int]:
        """The chunk of each unit."""
        units = self._columns.units
        return list(chain.from_iterable(map(repeat, range(len(units)), units)))

    @cached_property
    def _owner(self) -> np.ndarray:
        """``_owners`` as an array, for the dense side."""
        import numpy as np

        units = np.asarray(self._columns.units, dtype=np.int64)
        return np.repeat(np.arange(len(units), dtype=np.int64), units)

    @cached_property
    def _neighbours(self) -> tuple[np.ndarray, np.ndarray]:
        """Each unit's neighbours in its block, before and after; the number of units (``n``)
        where it has none (it points at a zero appended to the scores)."""
        import numpy as np

        n = self._size
        idx = np.arange(n, dtype=np.int64)
        if not n:
            return idx, idx
        owner = self._owner
        starts = np.asarray(self._start, dtype=np.int64)
        first = np.asarray(self._columns.first, dtype=bool)[owner] & (idx == starts[owner])
        return np.where(first, n, idx - 1), np.where(np.append(first[1:], True), n, idx + 1)

    @cached_property
    def units(self) -> list[Unit]:
        """What retrieval scores, with their texts (``chunks.units_of``)."""
        units = units_of(self.chunks)
        assert len(units) == self._size
        return units

    @cached_property
    def _layout(self) -> tuple[list[str], np.ndarray]:
        """The dense texts (a unit's text, or its ``pieces``) and where each unit's start: unit
        ``i`` reads ``texts[start[i]:start[i + 1]]``. Made when dense search is first wanted."""
        import numpy as np

        texts: list[str] = []
        starts = [0]
        for u in self.units:
            texts += (self._split(u.dense) if self._split else None) or [u.dense]
            starts.append(len(texts))
        return texts, np.array(starts, dtype=np.int64)

    @property
    def _pieces(self) -> list[str]:
        return self._layout[0]

    @property
    def _piece_start(self) -> np.ndarray:
        return self._layout[1]

    @property
    def agents(self) -> list[str]:
        return list(self._agents)

    @property
    def dense_texts(self) -> list[str]:
        """What the embedding model reads: one text per unit, or its pieces (see ``pieces``)."""
        return list(self._pieces)

    def attach(
        self,
        encoder: Encoder,
        cache: EmbeddingCache | None = None,
        vectors: np.ndarray | None = None,
        progress: Progress | None = None,
    ) -> None:
        """Enable dense search: embed every unit (cached vectors are read back, the rest
        encoded batch by batch, ``progress`` told after each), or take ``vectors`` the caller
        already has, one row per text of ``dense_texts`` (a chunk without bullets is one unit)."""
        import numpy as np

        if vectors is None:
            vectors = embed(self.dense_texts, encoder, cache, progress)
        if len(vectors) != len(self._pieces):
            raise ValueError(f"{len(vectors)} vectors for {len(self._pieces)} dense texts")
        self.vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        self._product = _fastest_product(self.vectors)
        if self.hubness:  # among the pieces of one agent
            owner = np.repeat(self._owner, np.diff(self._piece_start))
            self._hub = np.zeros(len(self.vectors), dtype=np.float32)
            for span in self._agents.values():
                lo, hi = self._piece_start[span.start], self._piece_start[span.stop]
                self._hub[lo:hi] = self.hubness * hubness_of(self.vectors[lo:hi], owner[lo:hi])
        self.encoder = encoder

    def dense_copy(
        self,
        encoder: Encoder,
        cache: EmbeddingCache | None = None,
        progress: Progress | None = None,
    ) -> RecallIndex:
        """A copy of this index that searches with ``encoder`` too (embedded as by
        :meth:`attach`); this one is left as it is, so a query reading it meanwhile never sees
        half of one model and half of another. The copy shares the chunks and BM25."""
        twin = copy.copy(self)
        twin.attach(encoder, cache, progress=progress)
        return twin

    @property
    def dense_ready(self) -> bool:
        return self.vectors is not None and self.encoder is not None

    @property
    def model(self) -> str | None:
        """The name of the encoder dense search uses (None: BM25 only)."""
        return self.encoder.name if self.dense_ready and self.encoder is not None else None

    def search(
        self,
        query: str,
        k: int = 10,
        mode: str = "hybrid",
        agent: str | None = None,
        frames: FrameRange | None = None,
        tokens: list[str] | None = None,
    ) -> list[Hit]:
        """The ``k`` best chunks for ``query`` among those of ``agent`` in ``frames``;
        ``tokens`` replace the query's own for BM25."""
        if mode not in MODES:
            raise RecallError(f"unknown search mode '{mode}' (use {', '.join(MODES)})")
        if mode != "bm25" and not self.dense_ready:
            raise RecallError(f"{mode} search needs the embedding model, which is not loaded yet")
        rows = self._rows(agent, frames)
        if k <= 0 or not (query.strip() or tokens) or len(rows) == 0:
            return []
        if mode == "bm25" and not _numpy_loaded():
            terms = tokenize(query) if tokens is None else tokens
            return self._best_scored(self.lexical.weights(terms), rows, k)
        import numpy as np

        if isinstance(rows, range):
            array = np.arange(rows.start, rows.stop, dtype=np.int64)
        else:
            array = np.asarray(rows, dtype=np.int64)
        scores = self.unit_scores(query, mode, array, tokens)
        if mode == "bm25":
            scored = scores > 0
            array, scores = array[scored], scores[scored]
        return self._best_chunks(array, scores, k)

    def find(
        self,
        query: str,
        k: int = 10,
        mode: str = "hybrid",
        agent: str | None = None,
        frames: FrameRange | None = None,
    ) -> Found:
        """:meth:`search`, reading time in the question (see ``temporal``): its date and frame
        bounds narrow ``frames``, an agent it names narrows the search when ``agent`` is not
        given, and "first"/"latest" put the chunks about its topic in time order."""
        intent = read_intent(query, self.agents)
        agent = agent or intent.agent
        frames = (frames or FrameRange()).narrowed(intent)
        if intent.order is None or k <= 0:
            return Found(self.search(intent.words, k, mode, agent, frames), intent)
        ranked = self.search(intent.words, len(self.chunks), mode, agent, frames)
        about = self._about(intent.topic)
        if mode == "bm25":  # without the model, relevance to the topic is all BM25 can judge
            ranked_topic = self.search(
                "", len(self.chunks), mode, agent, frames, list(intent.topic)
            )
        else:
            ranked_topic = ranked
        pool = [h for h in ranked_topic if h.chunk.kind == "frame" and id(h.chunk) in about]
        pool, held = _best_held(pool, intent)
        if not pool:
            return Found(ranked[:k], replace(intent, order=None), held="nothing")
        if intent.mention:  # when the words came up: every frame holding them, as ``first``
            timely = pool
        else:
            gate = GATE * pool[0].score if pool[0].score > 0 else 0.0
            timely = pool[: max(TOP, sum(h.score >= gate for h in pool))]  # still by relevance
        timely.sort(key=lambda h: _when(h, agent is not None), reverse=intent.order == "latest")
        chosen = {id(h.chunk) for h in timely}
        rest = [h for h in ranked if id(h.chunk) not in chosen]
        timely = [holding_bullet(h, intent.asked) for h in timely[:k]]
        return Found((timely + rest)[:k], intent, len(timely), _ties(timely), held)

    def _about(self, topic: tuple[str, ...]) -> set[int]:
        """ids of the chunks whose units hold every topic word (by stem): one word of several
        alone does not make a chunk about them."""
        owners = self._owners
        sets = [set(map(owners.__getitem__, self.lexical.containing(t))) for t in topic]
        if not sets:
            return set()
        return {id(self.chunks[r]) for r in set.intersection(*sets)}

    def unit_scores(
        self, query: str, mode: str, rows: np.ndarray, tokens: list[str] | None = None
    ) -> np.ndarray:
        """Each searched unit's score (aligned with ``rows``) in ``mode``."""
        lexical = dense = None
        if mode != "dense":
            terms = tokenize(query) if tokens is None else tokens
            lexical = self.lexical.scores(terms)[rows]
        if mode != "bm25":
            try:
                dense = self._dense(query, rows)
                self.dense_problem = None
            except EncoderError as exc:
                # An endpoint gone since the units were embedded (their vectors are cached):
                # hybrid search still answers, by BM25, and says so; dense search cannot.
                if mode == "dense":
                    raise RecallError(str(exc)) from exc
                self.dense_problem = str(exc)
        if lexical is None:
            return dense
        if dense is None:
            return lexical
        weight = 1 - DENSE_WEIGHT
        if self.coverage:
            weight *= self.lexical.coverage(terms)
        fused = weight * _minmax(lexical) + DENSE_WEIGHT * _minmax(dense)
        return self._smooth(rows, fused)

    def _dense(self, query: str, rows: np.ndarray) -> np.ndarray:
        """The cosine of each searched unit (its best piece's, less its hubness) to ``query``."""
        import numpy as np

        assert self.encoder is not None and self._product is not None
        q = self.encoder.encode([query])[0]
        start, stop = int(rows[0]), int(rows[-1]) + 1
        lo, hi = int(self._piece_start[start]), int(self._piece_start[stop])
        dense = self._product(lo, hi, q)
        if self._hub is not None:
            dense = dense - self._hub[lo:hi]
        if hi - lo != stop - start:  # several pieces to a unit: the best one scores it
            dense = np.maximum.reduceat(dense, self._piece_start[start:stop] - lo)
        if len(dense) != len(rows):  # a frame filter: score the span, keep its rows
            dense = dense[rows - start]
        return dense

    def _smooth(self, rows: np.ndarray, fused: np.ndarray) -> np.ndarray:
        """Add ``SMOOTHING`` times the better fused score of each unit's two neighbours."""
        import numpy as np

        prev, nxt = self._neighbours
        if len(rows) == self._size:  # the whole world: no need to place the rows
            full = np.append(fused, 0.0)
        else:
            full = np.zeros(self._size + 1)
            full[rows] = fused
            prev, nxt = prev[rows], nxt[rows]
        return fused + SMOOTHING * np.maximum(full[prev], full[nxt])

    def _best_scored(self, scored: dict[int, float], rows: Sequence[int], k: int) -> list[Hit]:
        """The chunks of the units of ``rows`` that ``scored`` gives a positive score, by their
        best unit's score, best first; ties go to the earlier chunk, within a chunk to the
        earlier unit (as ``_best_chunks`` ranks the same scores)."""
        searched = rows if isinstance(rows, range) else set(rows)
        owners = self._owners
        best: dict[int, tuple[float, int]] = {}  # chunk -> its best score, and that unit
        for unit, score in scored.items():
            if score <= 0 or unit not in searched:
                continue
            chunk = owners[unit]
            held = best.get(chunk)
            if held is None or score > held[0] or (score == held[0] and unit < held[1]):
                best[chunk] = (score, unit)
        ranked = sorted(best.items(), key=lambda found: (-found[1][0], found[0]))[:k]
        return [Hit(self.chunks[c], score, unit - self._start[c]) for c, (score, unit) in ranked]

    def _best_chunks(self, rows: np.ndarray, scores: np.ndarray, k: int) -> list[Hit]:
        """Chunks by their best unit's score, best first; ties go to the earlier chunk."""
        import numpy as np

        if len(rows) == 0:
            return []
        owners = self._owner[rows]
        starts = np.flatnonzero(np.r_[True, owners[1:] != owners[:-1]])
        best = np.maximum.reduceat(scores, starts)
        if len(best) > k:  # every chunk tied with the k-th stays in, so k cannot change the order
            kth = np.partition(best, len(best) - k)[len(best) - k]
            chosen = np.flatnonzero(best >= kth)
        else:
            chosen = np.arange(len(best))
        chosen = chosen[np.lexsort((owners[starts[chosen]], -best[chosen]))][:k]
        hits = []
        for c in chosen:
            lo = starts[c]
            hi = starts[c + 1] if c + 1 < len(starts) else len(rows)
            unit = int(rows[lo + int(np.argmax(scores[lo:hi]))])
            owner = int(owners[lo])
            hits.append(Hit(self.chunks[owner], float(best[c]), unit - self._start[owner]))
        return hits

    def _rows(self, agent: str | None, frames: FrameRange | None) -> Sequence[int]:
        """The units searched, as sorted row numbers."""
        span = slice(0, self._size)
        if agent is not None:
            span = self._agents.get(agent, slice(0, 0))
        rows = range(span.start, span.stop)
        if frames is None or not frames.bounded or not rows:
            return rows
        starts, numbers, dates = self._start, self._columns.numbers, self._columns.dates
        kept: list[int] = []
        for c in range(bisect_left(starts, span.start), bisect_left(starts, span.stop)):
            if frames.holds(numbers[c], dates[c]):
                kept += range(starts[c], starts[c + 1])
        return kept


def _numpy_loaded() -> bool:
    """Whether numpy is imported: a BM25 search then scores and ranks with it (a query over a
    large world in a millisecond), else in plain Python (``LexicalIndex.weights``: tens of
    milliseconds there, but a search from the command line is spared importing numpy, a tenth
    of a second). Both give the same hits, scores to the bit."""
    return "numpy" in sys.modules


def _best_held(hits: list[Hit], intent: Intent) -> tuple[list[Hit], str]:
    """The hits that hold the asked words best (``temporal.Asked.holds``: as written, else as
    words, else by stem), in the order given, and how they hold them."""
    asked = intent.asked
    if asked is None or not hits:
        return hits, HOLDS[-1] if hits else "nothing"
    tiers: list[list[Hit]] = [[], [], [], []]  # the last: hits that do not hold them
    for h in hits:
        tiers[asked.holds(h.chunk.text)].append(h)
    best = next((i for i, tier in enumerate(tiers[:-1]) if tier), None)
    if best is None:
        return [], "nothing"
    return tiers[best], HOLDS[best]


def holding_bullet(hit: Hit, asked: Asked | None) -> Hit:
    """``hit`` shown by its bullet that holds the asked words best, where one holds them better
    than the bullet that scored it (BM25 scores a bullet with the two before it: the bullet
    that scored may not hold them)."""
    bullets = hit.chunk.bullets
    if asked is None or not bullets:
        return hit
    stems = {t for w in asked.words for t in tokenize(w)}

    def rank(i: int) -> tuple[int, int, bool]:
        # How it holds them; then how many of their stems it holds (a one-word topic holds
        # "by stem" anywhere); then the bullet that scored.
        return (asked.holds(bullets[i]), -len(stems & set(tokenize(bullets[i]))), i != hit.bullet)

    return replace(hit, bullet=min(range(len(bullets)), key=rank))


def _when(hit: Hit, one_agent: bool) -> tuple:
    """Time order (``soul.when``): date, then time of day (a date-only frame at its file's
    bound, else the start of its day), undated frames last; one agent's frames then in file
    order, a frame's parts in order. Frames of several agents at the same moment keep the order
    they come in (by relevance)."""
    m = hit.chunk.moment
    key = m.key if m is not None else (when.UNDATED, "", 0)
    return (key if one_agent else key[:3], hit.chunk.part)


def _ties(hits: list[Hit]) -> frozenset[int]:
    """Positions of time-ordered hits whose frame the headings cannot place apart from the one
    before it (the same day where one gives no time, the same minute in two files)."""
    out: set[int] = set()
    for i in range(1, len(hits)):
        a, b = hits[i - 1].chunk, hits[i].chunk
        if a.moment is None or b.moment is None:
            continue
        if a.agent == b.agent:
            continue  # one file's frames are in the order they were written
        if not when.ordered(a.moment, b.moment):
            out.add(i)
    return frozenset(out)


def _fastest_product(vectors: np.ndarray) -> Callable[[int, int, np.ndarray], np.ndarray]:
    """``(start, stop, q) -> vectors[start:stop] @ q``, the faster of two ways on this CPU.

    Over a large world the product is bound by reading the matrix (30,000 chunks are about
    130,000 bullets, 190 MB of float32), so where torch is already loaded (the local model) and
    multiplies a bfloat16 copy faster, measured here once, that copy is used: half the bytes,
    cosines within about 1e-3. Small indexes, or CPUs without fast bfloat16, stay in float32.
    """

    def single(start: int, stop: int, q: np.ndarray) -> np.ndarray:
        return vectors[start:stop] @ q

    if "torch" not in sys.modules or len(vectors) < HALF_FROM:
        return single
    bfloat16 = bfloat16_product(vectors)

    def best_of(fn: Callable[[int, int, np.ndarray], np.ndarray]) -> float:
        q = vectors[0]
        times = []
        for _ in range(3):
            t = time.perf_counter()
            fn(0, len(vectors), q)
            times.append(time.perf_counter() - t)
        return min(times)

    return bfloat16 if best_of(bfloat16) < 0.8 * best_of(single) else single


def bfloat16_product(vectors: np.ndarray) -> Callable[[int, int, np.ndarray], np.ndarray]:
    """``(start, stop, q) -> vectors[start:stop] @ q`` from a bfloat16 copy in torch."""
    import torch

    half = torch.from_numpy(vectors).to(torch.bfloat16)

    def product(start: int, stop: int, q: np.ndarray) -> np.ndarray:
        return (half[start:stop] @ torch.from_numpy(q).to(torch.bfloat16)).float().numpy()

    return product


def hubness_of(vectors: np.ndarray, owner: np.ndarray, batch: int = 1024) -> np.ndarray:
    """Each row's mean cosine to its ``NEIGHBOURS`` nearest rows of another owner (chunk);
    fewer where there are fewer such rows, and 0 where there are none."""
    import numpy as np

    n = len(vectors)
    out = np.zeros(n, dtype=np.float32)
    k = min(NEIGHBOURS, n)
    for lo in range(0, n, batch):
        sims = vectors[lo : lo + batch] @ vectors.T
        sims[owner[lo : lo + batch, None] == owner[None, :]] = -np.inf
        top = np.partition(sims, n - k, axis=1)[:, n - k :]
        known = np.isfinite(top)
        total = np.where(known, top, 0.0).sum(axis=1)
        out[lo : lo + batch] = total / np.maximum(known.sum(axis=1), 1)
    return out


def _minmax(scores: np.ndarray) -> np.ndarray:
    """Scores mapped onto 0..1 over the rows searched (all zero when they are all equal)."""
    import numpy as np

    low, high = float(scores.min()), float(scores.max())
    if high <= low:
        return np.zeros_like(scores, dtype=np.float64)
    return (scores - low) / (high - low)
