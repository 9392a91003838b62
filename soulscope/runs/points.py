"""A point in a world's run as a person names it: a date (``2026-03-14``, ``2026-03-14 20:12``), a
frame of the world (``237``, ``frame 237``) or a git revision (a sha, a tag, ``HEAD~5``).

A date is read in UTC, as every time soulscope shows; a bare date means the whole day (from its
start, to its end). Anything that is neither a date nor a frame number is a revision.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date as Date

from soulscope.errors import SoulscopeError

_DATE = re.compile(
    r"(\d{4}-\d{2}-\d{2})(?:[ T]([0-2]\d):([0-5]\d)(?::[0-5]\d)?)?[ \t]*(?:UTC|Z)?", re.IGNORECASE
)
# Up to six digits, or any number after "frame": git abbreviates a sha to seven characters at
# least, and some are all digits (4436332).
_FRAME = re.compile(r"frame[ \t]*(\d{1,9})|(\d{1,6})", re.IGNORECASE)


class PointError(SoulscopeError):
    """A point that names nothing in the world (a frame it never had, a date before it)."""


@dataclass(frozen=True, slots=True)
class Point:
    """What ``--from``, ``--to`` or ``--at`` named."""

    text: str  # as typed
    kind: str  # "date", "frame" or "rev"
    date: str | None = None
    time: str | None = None  # HH:MM, or None for a whole day
    frame: int | None = None

    @property
    def described(self) -> str:
        if self.kind == "date":
            return f"{self.date} {self.time} UTC" if self.time else f"{self.date} (UTC)"
        if self.kind == "frame":
            return f"frame {self.frame}"
        return f"revision {self.text}"


def point(text: str) -> Point:
    """``text`` as a Point; an impossible date (2026-02-30) is an error, not a revision."""
    spec = text.strip()
    if not spec:
        raise PointError("an empty point names nothing: give a date, a frame number or a revision")
    m = _DATE.fullmatch(spec)
    if m:
        try:
            Date.fromisoformat(m.group(1))
        except ValueError:
            raise PointError(f"'{spec}' is not a date of the calendar") from None
        time = f"{m.group(2)}:{m.group(3)}" if m.group(2) else None
        if time is not None and int(m.group(2)) > 23:
            raise PointError(f"'{spec}' is not a time of day")
        return Point(spec, "date", date=m.group(1), time=time)
    m = _FRAME.fullmatch(spec)
    if m:
        return Point(spec, "frame", frame=int(m.group(1) or m.group(2)))
    return Point(spec, "rev")
