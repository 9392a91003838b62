"""The world's own clock, ``world.json``: the last frame, its date, the world's seed.

Frame dates come from here, one day per frame, never from the wall clock. A world without
``world.json`` (a corpus copy, an older world) gets its clock from its soul files' last frame.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from pathlib import Path

from soulscope.atomic import write_atomic
from soulscope.sim.jsonfile import read_json
from soulscope.soul.model import Soul
from soulscope.world import WorldError

WORLD_FILE = "world.json"
MAX_FRAME = 10**9
LAST_DATE = "9999-12-30"  # the last date that has a next day


@dataclass(frozen=True, slots=True)
class Clock:
    name: str
    frame: int  # the last frame (0 before the first)
    date: str  # YYYY-MM-DD of the last frame (of the world's creation before the first)
    seed: int

    def next(self) -> Clock:
        """The clock of the frame after this one: one more frame, one day later."""
        day = dt.date.fromisoformat(self.date) + dt.timedelta(days=1)
        return Clock(self.name, self.frame + 1, day.isoformat(), self.seed)

    def to_json(self) -> bytes:
        return (json.dumps(asdict(self), ensure_ascii=False, indent=2) + "\n").encode("utf-8")


def check_date(date: str) -> str:
    try:
        if len(date) == 10:
            dt.date.fromisoformat(date)
            return date
    except ValueError:
        pass
    raise WorldError(f"'{date}' is not a date of the form YYYY-MM-DD")


def _whole(data: dict, key: str, low: int, high: int, default: int | None = None) -> int:
    value = data.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ValueError(f"'{key}' must be a whole number from {low:,} to {high:,}")
    return value


def read_clock(root: Path, souls: Iterable[Soul] = ()) -> Clock:
    """The world's clock from ``world.json``, else from the latest frame of ``souls``."""
    path = root / WORLD_FILE
    data = read_json(path)
    if data is not None:
        try:
            if not isinstance(data, dict):
                raise ValueError("it must be a JSON object")
            date = data.get("date")
            if not isinstance(date, str) or len(date) != 10 or date > LAST_DATE:
                raise ValueError(f"'date' must be YYYY-MM-DD, up to {LAST_DATE}")
            name = data.get("name") or root.name
            return Clock(
                name=name if isinstance(name, str) else str(root.name),
                frame=_whole(data, "frame", 0, MAX_FRAME),
                date=check_date(date),
                seed=_whole(data, "seed", -(2**63), 2**63 - 1, default=0),
            )
        except (ValueError, WorldError) as exc:
            raise WorldError(f"{path} is not a world clock: {exc}") from None
    frame, date = 0, None
    for soul in souls:
        for f in soul.frames:
            if f.number is not None:
                frame = max(frame, f.number)
            if f.date and (date is None or f.date > date):
                date = f.date
    if date is None:
        raise WorldError(f"{root} has no {WORLD_FILE} and no dated frame to start its clock from")
    return Clock(root.name, frame, date, 0)


def write_clock(root: Path, clock: Clock) -> Path:
    path = root / WORLD_FILE
    write_atomic(path, clock.to_json())
    return path
