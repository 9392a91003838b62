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
counts), so a query walks only the postings of its terms; the postings are built from term counts
(``TermCounts``, with numpy), which a soul file's cache entry keeps, so an unchanged file is not
tokenized again. The postings are read as plain numbers: ``weights`` scores a query in plain
Python, so a search from a kept index need not import numpy (a tenth of a second, most of a warm
search from the command line); ``scores`` gives the same numbers with numpy's vector additions.
"""

from __future__ import annotations

import math
import operator
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache
from itertools import chain
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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
        import numpy as np

        tokens = list(chain.from_iterable(documents))
        ids = {t: i for i, t in enumerate(dict.fromkeys(tokens))}  # in the order of first sight
        terms = np.fromiter(map(ids.__getitem__, tokens), np.int64, len(tokens))
        lengths = np.fromiter(map(len, documents), np.int64, len(documents))
        return cls.counted(ids, terms, lengths)

    @classmethod
    def counted(cls, vocab: dict[str, int], terms: np.ndarray, lengths: np.ndarray) -> TermCounts:
        """The counts of documents given as term ids end to end (``vocab``: term -> id), the
        first ``lengths[0]`` ids the first document's, and so on."""
        import numpy as np

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
        import numpy as np

        # Term ids in the order of first sight, given in C.
        vocab = dict.fromkeys(chain.from_iterable(p.vocab for p in parts))
        ids = {t: i for i, t in enumerate(vocab)}
        terms = []
        for part in parts:
            mapping = np.fromiter(map(ids.__getitem__, part.vocab), np.int32, len(part.vocab))
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


class KeptTerms(Mapping[str, int]):
    """Term -> id over terms kept sorted, their UTF-8 bytes end to end (``blob``, term ``i``
    ending at ``ends[i]``): found by bisection, so a kept index answers without first making a
    dictionary of every word it holds."""

    def __init__(self, blob: bytes | memoryview, ends: Sequence[int]) -> None:
        self._blob = bytes(blob)
        self._ends = list(ends)
        if self._ends and (self._ends[-1] != len(self._blob) or self._ends != sorted(self._ends)):
            raise ValueError("kept terms that do not add up")

    def _term(self, i: int) -> bytes:
        return self._blob[self._ends[i - 1] if i else 0 : self._ends[i]]

    def __getitem__(self, term: str) -> int:
        key = term.encode("utf-8", "surrogatepass")
        lo, hi = 0, len(self._ends)
        while lo < hi:
            mid = (lo + hi) // 2
            if self._term(mid) < key:
                lo = mid + 1
            else:
                hi = mid
        if lo < len(self._ends) and self._term(lo) == key:
            return lo
        raise KeyError(term)

    def __len__(self) -> int:
        return len(self._ends)

    def __iter__(self) -> Iterator[str]:
        for i in range(len(self._ends)):
            yield self._term(i).decode("utf-8", "surrogatepass")


class LexicalIndex:
    """BM25Plus over tokenized documents, scored through postings kept column by column.

    The statistics are rank-bm25's BM25Plus (its IDF, document lengths and parameters), computed
    here from term counts: the same numbers, without walking a dictionary per document in Python.
    A term's postings are its documents' rows and counts; their weights are made when a query
    asks for the term, by the same arithmetic rank-bm25 does, so a score is its score to the bit.

    The columns are read as plain sequences of numbers (``memoryview``): an index read back from
    the cache (``kept``) is scored without numpy, which is only needed to build one.
    """

    def __init__(
        self,
        documents: Sequence[Sequence[str]] | TermCounts,
        k1: float = K1,
        b: float = 0.75,
        delta: float = 1.0,
    ) -> None:
        import numpy as np

        counts = documents if isinstance(documents, TermCounts) else TermCounts.of(documents)
        self.k1, self.b, self.delta = k1, b, delta
        size = len(counts.lengths)
        lengths = np.ascontiguousarray(counts.lengths, dtype=np.int64).data
        if not int(counts.lengths.sum()):  # empty corpus (or only empty documents): no match
            empty = np.zeros(0, dtype=np.int32).data
            self._set({}, empty, [0], empty, empty, lengths)
            return
        doc_freq = np.bincount(counts.terms, minlength=len(counts.vocab))
        idf = [math.log((size + 1) / f) if f else 0.0 for f in doc_freq.tolist()]
        # The pairs by term; within a term by document, as they come (stable).
        order = np.argsort(counts.terms, kind="stable")
        rows = np.repeat(np.arange(size, dtype=np.uint32), counts.per_doc)
        self._set(
            dict(zip(counts.vocab, range(len(counts.vocab)), strict=True)),
            np.asarray(idf, dtype=np.float64).data,
            np.concatenate(([0], np.cumsum(doc_freq))).astype(np.int64).data,
            np.ascontiguousarray(rows[order]).data,
            np.ascontiguousarray(counts.tfs[order], dtype=np.int32).data,
            lengths,
        )

    def _set(
        self,
        ids: Mapping[str, int],
        idf: Sequence[float],
        start: Sequence[int],
        rows: Sequence[int],
        tfs: Sequence[int],
        lengths: Sequence[int],
    ) -> None:
        """Term ``t`` (by id, ``ids[term]``): its IDF, and its postings, the documents
        ``rows[start[t]:start[t + 1]]`` that hold it and its count in each (``tfs``)."""
        self.ids, self._idf, self._start, self._rows, self._tfs = ids, idf, start, rows, tfs
        self._lengths = lengths
        self.size = len(lengths)
        total = sum(lengths)
        self._avgdl = total / self.size if total else 1.0

    def columns(self) -> tuple[bytes, Any, list[Any]]:
        """What ``kept`` takes back, terms sorted (by their UTF-8 bytes): their bytes end to end,
        where each ends, then by term its IDF and where its postings start, the postings' rows
        and counts, and the documents' lengths (numpy arrays)."""
        import numpy as np

        encoded = [t.encode("utf-8", "surrogatepass") for t in self.ids]
        order = np.asarray(sorted(range(len(encoded)), key=encoded.__getitem__), dtype=np.int64)
        ends = np.cumsum([len(encoded[i]) for i in order.tolist()], dtype=np.int64)
        first = np.asarray(self._start, dtype=np.int64)
        sizes = np.diff(first)[order]
        start = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
        # Term after term in the sorted order, each one's postings as they were.
        take = np.repeat(first[:-1][order] - start[:-1], sizes) + np.arange(int(start[-1]))
        blob = b"".join(encoded[i] for i in order.tolist())
        arrays = [
            np.asarray(self._idf, dtype=np.float64)[order],
            start,
            np.asarray(self._rows, dtype=np.uint32)[take],
            np.asarray(self._tfs, dtype=np.int32)[take],
            np.asarray(self._lengths, dtype=np.int64),
        ]
        return blob, ends, arrays

    @classmethod
    def kept(
        cls, ids: Mapping[str, int], columns: Sequence[Sequence[Any]], k1: float = K1
    ) -> LexicalIndex:
        """An index from its columns (``columns``, the terms as ``KeptTerms``, ids in its order);
        ``ValueError`` when they do not add up. Rows are checked when a query reads them."""
        idf, start, rows, tfs, lengths = columns
        if not (
            len(idf) == len(ids) == len(start) - 1
            and start[0] == 0
            and len(rows) == len(tfs) == start[-1]
            and all(map(operator.le, start[:-1], start[1:]))
        ):
            raise ValueError("a lexical index that does not add up")
        index = cls.__new__(cls)
        index.k1, index.b, index.delta = k1, 0.75, 1.0
        index._set(ids, idf, start, rows, tfs, lengths)
        return index

    def idf(self, term: str) -> float:
        """rank-bm25's BM25Plus IDF of ``term``: ``log((N + 1) / df)``; 0 where no document
        holds it."""
        i = self.ids.get(term)
        return float(self._idf[i]) if i is not None else 0.0

    def containing(self, term: str) -> Sequence[int]:
        """The rows of the documents that hold ``term`` (a token as :func:`tokenize` makes it),
        in order."""
        i = self.ids.get(term)
        if i is None:
            return ()
        return self._rows[self._start[i] : self._start[i + 1]]

    def coverage(self, query: Sequence[str]) -> float:
        """The share of ``query``'s weight on terms the index holds: each distinct term weighs its
        IDF, a term no document holds the IDF of the rarest (``log(N + 1)``, one document)."""
        weights = [self.idf(t) for t in set(query)]
        known = sum(weights)
        unknown = math.log(self.size + 1) * sum(w == 0.0 for w in weights)
        return known / (known + unknown) if known + unknown > 0 else 0.0

    def _norm(self, length: Any) -> Any:
        """rank-bm25's length normalisation of a document of ``length`` tokens (or an array)."""
        return self.k1 * (1 - self.b + self.b * length / self._avgdl)

    def weights(self, query: Sequence[str]) -> dict[int, float]:
        """The BM25Plus score of each document that holds a term of ``query`` (row -> score), in
        plain Python: what a process that has not imported numpy scores with.

        rank-bm25's ``get_scores`` also gives every document ``idf * delta`` per query term, known
        or not; that constant cannot change a ranking, and leaving it out makes "no match" zero.
        Each term's weights are made and added in the query's order, by rank-bm25's arithmetic
        (``_weight``), so a score is ``scores``' to the bit.
        """
        out: dict[int, float] = {}
        plus, lengths = self.k1 + 1, self._lengths
        norms: dict[int, float] = {}  # by document length
        try:
            for term in query:
                i = self.ids.get(term)
                if i is None:
                    continue
                idf = self._idf[i]
                lo, hi = self._start[i], self._start[i + 1]
                for row, tf in zip(self._rows[lo:hi], self._tfs[lo:hi], strict=True):
                    length = lengths[row]
                    norm = norms.get(length)
                    if norm is None:
                        norm = norms[length] = self._norm(length)
                    out[row] = out.get(row, 0.0) + _weight(idf, tf, plus, norm)
        except (IndexError, ValueError):  # a kept posting past the documents
            raise ValueError("a lexical index that does not add up") from None
        return out

    def scores(self, query: Sequence[str]) -> np.ndarray:
        """Each document's score as a numpy array, zero where it holds no query term: the
        numbers of ``weights``, a vector addition per term (a query over a large world takes a
        millisecond where ``weights`` takes tens)."""
        import numpy as np

        out = np.zeros(self.size, dtype=np.float64)
        plus, rows, tfs, norm = self.k1 + 1, *self._arrays
        try:
            for term in query:
                i = self.ids.get(term)
                if i is None:
                    continue
                lo, hi = self._start[i], self._start[i + 1]
                at, tf = rows[lo:hi], tfs[lo:hi].astype(np.float64)
                out[at] += _weight(self._idf[i], tf, plus, norm[at])
        except IndexError:  # a kept posting past the documents
            raise ValueError("a lexical index that does not add up") from None
        return out

    @cached_property
    def _arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The postings' rows and counts, and each document's normalisation, as numpy arrays."""
        import numpy as np

        rows = np.asarray(self._rows)
        lengths = np.asarray(self._lengths, dtype=np.float64)
        return rows, np.asarray(self._tfs), self._norm(lengths)


def _weight(idf: Any, tf: Any, plus: float, norm: Any) -> Any:
    """rank-bm25's BM25Plus weight of a term ``tf`` times in a document (numbers or arrays)."""
    return idf * tf * plus / (norm + tf)
