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
from soulscope.soul.model import Soul
from soulscope.world import WorldError

WORLD_FILE = "world.json"


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


def read_clock(root: Path, souls: Iterable[Soul] = ()) -> Clock:
    """The world's clock from ``world.json``, else from the latest frame of ``souls``."""
    path = root / WORLD_FILE
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        data = None
    except (OSError, ValueError) as exc:
        raise WorldError(f"{path} is not readable JSON ({exc}); fix or remove it") from exc
    if data is not None:
        try:
            return Clock(
                name=str(data.get("name") or root.name),
                frame=int(data["frame"]),
                date=check_date(str(data["date"])),
                seed=int(data.get("seed", 0)),
            )
        except (KeyError, TypeError, ValueError, WorldError) as exc:
            raise WorldError(
                f"{path} needs a whole 'frame' and a 'date' of the form YYYY-MM-DD"
            ) from exc
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
