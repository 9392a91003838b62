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
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

from soulscope.recall.lexical import STOPWORDS, tokenize

TOP = 5  # the most relevant frames about the topic always take part in the time order
GATE = 0.6  # ...and so does every frame scoring at least this share of the best one

_EARLIEST = re.compile(
    r"\b(first|firstly|start|started|starts|starting|begin|began|begins|beginning|begun|"
    r"earliest|originally|initially|origin|origins)\b",
    re.I,
)
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
    text = query
    first_frame = last_frame = None
    for m in _FRAME_BOUND.finditer(query):
        word, n, a, b, c, d = m.groups()
        if n is not None:
            n = int(n)
            if word.lower() in ("since", "from"):
                first_frame = n
            elif word.lower() == "after":
                first_frame = n + 1
            elif word.lower() == "before":
                last_frame = n - 1
            else:
                last_frame = n
        else:
            low, high = (int(a), int(b)) if a is not None else (int(c), int(d))
            first_frame, last_frame = min(low, high), max(low, high)
        text = text.replace(m.group(), " ")
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
    order = None
    early, late = _EARLIEST.search(text), _LATEST.search(text)
    if early and not late:
        order = "earliest"
    elif late and not early:
        order = "latest"
    agent, named = _named_agent(text, agents)
    if named is not None:  # the agent becomes a filter; its name would match others' mentions
        text = named.sub(" ", text)
    return Intent(
        order,
        first_frame,
        last_frame,
        since,
        until,
        agent,
        _topic(text, agent) if order else (),
        " ".join(text.split()) or query,
    )


def _topic(text: str, agent: str | None) -> tuple[str, ...]:
    """The question's words without the cue, the verb right after it, and the agent's name."""
    words = re.findall(r"[^\W_]+(?:[-_.][^\W_]+)*", text.lower())
    skip: set[int] = set()
    for i, w in enumerate(words):
        if _EARLIEST.fullmatch(w) or _LATEST.fullmatch(w):
            j = i + 1
            while j < len(words) and words[j] in STOPWORDS:
                j += 1
            skip.add(j)  # "first argued", "started caring": what was done, not what about
    kept: list[str] = []
    for i, w in enumerate(words):
        if i in skip or (agent and (w == agent or agent.endswith("-" + w))):
            continue
        for t in tokenize(w):
            if t not in _CUES and not t.isdigit() and t not in kept:
                kept.append(t)
    if kept:
        return tuple(kept)
    return tuple(t for t in tokenize(text) if t not in _CUES)


def _named_agent(
    text: str, agents: list[str] | tuple[str, ...]
) -> tuple[str | None, re.Pattern[str] | None]:
    """The one agent ``text`` names, by its id or by the id's tail after a prefix (``coder-06``
    for ``zion-coder-06``), and the pattern that found it."""
    found: dict[str, re.Pattern[str]] = {}
    for a in agents:
        names = [a]
        head, _, tail = a.partition("-")
        if "-" in tail:
            names.append(tail)
        for name in names:
            pattern = re.compile(rf"(?<![\w-]){re.escape(name)}(?![\w-])", re.I)
            if pattern.search(text):
                found[a] = pattern
                break
    if len(found) != 1:
        return None, None
    return next(iter(found.items()))


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
