"""A point in a world's run as a person names it: a date (``2026-03-14``, ``2026/03/14``), a
moment (``2026-03-14 20:12``, ``2026-03-14T20:12Z``, ``2026-03-14 10:00 -05:00``, ``2026-03-14
3pm ET``), a frame of the world (``237``, ``frame 237``) or a git revision (a sha, a tag,
``HEAD~5``).

A moment is read in UTC unless it says its zone (an offset, ``UTC+2``, an abbreviation, a
region's time such as ``ET``, a zone of the tz database such as ``Europe/Berlin``: as a frame's
heading is read, ``soul.when``), and kept in UTC, as every time soulscope shows; a bare date
means the whole day in UTC (from its start, to its end). What starts as a date and is none
(``2026-02-30``, ``03/04/2026``, ``2026-03-14 10:00 Mars/Olympus``) is an error that says why;
anything else that is neither a date nor a frame number is a revision.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from datetime import date as Date
from typing import cast

from soulscope.errors import SoulscopeError
from soulscope.soul import when

_DATE = re.compile(
    r"(?P<date>\d{4}(?P<sep>[-/])\d{1,2}(?P=sep)\d{1,2})"
    r"(?:(?:[ \t]*,?[ \t]*(?:at[ \t]+)?|T)(?P<hour>\d{1,2})(?::(?P<minute>\d{2}))?"
    r"(?::\d{2}(?:\.\d+)?)?[ \t]*(?P<meridiem>[aApP]\.?[mM]\.?)?)?"
    r"(?P<zone>.*)",
    re.DOTALL,
)
# A UTC offset as a moment's zone: ``Z``, ``UTC``, ``-05:00``, ``+0530``, ``UTC+2``, ``(GMT-5)``.
_OFFSET = re.compile(
    r"\(?[ \t]*(?:(?:UTC|GMT|Z)[ \t]*)?(?:(?P<sign>[+\-\u2212])[ \t]*(?P<hours>\d{1,2})"
    r"(?::?(?P<minutes>\d{2}))?)?[ \t]*\)?",
    re.IGNORECASE,
)
# Day and month in either order: which one is which, the numbers may not say.
_NUMERIC = re.compile(r"(\d{1,2})[/.](\d{1,2})[/.](\d{4})(?P<rest>\b.*)?", re.DOTALL)
# Up to six digits, or any number after "frame": git abbreviates a sha to seven characters at
# least, and some are all digits (4436332).
_FRAME = re.compile(r"frame[ \t]*(\d{1,9})|(\d{1,6})", re.IGNORECASE)

FORMS = "a date (2026-03-14), a moment ('2026-03-14 10:00 -05:00'), a frame number or a revision"


class PointError(SoulscopeError):
    """A point that names nothing in the world (a frame it never had, a date before it)."""


@dataclass(frozen=True, slots=True)
class Point:
    """What ``--from``, ``--to`` or ``--at`` named."""

    text: str  # as typed
    kind: str  # "date", "frame" or "rev"
    date: str | None = None  # in UTC
    time: str | None = None  # HH:MM in UTC, or None for a whole day
    frame: int | None = None

    @property
    def described(self) -> str:
        if self.kind == "date":
            return f"{self.date} {self.time} UTC" if self.time else f"{self.date} (UTC)"
        if self.kind == "frame":
            return f"frame {self.frame}"
        return f"revision {self.text}"

    @property
    def moment(self) -> str:
        """The date (``2026-03-14``) or moment in UTC (``2026-03-14 20:12``) a date names, as
        git takes it."""
        return f"{self.date} {self.time}" if self.time else f"{self.date}"


def point(text: str) -> Point:
    """``text`` as a Point; what starts as a date and is none (2026-02-30, a time of day past
    23, a zone not known, 03/04/2026) is an error, not a revision."""
    spec = text.strip()
    if not spec:
        raise PointError(f"an empty point names nothing: give {FORMS}")
    m = _DATE.fullmatch(spec)
    if m:
        return _dated(spec, m)
    numeric = _NUMERIC.fullmatch(spec)
    if numeric:
        return _numeric(spec, numeric)
    m = _FRAME.fullmatch(spec)
    if m:
        return Point(spec, "frame", frame=int(m.group(1) or m.group(2)))
    return Point(spec, "rev")


def _numeric(spec: str, m: re.Match[str]) -> Point:
    """A date written ``25/12/2026`` or ``12/25/2026``, read where its numbers say which is the
    day (one is over 12, or both are the same), else an error that says the two readings."""
    a, b, year = int(m.group(1)), int(m.group(2)), m.group(3)
    if a != b and a <= 12 and b <= 12:
        raise PointError(
            f"'{spec}' may be day/month or month/day: write it as {year}-MM-DD"
            f" ({year}-{a:02d}-{b:02d} or {year}-{b:02d}-{a:02d})"
        )
    day, month = (a, b) if a > 12 else (b, a)
    iso = f"{year}-{month:02d}-{day:02d}{m['rest'] or ''}"
    return replace(_dated(spec, cast("re.Match[str]", _DATE.fullmatch(iso))), text=spec)


def _dated(spec: str, m: re.Match[str]) -> Point:
    year, month, day = (int(p) for p in re.split(r"[-/]", m["date"]))
    try:
        date = Date(year, month, day).isoformat()
    except ValueError:
        raise PointError(f"'{spec}' is not a date of the calendar") from None
    zone = m["zone"].strip()
    if m["hour"] is None:
        offset = _offset(zone)
        if offset is None:  # "2026-03-14-release": no date but a revision's name
            return Point(spec, "rev")
        if offset:
            raise PointError(
                f"'{spec}': a day is read in UTC; give a time of day with its zone "
                f"({date} 10:00 {zone}) or the day alone ({date})"
            )
        return Point(spec, "date", date=date)
    time = _time(spec, m)
    offset = _offset(zone)
    if offset is None:
        raise PointError(
            f"'{spec}': '{zone}' is no time zone soulscope knows; give an offset "
            f"({date} {time} -05:00), a zone such as ET, CET or Europe/Berlin, or UTC"
        )
    date, time = when.to_utc(date, time, offset or None)
    return Point(spec, "date", date=date, time=time)


def _time(spec: str, m: re.Match[str]) -> str:
    """The time of day of a moment's match (``HH:MM``), as written (not yet in UTC)."""
    hour, minute, meridiem = int(m["hour"]), m["minute"], m["meridiem"]
    if meridiem is not None:
        if not 1 <= hour <= 12:
            raise PointError(f"'{spec}' is not a time of day")
        hour = hour % 12 + (12 if meridiem[0] in "pP" else 0)
    elif minute is None:  # "2026-03-14 10" is no time of day, nor a revision
        raise PointError(f"'{spec}' is not a time of day: write it as HH:MM")
    if hour > 23:
        raise PointError(f"'{spec}' is not a time of day")
    return f"{hour:02d}:{minute or '00'}"


def _offset(zone: str) -> str | None:
    """A moment's zone as written after its time, as ``when.to_utc`` takes it: ``""`` for UTC
    (none written, ``Z``, ``UTC``), an offset (``-05:00``), or the tz database's name of a zone
    (``America/New_York`` for ``ET``); None where it names no zone soulscope knows."""
    m = _OFFSET.fullmatch(zone)
    if m:
        if m["sign"] is None:
            return ""
        hours, minutes = int(m["hours"]), int(m["minutes"] or 0)
        if hours > 14 or minutes > 59:
            return None
        return f"{'+' if m['sign'] == '+' else '-'}{hours:02d}:{minutes:02d}"
    named = when.zone_of(zone.strip("()").strip())
    return named or None
