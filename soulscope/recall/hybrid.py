"""One index over a world's chunks: BM25, dense cosine, and their score fusion.

Retrieval scores units (a chunk's bullets, see ``chunks.units_of``) and returns chunks, each scored
by its best unit, so a hit cites a whole frame but was found by the bullet that answers. Hybrid
search fuses the two lists by score: each side is min-max normalised over the rows searched, then
``(1 - DENSE_WEIGHT) * bm25 + DENSE_WEIGHT * cosine``, and each unit gains ``SMOOTHING`` times the
better fused score of its neighbours in the same block (an answer is often spread over two
bullets). Every row searched is scored, so the first 10 hits of a k=50 search are the k=10 search.
On LoCoMo (bench/locomo.py) this beats reciprocal rank fusion, which fell below BM25 alone.

Everything that does not depend on the query is computed when the index is built (tokens,
postings, a unit-length embedding matrix, each agent's row range, neighbours), so a query is one
encoder call, a few vector additions and one matrix-vector product.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from soulscope.recall.chunks import DEFAULT_MAX_CHARS, Chunk, chunk_soul, units_of
from soulscope.recall.lexical import LexicalIndex, tokenize
from soulscope.recall.semantic import EmbeddingCache, Encoder, Progress, embed
from soulscope.world import World, WorldError

MODES = ("hybrid", "bm25", "dense")
DENSE_WEIGHT = 0.5
SMOOTHING = 0.2


class RecallError(Exception):
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
class FrameRange:
    """Frames ``first..last`` by number, both ends included; either end may be open."""

    first: int | None = None
    last: int | None = None

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

    def __init__(self, chunks: Sequence[Chunk], skipped: Sequence[str] = ()) -> None:
        self.chunks = list(chunks)
        self.skipped = list(skipped)  # files that could not be read, each with the reason
        self.units = units_of(self.chunks)
        self.lexical = LexicalIndex([tokenize(u.lexical) for u in self.units])
        n = len(self.units)
        owner = np.array([u.chunk for u in self.units], dtype=np.int64)
        self._owner = owner
        self._bullet = np.array([u.bullet for u in self.units], dtype=np.int64)
        numbers = np.array([c.number if c.number is not None else -1 for c in self.chunks])
        self._numbers = numbers[owner] if n else np.zeros(0, dtype=np.int64)
        # Neighbours in the same block; n points at a zero appended to the scores.
        first = np.array([u.first for u in self.units], dtype=bool)
        idx = np.arange(n, dtype=np.int64)
        self._prev = np.where(first, n, idx - 1)
        nxt = idx + 1
        self._next = np.where(np.append(first[1:], True), n, nxt) if n else idx
        self._agents: dict[str, slice] = {}
        for row, u in enumerate(self.units):
            name = self.chunks[u.chunk].agent
            span = self._agents.get(name)
            if span is None:
                self._agents[name] = slice(row, row + 1)
            elif span.stop == row:  # chunks of one agent are contiguous when built per soul
                self._agents[name] = slice(span.start, row + 1)
            else:
                raise ValueError(f"chunks of {name} are not contiguous")
        self.encoder: Encoder | None = None
        self.vectors: np.ndarray | None = None

    @classmethod
    def for_world(
        cls, world: World, agents: Iterable[str] | None = None, max_chars: int = DEFAULT_MAX_CHARS
    ) -> RecallIndex:
        """Chunks of every agent of ``world`` (or of ``agents``); unreadable files are skipped."""
        ids = list(agents) if agents is not None else [a.id for a in world.agents()]
        chunks: list[Chunk] = []
        skipped: list[str] = []
        for agent_id in ids:
            try:
                soul = world.read(agent_id)
            except WorldError as exc:
                skipped.append(str(exc))
                continue
            chunks.extend(chunk_soul(soul, agent_id, max_chars=max_chars))
        return cls(chunks, skipped)

    def __len__(self) -> int:
        return len(self.chunks)

    @property
    def agents(self) -> list[str]:
        return list(self._agents)

    @property
    def dense_texts(self) -> list[str]:
        """What the embedding model reads: one text per unit."""
        return [u.dense for u in self.units]

    def attach(
        self,
        encoder: Encoder,
        cache: EmbeddingCache | None = None,
        vectors: np.ndarray | None = None,
        progress: Progress | None = None,
    ) -> None:
        """Enable dense search: embed every unit (cached vectors are read back, the rest
        encoded batch by batch, ``progress`` told after each), or take ``vectors`` the caller
        already has, one row per unit (a chunk without bullets is one unit)."""
        if vectors is None:
            vectors = embed(self.dense_texts, encoder, cache, progress)
        if len(vectors) != len(self.units):
            raise ValueError(f"{len(vectors)} vectors for {len(self.units)} units")
        self.vectors = vectors
        self.encoder = encoder

    @property
    def dense_ready(self) -> bool:
        return self.vectors is not None and self.encoder is not None

    def search(
        self,
        query: str,
        k: int = 10,
        mode: str = "hybrid",
        agent: str | None = None,
        frames: FrameRange | None = None,
    ) -> list[Hit]:
        """The ``k`` best chunks for ``query`` among those of ``agent`` in ``frames``."""
        if mode not in MODES:
            raise RecallError(f"unknown search mode '{mode}' (use {', '.join(MODES)})")
        if mode != "bm25" and not self.dense_ready:
            raise RecallError(f"{mode} search needs the embedding model, which is not loaded yet")
        rows = self._rows(agent, frames)
        if k <= 0 or not query.strip() or len(rows) == 0:
            return []
        scores = self.unit_scores(query, mode, rows)
        keep = scores > 0 if mode == "bm25" else np.ones(len(rows), dtype=bool)
        return self._best_chunks(rows, scores, keep, k)

    def unit_scores(self, query: str, mode: str, rows: np.ndarray) -> np.ndarray:
        """Each searched unit's score (aligned with ``rows``) in ``mode``."""
        lexical = dense = None
        if mode != "dense":
            lexical = self.lexical.scores(tokenize(query))[rows]
        if mode != "bm25":
            assert self.encoder is not None and self.vectors is not None
            q = self.encoder.encode([query])[0]
            dense = self.vectors[rows] @ q
        if lexical is None:
            return dense
        if dense is None:
            return lexical
        fused = (1 - DENSE_WEIGHT) * _minmax(lexical) + DENSE_WEIGHT * _minmax(dense)
        return self._smooth(rows, fused)

    def _smooth(self, rows: np.ndarray, fused: np.ndarray) -> np.ndarray:
        """Add ``SMOOTHING`` times the better fused score of each unit's two neighbours."""
        full = np.zeros(len(self.units) + 1)
        full[rows] = fused
        return fused + SMOOTHING * np.maximum(full[self._prev[rows]], full[self._next[rows]])

    def _best_chunks(
        self, rows: np.ndarray, scores: np.ndarray, keep: np.ndarray, k: int
    ) -> list[Hit]:
        """Chunks by their best unit's score, best first; ties go to the earlier chunk."""
        rows, scores = rows[keep], scores[keep]
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
            unit = rows[lo + int(np.argmax(scores[lo:hi]))]
            chunk = self.chunks[int(owners[lo])]
            hits.append(Hit(chunk, float(best[c]), int(self._bullet[unit])))
        return hits

    def _rows(self, agent: str | None, frames: FrameRange | None) -> np.ndarray:
        """The units searched, as sorted row numbers."""
        span = slice(0, len(self.units))
        if agent is not None:
            span = self._agents.get(agent, slice(0, 0))
        rows = np.arange(span.start, span.stop, dtype=np.int64)
        if frames is not None and (frames.first is not None or frames.last is not None):
            numbers = self._numbers[rows]
            keep = numbers >= 0
            if frames.first is not None:
                keep &= numbers >= frames.first
            if frames.last is not None:
                keep &= numbers <= frames.last
            rows = rows[keep]
        return rows


def _minmax(scores: np.ndarray) -> np.ndarray:
    """Scores mapped onto 0..1 over the rows searched (all zero when they are all equal)."""
    low, high = float(scores.min()), float(scores.max())
    if high <= low:
        return np.zeros_like(scores, dtype=np.float64)
    return (scores - low) / (high - low)
