"""A world as it stood at a point: a revision, a date or a frame (``runs.points``).

In git, a point is a commit and the world is read from git's objects into a read-only snapshot
(``history.timeline.world_at``), never checked out in the user's folder: the answer is the one a
checkout of that commit gives. A date is the last commit on or before it (UTC; a bare date, the
end of that day); a date before the first commit, the frames up to that date (as outside git);
a frame number, the commit that brought the world's last frame of that number (``runs.log``).

A world outside git (or a frame not committed yet) is answered from its frames up to that time:
a read-only copy whose soul files keep their header and the frames the log places at or before
the point, each with the sections that follow it. An agent with frames, none of them by then,
had not begun: its file is left out. The copy is made once per world state and point, in the
cache folder, so kept answers (``soulscope.memo``) serve it again.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import tempfile
from pathlib import Path

from soulscope.history.git import HistoryError
from soulscope.history.timeline import Timeline, timeline_for, world_at
from soulscope.keep import CUTS, folders
from soulscope.memo import world_state
from soulscope.runs.log import cut, world_log
from soulscope.runs.points import FORMS, Point, PointError, point
from soulscope.soul.parse import frame_columns
from soulscope.world import World

CUT_FORMAT = 2  # 2: a date-only frame is cut by the span its file gives it


class WorldCut(World):
    """A world outside git as it stood at a point: its frames up to then, read-only."""

    read_only = True

    def __init__(self, root: Path, memory_dir: Path, *, live: World, at: Point) -> None:
        super().__init__(root, memory_dir)
        self.live = live
        self.at = at

    def __repr__(self) -> str:
        return f"WorldCut({str(self.live.root)!r}, {self.at.text!r})"

    @property
    def name(self) -> str:
        return f"{self.live.name}@{self.at.text}"


def world_as_of(world: World, spec: str) -> World:
    """``world`` as it stood at ``spec`` (a revision, a date or a frame); raises PointError or
    HistoryError with one sentence."""
    at = point(spec)
    timeline = _timeline(world)
    if timeline is None:
        if at.kind == "rev":
            raise PointError(
                f"'{spec}' is not a date nor a frame number, and {world.root} is not in git; "
                f"give {FORMS}"
            )
        return cut_world(world, at)
    if at.kind == "rev":
        try:
            return world_at(world, spec)
        except HistoryError as exc:
            if not str(exc).startswith("unknown revision"):
                raise
            raise PointError(f"{exc}; give {FORMS}") from None
    if at.kind == "date":
        try:
            return world_at(world, at.moment)
        except HistoryError as exc:
            if "no commit on or before" not in str(exc):
                raise
            # before the history began: the frames of then, as the files tell them
            return cut_world(world, at)
    sha = _frame_commit(world, timeline, at)
    return world_at(world, sha) if sha else cut_world(world, at)


def _timeline(world: World) -> Timeline | None:
    try:
        timeline = timeline_for(world)
    except HistoryError:
        return None
    timeline.git.require_full_history()
    return timeline if timeline.git.head() else None


def _frame_commit(world: World, timeline: Timeline, at: Point) -> str | None:
    """The commit that brought the last frame numbered ``at.frame`` or less in the log; None
    when that frame is not committed."""
    entries = cut(world_log(world), None, at, world)
    shas = {e.commit for e in entries if e.frame is not None}
    if None in shas:
        return None
    # the newest of those commits: the one that has every other one among its ancestors
    for sha in sorted(shas, key=lambda s: -timeline.git.resolve(s or "").timestamp):
        assert sha is not None
        if shas <= timeline.git.ancestors(sha):
            return sha
    return None


def cut_world(world: World, at: Point) -> WorldCut:
    """The world's frames up to ``at`` as a read-only copy (see the module's docstring)."""
    entries = cut(world_log(world), None, at, world)
    kept: dict[str, set[int]] = {}
    for e in entries:
        kept.setdefault(e.agent, set()).add(e.line)
    state = world_state(world) or f"now {os.getpid()} {id(world)}"
    key = hashlib.sha256(f"{CUT_FORMAT}\0{state}\0{at.kind}\0{at.text}".encode()).hexdigest()[:32]
    base = CUTS.path / key
    if base.exists() and folders.check(base, CUTS.name, CUTS.fingerprint()) is not None:
        folders.remove(base)  # a file of it deleted or changed: cut again
    if not base.exists():
        _write_cut(world, kept, base)
    return WorldCut(base, base / "memory", live=world, at=at)


def _write_cut(world: World, kept: dict[str, set[int]], base: Path) -> None:
    base.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".tmp-", dir=base.parent))
    try:
        (tmp / "memory").mkdir()
        registry = world.root / "agents.json"
        if registry.is_file():
            shutil.copyfile(registry, tmp / "agents.json")
        for agent in world.agents():
            data = agent.path.read_bytes()
            part = _frames_kept(data, kept.get(agent.id, set()))
            if part is not None:
                (tmp / "memory" / agent.path.name).write_bytes(part)
        folders.seal(tmp, CUTS.name, CUTS.fingerprint(), at=base)
        with contextlib.suppress(OSError):  # another process made the same cut: as good
            os.replace(tmp, base)
        folders.trim(base.parent, CUTS.max_entries, CUTS.max_bytes)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _frames_kept(data: bytes, lines: set[int]) -> bytes | None:
    """The file's header and the frames whose heading lines are ``lines``, each with what
    follows it up to the next frame; None when it has frames and none of them is kept."""
    columns = frame_columns(data)
    starts = list(columns.starts)
    if not starts:
        return data
    if not lines:
        return None
    parts = [data[: starts[0]]]
    bounds = [*starts[1:], len(data)]
    for i, start in enumerate(starts):
        if columns.lines[i] in lines:
            parts.append(data[start : bounds[i]])
    return b"".join(parts)
