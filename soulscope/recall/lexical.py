"""BM25 over chunks: a stemming tokenizer that keeps thread numbers and agent ids, rank-bm25's statistics.

Words are reduced to their English Snowball stems ("started", "starting" -> "start"), so a question
need not repeat the exact form a soul file used; on LoCoMo (bench/locomo.py) stemming and a lower
``k1`` (term frequency saturates sooner in short bullets) each lift BM25's recall.

rank-bm25's BM25Okapi gives a term found in more than half of the corpus a zero or negative IDF
(floored at ``epsilon`` times the mean IDF), which on a single agent's file silences exactly the
words that agent uses most; BM25Plus's ``log((N + 1) / df)`` is positive for every term, so we use
it. rank-bm25 also divides by zero on an empty corpus; an empty index simply matches nothing.

rank-bm25 scores a query by walking every document's term dictionary in Python. We keep its IDF,
lengths and parameters but precompute, once, a postings list per term (document rows and their
term weights), so a query costs one vector addition per query term; the postings are built from
term counts (``TermCounts``), which a soul file's cache entry keeps, so an unchanged file is not
tokenized again.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

# A token is a thread number (#7448), or a run of letters/digits joined by - _ . (zion-coder-06, v1.2).
_TOKEN = re.compile(r"#\d+|[^\W_]+(?:[-_.][^\W_]+)*")
_JOINERS = re.compile(r"[-_.]")
_STOPWORDS = """
a an and are as at be been but by did do does for from had has have he her his how i if
in into is it its me my no not of on or our she so than that the their them then there
these they this to was we were what when where which who whom why will with you your s
"""
STOPWORDS = frozenset(_STOPWORDS.split())
K1 = 0.6  # measured on LoCoMo: 0.6 beats rank-bm25's 1.5 on bullets of a sentence or two


@lru_cache(maxsize=1)
def _stemmer():  # noqa: ANN202 - snowballstemmer ships no types
    import snowballstemmer

    return snowballstemmer.stemmer("english")


@lru_cache(maxsize=200_000)
def stem(word: str) -> str:
    """The English stem of a lower-case word; numbers and mixed tokens stay as they are."""
    return _stemmer().stemWord(word) if word.isalpha() else word


def tokenize(text: str) -> list[str]:
    """Lower-cased, stemmed tokens; ``#7448`` also yields ``7448``, ``zion-coder-06`` its parts."""
    known = _expansions
    if len(known) > MAX_EXPANSIONS:  # a bound on memory: start again
        known.clear()
    return [t for token in _TOKEN.findall(text.lower()) for t in known[token]]


class _Expansions(dict[str, tuple[str, ...]]):
    """What each raw token (a match of ``_TOKEN``) becomes, made on first sight and kept:
    tokenizing is most of a cold search's time, and most of that went to the same tokens again."""

    def __missing__(self, token: str) -> tuple[str, ...]:
        if token.startswith("#"):
            out: tuple[str, ...] = (token, token[1:])
        elif token in STOPWORDS:
            out = ()
        else:
            parts = [stem(token)]
            if _JOINERS.search(token):
                parts += [stem(p) for p in _JOINERS.split(token) if p and p not in STOPWORDS]
            out = tuple(parts)
        self[token] = out
        return out


_expansions = _Expansions()
MAX_EXPANSIONS = 500_000


@dataclass(frozen=True, slots=True)
class TermCounts:
    """What BM25 needs of tokenized documents: each document's distinct terms with their counts,
    and its length. Terms are ids into ``vocab``; document ``d``'s pairs are the ``per_doc[d]``
    pairs after those of the documents before it. Counts of several corpora are ``joined``
    without tokenizing again (``recall.prepared`` keeps a soul file's counts in the cache)."""

    vocab: list[str]
    terms: np.ndarray  # int32, per (document, distinct term) pair
    tfs: np.ndarray  # int32, the term's count in the document
    per_doc: np.ndarray  # int32, distinct terms per document
    lengths: np.ndarray  # int64, tokens per document

    @classmethod
    def of(cls, documents: Sequence[Sequence[str]]) -> TermCounts:
        ids: dict[str, int] = {}
        add = ids.setdefault
        terms = [add(t, len(ids)) for d in documents for t in d]
        lengths = np.fromiter(map(len, documents), np.int64, len(documents))
        return cls.counted(ids, np.asarray(terms, dtype=np.int64), lengths)

    @classmethod
    def counted(cls, vocab: dict[str, int], terms: np.ndarray, lengths: np.ndarray) -> TermCounts:
        """The counts of documents given as term ids end to end (``vocab``: term -> id), the
        first ``lengths[0]`` ids the first document's, and so on."""
        n = len(lengths)
        if not n or not lengths.sum():
            empty = np.zeros(0, dtype=np.int32)
            return cls(list(vocab), empty, empty, np.zeros(n, dtype=np.int32), lengths)
        width = max(len(vocab), 1)
        rows = np.repeat(np.arange(n, dtype=np.int64), lengths)
        pairs, tfs = np.unique(rows * width + terms, return_counts=True)
        return cls(
            list(vocab),
            (pairs % width).astype(np.int32),
            tfs.astype(np.int32),
            np.bincount(pairs // width, minlength=n).astype(np.int32),
            lengths.astype(np.int64, copy=False),
        )

    @classmethod
    def joined(cls, parts: Sequence[TermCounts]) -> TermCounts:
        """The documents of ``parts``, in order, over one vocabulary."""
        ids: dict[str, int] = {}
        terms = []
        for part in parts:
            mapping = np.fromiter(
                (ids.setdefault(t, len(ids)) for t in part.vocab), np.int32, len(part.vocab)
            )
            terms.append(mapping[part.terms])

        def cat(arrays: list[np.ndarray], dtype: type) -> np.ndarray:
            return (
                np.concatenate(arrays).astype(dtype, copy=False) if arrays else np.zeros(0, dtype)
            )

        return cls(
            list(ids),
            cat(terms, np.int32),
            cat([p.tfs for p in parts], np.int32),
            cat([p.per_doc for p in parts], np.int32),
            cat([p.lengths for p in parts], np.int64),
        )


class LexicalIndex:
    """BM25Plus over tokenized documents, scored through precomputed postings.

    The statistics are rank-bm25's BM25Plus (its IDF, document lengths and parameters), computed
    here from term counts: the same numbers, without walking a dictionary per document in Python.
    """

    def __init__(
        self,
        documents: Sequence[Sequence[str]] | TermCounts,
        k1: float = K1,
        b: float = 0.75,
        delta: float = 1.0,
    ) -> None:
        counts = documents if isinstance(documents, TermCounts) else TermCounts.of(documents)
        self.size = len(counts.lengths)
        self.k1, self.b, self.delta = k1, b, delta
        self.idf: dict[str, float] = {}
        # Postings of term ``t`` (by id): ``_rows[_start[t]:_start[t + 1]]`` and their weights.
        self._ids: dict[str, int] = {}
        self._rows = np.zeros(0, dtype=np.int64)
        self._weights = np.zeros(0, dtype=np.float64)
        self._start = np.zeros(1, dtype=np.int64)
        total = int(counts.lengths.sum())
        if not total:
            return  # empty corpus (or only empty documents): nothing can match
        avgdl = total / self.size
        doc_freq = np.bincount(counts.terms, minlength=len(counts.vocab))
        idf = [math.log((self.size + 1) / f) if f else 0.0 for f in doc_freq.tolist()]
        frequencies = doc_freq.tolist()
        self.idf = {t: v for t, v, f in zip(counts.vocab, idf, frequencies, strict=True) if f}
        self._ids = {t: i for i, t in enumerate(counts.vocab)}
        # The pairs by term; within a term by document, as they come (stable).
        order = np.argsort(counts.terms, kind="stable")
        rows = np.repeat(np.arange(self.size, dtype=np.int64), counts.per_doc)[order]
        terms = counts.terms[order]
        tf = counts.tfs[order].astype(np.float64)
        norm = k1 * (1 - b + b * counts.lengths.astype(np.float64) / avgdl)
        self._rows = rows
        self._weights = np.asarray(idf, dtype=np.float64)[terms] * tf * (k1 + 1) / (norm[rows] + tf)
        self._start = np.concatenate(([0], np.cumsum(doc_freq))).astype(np.int64)

    def state(self) -> tuple[list[str], list[np.ndarray]]:
        """What ``restore`` needs: the vocabulary, and the IDF, postings and their starts by term."""
        vocab = list(self._ids)
        idf = np.array([self.idf.get(t, 0.0) for t in vocab], dtype=np.float64)
        return vocab, [idf, self._rows, self._weights, self._start]

    @classmethod
    def restore(
        cls, size: int, vocab: list[str], arrays: Sequence[np.ndarray], k1: float = K1
    ) -> LexicalIndex:
        """An index as ``state`` left it (kept in the cache); ``ValueError`` when it does not fit."""
        idf, rows, weights, start = arrays
        if not (
            len(idf) == len(vocab) == len(start) - 1
            and len(rows) == len(weights) == (int(start[-1]) if len(start) else -1)
            and (not len(rows) or 0 <= int(rows.min()) <= int(rows.max()) < size)
        ):
            raise ValueError("a lexical index that does not add up")
        index = cls([], k1=k1)
        index.size = size
        index.idf = dict(zip(vocab, idf.tolist(), strict=True))
        index._ids = {t: i for i, t in enumerate(vocab)}
        index._rows, index._weights, index._start = rows, weights, start
        return index

    def _posting(self, term: str) -> tuple[np.ndarray, np.ndarray] | None:
        i = self._ids.get(term)
        if i is None:
            return None
        lo, hi = self._start[i], self._start[i + 1]
        return (self._rows[lo:hi], self._weights[lo:hi]) if hi > lo else None

    def containing(self, term: str) -> np.ndarray:
        """The rows of the documents that hold ``term`` (a token as :func:`tokenize` makes it)."""
        posting = self._posting(term)
        return posting[0] if posting is not None else np.zeros(0, dtype=np.int64)

    def coverage(self, query: Sequence[str]) -> float:
        """The share of ``query``'s weight on terms the index holds: each distinct term weighs its
        IDF, a term no document holds the IDF of the rarest (``log(N + 1)``, one document)."""
        terms = set(query)
        known = sum(self.idf.get(t, 0.0) for t in terms)
        unknown = math.log(self.size + 1) * sum(t not in self.idf for t in terms)
        return known / (known + unknown) if known + unknown > 0 else 0.0

    def scores(self, query: Sequence[str]) -> np.ndarray:
        """Each document's BM25Plus score, zero where it holds no query term.

        rank-bm25's ``get_scores`` also gives every document ``idf * delta`` per query term, known
        or not; that constant cannot change a ranking, and leaving it out makes "no match" zero.
        """
        out = np.zeros(self.size, dtype=np.float64)
        for term in query:
            posting = self._posting(term)
            if posting is not None:
                rows, weight = posting
                out[rows] += weight
        return out
