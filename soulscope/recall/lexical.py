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
term weights), so a query costs one vector addition per query term.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
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
    out: list[str] = []
    for match in _TOKEN.finditer(text.lower()):
        token = match.group()
        if token.startswith("#"):
            out += (token, token[1:])
            continue
        if token in STOPWORDS:
            continue
        out.append(stem(token))
        if _JOINERS.search(token):
            out += [stem(p) for p in _JOINERS.split(token) if p and p not in STOPWORDS]
    return out


class LexicalIndex:
    """BM25Plus over tokenized documents, scored through precomputed postings."""

    def __init__(
        self,
        documents: Sequence[Sequence[str]],
        k1: float = K1,
        b: float = 0.75,
        delta: float = 1.0,
    ) -> None:
        self.size = len(documents)
        self.k1, self.b, self.delta = k1, b, delta
        self.idf: dict[str, float] = {}
        self._postings: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        if not any(documents):
            return  # empty corpus (or only empty documents): nothing can match
        from rank_bm25 import BM25Plus

        bm25 = BM25Plus([list(d) for d in documents], k1=k1, b=b, delta=delta)
        self.idf = bm25.idf
        norm = k1 * (1 - b + b * np.asarray(bm25.doc_len, dtype=np.float64) / bm25.avgdl)
        rows: dict[str, list[int]] = {}
        freqs: dict[str, list[int]] = {}
        for row, counts in enumerate(bm25.doc_freqs):
            for term, tf in counts.items():
                rows.setdefault(term, []).append(row)
                freqs.setdefault(term, []).append(tf)
        for term, term_rows in rows.items():
            r = np.asarray(term_rows, dtype=np.int64)
            tf = np.asarray(freqs[term], dtype=np.float64)
            weight = self.idf[term] * tf * (k1 + 1) / (norm[r] + tf)
            self._postings[term] = (r, weight)

    def containing(self, term: str) -> np.ndarray:
        """The rows of the documents that hold ``term`` (a token as :func:`tokenize` makes it)."""
        posting = self._postings.get(term)
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
            posting = self._postings.get(term)
            if posting is not None:
                rows, weight = posting
                out[rows] += weight
        return out
