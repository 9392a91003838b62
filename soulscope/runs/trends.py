"""Trends: per period (a day, or a frame of the world), how many agents had used a term so far and
how many used it in that period, against the agents active then.

- *so far*: agents whose first use (``history.spread``: the earliest of its uses by the frames'
  times) lies in that period or before; by day this is ``spread``'s own timeline.
- *in period*: agents with a use in that period (a frame of that day or number; outside frames a
  line placed by its own date, as ``first`` places it).
- *active*: agents that wrote a frame in that period (``runs.log``), or a use of the term placed
  in it; the share is in period over active.
- *first majority*: the first period where more than half the agents active so far had used it.
- *peak*: the period where the most agents used it (the first, among equals).

A use or frame no date places (or, by frame, no number) belongs to no period.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from soulscope.history.first import uses
from soulscope.history.spread import spread
from soulscope.runs.log import WorldLog
from soulscope.soul.terms import Term
from soulscope.world import World


@dataclass(frozen=True, slots=True)
class Period:
    period: str  # a date, or a frame number as text
    so_far: int
    in_period: int
    active: int
    active_so_far: int

    @property
    def share(self) -> float:
        return self.in_period / self.active if self.active else 0.0


@dataclass
class Trend:
    term: Term
    periods: list[Period] = field(default_factory=list)
    first_majority: str | None = None
    peak: str | None = None
    unreadable: list[str] = field(default_factory=list)


def _period_of(date: str | None, frame: int | None, by: str) -> str | None:
    if by == "day":
        return date
    return None if frame is None else str(frame)


def _order(by: str, keys: set[str]) -> list[str]:
    return sorted(keys, key=int) if by == "frame" else sorted(keys)


def _active(log: WorldLog, by: str) -> dict[str, set[str]]:
    active: dict[str, set[str]] = defaultdict(set)
    for e in log.entries:
        # a frame whose heading has no date is on no day: the date beside it is not its own
        p = _period_of(None if e.precision == "inferred" else e.date, e.frame, by)
        if p is not None:
            active[p].add(e.agent)
    return active


def _term_uses(world: World, term: Term, by: str) -> tuple[dict[str, set[str]], list[str]]:
    """Per period, the agents with a use of ``term`` in it."""
    used: dict[str, set[str]] = defaultdict(set)
    unreadable: list[str] = []
    for a, data in world.sources(unreadable):
        for u in uses(a.id, a.path.name, data, term):
            p = _period_of(None if u.moment.inferred else u.moment.date, u.frame, by)
            if p is not None:
                used[p].add(a.id)
    return used, unreadable


def trend(world: World, log: WorldLog, term: Term, by: str = "day") -> Trend:
    """How ``term`` spread through ``world`` per period (``log``: the world's log)."""
    s = spread(world, term, links=False)
    # a first use no date of its own places (outside frames) is on no day, as in ``spread``
    firsts = [
        _period_of(None if a.first.moment.inferred else a.first.moment.date, a.first.frame, by)
        for a in s.adopters
    ]
    used, unreadable = _term_uses(world, term, by)
    active = _active(log, by)
    for when_used, agents in used.items():  # a use placed by its own date is an act too
        active[when_used] = active[when_used] | agents
    periods = _order(by, set(active) | set(used) | {p for p in firsts if p is not None})
    out = Trend(term, unreadable=unreadable)
    seen: set[str] = set()
    first_at: dict[str, int] = defaultdict(int)
    for first in firsts:
        if first is not None:
            first_at[first] += 1
    so_far = 0
    for p in periods:
        so_far += first_at.get(p, 0)
        seen |= active.get(p, set())
        out.periods.append(
            Period(p, so_far, len(used.get(p, ())), len(active.get(p, ())), len(seen))
        )
    _mark(out)
    return out


def _mark(t: Trend) -> None:
    best = -1
    for p in t.periods:
        if t.first_majority is None and p.active_so_far and p.so_far * 2 > p.active_so_far:
            t.first_majority = p.period
        if p.in_period > best:
            best, t.peak = p.in_period, p.period
    if best <= 0:
        t.peak = None


def trend_dict(t: Trend) -> dict:
    """One term's trend as JSON."""
    return {
        "term": t.term.text,
        "first_majority": t.first_majority,
        "peak": t.peak,
        "periods": [
            {
                "period": p.period,
                "so_far": p.so_far,
                "in_period": p.in_period,
                "active": p.active,
                "share": round(p.share, 4),
            }
            for p in t.periods
        ],
    }
