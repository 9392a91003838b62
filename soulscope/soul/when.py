"""When a frame happened: the one notion of time that every view sorts by.

A frame's time is what its heading says: its date and, where given, its time of day, then its
place in its file. Headings give times in UTC (``(23:00 UTC)``, ``T17:33:00Z``), and soulscope
shows every time, commit times included, in UTC and says so.

A frame whose heading gives a date but no time of day lies, in its own file, between the timed
frames of that date around it: files are append-only, so a date-only frame written between its
file's 18:54 and 20:50 frames happened between them (``low`` and ``high``; where the two are the
wrong way round, the file's clock went backwards, and the frame lies between them either way).
Two frames are *ordered* only where their headings (and these bounds) tell them apart: a
date-only frame and a frame of another file within its bounds are *tied* (neither is known to
come first), and so are frames of the same date and minute in different files. Sorting puts a
date-only frame at its lower bound (the start of its day without one) so that sorts are total
and stable, but views that name an earliest or latest say the ties (``firsts``) rather than hide
them.

Times written with a UTC offset (``2026-05-09T23:30:00-05:00``, ``+05:30``, ``10:00 -05:00``,
``UTC+2``, ``GMT-5``), a zone's abbreviation (``EST``, ``CEST``: the one offset each names), a
region's time (``ET``, ``Eastern``, ``PT``, ``Pacific Time``: standard or daylight time as the
date has it) or a zone of the tz database (``Europe/Berlin``) are converted to UTC
(``offset_after``, ``to_utc``) wherever they are read. An abbreviation that names several zones
(``IST``, ``CST``) and a zone soulscope does not know (``10:00 XST``, ``10:00 local``) are read
as written, and the parser says so among a file's problems (``zone_note``).

A frame whose heading has no date (``## Frame 492``) takes the latest date and time of the dated
frames above it in its file, marked ``inferred``: it was appended after all of them, so it is no
earlier than the latest (after frames dated 03-05 and 03-02, in that order, it came after
03-05). A file's frames before any dated one take the earliest date below them (they came
before every one). A file with no date at all sorts after every dated frame (``UNDATED``).

A frame whose heading's date runs backwards against its file by more than a day (frame 12 dated
a month before frames 11 and 13: a typo, a wrong year) is *misdated* (``misdated``): every view
places it by its file, just after the frame above it that is dated right (marked ``inferred``,
its heading's date kept as ``written``). A day back is a frame's own date: parallel writers
append the frames of around midnight out of order.

Commit order is another matter: where frames arrived in different commits, the commit that
brought a frame comes first (``history.timeline`` decides that); frames that arrived in one
commit (a world imported at once) are ordered by their own times, here.
"""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from datetime import date as date_type
from itertools import accumulate
from typing import TYPE_CHECKING, Protocol, cast
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

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
    # "after" / "before": the heading has no date; ``date`` and ``time`` are those of the latest
    # dated frame above it in its file (it came after them), or the earliest below it (it came
    # before them)
    inferred: str | None = None
    # A frame without a time of day: the times (HH:MM) of the nearest timed frames of its date
    # before (``low``) and after (``high``) it in its file, between which it happened.
    low: str | None = None
    high: str | None = None
    # A frame without a number: the number of the nearest numbered frame above it in its file
    # (-1: none), by which it sorts after that one ("## Frame 2026-04-14" below "## Frame 488 —
    # 2026-04-14" came after it); the frame has no number all the same.
    order: int = -1
    # A frame whose heading's date runs backwards against its file's order by more than a day
    # (``misdated``: frame 12 dated a month before frame 11, a typo, a wrong year): the date and
    # time its heading says (``2026-02-01``, ``2026-02-01 10:00``); the frame is placed by its
    # file instead, after the frame above it (``inferred``), or before the one below it.
    written: str | None = None
    # A misdated frame placed after the frame above it: the latest it can be (``YYYY-MM-DD
    # HH:MM``), the end of the day of the frame below it that is dated right (None: unbounded)
    latest: str | None = None

    @property
    def key(self) -> tuple[str, str, int, int]:
        """The sort key: date, time of day (without one its lower bound, else first), frame
        number (without one, ``order``), then the place in its file."""
        number = self.order if self.number is None else self.number
        return key(self.date, self.time or self.low, number, self.position)

    @property
    def precision(self) -> str:
        """``minute``, ``day`` or ``none``: how closely the heading places the frame."""
        if self.date is None:
            return "none"
        if self.written:
            return "misdated"
        if self.inferred:
            return "inferred"
        return "minute" if self.time else "day"

    @property
    def text(self) -> str:
        """For people: ``2026-03-14 05:45 UTC``, ``2026-03-14 (no time of day)``, ``2026-03-14
        (no time of day; between 18:54 and 20:50 UTC by its file)``, ``undated``."""
        if self.date is None:
            return "undated"
        if self.written:
            at = f"{self.date} {self.time} {ZONE}" if self.time else self.date
            return (
                f"dated {self.written} by its heading, which runs backwards in its file; "
                f"{self.inferred} {at} by its place"
            )
        if self.time:
            own = f"{self.date} {self.time} {ZONE}"
        else:
            own = f"{self.date} (no time of day{self._bounds_text})"
        if self.inferred:
            return f"undated, {self.inferred} {own.replace(' (no time of day)', '')}"
        return own

    @property
    def _bounds_text(self) -> str:
        if self.low and self.high:
            return f"; between {self.low} and {self.high} {ZONE} by its file"
        if self.low or self.high:
            word, at = ("after", self.low) if self.low else ("before", self.high)
            return f"; {word} {at} {ZONE} by its file"
        return ""

    @property
    def span(self) -> tuple[str, str]:
        """The earliest and latest times the frame can have (``""``/``~``: unbounded)."""
        if self.date is None:
            return ("", UNDATED)
        lo = f"{self.date} {self.time or self.low or '00:00'}"
        hi = f"{self.date} {self.time or self.high or '23:59'}"
        if self.inferred == "after":
            return (lo, self.latest or UNDATED)
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
    Moment; undated frames take the latest dated frame above them (else the earliest below)."""
    out: list[Moment] = []
    last: Moment | None = None
    earliest: Moment | None = None
    pending: list[int] = []
    bounds = day_bounds(dates, times)
    orders = order_numbers([-1 if n is None else n for n in numbers or ()] or [-1] * len(dates))
    bad = misdated(dates)
    for i, (date, time) in enumerate(zip(dates, times, strict=True)):
        number = numbers[i] if numbers is not None else None
        order = orders[i]
        if i in bad:  # placed by its file, below
            out.append(Moment(None, None, i, number, order=order))
        elif date:
            low, high = bounds.get(i, (None, None))
            m = Moment(date, time, i, number, low=low, high=high, order=order)
            out.append(m)
            if last is None or _lower(m) >= _lower(last):
                last = m
            if pending and (earliest is None or _upper(m) < _upper(earliest)):
                earliest = m
        elif last is not None:
            out.append(Moment(last.date, last.time, i, number, "after", last.low, last.high, order))
        else:
            out.append(Moment(None, None, i, number, order=order))
            pending.append(i)
    if earliest is not None:
        e = earliest
        for j in pending:
            out[j] = Moment(e.date, e.time, j, e.number, "before", e.low, e.high, orders[j])
    for i, (above, below) in bad.items():
        up, down = (out[above] if above >= 0 else None), (out[below] if below >= 0 else None)
        out[i] = placed_by_file(out[i], up, down, dates[i], times[i])
    return out


def placed_by_file(
    m: Moment, above: Moment | None, below: Moment | None, date: str | None, time: str | None
) -> Moment:
    """Frame ``m``, misdated (``misdated``: its heading says ``date`` and ``time``), placed by
    its file: just after ``above``, the frame above it dated right, and no later than the day of
    ``below``, the one below it; without one above, just before ``below``."""
    written = f"{date} {time} {ZONE}" if time else date
    if above is not None:
        latest = f"{below.date} 23:59" if below is not None and below.date else None
        by, where = above, "after"
    else:
        assert below is not None
        by, where, latest = below, "before", None
    return Moment(
        by.date, by.time, m.position, m.number, where, by.low, by.high, m.order, written, latest
    )


def _lower(m: Moment) -> tuple[str, str]:
    """The earliest a dated frame can be: its date and time (a date-only frame's lower bound)."""
    return (m.date or UNDATED, m.time or m.low or "")


def _upper(m: Moment) -> tuple[str, str]:
    """The latest a dated frame can be: its date and time (a date-only frame's upper bound)."""
    return (m.date or UNDATED, m.time or m.high or "~")


# How far a frame's date may run backwards against its file's order and still be its own: parallel
# writers append the frames of around midnight out of order (a day back, hundreds of times in a
# world); more than that is a typo or a wrong year.
MISDATED_AFTER_DAYS = 1


def misdated(dates: Sequence[str | None]) -> dict[int, tuple[int, int]]:
    """The frames of a file (its headings' dates in file order) whose dates run backwards
    against their file's order by more than ``MISDATED_AFTER_DAYS``: frame 12 dated a month
    before frame 11 and frame 13, or 2025 among frames of 2026, or a month after both. Files
    are appended, so the frames in order of date and file at once (the longest run of them)
    are taken as dated right, and a frame out of that run is misdated where its date lies more
    than a day before the frame of the run above it or after the one below it. Each misdated
    frame's index maps to those two frames' (-1: none)."""
    # Where no frame lies more than a day behind the latest above it, none is misdated (the
    # frame of the run below a misdated one would): most files, told without a date's arithmetic.
    dated = [d for d in dates if d]
    if dated == sorted(dated):  # most files (timsort tells it in one pass)
        return {}
    behind = [(m, d) for d, m in zip(dated, accumulate(dated, max), strict=True) if d < m]
    if not any(_days_apart(m, d) > MISDATED_AFTER_DAYS for m, d in behind):
        return {}
    indexed = [(i, d) for i, d in enumerate(dates) if d]
    kept = _in_order(indexed)
    in_run = set(kept)
    out: dict[int, tuple[int, int]] = {}
    above, passed = -1, 0  # the last frame of the run above, and how many of the run are above
    for i, d in indexed:
        if i in in_run:
            above, passed = i, passed + 1
            continue
        below = kept[passed] if passed < len(kept) else -1
        back = _days_apart(dates[above], d) if above >= 0 else 0
        ahead = _days_apart(d, dates[below]) if below >= 0 else 0
        if max(back, ahead) > MISDATED_AFTER_DAYS:
            out[i] = (above, below)
    return out


def _days_apart(earlier: str | None, later: str | None) -> int:
    """How many days ``later`` lies before ``earlier`` (0 where it does not, or either is
    missing): how far a date runs backwards."""
    if not earlier or not later or later >= earlier:
        return 0
    try:
        return (date_type.fromisoformat(earlier) - date_type.fromisoformat(later)).days
    except ValueError:
        return 0


def _in_order(indexed: Sequence[tuple[int, str]]) -> list[int]:
    """The indexes of the longest run of ``indexed`` (index, date) whose dates never go back,
    in file order; of runs as long, the one that keeps the frames higher in the file. (The
    longest run of dates that never go up, read from the file's end: each run's least last
    day is kept, and a later one, read first, gives way to an earlier one as good.)"""
    tails: list[int] = []  # of the runs of each length so far, the least last day, negated
    ends: list[int] = []  # where that run ends, in ``indexed``
    back = [-1] * len(indexed)
    for k in range(len(indexed) - 1, -1, -1):
        day = -date_type.fromisoformat(indexed[k][1]).toordinal()
        n = bisect.bisect_right(tails, day)
        back[k] = ends[n - 1] if n else -1
        if n == len(tails):
            tails.append(day)
            ends.append(k)
        elif day < tails[n]:
            tails[n], ends[n] = day, k
    out: list[int] = []
    k = ends[-1] if ends else -1
    while k >= 0:
        out.append(indexed[k][0])
        k = back[k]
    return out


def order_numbers(numbers: Sequence[int]) -> list[int]:
    """Each frame's number (-1: none) or, without one, that of the nearest numbered frame above
    it in its file (``Moment.order``)."""
    out, last = [], -1
    for n in numbers:
        if n >= 0:
            last = n
        out.append(last)
    return out


def day_bounds(
    dates: Sequence[str | None], times: Sequence[str | None]
) -> dict[int, tuple[str | None, str | None]]:
    """The bounds (``Moment.low``, ``Moment.high``) of a file's frames that give a date but no
    time of day, by index, for those its timed frames of the same date bound: the nearest such
    frame before and after it in the file (frames without a date between them are passed over).
    Where the file's clock went backwards (the one before is later than the one after), the
    frame lies between the two all the same."""
    if all(times) or not any(times):  # every frame timed, or none: nothing bounds anything
        return {}
    n = len(dates)
    lows = _nearest_timed(dates, times, range(n))
    highs = _nearest_timed(dates, times, range(n - 1, -1, -1))
    out: dict[int, tuple[str | None, str | None]] = {}
    for i, low in lows.items():
        high = highs[i]
        if low and high and low > high:
            low, high = high, low
        if low or high:
            out[i] = (low, high)
    return out


def _nearest_timed(
    dates: Sequence[str | None], times: Sequence[str | None], order: range
) -> dict[int, str | None]:
    """For each date-only frame, the time of the nearest timed frame of its date met before it
    when the frames are walked in ``order``; None where a frame of another date comes first."""
    out: dict[int, str | None] = {}
    day: str | None = None
    last: str | None = None
    for i in order:
        date = dates[i]
        if not date:
            continue
        if date != day:
            day, last = date, None
        if times[i]:
            last = times[i]
        else:
            out[i] = last
    return out


def frame_moments(columns: FrameColumns) -> list[Moment]:
    """The Moments of a parsed soul's frames (``soul.frames.columns``)."""
    numbers = [None if n < 0 else n for n in columns.numbers]
    return moments(columns.dates, columns.times, numbers)


def frame_keys(columns: FrameColumns) -> list[tuple[str, str, int, int]]:
    """Each frame's ``Moment.key`` (``frame_moments``), without a Moment per frame where every
    heading gives its date: ordering a world's frames needs only these."""
    dates = columns.dates
    if not dates:
        return []
    if not all(dates):  # a frame takes its date from another (the rule of ``moments``)
        return [m.key for m in frame_moments(columns)]
    # ``key`` of each frame: a frame without a number sorts by its ``Moment.order``
    times = [t or "" for t in columns.times]
    for i, (low, _high) in day_bounds(dates, columns.times).items():
        times[i] = low or ""
    dated = cast("list[str]", dates)
    bad = misdated(dates)
    if bad:  # a misdated frame at the frame its file places it by (``moments``)
        dated = list(dated)
        for i, (above, below) in bad.items():
            by = above if above >= 0 else below
            dated[i], times[i] = dated[by], times[by]
    numbers = columns.numbers if min(columns.numbers) >= 0 else order_numbers(columns.numbers)
    return list(zip(dated, times, numbers, range(len(dates)), strict=True))


class Headings(Protocol):
    """What ``FileTimes`` reads of a file's frames: their headings' dates, times of day and
    numbers (-1: none), in file order (``FrameColumns`` holds them)."""

    @property
    def dates(self) -> Sequence[str | None]: ...

    @property
    def times(self) -> Sequence[str | None]: ...

    @property
    def numbers(self) -> Sequence[int]: ...


class FileTimes:
    """Each frame's place in time within its file, as its frames are asked for in file order:
    the rule of ``moments`` in one pass, without a Moment per frame (a soul can hold 200,000
    frames). ``key`` of a frame sorts it by its date, time of day (a date-only frame at its
    lower bound) and frame number; frames of equal keys keep their file's order."""

    def __init__(self, columns: Headings) -> None:
        self.dates, self.times, self.numbers = columns.dates, columns.times, columns.numbers
        self._lows = {i: low or "" for i, (low, _) in day_bounds(self.dates, self.times).items()}
        # misdated frames, each with the frame its file places it after (or before: ``~``)
        self._misdated = {
            i: (above, "") if above >= 0 else (below, "~")
            for i, (above, below) in misdated(self.dates).items()
        }
        self._inherited: tuple[str, str] = ("", "")  # the latest dated frame's, so far
        self._order = -1  # the nearest numbered frame's number, so far (``Moment.order``)
        self._scanned = 0
        # the earliest dated frame's date and time ("~": none); None: no dated frame
        self._first_dated: tuple[str, str] | None = None
        self._looked = False  # for it

    def key(self, f: int) -> tuple[str, str, int]:
        """Frame ``f``'s key (-1: before every frame); ``f`` never below one asked before."""
        if f < 0:
            return ("", "", -1)
        dates = self.dates
        while self._scanned <= f:
            d = None if self._scanned in self._misdated else dates[self._scanned]
            if d:  # the latest dated frame above (``moments``)
                time = self.times[self._scanned] or self._lows.get(self._scanned, "")
                self._inherited = max(self._inherited, (d, time))
            if self.numbers[self._scanned] >= 0:
                self._order = self.numbers[self._scanned]
            self._scanned += 1
        number = self.numbers[f] if self.numbers[f] >= 0 else self._order
        if f in self._misdated:  # at the frame its file places it by (``moments``)
            by, _ = self._misdated[f]
            return (dates[by] or "", self.times[by] or self._lows.get(by, ""), number)
        date = dates[f]
        if date:
            return (date, self.times[f] or self._lows.get(f, ""), number)
        if self._inherited[0]:
            return (*self._inherited, number)
        # before the file's first dated frame: it came before every one (``moments``)
        if not self._looked:
            dated = [(d, self.times[i] or "~") for i, d in enumerate(dates) if d]
            self._first_dated, self._looked = (min(dated) if dated else None), True
        first = self._first_dated
        if first is None:
            return (UNDATED, "", self.numbers[f])
        return (first[0], "" if first[1] == "~" else first[1], self.numbers[f])


def latest_before(moments: Sequence[Moment | None], at: Moment) -> int | None:
    """The index of the latest of ``moments`` (frames of one file) that comes before ``at`` by
    time (``Moment.key``: among frames its headings place at once, the file's order); None where
    none does. The frame before another is this one, not the one above it in the file: parallel
    writers append frames out of order."""
    best: int | None = None
    for i, m in enumerate(moments):
        if m is None or not m.key < at.key:
            continue
        if best is None or m.key > cast("Moment", moments[best]).key:
            best = i
    return best


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


def firsts(found: Sequence[Moment]) -> list[int]:
    """Indexes of the moments (frames of different files, or one file's earliest) that no other
    of them is known to precede (``ordered``): every one that may be the first, and no other.
    One is preceded where another's span ends before its own starts, or where another frame of
    its date carries a smaller frame number of the world."""
    if not found:
        return []
    end = min(m.span[1] for m in found)
    possible = [i for i, m in enumerate(found) if m.span[0] <= end]
    least: dict[str | None, int] = {}
    for m in found:
        if _numbered(m):
            least[m.date] = min(least.get(m.date, m.number or 0), m.number or 0)
    kept = [
        i for i in possible if not _numbered(found[i]) or found[i].number == least[found[i].date]
    ]
    return kept or possible  # headings that contradict each other: the spans decide


def numbers_decide(found: Sequence[Moment]) -> bool:
    """Whether frame numbers would order any of these moments (of different files): two carry
    the same date, not inferred, and a number each (only there does a number decide)."""
    seen: set[str] = set()
    for m in found:
        if _numbered(m):
            if m.date in seen:
                return True
            seen.add(cast("str", m.date))
    return False


def one_clock(files: Iterable[tuple[Sequence[str | None], Sequence[int]]]) -> bool:
    """Whether the frame numbers of several files (each given as its frames' dates and numbers,
    -1 for none) count one clock of the world, as ``Frame 237`` does in a world that numbers its
    frames: no frame carries a smaller number than a frame of another file of an earlier date.
    Where one does, each agent counts its own frames, and a number orders nothing across files."""
    by_date: dict[str, list[tuple[int, int]]] = {}
    for f, (dates, numbers) in enumerate(files):
        for date, number in zip(dates, numbers, strict=True):
            if date and number >= 0:
                by_date.setdefault(date, []).append((number, f))
    top: list[tuple[int, int]] = []  # the highest number of the dates so far, and of another file
    for date in sorted(by_date):
        group = by_date[date]
        if any(n < next((t for t, g in top if g != f), -1) for n, f in group):
            return False
        for n, f in group:  # a file's highest only grows: the two highest files stay kept
            if n > next((t for t, g in top if g == f), -1):
                top = sorted([(t, g) for t, g in top if g != f] + [(n, f)], reverse=True)[:2]
    return True


def unnumbered(m: Moment) -> Moment:
    """``m`` without its frame number: where numbers count no clock of the world."""
    return replace(m, number=None, order=-1) if m.number is not None or m.order >= 0 else m


def _numbered(m: Moment) -> bool:
    return m.date is not None and not m.inferred and m.number is not None


_OFFSET = re.compile(r"([+-])(\d{2})(?::?(\d{2}))?")

# Zones that souls name by their abbreviation, as UTC offsets: each names one offset, standard
# time or daylight time (``EST`` is UTC-05:00 in July too, as written).
ZONE_OFFSETS = {
    "PST": "-08:00", "PDT": "-07:00", "MST": "-07:00", "MDT": "-06:00", "CST": "-06:00",
    "CDT": "-05:00", "EST": "-05:00", "EDT": "-04:00", "BST": "+01:00", "CET": "+01:00",
    "CEST": "+02:00", "EET": "+02:00", "EEST": "+03:00", "JST": "+09:00", "AEST": "+10:00",
    "AEDT": "+11:00", "WET": "+00:00", "WEST": "+01:00", "MSK": "+03:00", "HST": "-10:00",
    "AKST": "-09:00", "AKDT": "-08:00", "NZST": "+12:00", "NZDT": "+13:00", "SGT": "+08:00",
    "HKT": "+08:00", "KST": "+09:00", "AWST": "+08:00", "ACST": "+09:30", "ACDT": "+10:30",
    "BRT": "-03:00", "ART": "-03:00", "NST": "-03:30", "NDT": "-02:30", "ADT": "-03:00",
    "SAST": "+02:00", "EAT": "+03:00", "WAT": "+01:00", "CAT": "+02:00", "PKT": "+05:00",
    "NPT": "+05:45", "ICT": "+07:00", "WIB": "+07:00", "PHT": "+08:00",
}  # fmt: skip
# Names of a region's time that follow its daylight saving time ("ET": EST in winter, EDT in
# summer), as the zone that keeps the region's rules: the date says which offset it had.
REGION_ZONES = {
    "ET": "America/New_York", "EASTERN": "America/New_York",
    "CT": "America/Chicago", "CENTRAL": "America/Chicago",
    "MT": "America/Denver", "MOUNTAIN": "America/Denver",
    "PT": "America/Los_Angeles", "PACIFIC": "America/Los_Angeles",
    "AKT": "America/Anchorage", "ALASKA": "America/Anchorage",
    "HT": "Pacific/Honolulu", "HAWAII": "Pacific/Honolulu",
    "UK": "Europe/London", "CENTRAL EUROPEAN": "Europe/Paris", "EASTERN EUROPEAN": "Europe/Athens",
}  # fmt: skip
# Abbreviations that name more than one zone, and what a reader should know of each: those of
# ``ZONE_OFFSETS`` are read as their first zone there, the others as written (UTC).
AMBIGUOUS_ZONES = {
    "CST": "read as US Central (UTC-06:00); it also names China's UTC+08:00",
    "BST": "read as British Summer Time (UTC+01:00); it also names Bangladesh's UTC+06:00",
    "IST": "it names India's UTC+05:30, Israel's UTC+02:00 and Ireland's UTC+01:00; read as UTC",
    "AST": "it names the Atlantic's UTC-04:00 and Arabia's UTC+03:00; read as UTC",
    "GST": "it names the Gulf's UTC+04:00 and South Georgia's UTC-02:00; read as UTC",
}
# The abbreviations as a pattern's alternatives, in capitals or in small letters ("est").
ABBREVIATIONS = "|".join(f"{z}|{z.lower()}" for z in sorted(ZONE_OFFSETS, key=len, reverse=True))
# A zone's abbreviation right after a time of day ("04:00 PST", "(10:00 est)").
ZONE_NAME = re.compile(r"[ \t]?\(?[ \t]?(" + ABBREVIATIONS + r")\b")
# A region's time right after a time of day: "10:00 ET", "3pm Eastern", "10:00 Pacific Time",
# "(10:00 PT)", or a zone of the tz database by its name ("10:00 America/New_York").
_REGION_NAME = re.compile(
    r"[ \t]?\(?[ \t]?(?:(?P<region>ET|CT|MT|PT|AKT|HT|UK"
    r"|(?i:(?:eastern|central)[ \t]european|eastern|central|mountain|pacific|alaska|hawaii))"
    r"(?:[ \t](?i:time))?(?![\w/])"
    r"|(?P<tz>[A-Z][A-Za-z]+(?:/[A-Z][A-Za-z_\-]+){1,2})(?![\w/]))"
)

# A UTC offset as written right after a time of day: "-05:00", "-0500", "+02", with a space
# before it ("10:00 -05:00"), after the zone's name ("UTC+2", "GMT-5", "UTC -05:00"), in
# parentheses ("(UTC-05:00)", "(-05:00)"), with a minus sign ("UTC\u22125").
_WRITTEN_OFFSET = re.compile(
    r"(?P<space>[ \t])?(?P<open>\([ \t]?)?(?:(?P<zone>(?i:UTC|GMT))[ \t]?)?(?P<sign>[+\-\u2212])"
    r"(?P<hours>\d{1,2})(?:(?P<colon>:)?(?P<minutes>\d{2}))?(?!\d|:\d)"
)
_ZONE_AFTER = re.compile(r"[ \t]*\(?(?:UTC|GMT|Z)\b")
# What may name a zone right after a time of day, for ``zone_note``: a word in capitals (not
# UTC, GMT), "local", or a name of the tz database.
_ZONE_AFTER_TIME = re.compile(
    r"(?<![\d:])\d{1,2}(?::\d{2}){1,2}(?:[ \t]?[apAP]\.?[mM]\.?)?[ \t]?\(?[ \t]?"
    r"(?!UTC\b|GMT\b)(?P<zone>[A-Z]{2,5}\b|(?i:local)\b|[A-Z][A-Za-z]+/[A-Za-z_/\-]+)"
)


def offset_after(text: str, at: int, time: str, iso: bool = False) -> str | None:
    """The UTC offset written right after a time of day ``time`` (``HH:MM``) that ends at
    ``at`` in ``text`` (``-05:00``, ``+0530``, a zone's abbreviation's), or None where none is,
    or where what follows may as well end a span of time. ``iso``: the time is an ISO time
    (``T10:00``) or gives its seconds, after which a ``-05:00`` is an offset.

    Without a zone's name or parentheses, a ``-`` is an offset only in four digits (``-0500``),
    after an ISO time, or written apart ("10:00 -05:00") where as a span's end it would run
    backwards, to an offset some zone has; "18:15-18:45", "09:00 -10:00" and "23:30-00:30 UTC"
    are spans, "10:00 -5" a number."""
    named = zone_named(text, at)
    if named is not None:
        return named
    signs = text[at : at + 8]  # most times have no sign after them (" UTC)"): no pattern
    if "-" not in signs and "+" not in signs and "\u2212" not in signs:
        return None
    m = _WRITTEN_OFFSET.match(text, at)
    if m is None:
        return None
    hours, minutes = m["hours"], m["minutes"]
    sign = "+" if m["sign"] == "+" else "-"
    offset = f"{sign}{int(hours):02d}:{minutes or '00'}"
    if m["zone"] or m["open"] or m["sign"] == "\u2212":
        return offset
    if len(hours) == 1:
        return None
    if iso or sign == "+" or (minutes and not m["colon"]):
        return offset
    backwards = minutes is not None and f"{hours}:{minutes}" <= time
    if (
        m["space"]
        and backwards
        and 1 <= int(hours) <= 12
        and minutes in ("00", "30", "45")
        and _ZONE_AFTER.match(text, m.end()) is None
    ):
        return offset
    return None


def zone_named(text: str, at: int) -> str | None:
    """The zone named right at ``at`` in ``text``: an abbreviation's offset (``EST``:
    ``-05:00``), the tz database's zone of a region's time (``ET``: ``America/New_York``) or a
    zone of it by name (``Europe/Berlin``); None where none is."""
    zone = ZONE_NAME.match(text, at)
    if zone is not None:
        return ZONE_OFFSETS[zone.group(1).upper()]
    region = _REGION_NAME.match(text, at)
    if region is None:
        return None
    if region["region"]:
        return REGION_ZONES[" ".join(region["region"].upper().split())]
    return region["tz"] if tz_zone(region["tz"]) is not None else None


def zone_of(name: str) -> str | None:
    """A zone's name as written alone (``EST``, ``ET``, ``Eastern Time``, ``Europe/Berlin``) as
    ``to_utc`` takes it: an abbreviation's offset, else the tz database's zone; None where it
    names none soulscope knows."""
    words = " ".join(name.split())
    if words.upper() in ZONE_OFFSETS:
        return ZONE_OFFSETS[words.upper()]
    named = zone_named(words, 0)
    m = _REGION_NAME.fullmatch(words) or ZONE_NAME.fullmatch(words)
    return named if m is not None else None


# The zone whose standard or daylight time an abbreviation names: "EST" in July is no time New
# York kept (it kept EDT), and a writer who says EST then may mean Eastern time.
SEASONED = {
    "EST": "America/New_York", "EDT": "America/New_York", "CDT": "America/Chicago",
    "MST": "America/Denver", "MDT": "America/Denver", "PST": "America/Los_Angeles",
    "PDT": "America/Los_Angeles", "CET": "Europe/Paris", "CEST": "Europe/Paris",
    "EET": "Europe/Athens", "EEST": "Europe/Athens", "AEST": "Australia/Sydney",
    "AEDT": "Australia/Sydney", "NZST": "Pacific/Auckland", "NZDT": "Pacific/Auckland",
}  # fmt: skip


def season_note(name: str, date: str) -> str | None:
    """What a reader should know of a time written in ``name``, a standard or daylight time
    (``EST``), on ``date``, where its region kept the other then; None where it kept this one."""
    region = SEASONED.get(name)
    if region is None:
        return None
    zone = tz_zone(region)
    try:
        day = datetime.fromisoformat(f"{date}T12:00")
    except ValueError:
        return None
    kept = zone.utcoffset(day) if zone is not None else None
    if kept is None:
        return None
    total = int(kept.total_seconds()) // 60
    offset = f"{'+' if total >= 0 else '-'}{abs(total) // 60:02d}:{abs(total) % 60:02d}"
    if offset == ZONE_OFFSETS[name]:
        return None
    return (
        f"time zone {name} (UTC{ZONE_OFFSETS[name]}) on {date}, when {region} kept "
        f"UTC{offset}: read as {name}, as written"
    )


def zone_note(heading: str, date: str | None = None) -> str | None:
    """What a reader should know of a time of day in ``heading`` written in a zone soulscope
    cannot be sure of: an abbreviation that names more than one zone ("10:00 IST"), a zone it
    does not know ("10:00 XYZ", "10:00 local"; read as UTC), a standard time on a ``date`` of
    daylight time or the other way round ("10:00 EST" in July); None where there is none."""
    for m in _ZONE_AFTER_TIME.finditer(heading):
        name = m["zone"]
        if date and (season := season_note(name, date)):
            return season
        if name in AMBIGUOUS_ZONES:
            return f"time zone {name} is ambiguous: {AMBIGUOUS_ZONES[name]}"
        if name.lower() == "local":
            return "time of day in local time, of a zone not said: read as UTC"
        if "/" in name:
            if tz_zone(name) is None:
                return f"time zone {name} is unknown: read as UTC"
        elif name not in ZONE_OFFSETS and name not in REGION_ZONES and len(name) > 2:
            return (
                f"{name} after the time may name a time zone soulscope does not know: read as UTC"
            )
    return None


def tz_zone(name: str) -> ZoneInfo | None:
    """The zone of the tz database named ``name`` (``America/New_York``), None where there is
    none."""
    try:
        return _tz(name)
    except (ValueError, ZoneInfoNotFoundError):
        return None


@functools.cache
def _tz(name: str) -> ZoneInfo:
    return ZoneInfo(name)


def to_utc(date: str, time: str, offset: str | None) -> tuple[str, str]:
    """A date and time of day (``HH:MM``) written with a UTC offset (``-05:00``, ``+0530``,
    ``+05``; ``Z``, ``UTC`` or None: already UTC) as the date and time in UTC: ``2026-05-09``
    ``23:30`` at ``-05:00`` is ``2026-05-10`` ``04:30``. An offset no zone has (beyond 14 hours)
    is not one, and leaves the time as written."""
    m = _OFFSET.fullmatch(offset or "")
    if m is None:
        return _zone_to_utc(date, time, offset)
    hours, minutes = int(m.group(2)), int(m.group(3) or 0)
    if hours > 14 or minutes > 59:
        return date, time
    shift = timedelta(hours=hours, minutes=minutes)
    try:
        at = datetime.fromisoformat(f"{date}T{time}")
    except ValueError:
        return date, time
    at = at - shift if m.group(1) == "+" else at + shift
    return at.strftime("%Y-%m-%d"), at.strftime("%H:%M")


def _zone_to_utc(date: str, time: str, name: str | None) -> tuple[str, str]:
    """``to_utc`` for a time of a zone of the tz database (``America/New_York``): its offset
    on that date (EST in winter, EDT in summer)."""
    zone = tz_zone(name) if name and "/" in name else None
    if zone is None:
        return date, time
    try:
        at = datetime.fromisoformat(f"{date}T{time}").replace(tzinfo=zone).astimezone(UTC)
    except ValueError:
        return date, time
    return at.strftime("%Y-%m-%d"), at.strftime("%H:%M")


def utc(timestamp: int | float) -> str:
    """A commit's time as ``YYYY-MM-DD HH:MM`` in UTC (the zone every view shows)."""
    return datetime.fromtimestamp(timestamp, UTC).strftime("%Y-%m-%d %H:%M")


def utc_iso(timestamp: int | float) -> str:
    """A commit's time as ISO 8601 in UTC, for JSON: ``2026-03-14T05:45:00Z``."""
    return datetime.fromtimestamp(timestamp, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
