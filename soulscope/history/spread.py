"""How a term spread through a world: who used it first, who took it up after, and from whom.

Each agent's first use is ``first``'s answer for its file alone (``history.first.first_use``:
the earliest of its ``uses``), and agents are ordered by their frames' own times
(``soul.when``): an agent whose first use the headings cannot tell apart from another's (the
same day without a time of day, the same minute) is marked ``tied`` rather than placed as if it
were known.

An adopter's ``links`` are the earlier adopters its memory names at or before its first use, in
a line not known to be older than that adopter's own first use (in its frames, and outside frames a History bullet by its own time), read by ``history.links`` (one per agent, its strongest kind: a credit, a reply, a
comment, a relationship or a mention of that user of the idea); each cites its line (frame and
line). A vote ("Voted: 🚀 wildcard-04/#5578") says the agent saw a post, not that the idea
passed on: it is never a link, and the earlier adopters an agent only voted on are its
``votes``, shown apart. An earlier adopter is one whose first use the headings place before
this agent's.

No file is parsed: each is searched for the term's words, then its pattern, and only the
headings (``history.first.Headings``) and names of the files that hold it are read.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from soulscope.history.first import Headings, Use, dated_line, first_use, without_own_counts
from soulscope.history.links import Link, read, stronger
from soulscope.history.mentions import trim
from soulscope.history.names import AgentNames
from soulscope.soul import when
from soulscope.soul.model import ENCODING_ERRORS
from soulscope.soul.terms import Term
from soulscope.world import World

_BULLET = re.compile(r"\s*[-*+]\s")


@dataclass(frozen=True, slots=True)
class Adopter:
    """One agent that used the term: its first use, how many frames used it, and from whom."""

    agent_id: str
    first: Use
    uses: int  # frames (and header sections) of its memory holding the term
    tied: bool = False  # its first use cannot be ordered apart from another adopter's
    links: tuple[Link, ...] = ()  # the earlier adopters it names, one per agent, adoption order
    votes: tuple[Link, ...] = ()  # the earlier adopters it only voted on (exposure), the same

    @property
    def sources(self) -> list[str]:
        return [link.source for link in self.links]


@dataclass(frozen=True)
class Spread:
    """Every adopter of a term in order of first use, the links between them, the curve."""

    term: Term
    world: str
    adopters: tuple[Adopter, ...]
    edges: tuple[Link, ...] = ()
    votes: tuple[Link, ...] = ()  # every adopter's votes, kind "vote": exposure, not a link
    timeline: tuple[tuple[str, int], ...] = ()  # (date, agents that had used it by then)
    undated: int = 0  # adopters whose first use no date places (left out of the timeline)
    files: int = 0  # soul files read
    unreadable: tuple[str, ...] = ()  # files that could not be read, one sentence each
    _by_id: dict[str, Adopter] = field(default_factory=dict, repr=False, compare=False)

    def adopter(self, agent_id: str) -> Adopter | None:
        if not self._by_id:
            self._by_id.update((a.agent_id, a) for a in self.adopters)
        return self._by_id.get(agent_id)

    @property
    def started(self) -> list[Adopter]:
        """Who started it: the first adopter, and those tied with it, that name no earlier one."""
        if not self.adopters:
            return []
        head = self.adopters[0]
        out = [head]
        for a in self.adopters[1:]:
            if not (a.tied and not when.ordered(head.first.moment, a.first.moment)):
                break
            out.append(a)
        return [a for a in out if not a.links]


def spread(world: World, term: Term, names: AgentNames | None = None, links: bool = True) -> Spread:
    """Who used ``term`` in ``world``, in order of first use, with the chains of transmission."""
    names = names or AgentNames.of(world, words=False)
    term = term.naming(names.from_bytes)  # "curator" is not used in "zion-curator-02"
    # each adopter, and its file and headings where it can name earlier adopters
    found: list[tuple[Adopter, tuple[bytes, Headings] | None]] = []
    files = 0
    unreadable: list[str] = []
    for a, data in world.sources(unreadable):
        files += 1
        starts = term.starts(data)
        if not starts:
            continue
        headings = Headings.of(data)
        first, places = first_use(a.id, _rel(a.path, world.root), data, starts, headings)
        # A first use in the header, before any frame, names no one: that file is not kept (a
        # world's headings kept cost the garbage collector more than reading them did).
        in_header = first.label is None and first.moment.position < 0
        found.append((Adopter(a.id, first, places), None if in_header else (data, headings)))
    _own_counts(found)
    found.sort(key=lambda t: t[0].first.key)
    adopters = [t[0] for t in found]
    ties = tied_flags([a.first.moment for a in adopters])
    adopters = [replace(a, tied=t) for a, t in zip(adopters, ties, strict=True)]
    edges: list[Link] = []
    votes: list[Link] = []
    if links and len(adopters) > 1 and any(kept for _, kept in found):
        rank = {a.agent_id: i for i, a in enumerate(adopters)}
        for i, (_, kept) in enumerate(found):
            if kept is None:
                continue
            got, voted = _links(adopters, i, *kept, names, rank)
            if got or voted:
                adopters[i] = replace(adopters[i], links=got, votes=voted)
                edges.extend(got)
                votes.extend(voted)
    # a first use outside frames is undated: the date of the frame beside it is not its own
    dated = [
        a.first.moment.date for a in adopters if a.first.moment.date and not a.first.moment.inferred
    ]
    curve: list[tuple[str, int]] = []
    for n, d in enumerate(sorted(dated), 1):
        if curve and curve[-1][0] == d:
            curve[-1] = (d, n)
        else:
            curve.append((d, n))
    return Spread(
        term=term,
        world=world.name,
        adopters=tuple(adopters),
        edges=tuple(edges),
        votes=tuple(votes),
        timeline=tuple(curve),
        undated=len(adopters) - len(dated),
        files=files,
        unreadable=tuple(unreadable),
    )


def _own_counts(found: list[tuple[Adopter, tuple[bytes, Headings] | None]]) -> None:
    """The adopters' first uses without their frame numbers where these would order two of
    them and the adopters' files show that each agent counts its own frames
    (``first.without_own_counts``)."""
    files = [kept[1].columns for _, kept in found if kept is not None]
    firsts = without_own_counts([a.first for a, _ in found], files)
    if all(first is a.first for first, (a, _) in zip(firsts, found, strict=True)):
        return
    for k, first in enumerate(firsts):
        kept = found[k][1]
        if kept is not None:  # the links are placed by the same rule
            kept[1].unnumber()
        found[k] = (replace(found[k][0], first=first), kept)


def _rel(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)


def _links(
    adopters: Sequence[Adopter],
    i: int,
    data: bytes,
    headings: Headings,
    names: AgentNames,
    rank: dict[str, int],
) -> tuple[tuple[Link, ...], tuple[Link, ...]]:
    """The earlier adopters that adopter ``i``'s frames at or before its first use, and not
    before the source's own first use, name: the strongest link each (then the latest frame),
    and those it only voted on. An earlier
    adopter is one whose first use the headings place before this one's. Its first use is in
    or after a frame."""
    a = adopters[i]
    frames = _Frames(data, headings, a.first.moment)
    earlier = _Earlier(adopters, i, rank)
    best: dict[str, Link] = {}
    votes: dict[str, Link] = {}
    end = headings.columns.ends[frames.last]
    for at, src, kind in read(names, data, 0, end, a.agent_id, earlier):
        m = frames.moment(at)
        if m is None or _before(m, adopters[rank[src]].first.moment):
            continue
        into = votes if kind == "vote" else best
        known = into.get(src)
        if known is None or _stronger(kind, m, known):
            into[src] = frames.link(src, a.agent_id, kind, at, m)
    by_rank = sorted(best.values(), key=lambda link: rank[link.source])
    voted = sorted((v for s, v in votes.items() if s not in best), key=lambda v: rank[v.source])
    return tuple(by_rank), tuple(voted)


def _before(m: when.Moment, first: when.Moment) -> bool:
    """Whether a line of moment ``m`` is known to come before the source's first use: it
    cannot have carried the term from the source."""
    return when.ordered(m, first) and m.key < first.key


class _Earlier:
    """Whether an agent is an adopter whose first use the headings place before adopter
    ``i``'s (asked once per agent)."""

    def __init__(self, adopters: Sequence[Adopter], i: int, rank: dict[str, int]) -> None:
        self.adopters, self.i, self.rank = adopters, i, rank
        self.me = adopters[i].first.moment
        self.known: dict[str, bool] = {}

    def __call__(self, agent: str) -> bool:
        found = self.known.get(agent)
        if found is None:
            r = self.rank.get(agent)
            found = self.known[agent] = (
                r is not None
                and r < self.i
                and when.ordered(self.adopters[r].first.moment, self.me)
            )
        return found


class _Frames:
    """The lines of a file that can hold a link of an adopter: its header and the frames up to
    its first use's, any frame later in the file that its heading places before it (timestamps
    go backwards in real files), and the sections between them; each name placed in its frame,
    or outside frames on its own line (names come in order)."""

    def __init__(self, data: bytes, headings: Headings, me: when.Moment) -> None:
        self.data, self.headings, self.me = data, headings, me
        keys = headings.keys
        last = max(me.position, 0)
        for j in range(len(keys) - 1, last, -1):
            if keys[j] <= me.key and when.ordered(headings.moment(j), me):
                last = j
                break
        self.last = last
        self.j, self.stop, self.m, self.keep, self.framed = -1, -1, me, False, False

    def moment(self, at: int) -> when.Moment | None:
        """The moment of the frame or line holding the line at ``at``, or None where it cannot
        hold a link (``_frame_moment``, ``_line_moment``)."""
        if at >= self.stop:
            columns = self.headings.columns
            j = self.j = bisect_right(columns.starts, at) - 1
            self.framed = j >= 0 and at < columns.ends[j]
            if self.framed:
                self.stop = columns.ends[j]
                self.m, self.keep = self._frame_moment(j)
            else:
                end = self.data.find(b"\n", at)
                self.stop = len(self.data) if end < 0 else end
                self.m, self.keep = self._line_moment(at, j)
        return self.m if self.keep else None

    def _frame_moment(self, j: int) -> tuple[when.Moment, bool]:
        """Frame ``j``: kept where not after the first use by time, and either appended before
        it or placed before it by its heading (a frame of the same day further down, without a
        time of day, may have come after it)."""
        m, me = self.headings.moment(j), self.me
        return m, m.key <= me.key and (j <= me.position or when.ordered(m, me))

    def _line_moment(self, at: int, above: int) -> tuple[when.Moment, bool]:
        """A line outside frames (below frame ``above``; -1: the header): a History bullet
        by its own time, kept where that is known to come before the first use; another line
        where the file holds it above the first use's frame."""
        raw = self.data[at : self.stop]
        m = self.headings.line_moment(raw, -1, above)
        if dated_line(raw) is not None:
            return m, when.ordered(m, self.me) and m.key < self.me.key
        return m, above < self.me.position

    def link(self, src: str, target: str, kind: str, at: int, m: when.Moment) -> Link:
        """The link of the line at ``at``: in the current frame, or a line outside frames."""
        end = self.data.find(b"\n", at, self.stop)
        raw = self.data[at : self.stop if end < 0 else end]
        text = trim(raw.decode("utf-8", ENCODING_ERRORS))
        columns, j = self.headings.columns, self.j
        if not self.framed:
            line = self.data.count(b"\n", 0, at) + 1
            return Link(src, target, kind, None, None, line, text, m)
        line = columns.lines[j] + self.data.count(b"\n", columns.starts[j], at)
        return Link(src, target, kind, columns.number(j), columns.label(j), line, text, m)


def _stronger(kind: str, m: when.Moment, old: Link) -> bool:
    """A stronger kind wins; of one kind, the later frame (nearest the adoption)."""
    if kind != old.kind:
        return stronger(kind, old.kind)
    return m.key > old.moment.key


def tied_flags(moments: Sequence[when.Moment]) -> list[bool]:
    """For each moment, whether another of them is not known to come before or after it
    (``when.ordered`` false), in O(n log n): frames that carry a date (not inferred) and a world
    frame number are ordered against frames of other dates by their spans and against frames
    of their own date by their numbers, so among themselves only the same (date, number) can
    tie; every other pair ties exactly where their spans overlap."""
    n = len(moments)
    out = [False] * n
    if n < 2:
        return out
    spans = [m.span for m in moments]
    strict = [m.date is not None and not m.inferred and m.number is not None for m in moments]
    everyone = _Overlaps(spans, range(n))
    loose = _Overlaps(spans, [i for i in range(n) if not strict[i]])
    groups: dict[tuple, list[int]] = {}
    for i in range(n):
        if strict[i]:
            groups.setdefault((moments[i].date, moments[i].number), []).append(i)
    for i in range(n):
        if not strict[i]:
            out[i] = everyone.any(i)
            continue
        if loose.any(i):
            out[i] = True
            continue
        group = groups[(moments[i].date, moments[i].number)]
        if len(group) > 1:
            t = moments[i].time
            out[i] = any(
                j != i and (t is None or moments[j].time is None or moments[j].time == t)
                for j in group
            )
    return out


class _Overlaps:
    """Whether an interval overlaps any of a set of intervals other than itself."""

    def __init__(self, spans: Sequence[tuple[str, str]], members: Iterable[int]) -> None:
        order = sorted(members, key=lambda i: spans[i][0])
        self.spans = spans
        self.los = [spans[i][0] for i in order]
        # the largest and second largest end among the first k members, and who has the largest
        self.best: list[tuple[str, int, str]] = []
        top, who, second = "", -1, ""
        for i in order:
            hi = spans[i][1]
            if hi > top:
                top, who, second = hi, i, top
            elif hi > second:
                second = hi
            self.best.append((top, who, second))

    def any(self, i: int) -> bool:
        lo, hi = self.spans[i]
        k = bisect_right(self.los, hi)
        if k == 0:
            return False
        top, who, second = self.best[k - 1]
        return (second if who == i else top) >= lo


def sentence(text: str, term: Term) -> str:
    """The sentence of a line that uses ``term`` (the line's bullet mark dropped)."""
    line = text.strip()
    if _BULLET.match(line):
        line = line.lstrip()[2:].lstrip()
    raw = line.encode("utf-8", ENCODING_ERRORS)
    found = term.starts(raw)  # the use, not the term inside a name before it
    if not found:
        return trim(line)
    at = len(raw[: found[0]].decode("utf-8", ENCODING_ERRORS))
    starts = [e.end() for e in _SENTENCE_END.finditer(line, 0, at)]
    start = starts[-1] if starts else 0
    end_m = _SENTENCE_END.search(line, at + 1)
    end = end_m.start() + 1 if end_m else len(line)
    return trim(line[start:end])


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(*])")


def daily(timeline: Sequence[tuple[str, int]]) -> list[tuple[str, int]]:
    """The adoption curve with every day from the first to the last (a day without a new adopter
    keeps the count before it): what a sparkline draws."""
    from datetime import date, timedelta

    if not timeline:
        return []
    out: list[tuple[str, int]] = []
    try:
        day, last = date.fromisoformat(timeline[0][0]), date.fromisoformat(timeline[-1][0])
    except ValueError:
        return list(timeline)
    counts = dict(timeline)
    n = 0
    while day <= last:
        n = counts.get(day.isoformat(), n)
        out.append((day.isoformat(), n))
        day += timedelta(days=1)
    return out


def spread_dict(s: Spread) -> dict:
    """``spread --json``: the shape the README documents (keys beyond it only added)."""
    return {
        "term": s.term.text,
        "match": s.term.mode,
        "matched": s.term.described,
        "world": s.world,
        "agents": [
            {
                "agent": a.agent_id,
                "frame": a.first.frame,
                "label": a.first.label,
                # an undated use (outside frames) has no date of its own: ``when`` says
                # which frame's time bounds it
                "date": None if a.first.moment.inferred else a.first.moment.date,
                "time": None if a.first.moment.inferred else a.first.moment.time,
                "when": a.first.moment.text,
                "section": _section(a.first),
                "tied": a.tied,
                "heading": a.first.heading,
                "path": a.first.path,
                "line": a.first.line,
                "text": sentence(a.first.text, s.term),
                "uses": a.uses,
                "from": a.sources,
                "voted": [v.source for v in a.votes],
            }
            for a in s.adopters
        ],
        "edges": [link_dict(link) for link in s.edges],
        "votes": [link_dict(link) for link in s.votes],
        "timeline": [{"date": d, "agents": n} for d, n in s.timeline],
        "undated": s.undated,
        "files": s.files,
        "started_by": [a.agent_id for a in s.started],
    }


def _section(use: Use) -> str | None:
    """Where a first use outside frames is: in a section ``after`` a frame, or ``before`` the
    first frame (the header); None for a use in a frame."""
    if use.label is not None:
        return None
    return "after" if use.moment.inferred == "after" else "before"


def link_dict(link: Link) -> dict:
    return {
        "from": link.source,
        "to": link.target,
        "frame": link.frame,
        "label": link.label,
        "kind": link.kind,
        "strength": link.strength,
        "line": link.line,
        "text": link.text,
    }
