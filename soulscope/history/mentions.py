"""An index over every soul file of a world: who names which thread (``#N``), where a word first
appears, and each agent's identity statements by frame.

It answers the questions "why did it shift?" asks of the whole world without parsing every file
again: built once per world, files re-read only when their size or mtime changed.
"""

from __future__ import annotations

import re
import threading
import weakref
from dataclasses import dataclass

from soulscope.soul import when
from soulscope.soul.model import Soul, clean, frame_name
from soulscope.soul.trajectory import Arc, arc
from soulscope.soul.when import Moment
from soulscope.world import World, WorldError

THREAD = re.compile(r"(?<![\w&])#(\d{1,9})\b")
WORD = re.compile(r"[a-z][a-z0-9]+(?:[-'][a-z0-9]+)*")
_LINE_LIMIT = 240
# The word right before a ``#N``. After a word that points at a post ("on #4775", "Replied on
# #7448", "thread #12", a reaction "rocket #4704", a verb "revived #4690"), ``#N`` is a thread
# of the world; after a noun of the agent's own ("Bet #27", "Case File #20", "Field Note #27")
# it is the agent's counter, not a thread.
_WORD_BEFORE = re.compile(r"([A-Za-z][A-Za-z'’-]*)[ \t]*$")
_POINTING = frozenset(
    [
        "on",
        "in",
        "at",
        "to",
        "re",
        "from",
        "via",
        "see",
        "about",
        "under",
        "into",
        "of",
        "for",
        "and",
        "or",
        "with",
        "by",
        "per",
        "vs",
        "versus",
        "over",
        "across",
        "before",
        "between",
        "since",
        "than",
        "then",
        "as",
        "is",
        "while",
        "also",
        "both",
        "plus",
        "like",
        "including",
        "thread",
        "threads",
        "post",
        "posts",
        "reply",
        "replies",
        "comment",
        "comments",
        "discussion",
        "discussions",
        "debate",
        "issue",
        "issues",
        "proposal",
        "proposals",
        "upvote",
        "upvotes",
        "downvote",
        "vote",
        "votes",
        "voted",
        "up",
        "down",
        "rocket",
        "heart",
        "eyes",
        "confused",
        "laugh",
        "hooray",
        "thumbs",
        "emoji",
        "own",
        "mod",
        "buy",
        "sell",
        "hold",
        "skip",
        "answer",
        "cite",
        "quote",
        "link",
        "follow",
        "reference",
        "revival",
        "digest",
        "read",
        "reread",
        "saw",
        "wrote",
        "left",
        "began",
    ]
)
_VERB_ENDINGS = ("ed", "ing")
# Words that point at a thread only loosely: after one of the agent's own counters ("Bug #2"),
# a ``#N`` after them is more of that count ("Bug #2 ... the fix for #1", "Bug #2 and #3"),
# where both are counts as agents keep them, of a few digits ("Heating #4734 ... Stable
# #4730/#4729" are a world's threads after a word that is no pointer).
_COUNTER_DIGITS = 2
_LOOSE = frozenset(
    ["for", "of", "and", "or", "with", "by", "then", "than", "as", "plus", "like", "vs"]
    + ["versus", "including", "both", "also", "is", "while", "since", "before", "between", "per"]
)
# A code repository's numbers, not the world's threads: "PR #13", "PRs #110 and #111", "pull
# request #4", "merge request #9", "commit #3"; and what goes on a list after one.
_REPOSITORY = re.compile(
    r"\b(?:prs?|pull[ \t]+requests?|merge[ \t]+requests?|mrs?|commits?|builds?)[ \t]*$", re.I
)
_LIST_GAP = re.compile(r"[ \t]*(?:,|/|&|and|or)[ \t]*", re.I)


def thread_ids(text: str) -> list[int]:
    """The world's threads a text names (``#N``), in order, without the agent's own counters
    nor a code repository's numbers: ``#N`` counts as a thread unless it directly follows a
    word that does not point at a post (``Bet #27`` is a counter, ``on #4775`` and
    ``#4734/#4669`` are threads; "the #5580 rescue" is, "the #1 priority" is not), or a
    pull request's word ("PR #13", "PRs #110 and #111"),
    or comes on loosely after a counter ("Bug #2 and #3", "Bug #2. The fix for #1")."""
    out: list[int] = []
    repository_end = -1  # where the last repository number ended
    counter_end = -1  # where the last of the agent's own counters ended ("Bug #2")
    for m in THREAD.finditer(text):
        if _of_repository(text, m, repository_end):
            repository_end = m.end()
            continue
        before = _WORD_BEFORE.search(text, max(0, m.start() - 40), m.start())
        word = before.group(1).lower() if before is not None else ""
        pointing = word in _POINTING or (word == "the" and len(m.group(1)) > _COUNTER_DIGITS)
        if word and not pointing and not word.endswith(_VERB_ENDINGS):
            counter_end = m.end() if len(m.group(1)) <= _COUNTER_DIGITS else -1
            continue
        if (
            counter_end >= 0
            and len(m.group(1)) <= _COUNTER_DIGITS
            and (word in _LOOSE or _LIST_GAP.fullmatch(text, counter_end, m.start()) is not None)
        ):
            counter_end = m.end()
            continue
        counter_end = -1  # a thread: what follows it loosely is the thread's list
        n = int(m.group(1))
        if n not in out:
            out.append(n)
    return out


def _of_repository(text: str, m: re.Match[str], repository_end: int) -> bool:
    """Whether ``#N`` at ``m`` is a code repository's: right after a pull request's word, or
    next on a list right after one ("PRs #110 and #111")."""
    if _REPOSITORY.search(text, max(0, m.start() - 24), m.start()):
        return True
    return repository_end >= 0 and _LIST_GAP.fullmatch(text, repository_end, m.start()) is not None


@dataclass(frozen=True, slots=True)
class Place:
    """A frame of one agent: where something was said."""

    agent: str
    frame: str  # the frame's label: "237", "500b", or the date of an unnumbered frame
    number: int | None
    date: str | None
    index: int  # position among the agent's frames
    line: int  # 1-based line in the soul file
    text: str  # the line that says it, trimmed
    moment: Moment | None = None  # the frame's place in time (``soul.when``)

    @property
    def time(self) -> str | None:
        return self.moment.time if self.moment is not None and not self.moment.inferred else None

    @property
    def order(self) -> tuple:
        """Time order across agents (``soul.when``): date, time of day, frame number."""
        m = self.moment
        return m.key[:3] if m is not None else when.key(self.date, None, self.number)[:3]


@dataclass(frozen=True)
class AgentIndex:
    """One agent's file, reduced to what the index needs."""

    agent: str
    stamp: tuple[int, float]  # (size, mtime) of the file it was built from
    soul: Soul
    statements: Arc
    moments: list[Moment]  # each frame's place in time (``soul.when.frame_moments``)
    threads: dict[int, tuple[Place, ...]]  # thread -> the frames that name it, file order
    words: dict[str, tuple[int, ...]]  # word -> indexes of the frames that hold it, file order


def trim(text: str, limit: int = _LINE_LIMIT) -> str:
    """Text from a soul file for a dossier: one line, bullet dash dropped, at most ``limit``."""
    text = " ".join(clean(text).split()).lstrip("- ")
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def place_of(
    agent: str, soul: Soul, index: int, line: int, text: str, moment: Moment | None = None
) -> Place:
    columns = soul.frames.columns
    number, date = columns.number(index), columns.dates[index]
    return Place(
        agent=agent,
        frame=frame_name(number, columns.suffixes[index], date, columns.times[index])
        or f"#{index + 1}",
        number=number,
        date=date,
        index=index,
        line=line,
        text=trim(text),
        moment=moment,
    )


def index_soul(agent: str, soul: Soul, stamp: tuple[int, float], label: str | None) -> AgentIndex:
    threads: dict[int, list[Place]] = {}
    words: dict[str, list[int]] = {}
    moments = when.frame_moments(soul.frames.columns)
    for f in soul.frames:
        seen: set[int] = set()
        for offset, raw in enumerate(f.source.splitlines()):
            for n in thread_ids(raw) if "#" in raw else ():
                if n not in seen:
                    seen.add(n)
                    threads.setdefault(n, []).append(
                        place_of(agent, soul, f.index, f.line + offset, raw, moments[f.index])
                    )
        for w in set(WORD.findall(f.source.lower())):
            words.setdefault(w, []).append(f.index)
    return AgentIndex(
        agent=agent,
        stamp=stamp,
        soul=soul,
        statements=arc(soul, label),
        moments=moments,
        threads={n: tuple(p) for n, p in threads.items()},
        words={w: tuple(i) for w, i in words.items()},
    )


class MentionIndex:
    """The world's soul files, indexed; ``refresh`` re-reads only files that changed."""

    def __init__(self, world: World, label: str | None = None) -> None:
        self.world = world
        self.label = label
        self.agents: dict[str, AgentIndex] = {}
        self._lock = threading.Lock()

    def refresh(self) -> MentionIndex:
        with self._lock:
            self.world.refresh()
            present = {a.id: a for a in self.world.agents()}
            for gone in set(self.agents) - set(present):
                del self.agents[gone]
            for agent_id, a in present.items():
                stamp = (a.size, a.mtime)
                known = self.agents.get(agent_id)
                if known is not None and known.stamp == stamp:
                    continue
                try:
                    soul = self.world.read(agent_id)
                except WorldError:
                    self.agents.pop(agent_id, None)
                    continue
                self.agents[agent_id] = index_soul(agent_id, soul, stamp, self.label)
        return self

    def put(self, agent_id: str, soul: Soul) -> AgentIndex:
        """Index a soul the caller has already parsed (the dashboard's cache), keyed by its file."""
        a = self.world.agent(agent_id)
        stamp = (a.size, a.mtime)
        with self._lock:
            known = self.agents.get(agent_id)
            # The same parsed soul is indexed once; another parse of the file, again.
            if known is None or known.stamp != stamp or known.soul is not soul:
                known = index_soul(agent_id, soul, stamp, self.label)
                self.agents[agent_id] = known
        return known

    def mentions(self, thread: int) -> list[Place]:
        """Every frame of any agent that names ``#thread``, in time order."""
        out = [p for a in self.agents.values() for p in a.threads.get(thread, ())]
        return sorted(out, key=lambda p: (p.order, p.agent))


_INDEXES: weakref.WeakKeyDictionary[World, dict[str | None, MentionIndex]] = (
    weakref.WeakKeyDictionary()
)
_INDEXES_LOCK = threading.Lock()


def index_for(world: World, label: str | None = None) -> MentionIndex:
    """The world's index, kept while the World object lives, refreshed on each call."""
    with _INDEXES_LOCK:
        by_label = _INDEXES.setdefault(world, {})
        index = by_label.get(label)
        if index is None:
            index = by_label[label] = MentionIndex(world, label)
    return index.refresh()
