"""Turning points and chapters of an arc: where the identity really moved, and the stretches of
one identity between those moves, each named by its own words.

The shift classes of ``trajectory`` compare a statement with the one before it; on real arcs
that says little (an early-era arc refines at every step, a later-era one shifts at every step).
What a reader wants is measured against the agent's own arc instead:

- a statement's *move* is how far the arc's words (or meaning) before it are from those from it
  on: the cosine distance between the sums of the ``WINDOW`` statements on each side, weighted
  by how rare each word is in this arc (a word the agent says everywhere moves nothing);
- a *turning point* is a move that stands out from this agent's usual moves (above the median
  by ``SPREAD`` robust deviations), the largest first, no two closer than ``MIN_CHAPTER``
  statements; an arc of ``SINGLE_OUT``+ statements has at least one (its largest move) and at
  most max(3, 30%);
- an arc shorter than ``SINGLE_OUT`` has too few statements for usual moves: there a statement
  turns where the world names a new seed, where the agent declares a change, or where it takes
  a role other than the previous statement's in words (or meaning) its stretch does not say
  (``SHORT_MOVE``, ``SHORT_MEANING``), unless nearly every statement of the arc renames it
  (``RENAMING``: the arc's style);
- *chapters* are the stretches between turning points, each titled by the words that set it
  apart from the rest of the arc.

Everything is O(n log n) in the arc's length, in numpy: a soul that never compacts has an arc of
70,000 statements.
"""

from __future__ import annotations

import math
import re
from array import array
from bisect import bisect_left, bisect_right, insort
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import compress

from soulscope.soul import turns
from soulscope.soul.counters import NUMBER_WORDS, is_counter, strip_counters


def _words_in(text: str) -> list[str]:
    return text.split()


WINDOW = 4  # statements on each side of a place whose words are compared
EVEN = 0.8  # a peak this deep against the deepest turns, whatever the spread of the others
MIN_CHAPTER = 2  # statements at least between two turns by words, and from the arc's ends
MEAN_CHAPTER = 3  # statements at least in a chapter on average: an arc of n has n/3 at most
CUT = (
    -0.5
)  # a turn by words is a peak at least this arc's mean peak depth less half a deviation (Hearst)
SINGLE_OUT = 10  # an arc this long has at least one turning point, and turns by its words too
DECLARED = 0.6  # words of change this rare in an arc make a turning point (``turns.declared``)
SHORT_MOVE = 0.5  # in a short arc, a new role turns when its words move this far from its stretch
SHORT_MEANING = 0.6  # ...or its meaning (embeddings put statements of one stretch 0.4-0.55 apart)
RENAMING = 0.75  # ...unless the arc names a new role in more than this share of its statements
MIN_DECLARED_GAP = 2  # statements at least between a declared turn and another turn
THEME = 0.5  # a word said in this share of two stretches' statements makes them one...
ELSEWHERE = 0.25  # ...when the arc's other statements say it less than this
MOST_SHARE = 0.3  # at most this share of an arc's statements are turning points (at least 3)
SEEN_TEXTS = 4096  # texts whose words are kept while reading an arc (it repeats its wording)
TURN_MARK = "◆"  # a turning point, where the CLI and the dashboard show one
TITLE_WORDS = 3  # words of a chapter's title (one more where a phrase of two ends it)
MIN_TITLE_WORDS = 2

_TOKEN = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*")  # words, hyphens and apostrophes inside
# Words that name nothing: function words, and the verbs and adverbs every statement uses.
_STOPWORDS = frozenset(
    _words_in(
        """a about above across after again against all almost along also although always am among an
        and another any anyone anything are around as at be became because become becomes becoming been
        before being below between both but by can cannot could did do does doing done down during each
        either else enough even ever every everything few first for from further get gets getting got
        had has have having he her here hers him his how however i if in into is it its itself just
        least less like made make makes many may me might more most much must my need needs neither
        never new next no nor not now of off often on once one only onto or other others our ours out
        over own per perhaps quite rather really same second see seems several shall she should since so
        some something specifically still such than that the their theirs them themselves then there
        these they thing things this those though through thus to too toward towards under until up upon
        us very via was way we well were what whatever when where whether which while who whom whose
        why will with within without would yet you your yours little lot lots bit kind sort"""
    )
    # Praise and verdicts: they say how a thing went, never what it was.
    + _words_in(
        """best better worse worst strongest weakest sharpest clearest biggest largest easiest
        hardest useful important interesting confirmed works work worked working already right
        wrong real different"""
    )
)


def _stem(word: str) -> str:
    """Plurals folded ("claims", "claim"): the same word for counting, shown as it was written."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def content_words(text: str) -> list[tuple[str, str, bool]]:
    """The words of a statement that can name something, in order, each as (key, the word as
    written, whether it follows the previous one directly, as in "grammatical analysis"). Left
    out: leading counters ("twenty-eighth bet."), counters anywhere ("fifth"), function words,
    adverbs, and the names in agent ids ("debater" of "debater-01")."""
    out: list[tuple[str, str, bool]] = []
    body = strip_counters(text)
    kept_end = -1  # where the last kept word ended (-1: the word before was left out)
    for m in _TOKEN.finditer(body):
        word = m.group().strip("'’-")
        low = word.lower().replace("’", "'")
        if low.endswith("'s"):
            low = low[:-2]
        after = body[m.end() : m.end() + 2]
        if (
            (len(low) < 3 and not (len(word) == 2 and word.isupper()))  # "OP", "PR" stay
            or low in _STOPWORDS
            or (low.endswith("ly") and len(low) > 4)
            or is_counter(low)
            or low in NUMBER_WORDS
            or (after[:1] == "-" and after[1:2].isdigit())
        ):
            kept_end = -1
            continue
        joined = kept_end >= 0 and body[kept_end : m.start()] in (" ", "-")
        out.append((_stem(low), word, joined))
        kept_end = m.end()
    return out


@dataclass(frozen=True, slots=True)
class Chapter:
    """A stretch of one identity: statements ``start`` to ``end`` (one past), arc positions."""

    number: int  # 1..C
    start: int
    end: int
    title: str

    def __len__(self) -> int:
        return self.end - self.start


@dataclass(frozen=True, slots=True)
class Outline:
    """An arc's turning points and chapters."""

    # ("d") each statement's move (``moves_from_band``; 0 for the first, and in an arc too short
    # to turn)
    moves: array
    turning: bytes  # 1 at each turning point
    chapters: tuple[Chapter, ...]
    starts: array = field(default_factory=lambda: array("q"))  # each chapter's first statement

    def __post_init__(self) -> None:
        if not self.starts and self.chapters:
            self.starts.extend(c.start for c in self.chapters)

    def turning_positions(self) -> list[int]:
        """The positions of the turning points, in order (found in C)."""
        return list(compress(range(len(self.turning)), self.turning))

    def turning_count(self) -> int:
        return self.turning.count(1)

    def chapter_of(self, i: int) -> int:
        """The chapter (1..C) of statement ``i``."""
        return bisect_right(self.starts, i)


class Words:
    """Statements as word ids, added one at a time (a streamed arc is not held): what ``outline``
    needs of their texts."""

    def __init__(self, phrases: bool = True) -> None:
        self.phrases = phrases  # keep the phrases of two words (for titles)
        self.ids: dict[str, int] = {}
        self.keys: list[str] = []  # each id's word, as compared
        self.forms: list[Counter[str]] = []  # each word's forms as written
        self.entries = array("q")  # word ids, statement after statement
        self.ends = array("q")  # where each statement's entries end
        self.pairs: list[tuple[int, ...]] = []  # each statement's phrases of two words (pair ids)
        self._pair_ids: dict[tuple[int, int], int] = {}
        self.pair_words: list[tuple[int, int]] = []
        self.pair_forms: list[Counter[str]] = []  # each phrase's forms as written
        self._seen: dict[str, tuple[tuple[int, ...], tuple[int, ...], int]] = {}
        self.masks = bytearray()  # each statement's words of change (``turns.cue_mask``)
        self.topic_ids = array("q")  # each statement's heading's seed, as an id into ``topics``
        self.topics: list[frozenset[str]] = []
        self._topic_ids: dict[frozenset[str], int] = {}
        # Each statement: 1 where it names a role other than the previous statement's (a
        # position: where it claims a change of stance), ``trajectory.classify``'s shifts.
        self.moved = bytearray()

    def __len__(self) -> int:
        return len(self.ends)

    def add(self, text: str, heading: str = "", moved: bool = False) -> None:
        """Add the next statement, with the heading of its frame (the world's seed, if named) and
        whether its role moved from the previous statement's (``moved``)."""
        self.moved.append(moved)
        topic = turns.topic_of(heading) if heading else turns.NO_TOPIC
        topic_id = self._topic_ids.get(topic)
        if topic_id is None:
            topic_id = self._topic_ids[topic] = len(self.topics)
            self.topics.append(topic)
        self.topic_ids.append(topic_id)
        seen = self._seen.get(text)
        if seen is None:
            seen = self._seen[text] = (*self._read(text), turns.cue_mask(text))
            if len(self._seen) > SEEN_TEXTS:
                self._seen.clear()
        ids, pairs, mask = seen
        self.masks.append(mask)
        self.entries.extend(ids)
        self.ends.append(len(self.entries))
        if self.phrases:
            self.pairs.append(pairs)

    def _read(self, text: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """A text's word ids and phrase ids (its words' forms counted, once per text: a long arc
        repeats its wording, and reading it again would cost most of the outline)."""
        ids, forms = self.ids, self.forms
        out: list[int] = []
        pairs: list[int] = []
        previous = -1
        last = ""
        for key, word, joined in content_words(turns.without_past(text)):
            i = ids.get(key)
            if i is None:
                i = ids[key] = len(ids)
                forms.append(Counter())
                self.keys.append(key)
            forms[i][word] += 1
            out.append(i)
            if self.phrases and joined and previous >= 0 and previous != i:
                pair = self._pair_ids.setdefault((previous, i), len(self._pair_ids))
                if pair == len(self.pair_words):
                    self.pair_words.append((previous, i))
                    self.pair_forms.append(Counter())
                self.pair_forms[pair][f"{last} {word}"] += 1
                pairs.append(pair)
            previous, last = i, word
        return tuple(out), tuple(pairs)

    def of(self, p: int) -> set[int]:
        """The words of statement ``p``, each once."""
        return set(self.entries[self.ends[p - 1] if p else 0 : self.ends[p]])

    def key(self, i: int) -> str:
        return self.keys[i]

    def word(self, i: int) -> str:
        """Word ``i`` as the arc most often writes it (in lower case where it ever does)."""
        return _usual(self.forms[i])

    def phrase(self, pair: int) -> str:
        """Phrase ``pair`` as the arc most often writes it."""
        return _usual(self.pair_forms[pair])


def _usual(forms: Counter[str]) -> str:
    best = forms.most_common(1)[0][0]
    return best.lower() if best.lower() in forms else best


def _tfidf(words: Words) -> tuple[object, object, object]:
    """Each statement's words as sorted unique (statement, word) keys and their weights: counts
    (square-rooted) times the word's rarity in this arc, rows of length 1. Words said once in the
    arc are left out: they tie no statement to another."""
    import numpy as np

    n = len(words)
    entries = (
        np.frombuffer(words.entries, dtype=np.int64)
        if len(words.entries)
        else np.zeros(0, np.int64)
    )
    ends = np.frombuffer(words.ends, dtype=np.int64) if n else np.zeros(0, np.int64)
    rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(np.concatenate(([0], ends))))
    vocab = max(len(words.ids), 1)
    keys, counts = np.unique(rows * vocab + entries, return_counts=True)
    stmt, word = keys // vocab, keys % vocab
    df = np.bincount(word, minlength=vocab)
    keep = df[word] >= 2
    keys, stmt, word, counts = keys[keep], stmt[keep], word[keep], counts[keep]
    weights = np.sqrt(counts) * np.log((n + 1) / (df[word] + 0.5))
    norms = np.sqrt(np.bincount(stmt, weights * weights, minlength=n))
    weights = weights / np.where(norms == 0, 1, norms)[stmt]
    return keys, stmt, weights


def _band_lexical(words: Words, width: int) -> list:
    """``band[d][p]``: the dot product of statements ``p`` and ``p + d`` (d < ``width``)."""
    import numpy as np

    n = len(words)
    keys, stmt, weights = _tfidf(words)
    vocab = max(len(words.ids), 1)
    band = []
    for d in range(width):
        g = np.zeros(n)
        if d == 0:
            np.add.at(g, stmt, weights * weights)
        elif d < n:
            later = stmt >= d
            shifted = keys[later] - d * vocab  # statement p + d's words, as if statement p's
            at = np.searchsorted(keys, shifted)
            at = np.minimum(at, len(keys) - 1)
            hit = keys[at] == shifted
            g += np.bincount(stmt[at[hit]], weights[at[hit]] * weights[later][hit], minlength=n)
        band.append(g)
    return band


def _band_vectors(vectors, width: int) -> list:
    """``band[d][p]`` from embedding rows: the cosine of statements ``p`` and ``p + d``."""
    import numpy as np

    v = np.asarray(vectors, dtype=float)
    norms = np.linalg.norm(v, axis=1, keepdims=True)
    v = v / np.where(norms == 0, 1, norms)
    n = len(v)
    band = []
    for d in range(width):
        g = np.zeros(n)
        if d < n:
            g[: n - d] = (v[: n - d] * v[d:]).sum(axis=1)
        band.append(g)
    return band


def moves_from_band(band: Sequence, n: int, window: int = WINDOW):
    """Each place's move: 1 - the cosine of the sums of the ``window`` statements before it and
    from it on (place 0, with nothing before it, moves 0), from the band of dot products."""
    import numpy as np

    if n < 2:
        return np.zeros(n)
    prefix = [np.concatenate(([0.0], np.cumsum(g))) for g in band]

    def total(d: int, lo, hi):  # sum of band[d][p] for lo <= p <= hi, clipped to the arc
        lo = np.clip(lo, 0, n)
        hi = np.clip(hi, -1, n - 1 - d)
        out = prefix[d][np.maximum(hi, lo - 1) + 1] - prefix[d][lo]
        return np.where(hi >= lo, out, 0.0)

    i = np.arange(n)
    k = window
    before = total(0, i - k, i - 1)
    after = total(0, i, i + k - 1)
    cross = np.zeros(n)
    for d in range(1, k):
        before = before + 2 * total(d, i - k, i - 1 - d)
        after = after + 2 * total(d, i, i + k - 1 - d)
    for d in range(1, 2 * k):
        cross = cross + total(d, np.maximum(i - k, i - d), np.minimum(i - 1, i + k - 1 - d))
    denominator = np.sqrt(np.maximum(before, 0) * np.maximum(after, 0))
    with np.errstate(invalid="ignore", divide="ignore"):
        moves = np.where(denominator > 0, 1.0 - cross / denominator, 0.0)
    moves[0] = 0.0
    return np.clip(moves, 0.0, 1.0)


def most_turning_points(n: int) -> int:
    """The most turning points an arc of ``n`` statements may have: max(3, 30%), and few enough
    that its chapters keep ``MEAN_CHAPTER`` statements on average."""
    return max(0, min(max(3, int(MOST_SHARE * n)), n // MEAN_CHAPTER - 1))


def depths(moves: Sequence[float]):
    """Each place's depth (TextTiling's): how far its move rises above the lowest moves on its
    way down on either side, for a place that moves at least as far as both its neighbours (a
    peak); 0 elsewhere. A place that moves more than the statements around it, however far every
    place moves in this arc."""
    import numpy as np

    m = np.asarray(moves, dtype=float)
    n = len(m)
    if n == 0:
        return m
    left = m.copy()  # the lowest move on the way down to the left
    right = m.copy()
    for i in range(1, n):
        if m[i - 1] <= m[i]:
            left[i] = left[i - 1]
    for i in range(n - 2, -1, -1):
        if m[i + 1] <= m[i]:
            right[i] = right[i + 1]
    peak = np.ones(n, dtype=bool)
    peak[1:] &= m[1:] >= m[:-1]
    peak[:-1] &= m[:-1] >= m[1:]
    return np.where(peak, (m - left) + (m - right), 0.0)  # (peaks alone: the rest are slopes)


def _room(chosen: list[int], place: int, gap: int) -> bool:
    """Whether ``place`` is at least ``gap`` statements from every place ``chosen`` (sorted)."""
    at = bisect_left(chosen, place)
    if at > 0 and place - chosen[at - 1] < gap:
        return False
    return not (at < len(chosen) and chosen[at] - place < gap)


def _by_moves(moves, chosen: list[int], blocked: Sequence[bool], most: int) -> None:
    """Add to ``chosen`` the places whose move stands out from this arc's usual moves.

    A candidate is a peak (``depths``) that is no fragment; it turns when its depth is at least
    this arc's usual peak depth (their mean, plus ``CUT`` standard deviations), the deepest first,
    none closer than ``MIN_CHAPTER`` to another or to the arc's ends, until ``most``. An arc of
    ``SINGLE_OUT``+ statements has at least its deepest peak: something always stands out.
    """
    import numpy as np

    n = len(moves)
    places = np.arange(MIN_CHAPTER, n - MIN_CHAPTER + 1)
    if not len(places):
        return
    # Depths over every place but the first (it moves from nothing); chosen within ``places``.
    depth = depths(np.asarray(moves, dtype=float)[1:])[places - 1]
    depth = np.where([blocked[int(p)] for p in places], 0.0, depth)
    peaks = depth[depth > 0]
    # Hearst's cut over the peaks; few peaks of like depth all stand out (their spread is no bar).
    bar = float(min(peaks.mean() + CUT * peaks.std(), EVEN * peaks.max())) if len(peaks) else 0.0
    for j in np.argsort(-depth, kind="stable"):
        place, value = int(places[j]), float(depth[j])
        if len(chosen) >= most or value <= 0 or (value < bar and chosen):
            break
        if _room(chosen, place, MIN_CHAPTER):
            insort(chosen, place)
    if not chosen:
        # No peak within reach of the ends (the moves rise or fall throughout): the largest move.
        values = np.where([blocked[int(p)] for p in places], 0.0, np.asarray(moves)[places])
        if values.max() > 0:
            chosen.append(int(places[int(np.argmax(values))]))


def turning_points(
    moves: Sequence[float],
    new_topic: Sequence[bool] | None = None,
    declared: Sequence[float] | None = None,
    fragment: Sequence[bool] | None = None,
) -> list[int]:
    """The places where the arc turns, in arc order: first those under a new seed (the world
    named a new topic, ``turns.new_topics``), then those where the agent declares a change in
    words rare in its arc (``declared`` at least ``DECLARED``, at least ``MIN_DECLARED_GAP``
    from another turn), then those whose words move most (``_by_moves``). A fragment never
    turns; ``most_turning_points`` at most. (For an arc of ``SINGLE_OUT``+ statements: a shorter
    one turns as ``short_turning_points`` says.)"""
    n = len(moves)
    new_topic = new_topic or [False] * n
    declared = declared or [0.0] * n
    fragment = fragment or [False] * n
    most = most_turning_points(n)
    chosen: list[int] = []
    for p in range(1, n):
        if new_topic[p] and not fragment[p] and len(chosen) < most:
            chosen.append(p)
    for p in sorted(range(1, n), key=lambda q: -declared[q]):
        if declared[p] < DECLARED or len(chosen) >= most:
            break
        if not fragment[p] and _room(chosen, p, MIN_DECLARED_GAP):
            insort(chosen, p)
    _by_moves(moves, chosen, fragment, most)
    return chosen


def short_turning_points(
    gram,
    new_topic: Sequence[bool],
    declared: Sequence[float],
    moved: Sequence[int],
    fragment: Sequence[bool],
    bar: float = SHORT_MOVE,
) -> tuple[list[float], list[int]]:
    """Each statement's move and the turning points of an arc shorter than ``SINGLE_OUT``, in
    arc order: a statement turns under a new seed, where it declares a change (``declared``: in
    words said in two of its statements at most, or rare as in a long arc), or where its role
    moved (``moved``) and its words move at least ``bar`` from its stretch: the
    statements since the last turn, ``WINDOW`` at most (``gram``: the statements' dot products,
    rows of length 1 or 0). Turns by role in more than ``RENAMING`` of the statements, and in
    ``turns.HABIT_USES`` + 1 at least, are the arc's style: then none turns by role; nor does
    the new role right after a declared turn (the turn said where it goes). A fragment never
    turns."""
    n = len(moved)
    moves, chosen, by_role = _short_turns(gram, new_topic, declared, moved, fragment, bar)
    if by_role > RENAMING * (n - 1) and by_role > turns.HABIT_USES:
        moves, chosen, _ = _short_turns(gram, new_topic, declared, [0] * n, fragment, bar)
    return moves, chosen


def _short_turns(
    gram,
    new_topic: Sequence[bool],
    declared: Sequence[float],
    moved: Sequence[int],
    fragment: Sequence[bool],
    bar: float,
) -> tuple[list[float], list[int], int]:
    """``short_turning_points`` without the style, with how many statements turn by role."""
    n = len(moved)
    rare = min(DECLARED, 1.0 - 2 / n)  # (``turns.declared``'s weight of a form said twice)
    moves = [0.0] * n
    chosen: list[int] = []
    last = roles = 0
    said = False  # the last turn was declared in words: the new role after it is its arrival
    for p in range(1, n):
        moves[p] = _move_from(gram, range(max(last, p - WINDOW), p), p)
        if fragment[p]:
            continue
        by_words = 0 < declared[p] >= rare
        arrival = said and last == p - 1
        by_role = moved[p] and not arrival and moves[p] >= bar
        if new_topic[p] or by_words or by_role:
            chosen.append(p)
            last, said = p, by_words
            roles += by_role and not (new_topic[p] or by_words)
    return moves, chosen, roles


def _entries(words: Words, p: int) -> array:
    """Statement ``p``'s word ids, in order."""
    return words.entries[words.ends[p - 1] if p else 0 : words.ends[p]]


def _gram(band: Sequence) -> list[list[float]]:
    """The dot products of every two statements of a short arc, from its band (``band[d][p]``:
    statements ``p`` and ``p + d``)."""
    n = len(band)
    return [[float(band[abs(q - p)][min(p, q)]) for q in range(n)] for p in range(n)]


def _gram_tied(words: Words) -> list[list[float]]:
    """The dot products of every two statements of a short arc by the words that tie them: each
    statement as its words said in another statement too, all alike (a short arc is too short
    to tell a word's rarity; a word said once ties nothing), rows of length 1 or 0."""
    n = len(words)
    said = [words.of(p) for p in range(n)]
    counts = Counter(w for s in said for w in s)
    tied = [{w for w in s if counts[w] >= 2} for s in said]
    return [
        [len(a & b) / math.sqrt(len(a) * len(b)) if a and b else 0.0 for b in tied] for a in tied
    ]


def _move_from(gram, stretch: range, p: int) -> float:
    """1 - the cosine of statement ``p`` and the sum of the statements of ``stretch``, from
    their dot products (``gram``); 1 where either shares no word with the arc's others."""
    cross = sum(gram[q][p] for q in stretch)
    size = sum(gram[q][r] for q in stretch for r in stretch)
    denominator = math.sqrt(max(gram[p][p], 0.0) * max(size, 0.0))
    if denominator <= 0:
        return 1.0
    return round(min(1.0, max(0.0, 1.0 - cross / denominator)), 3)


def _said_in(words: Words, lo: int, hi: int) -> Counter[int]:
    """In how many of statements ``lo`` to ``hi`` (one past) each word is."""
    found: Counter[int] = Counter()
    for q in range(lo, hi):
        found.update(words.of(q))
    return found


def one_stretch(
    first: Counter[int], second: Counter[int], total: Counter[int], sizes: tuple[int, int, int]
) -> bool:
    """Whether two stretches say the same thing: a word said in at least ``THEME`` of the
    statements of each (``first``, ``second``: in how many each word is; ``sizes``: their
    statements and the arc's), and in less than ``ELSEWHERE`` of the arc's other statements (its
    theme, not the agent's every word)."""
    size_a, size_b, n = sizes
    rest = max(n - size_a - size_b, 1)
    return any(
        count >= THEME * size_a
        and second[w] >= THEME * size_b
        and total[w] - count - second[w] < ELSEWHERE * rest
        for w, count in first.items()
    )


def merged(words: Words, places: list[int], kept: set[int]) -> list[int]:
    """``places`` without the turns by words between two stretches that say the same thing
    (``one_stretch``), in one pass from the start; those in ``kept`` (a seed, a declared change)
    stay."""
    if all(p in kept for p in places):
        return places
    n = len(words)
    total = _said_in(words, 0, n)
    out: list[int] = []
    a = 0
    first = _said_in(words, 0, places[0]) if places else Counter()
    for k, p in enumerate(places):
        b = places[k + 1] if k + 1 < len(places) else n
        second = _said_in(words, p, b)
        if p not in kept and one_stretch(first, second, total, (p - a, b - p, n)):
            first += second  # one stretch from ``a`` on
        else:
            out.append(p)
            a, first = p, second
    return out


def titles(words: Words, spans: Sequence[tuple[int, int]]) -> list[str]:
    """Each chapter's title: its most distinctive words and phrases of two (said in many of its
    statements, in few other chapters), ``TITLE_WORDS`` words at most, none said only once when
    the chapter says anything twice."""
    # Per chapter: in how many of its statements each word (and each phrase, negative ids) is.
    supports: list[Counter[int]] = []
    used_by: Counter[int] = Counter()  # in how many chapters
    for lo, hi in spans:
        support: Counter[int] = Counter()
        for p in range(lo, hi):
            support.update(words.of(p))
            support.update(-1 - q for q in set(words.pairs[p]))
        supports.append(support)
        used_by.update(support.keys())
    return [
        _title(words, support, used_by, len(spans), lo, hi)
        for (lo, hi), support in zip(spans, supports, strict=True)
    ]


def _title(
    words: Words, support: Counter[int], used_by: Counter[int], chapters: int, lo: int, hi: int
) -> str:
    """The title of the chapter of statements ``lo`` to ``hi``, from ``support`` (in how many of
    its statements each word, or phrase as a negative id, is) and ``used_by`` (in how many of the
    arc's ``chapters``)."""
    size = hi - lo
    if not size:
        return ""
    floor = 2 if size > 1 and any(v >= 2 for v in support.values()) else 1
    # Ties go to the words of the chapter's first statement: the turn that opens it.
    opening = words.entries[words.ends[lo - 1] if lo else 0 : words.ends[lo]]
    first = {w: -k for k, w in reversed(list(enumerate(opening)))}

    def score(item: int) -> tuple[float, int]:
        # A phrase names more than a word; a word that names an action ("proposing",
        # "demanded") names less than one that names a thing or a role.
        phrase = 2.0 if item < 0 else 0.4 if words.key(item).endswith(("ing", "ed")) else 1.0
        rarity = math.log(1 + chapters / used_by[item])
        return (support[item] / size * rarity * phrase, first.get(item, -len(opening)))

    # Words said in two of its statements first; words said once fill a title still short.
    ranked = sorted((i for i, v in support.items() if v >= floor), key=score, reverse=True)
    if floor > 1:
        ranked += sorted((i for i, v in support.items() if v < floor), key=score, reverse=True)
    picked: list[str] = []
    taken: set[int] = set()
    roots: set[str] = set()
    count = 0  # words in the title so far
    for item in ranked:
        if support[item] < floor and count >= MIN_TITLE_WORDS:
            break
        ids = words.pair_words[-1 - item] if item < 0 else (item,)
        stems = {words.key(i)[:5] for i in ids}
        if taken.intersection(ids) or stems & roots:
            continue  # (nor "constitution" after "constitutional")
        if count + len(ids) > TITLE_WORDS + (len(ids) > 1):
            continue  # (a phrase may make it one word longer: "Silent Shelf" whole)
        roots |= stems
        picked.append(words.phrase(-1 - item) if item < 0 else words.word(item))
        taken.update(ids)
        count += len(ids)
        if count >= TITLE_WORDS or (item < 0 and len(picked) == 1 and 2 * support[item] >= size):
            break  # (a phrase said in half the chapter names it alone: "decidability boundary")
    return ", ".join(picked)


def as_words(
    texts: Iterable[str] | Words,
    headings: Iterable[str] | None = None,
    moved: Iterable[int] | None = None,
    phrases: bool = True,
) -> Words:
    """Statements (with their frames' headings, and whether each one's role moved from the
    previous statement's) as ``Words`` (``phrases`` False: without their phrases of two words,
    which only titles need)."""
    if isinstance(texts, Words):
        return texts
    words = Words(phrases)
    texts = list(texts)
    headings = [""] * len(texts) if headings is None else headings
    moved = [0] * len(texts) if moved is None else moved
    for text, heading, move in zip(texts, headings, moved, strict=True):
        words.add(text, heading, bool(move))
    return words


def _said(words: Words) -> list[frozenset[str]]:
    """Each statement's words as ``turns`` compares them with a seed's (accents folded)."""
    folded = [turns.fold(k) for k in words.keys]
    start = 0
    out = []
    for end in words.ends:
        out.append(frozenset(folded[i] for i in words.entries[start:end]))
        start = end
    return out


def seed_changes(words: Words) -> list[bool]:
    """Each statement: whether it is the first under a seed its arc was not under
    (``turns.new_topics``)."""
    if not any(words.topics):  # no heading names a seed
        return [False] * len(words)
    return turns.new_topics(_said(words), [words.topics[t] for t in words.topic_ids])


def _moves_and_turns(words: Words, vectors: object | None) -> tuple[array, list[int]]:
    """Each statement's move and the turning points (``turning_points``; in an arc shorter than
    ``SINGLE_OUT``, ``short_turning_points``, where a statement that says again what the one
    before it said never turns)."""
    n = len(words)
    if n < 2:
        return array("d", bytes(8 * n)), []
    counts = [words.ends[p] - (words.ends[p - 1] if p else 0) for p in range(n)]
    seeds, declared = seed_changes(words), turns.declared(words.masks)
    fragment = turns.fragments(counts)
    if n < SINGLE_OUT:  # too few statements for usual moves: a new role against its stretch
        gram = _gram_tied(words) if vectors is None else _gram(_band_vectors(vectors, n))
        again = [p > 0 and _entries(words, p) == _entries(words, p - 1) for p in range(n)]
        blocked = [f or a for f, a in zip(fragment, again, strict=True)]
        bar = SHORT_MOVE if vectors is None else SHORT_MEANING
        moves, places = short_turning_points(gram, seeds, declared, words.moved, blocked, bar)
        return array("d", moves), places
    width = 2 * WINDOW
    band = _band_lexical(words, width) if vectors is None else _band_vectors(vectors, width)
    measured = moves_from_band(band, n, WINDOW).round(3)  # (no turn on rounding noise)
    places = turning_points(measured.tolist(), seeds, declared, fragment)
    kept = {p for p in places if seeds[p] or declared[p] >= DECLARED}
    places = merged(words, places, kept)
    if not places:  # (merging left none: the arc still has its largest)
        places = turning_points(measured.tolist())[:1]
    return array("d", measured.tolist()), places


def outline(
    texts: Iterable[str] | Words,
    vectors: object | None = None,
    titled: bool = True,
    headings: Iterable[str] | None = None,
    moved: Iterable[int] | None = None,
) -> Outline:
    """The turning points and chapters of an arc, from its statements' texts (in arc order, or
    as ``Words`` already), their frames' ``headings`` (the world's seeds) and where each one's
    role moved from the previous statement's (``moved``: a short arc turns there). Moves by words, or
    by meaning with ``vectors`` (one embedding row per statement); chapter titles are words
    either way (``titled`` False: none, for counting)."""
    words = as_words(texts, headings, moved, phrases=titled)
    n = len(words)
    moves, places = _moves_and_turns(words, vectors)
    turning = bytearray(n)
    for p in places:
        turning[p] = 1
    bounds = [0, *places, n] if n else []
    spans = list(zip(bounds, bounds[1:], strict=False))
    chapters = tuple(
        Chapter(c + 1, lo, hi, title)
        for c, ((lo, hi), title) in enumerate(
            zip(spans, titles(words, spans) if titled else [""] * len(spans), strict=True)
        )
    )
    return Outline(moves, bytes(turning), chapters)
