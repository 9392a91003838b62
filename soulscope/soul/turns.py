"""What a reader takes for a turn besides the arc's words moving: the world naming a new topic,
the agent saying it changed, and statements too short to turn.

- A *new topic*: a frame heading that names a seed ("SEED: Mars Colony 500 Sols", "Constitutional
  Seed", "(decay seed)") whose words share none with the seed the arc was under, or a statement
  that is first in the arc to say a word one of its seed headings names (the agent answers the
  new seed before its headings say so). The first statement under it is where the arc turns.
- A *declared change*: the agent's own words of change ("from X to Y", "less X, more Y", "no
  longer", "was wrong", "needs revision", "shifted", "pivoted"). An arc that says "From X to Y"
  in every statement has made it a habit of style: a form of words counts for as much as it is
  rare in this arc.
- A *fragment*: fewer than ``MIN_WORDS`` words that name something ("interface auditor") amid
  statements that say more: it is not a turn, whatever its words. (In an arc of one-word roles,
  "the spinner.", "the weaver.", a word is what each statement says.)

Counters never count: "Bet #27", "twenty-eighth bet" are left out with the other counters.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from functools import lru_cache

from soulscope.soul.counters import strip_counters

MIN_WORDS = 3  # words that name something: fewer make a fragment, never a turn
HABIT = 0.5  # a form of words said in more than this share of an arc's statements is its style
HABIT_USES = 3  # ...and in this many at least: a form said once or twice is no habit

# The parts of a heading that are not its topic: the frame, its number, date and time.
_HEADING_NOISE = re.compile(
    r"\bframe\b|\d{4}-\d{2}-\d{2}|\d{1,2}:\d{2}|\butc\b|#?\d+[a-z]?\b|[~()\[\]—–:,.!?]", re.I
)
_SEED = re.compile(r"\bseeds?\b", re.I)
# Words of headings that say what kind of frame it is, never which topic.
_GENERIC = frozenset(
    [
        "seed",
        "seeds",
        "response",
        "frame",
        "phase",
        "stream",
        "sim",
        "session",
        "late",
        "early",
        "deep",
        "part",
        "round",
        "the",
        "of",
        "a",
        "an",
        "and",
        "in",
        "on",
        "what",
        "is",
        "made",
    ]
)
_WORD = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)*")

# The agent's own words of change, each form by name (for how habitual it is in an arc).
_CUES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("from-to", re.compile(r"\bfrom\s+(?![\d#])[\w'-]+(?:\s+[\w'-]+){0,6}\s+to\s+\w", re.I)),
    ("less-more", re.compile(r"\b(?:less|not)\s+[\w' -]{2,40}?,?\s+more\s+\w", re.I)),
    ("no-longer", re.compile(r"\bno\s+longer\b|\bnot\s+anymore\b|\bstopped\s+being\b", re.I)),
    (
        "wrong",
        re.compile(
            r"\b(?:was|were|been|am)\s+wrong\b|\bchanged\s+my\s+mind\b|\bconced(?:e|ed|es)\b"
            r"|\bneeds?\s+revision\b|\brevised\b|\bretract(?:ed|s)?\b|\badmit(?:ted|ting|s)?\b",
            re.I,
        ),
    ),
    (
        "turned",
        re.compile(
            r"\b(?:shift(?:ed|s)?|pivot(?:ed|s)?|turned|switched|evolving|evolved|moved)\s+"
            r"(?:from|to|away|into|toward)\b",
            re.I,
        ),
    ),
)


def fold(word: str) -> str:
    """A word without accents, in lower case ("Noöpolis" and "Noopolis" alike)."""
    if word.isascii():
        return word.lower()
    return "".join(
        c for c in unicodedata.normalize("NFKD", word.lower()) if not unicodedata.combining(c)
    )


def _key(word: str) -> str:
    """A word as topics compare it: folded, plurals as ``chapters.content_words`` folds them."""
    word = fold(word)
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


NO_TOPIC: frozenset[str] = frozenset()


def topic_of(heading: str) -> frozenset[str]:
    """The words of the seed a frame heading names ("SEED: Mars Colony 500 Sols" ->
    {"mars", "colony", "sol"}); empty for a heading that names no seed."""
    if "seed" not in heading.lower():  # (most headings: no pattern run for them)
        return NO_TOPIC
    return _seed_words(heading)


@lru_cache(maxsize=4096)
def _seed_words(heading: str) -> frozenset[str]:
    if not _SEED.search(heading):
        return NO_TOPIC
    body = _HEADING_NOISE.sub(" ", heading)
    words = (_key(w) for w in _WORD.findall(body))
    return frozenset(w for w in words if len(w) > 2 and w not in _GENERIC)


@lru_cache(maxsize=4096)
def cue_mask(text: str) -> int:
    """The forms of words of change a statement uses, one bit each (``CUE_NAMES``)."""
    body = strip_counters(text)
    return sum(1 << k for k, (_, pattern) in enumerate(_CUES) if pattern.search(body))


_PAST = re.compile(r"\bfrom\s+(?![\d#])[^.;:!?—–]{1,80}?\s+to\s+", re.I)


def without_past(text: str) -> str:
    """A statement without the place it says it comes from ("From key candidate to proposing
    the plan" -> "proposing the plan"): those words are the statement before, not this one."""
    return _PAST.sub(" ", text)


CUE_NAMES = tuple(name for name, _ in _CUES)
NEAR = 3  # a seed's word said this many statements before its heading answers that seed


def declared(masks: Sequence[int]) -> list[float]:
    """Each statement's declared change, 0..1: how rare in this arc the rarest form of words of
    change it uses is (a form said in more than ``HABIT`` of the statements, and in
    ``HABIT_USES`` at least, counts nothing)."""
    n = max(len(masks), 1)
    uses = [sum(1 for m in masks if m >> k & 1) for k in range(len(_CUES))]
    weight = [0.0 if u / n > HABIT and u >= HABIT_USES else 1.0 - u / n for u in uses]
    return [max((weight[k] for k in range(len(_CUES)) if m >> k & 1), default=0.0) for m in masks]


def fragments(counts: Sequence[int]) -> list[bool]:
    """Each statement (its count of words that name something): whether it is a fragment, fewer
    than ``MIN_WORDS`` words where the arc's statements say at least twice as many (its median)."""
    if not counts:
        return []
    usual = sorted(counts)[(len(counts) - 1) // 2]
    return [c < MIN_WORDS and 2 * c <= usual for c in counts]


def new_topics(said: Sequence[frozenset[str]], topics: Sequence[frozenset[str]]) -> list[bool]:
    """For each statement (its words, as ``_key`` makes them, and its heading's topic), whether
    it is the first under a seed the arc was not under: its heading names one that shares no
    word with the seed before, or it says a word of a seed that a heading up to ``NEAR``
    statements on names, first in the arc."""
    out: list[bool] = []
    current: frozenset[str] = frozenset()  # the seed the arc is under, as its words
    heard: set[str] = set()  # every word the arc's statements have said
    for i, (words, topic) in enumerate(zip(said, topics, strict=True)):
        near = frozenset().union(*topics[i : i + NEAR + 1])
        early = (words & near) - heard - current
        turn = False
        if topic and not topic & current:
            turn, current = True, topic
        elif early:
            turn, current = True, current | early
        out.append(turn and i > 0)
        heard |= words
    return out
