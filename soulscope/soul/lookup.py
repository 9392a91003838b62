"""Find a frame the way a person names it: ``237``, ``500b``, ``2026-03-15``, ``2026-03-15 19:50``, ``#K``.

The CLI (``soulscope show --frame``) and the dashboard (``:``) both ask here, so a frame that one
finds the other finds too. When nothing matches exactly, the nearest frame is offered: the closest
number, the closest date and time, or the first or last position.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from soulscope.soul.model import Frame, Frames, Soul

_DATE = re.compile(r"^(\d{4}-\d{2}-\d{2})(?:[ T](\d{1,2}):?(\d{2})?)?\s*(?:UTC|Z)?$", re.IGNORECASE)
_NUMBER = re.compile(r"^(\d+)")


@dataclass(frozen=True)
class FrameLookup:
    """What ``spec`` names in a soul: exact matches (file order), else the nearest frame."""

    spec: str
    matches: tuple[Frame, ...]
    nearest: Frame | None = None
    problem: str | None = None  # one sentence when nothing matches exactly

    @property
    def frame(self) -> Frame | None:
        """The first exact match."""
        return self.matches[0] if self.matches else None


def describe(frame: Frame) -> str:
    """A frame as a person reads it in a sentence: ``Frame 15 — 2026-05-15 (#15)``."""
    return f"{frame.heading} (#{frame.index + 1})"


def find_frame(soul: Soul, spec: str) -> FrameLookup:
    """The frames ``spec`` names: a number or label, a date (with a time), or ``#K`` (K-th in
    file; ``#-K``: K-th from the end)."""
    spec = spec.strip()
    frames = soul.frames
    who = soul.agent_id or "this soul"
    if not frames:
        return FrameLookup(spec, (), None, f"{who} has no frames.")
    if spec.startswith("#"):
        return _by_position(spec, frames, who)
    date = _DATE.match(spec)
    if date:
        return _by_date(spec, date, frames, who)
    matches = tuple(soul.find_frames(spec))
    if matches:
        return FrameLookup(spec, matches)
    number = _NUMBER.match(spec)
    if number is None:
        return FrameLookup(
            spec,
            (),
            None,
            f"'{spec}' is not a frame number, label, date or position (#K).",
        )
    return _nearest_number(spec, int(number.group(1)), frames, who)


def _by_position(spec: str, frames: Frames, who: str) -> FrameLookup:
    try:
        k = int(spec[1:])
    except ValueError:
        return FrameLookup(spec, (), None, f"'{spec}' is not a frame position (#1, #2, ...).")
    if 1 <= k <= len(frames):
        return FrameLookup(spec, (frames[k - 1],))
    if -len(frames) <= k <= -1:  # counted from the end: #-1 is the last frame
        return FrameLookup(spec, (frames[k],))
    nearest = frames[0] if k < 1 else frames[-1]
    return FrameLookup(
        spec,
        (),
        nearest,
        f"{who} has {len(frames)} frames, so no #{k}; the nearest is {describe(nearest)}.",
    )


def _by_date(spec: str, date: re.Match[str], frames: Frames, who: str) -> FrameLookup:
    day, hour, minute = date.group(1), date.group(2), date.group(3)
    time = f"{int(hour):02d}:{minute or '00'}" if hour is not None else None
    matches = tuple(
        f for f in frames if f.date == day and (time is None or (f.time or "")[:5] == time)
    )
    if matches:
        return FrameLookup(spec, matches)
    wanted = _moment(day, time)
    dated = [(f, m) for f in frames if (m := _moment(f.date, f.time)) is not None]
    if wanted is None or not dated:
        return FrameLookup(spec, (), None, f"No frame of {who} is dated {spec}.")
    nearest = min(dated, key=lambda fm: abs((fm[1] - wanted).total_seconds()))[0]
    return FrameLookup(
        spec,
        (),
        nearest,
        f"No frame of {who} is dated {spec}; the nearest is {describe(nearest)}.",
    )


def _moment(day: str | None, time: str | None) -> datetime | None:
    if not day:
        return None
    try:
        return datetime.fromisoformat(f"{day}T{time or '00:00'}")
    except ValueError:
        return None


def _nearest_number(spec: str, n: int, frames: Frames, who: str) -> FrameLookup:
    numbered = [f for f in frames if f.number is not None]
    if numbered:
        nearest = min(numbered, key=lambda f: abs((f.number or 0) - n))
        return FrameLookup(
            spec,
            (),
            nearest,
            f"{who} has no frame {spec}; the nearest is {describe(nearest)}.",
        )
    # Early-era files number no frame: the nearest is the n-th one in the file.
    nearest = frames[min(max(n, 1), len(frames)) - 1]
    return FrameLookup(
        spec,
        (),
        nearest,
        f"{who} numbers no frame; the nearest to {spec} is {describe(nearest)}.",
    )
