"""Time in a question: "who first argued for X", "what does she think lately", "since 2026-05-10".

Soul files are chronological, so a question about when something started is answered by the
earliest frame that is about it, not by the frame that happens to use the question's words most.
:func:`read_intent` finds the order asked for (earliest or latest), the date and frame bounds
written in the question, and an agent it names; what is left are the question's words.

The order applies to the frames that are about the question's topic: its words other than the
cue ("first", "start", ...) and the verb right after the cue ("first *argued*", "start *caring*"),
which says what was done rather than what about. A frame must hold every topic word (stemmed,
as BM25 reads them), and be among the ``TOP`` most relevant such frames or score at least
``GATE`` times the best one; so "why did you start defending forgetting?" finds the frame that
started defending it, not the first frame that mentions forgetting, and with a topic word named
the earliest frame is the one where ``soulscope first`` finds the word.

Which frames hold the topic is read in three steps, the first that finds any deciding
(``Asked.holds``): the words as asked, as a phrase where they were asked as one ("Dunbar's
number", "schema debt"); every asked word as a word, anywhere in the frame; every word by its
stem ("digest" for "digestion"). One word of a phrase alone never holds it, and where nothing
holds the words the search says so. A question about when something came up ("when did X first
come up?", "first mention of X", "earliest X") puts every frame that holds it in time order, as
``first`` does, not only the most relevant.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from functools import lru_cache

from soulscope.recall.lexical import STOPWORDS, tokenize

TOP = 5  # the most relevant frames about the topic always take part in the time order
GATE = 0.6  # ...and so does every frame scoring at least this share of the best one

_EARLIEST = re.compile(
    r"\b(first|firstly|start|started|starts|starting|begin|began|begins|beginning|begun|"
    r"earliest|originally|initially|origin|origins)\b",
    re.I,
)
# A question about when the words themselves were used, not about a change ("why did you start
# defending X"): every frame holding them takes part in the time order.
_MENTION = re.compile(
    r"\b(?:(?:come|came|comes|coming|show|showed|shown|shows|turn|turned|crop|cropped)\s+up|"
    r"brought\s+up|mention\w*|appear\w*|earliest|first\s+(?:use[ds]?|time|word|sign)|"
    r"(?:first|start|begin|began|started)\w*\s+(?:to\s+)?(?:say|said|use[ds]?|using|writ\w*|"
    r"wrote|talk\w*|spoke|speak\w*|discuss\w*|rais\w*|refer\w*|cit\w*|name[ds]?|naming)\b)",
    re.I,
)
_POSSESSIVE = re.compile(r"['\u2019]s$")
_WORD = re.compile(r"[^\W_]+(?:['\u2019][^\W_]+|[-_.][^\W_]+)*")
_LATEST = re.compile(r"\b(latest|lately|recently|currently|last|most recent|nowadays)\b", re.I)
# Words of the temporal phrase itself: they say when, not what.
_CUES = frozenset(
    tokenize(
        "first firstly start began begin begun earliest originally initially origin latest lately "
        "recently currently last most recent nowadays ever time times frame frames appear "
        "mention come show up since before after until till between ago"
        # words that ask rather than name a topic
        " about around over regarding concerning toward towards upon any anything something "
        "someone anyone happen think thought say said tell told talk feel felt"
        # "the word X", "the term X": X is the topic
        " word words term terms phrase phrases"
    )
)
_MONTHS = {
    m: i
    for i, names in enumerate(
        (
            "jan january",
            "feb february",
            "mar march",
            "apr april",
            "may",
            "jun june",
            "jul july",
            "aug august",
            "sep sept september",
            "oct october",
            "nov november",
            "dec december",
        ),
        1,
    )
    for m in names.split()
}
_MONTH = "|".join(sorted(_MONTHS, key=len, reverse=True))
_ISO = r"(\d{4})-(\d{2})-(\d{2})"
_DATE = re.compile(
    rf"\b(?:{_ISO}|(\d{{1,2}})(?:st|nd|rd|th)?\s+({_MONTH})\.?,?\s+(\d{{4}})|"
    rf"({_MONTH})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+(\d{{4}})|({_MONTH})\.?\s+(\d{{4}}))\b",
    re.I,
)
_BOUND = re.compile(r"\b(since|after|from|before|until|till|by|in|on|during)\s*$", re.I)
_FRAME_BOUND = re.compile(
    r"\b(since|after|from|before|until|till|by)\s+frames?\s+(\d+)\b"
    r"|\bframes?\s+(\d+)\s*(?:-|to|and|through)\s*(\d+)\b|\bbetween\s+frames?\s+(\d+)\s+and\s+(\d+)\b",
    re.I,
)


@dataclass(frozen=True, slots=True)
class Intent:
    """What a question says about time; ``order`` None means none of it applies."""

    order: str | None = None  # "earliest" or "latest"
    first_frame: int | None = None
    last_frame: int | None = None
    since: str | None = None  # ISO dates, both ends included
    until: str | None = None
    agent: str | None = None  # an agent the question names
    topic: tuple[str, ...] = ()  # stemmed topic words (see the module's docstring)
    words: str = ""  # what is asked without the temporal phrases
    asked: Asked | None = None  # the topic as the question wrote it
    mention: bool = False  # it asks when the words came up (see ``_MENTION``)

    @property
    def filters(self) -> bool:
        return any(
            v is not None for v in (self.first_frame, self.last_frame, self.since, self.until)
        )

    def describe(self) -> str:
        """``earliest first, dates 2026-05-10..``: how the question was read, for people."""
        parts = [f"{self.order} first"] if self.order else []
        if self.first_frame is not None or self.last_frame is not None:
            parts.append(f"frames {_span(self.first_frame, self.last_frame)}")
        if self.since or self.until:
            parts.append(f"dates {_span(self.since, self.until)}")
        if self.agent:
            parts.append(f"agent {self.agent}")
        return ", ".join(parts)


def _span(low: object, high: object) -> str:
    if low is not None and low == high:
        return str(low)
    return f"{'' if low is None else low}..{'' if high is None else high}"


def read_intent(query: str, agents: list[str] | tuple[str, ...] = ()) -> Intent:
    """The order, bounds and agent written in ``query``; ``agents`` are the ids that may be named."""
    (first_frame, last_frame), text = _frame_bounds(query)
    (since, until), text = _date_bounds(query, text)
    order = None
    early, late = _EARLIEST.search(text), _LATEST.search(text)
    if early and not late:
        order = "earliest"
    elif late and not early:
        order = "latest"
    agent, named = _named_agent(text, agents)
    if named is not None:  # the agent becomes a filter; its name would match others' mentions
        text = named.sub(" ", text)
    topic, asked = _topic(text, agent) if order else ((), None)
    return Intent(
        order,
        first_frame,
        last_frame,
        since,
        until,
        agent,
        topic,
        " ".join(text.split()) or query,
        asked,
        bool(order and _MENTION.search(text)),
    )


def asked_in(query: str) -> Asked | None:
    """The topic of ``query`` as it was written, asked in any order or none (a search's words:
    which bullet of a hit holds them)."""
    return _topic(query, None)[1]


def _frame_bounds(query: str) -> tuple[tuple[int | None, int | None], str]:
    """The first and last frame numbers ``query`` bounds a search by, and the query without
    them."""
    text = query
    first_frame = last_frame = None
    for m in _FRAME_BOUND.finditer(query):
        word, n, a, b, c, d = m.groups()
        if n is None:
            low, high = (int(a), int(b)) if a is not None else (int(c), int(d))
            first_frame, last_frame = min(low, high), max(low, high)
        elif word.lower() in ("since", "from", "after"):
            first_frame = int(n) + (word.lower() == "after")
        else:  # before, until, till, by
            last_frame = int(n) - (word.lower() == "before")
        text = text.replace(m.group(), " ")
    return (first_frame, last_frame), text


def _date_bounds(query: str, text: str) -> tuple[tuple[str | None, str | None], str]:
    """The first and last dates (ISO) ``query`` bounds a search by, and ``text`` without them."""
    since = until = None
    for m in _DATE.finditer(query):
        span = _date_span(m)
        if span is None:
            continue
        low, high = span
        bound = _BOUND.search(query[: m.start()])
        word = bound.group(1).lower() if bound else "on"
        if word in ("since", "from"):
            since = low
        elif word == "after":
            since = _next_day(high)
        elif word == "before":
            until = _prev_day(low)
        elif word in ("until", "till", "by"):
            until = high
        else:  # in, on, during, or a bare date: that day or month
            since, until = low, high
        text = text.replace(m.group(), " ")
    return (since, until), text


def _topic(text: str, agent: str | None) -> tuple[tuple[str, ...], Asked | None]:
    """The question's words without the cue, the verb right after it, and the agent's name:
    stemmed, and as written (``Asked``)."""
    found = list(_WORD.finditer(text))
    words = [m.group().lower() for m in found]
    skip = _after_cues(words)
    kept: list[str] = []
    typed: list[int] = []  # the indexes of the words kept
    for i, w in enumerate(words):
        if i in skip or (agent and (w == agent or agent.endswith("-" + w))):
            continue
        stems = [t for t in tokenize(w) if t not in _CUES and not t.isdigit()]
        if stems:
            typed.append(i)
        kept += [t for t in stems if t not in kept]
    if not kept:
        kept = [t for t in tokenize(text) if t not in _CUES]
        typed = [i for i, w in enumerate(words) if any(t in kept for t in tokenize(w))]
    if not typed:
        return tuple(kept), None
    phrase = text[found[typed[0]].start() : found[typed[-1]].end()]
    bare = (_POSSESSIVE.sub("", words[i]) for i in typed)  # "Dunbar's" holds "Dunbar"
    tight = typed[-1] - typed[0] == len(typed) - 1
    return tuple(kept), Asked(phrase, tuple(dict.fromkeys(bare)), tight)


def _after_cues(words: list[str]) -> set[int]:
    """The indexes of the words right after a cue, stopwords passed over: "first argued",
    "started caring" say what was done, not what about."""
    skip: set[int] = set()
    for i, w in enumerate(words):
        if _EARLIEST.fullmatch(w) or _LATEST.fullmatch(w):
            j = i + 1
            while j < len(words) and words[j] in STOPWORDS:
                j += 1
            skip.add(j)
    return skip


HOLDS = ("as written", "as words", "by stem")  # how a frame holds the asked words, best first


@dataclass(frozen=True, slots=True)
class Asked:
    """The topic of a question as it was written: the span from its first topic word to its
    last (``phrase``: "Dunbar's number"), those words (``words``: "dunbar", "number"), and
    whether they were asked side by side (``tight``: a name, a term), not as words apart
    ("hiking in the Alps")."""

    phrase: str
    words: tuple[str, ...]
    tight: bool = True

    def holds(self, text: str) -> int:
        """How ``text`` holds the asked words, an index into ``HOLDS``, or 3: not at all.
        0: the phrase as written (its words in order, apart by any spacing or punctuation, any
        letter case, not inside longer words); 1: words asked apart, each as a word anywhere;
        2: by stem, the phrase's words side by side with other endings where they were asked
        side by side (a caller has found the stems in ``text``). One word of a phrase alone,
        or its words apart, does not hold it."""
        phrase, words, stems = _patterns(self.phrase, self.words)
        if phrase.search(text):
            return 0
        if not self.tight:
            return 1 if all(w.search(text) for w in words) else 2
        if len(self.words) == 1 or stems.search(text):
            return 2
        return 3


@lru_cache(maxsize=64)
def _patterns(
    phrase: str, words: tuple[str, ...]
) -> tuple[re.Pattern[str], tuple[re.Pattern[str], ...], re.Pattern[str]]:
    """The phrase as written, each word as a word, and the phrase by its words' stems."""
    return _as_words(phrase), tuple(_as_words(w) for w in words), _by_stems(words)


_BETWEEN = r"(?:['\u2019]s)?[\W_]+"  # between two words of a phrase: "Dunbar's number"


def _as_words(text: str) -> re.Pattern[str]:
    """``text``'s words in order, apart by any spacing or punctuation, not inside longer words."""
    parts = [re.escape(p) for p in re.findall(r"[^\W_]+", text)]
    return re.compile(r"(?<!\w)" + _BETWEEN.join(parts) + r"(?!\w)", re.I)


def _by_stems(words: tuple[str, ...]) -> re.Pattern[str]:
    """``words`` side by side, each as what it shares with its stem and any ending."""
    parts = []
    for w in words:
        stem = (tokenize(w) or [w])[0]
        n = 0
        while n < min(len(w), len(stem)) and w[n] == stem[n]:
            n += 1
        parts.append(re.escape(w[: max(n, 3)]) + r"\w*")
    return re.compile(r"(?<!\w)" + _BETWEEN.join(parts), re.I)


def _named_agent(
    text: str, agents: list[str] | tuple[str, ...]
) -> tuple[str | None, re.Pattern[str] | None]:
    """The one agent ``text`` names, by its id or by the id's tail after a prefix (``coder-06``
    for ``zion-coder-06``), and the pattern that found it. The words of ``text`` are looked up
    (a pattern for each of a world's ids, each question, was most of a warm search's time)."""
    words = {w.lower() for w in _ID_WORDS.findall(text)}
    found: dict[str, str] = {}
    for a in agents:
        head, _, tail = a.partition("-")
        for name in (a, tail) if "-" in tail else (a,):
            if _named(name, words, text):
                found[a] = name
                break
    if len(found) != 1:
        return None, None
    agent, name = next(iter(found.items()))
    return agent, _name_pattern(name)


_ID_WORDS = re.compile(r"[\w-]+")  # what an id stands between: neither a word character nor '-'


def _named(name: str, words: set[str], text: str) -> bool:
    """Whether ``text`` (its ``words``) holds ``name`` as a whole, in any letter case."""
    if _ID_WORDS.fullmatch(name) and name.isascii():
        return name.lower() in words
    return _name_pattern(name).search(text) is not None  # an id with a dot


@lru_cache(maxsize=4096)
def _name_pattern(name: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w-]){re.escape(name)}(?![\w-])", re.I)


def _date_span(m: re.Match[str]) -> tuple[str, str] | None:
    g = m.groups()
    try:
        if g[0]:
            day = date(int(g[0]), int(g[1]), int(g[2]))
            return day.isoformat(), day.isoformat()
        if g[3]:
            day = date(int(g[5]), _MONTHS[g[4].lower()], int(g[3]))
            return day.isoformat(), day.isoformat()
        if g[6]:
            day = date(int(g[8]), _MONTHS[g[6].lower()], int(g[7]))
            return day.isoformat(), day.isoformat()
        year, month = int(g[10]), _MONTHS[g[9].lower()]
    except ValueError:  # 2026-02-30 is not a day
        return None
    start = date(year, month, 1)
    end = date(year + (month == 12), month % 12 + 1, 1).toordinal() - 1
    return start.isoformat(), date.fromordinal(end).isoformat()


def _next_day(iso: str) -> str:
    return date.fromordinal(date.fromisoformat(iso).toordinal() + 1).isoformat()


def _prev_day(iso: str) -> str:
    return date.fromordinal(date.fromisoformat(iso).toordinal() - 1).isoformat()
