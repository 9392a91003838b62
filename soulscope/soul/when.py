"""When a frame happened: the one notion of time that every view sorts by.

A frame's time is what its heading says: its date and, where given, its time of day, then its
place in its file. Headings give times in UTC (``(23:00 UTC)``, ``T17:33:00Z``), and soulscope
shows every time, commit times included, in UTC and says so.

Two frames are *ordered* only where their headings tell them apart: frames of one date, one of
which gives no time of day, are *tied* (neither is known to come first), and so are frames of
the same date and minute in different files. Sorting puts a date-only frame at the start of its
day so that sorts are total and stable, but views that name an earliest or latest say the ties
(``tied``) rather than hide them.

A frame whose heading has no date (``## Frame 492``) takes the date of the nearest dated frame
before it in its file (it was appended after that one), marked ``inferred``; a file's frames
before any dated one take the first date after them. A file with no date at all sorts after
every dated frame (``UNDATED``).

Commit order is another matter: where frames arrived in different commits, the commit that
brought a frame comes first (``history.timeline`` decides that); frames that arrived in one
commit (a world imported at once) are ordered by their own times, here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from soulscope.soul.model import FrameColumns

UNDATED = "~"  # sorts after every ISO date
ZONE = "UTC"


@dataclass(frozen=True, slots=True)
class Moment:
    """A frame's place in time, as far as its heading (and its file) tell it."""

    date: str | None  # ISO date; None: nothing in the file dates it
    time: str | None  # HH:MM; None: the heading gives no time of day
    position: int  # the frame's index in its file: orders frames of one file only
    # the world's frame number (``Frame 237``): one counter for every agent of a world, so it
    # orders frames of one date across files where the headings give no time of day
    number: int | None = None
    # "after" / "before": the heading has no date; ``date`` and ``time`` are those of the nearest
    # dated frame before it in its file (it came after that one), or after it (it came before)
    inferred: str | None = None

    @property
    def key(self) -> tuple[str, str, int, int]:
        """The sort key: date, time of day (none first), frame number, then the place in its
        file."""
        return key(self.date, self.time, self.number, self.position)

    @property
    def precision(self) -> str:
        """``minute``, ``day`` or ``none``: how closely the heading places the frame."""
        if self.date is None:
            return "none"
        if self.inferred:
            return "inferred"
        return "minute" if self.time else "day"

    @property
    def text(self) -> str:
        """For people: ``2026-03-14 05:45 UTC``, ``2026-03-14 (no time of day)``, ``undated``."""
        if self.date is None:
            return "undated"
        own = f"{self.date} {self.time} {ZONE}" if self.time else f"{self.date} (no time of day)"
        if self.inferred:
            return f"undated, {self.inferred} {own.replace(' (no time of day)', '')}"
        return own

    @property
    def span(self) -> tuple[str, str]:
        """The earliest and latest times the frame can have (``""``/``~``: unbounded)."""
        if self.date is None:
            return ("", UNDATED)
        lo = f"{self.date} {self.time or '00:00'}"
        hi = f"{self.date} {self.time or '23:59'}"
        if self.inferred == "after":
            return (lo, UNDATED)
        if self.inferred == "before":
            return ("", hi)
        return (lo, hi)


def key(
    date: str | None, time: str | None, number: int | None = None, position: int = 0
) -> tuple[str, str, int, int]:
    """The sort key of a frame that knows its own date and time (see ``Moment.key``)."""
    return (date or UNDATED, time or "", -1 if number is None else number, position)


def moments(
    dates: Sequence[str | None],
    times: Sequence[str | None],
    numbers: Sequence[int | None] | None = None,
) -> list[Moment]:
    """Each frame of one file (its headings' dates, times and frame numbers, in file order) as a
    Moment; undated frames take the nearest dated frame before them (else the first after)."""
    out: list[Moment] = []
    last: Moment | None = None
    pending: list[int] = []
    for i, (date, time) in enumerate(zip(dates, times, strict=True)):
        number = numbers[i] if numbers is not None else None
        if date:
            m = Moment(date, time, i, number)
            out.append(m)
            for j in pending:
                out[j] = Moment(date, time, j, m.number, inferred="before")
            pending = []
            last = m
        elif last is not None:
            out.append(Moment(last.date, last.time, i, number, inferred="after"))
        else:
            out.append(Moment(None, None, i, number))
            pending.append(i)
    return out


def frame_moments(columns: FrameColumns) -> list[Moment]:
    """The Moments of a parsed soul's frames (``soul.frames.columns``)."""
    numbers = [None if n < 0 else n for n in columns.numbers]
    return moments(columns.dates, columns.times, numbers)


def frame_keys(columns: FrameColumns) -> list[tuple[str, str, int, int]]:
    """Each frame's ``Moment.key`` (``frame_moments``), without a Moment per frame where every
    heading gives its date: ordering a world's frames needs only these."""
    dates = columns.dates
    if not all(dates):  # a frame takes its date from another (the rule of ``moments``)
        return [m.key for m in frame_moments(columns)]
    # ``key`` of each frame: its number is -1 in the columns too when it has none
    times = [t or "" for t in columns.times]
    dated = cast("list[str]", dates)
    return list(zip(dated, times, columns.numbers, range(len(dates)), strict=True))


class Latest:
    """Finds the latest of a file's frames by time as they are offered in file order, the last
    written among equals: the rule of ``moments`` in one pass, without a Moment per frame (a
    soul can hold 200,000 frames). ``offer`` says whether the frame offered is the latest so far.
    """

    def __init__(self, columns: FrameColumns) -> None:
        self.dates, self.times, self.numbers = columns.dates, columns.times, columns.numbers
        self.best: tuple[str, str, int] | None = None
        self._inherited: tuple[str, str] = ("", "")  # the nearest dated frame's, so far
        self._scanned = 0
        self._first_dated: int | None | bool = False  # False: not looked for yet

    def offer(self, f: int) -> bool:
        """Offer frame ``f`` (-1: outside frames); True when it is the latest so far."""
        if f < 0:
            key: tuple[str, str, int] = ("", "", -1)
        else:
            dates = self.dates
            while self._scanned <= f:
                d = dates[self._scanned]
                if d:
                    self._inherited = (d, self.times[self._scanned] or "")
                self._scanned += 1
            if dates[f]:
                key = (dates[f], self.times[f] or "", self.numbers[f])
            elif self._inherited[0]:
                key = (*self._inherited, self.numbers[f])
            else:  # before the file's first dated frame: it came before that one
                if self._first_dated is False:
                    self._first_dated = next((i for i, d in enumerate(dates) if d), None)
                first = self._first_dated
                if first is None:
                    key = (UNDATED, "", self.numbers[f])
                else:
                    key = (dates[first], self.times[first] or "", self.numbers[f])
        if self.best is None or key >= self.best:
            self.best = key
            return True
        return False


def ordered(a: Moment, b: Moment) -> bool:
    """Whether the headings tell which of two frames of *different files* came first: the
    spans of time they can have do not overlap (the same minute in two files is a tie), or
    they share a date and carry different frame numbers of the world."""
    (a_lo, a_hi), (b_lo, b_hi) = a.span, b.span
    if a_hi < b_lo or b_hi < a_lo:
        return True
    return (
        a.date is not None
        and a.date == b.date
        and not (a.inferred or b.inferred)
        and a.number is not None
        and b.number is not None
        and a.number != b.number
    )


def tied(first: Moment, others: Sequence[Moment]) -> list[int]:
    """Indexes of ``others`` (frames of other files) that ``first`` is not known to precede."""
    return [i for i, m in enumerate(others) if not ordered(first, m)]


def utc(timestamp: int | float) -> str:
    """A commit's time as ``YYYY-MM-DD HH:MM`` in UTC (the zone every view shows)."""
    return datetime.fromtimestamp(timestamp, UTC).strftime("%Y-%m-%d %H:%M")


def utc_iso(timestamp: int | float) -> str:
    """A commit's time as ISO 8601 in UTC, for JSON: ``2026-03-14T05:45:00Z``."""
    return datetime.fromtimestamp(timestamp, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
