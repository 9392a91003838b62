"""The world log: every frame of every agent as one stream, in the frames' own time.

Frames are ordered by what their headings say (``soul.when``: date, time of day, the world's frame
number; among frames the headings cannot tell apart, by agent id, then by place in the file), the notion
of time ``first`` and ``spread`` use. Each frame carries the commit that brought it where the
world is in git: walking each soul file's history oldest first, a frame's commit is the one that
added its heading (a frame edited later keeps it; one removed and written again takes the new
one), and a frame not committed yet has none.

The agents and how many frames each has come from the world index (``soulscope.index``), so the
log holds one entry per frame ``agents`` counts; each file's frames are read from its headings
alone (``soul.parse.frame_columns``), never its bodies.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace

from soulscope.history.git import HistoryError
from soulscope.history.timeline import Timeline, timeline_for
from soulscope.index import world_entries
from soulscope.runs.points import Point, PointError
from soulscope.soul import when
from soulscope.soul.model import FrameColumns, frame_label
from soulscope.soul.parse import frame_columns
from soulscope.world import World


@dataclass(frozen=True, slots=True)
class LogEntry:
    """One frame of one agent, placed in the world's time."""

    agent: str
    frame: int | None  # the world's frame number (237), None when the heading has none
    label: str  # 237, 500b, its date, or #K (its place in the file) when it has neither
    date: str | None  # the heading's date (or the latest dated frame's above it: ``inferred``)
    time: str | None  # HH:MM UTC, None when the heading gives no time of day
    heading: str
    line: int  # the heading's line in the soul file, 1-based
    commit: str | None  # the commit that brought the frame; None outside git or uncommitted
    key: tuple[str, str, int, int]  # ``when.Moment.key``
    precision: str  # minute, day, inferred or none (``when.Moment.precision``)
    # The earliest and latest times (``DATE HH:MM``) its file allows: a timed frame's own, a
    # date-only frame's bounds between the timed frames around it (``when.Moment.low``/``high``,
    # else its whole day); an inferred frame takes those of the frame it took its date from.
    # None: nothing dates it.
    span: tuple[str, str] | None = None

    @property
    def order(self) -> tuple[str, str, int, str, int]:
        """The log's order: the frame's time (date, time of day, number), then the agent among
        frames the headings cannot tell apart, then the place in its file."""
        date, time, number, position = self.key
        return (date, time, number, self.agent, position)


@dataclass(slots=True)
class WorldLog:
    """A world's log and what kept it from being whole."""

    entries: list[LogEntry]
    unreadable: list[str] = field(default_factory=list)  # one sentence per file skipped
    notes: list[str] = field(default_factory=list)  # why commits are missing, index notes
    in_git: bool = False


def agent_frames(agent_id: str, columns: FrameColumns) -> list[LogEntry]:
    """One agent's frames as log entries (without their commits), in file order."""
    moments = when.frame_moments(columns)
    out = []
    for i, m in enumerate(moments):
        label = frame_label(columns.number(i), columns.suffixes[i], columns.dates[i])
        out.append(
            LogEntry(
                agent=agent_id,
                frame=columns.number(i),
                label=label or f"#{i + 1}",
                date=m.date,
                time=m.time,
                heading=columns.heading(i),
                line=columns.lines[i],
                commit=None,
                key=m.key,
                precision=m.precision,
                span=_span(m),
            )
        )
    return out


def _span(m: when.Moment) -> tuple[str, str] | None:
    if m.date is None:
        return None
    return (f"{m.date} {m.time or m.low or '00:00'}", f"{m.date} {m.time or m.high or '23:59'}")


def _open_timeline(world: World, notes: list[str]) -> Timeline | None:
    try:
        timeline = timeline_for(world)
        timeline.git.require_full_history()
        return timeline
    except HistoryError as exc:
        if "not in a git repository" not in str(exc):
            notes.append(f"frames are shown without their commits: {exc}")
        return None


def world_log(world: World, agents: Iterable[str] | None = None) -> WorldLog:
    """Every frame of the world's agents (or of ``agents``), in the frames' own time."""
    notes: list[str] = []
    wanted = set(agents) if agents is not None else None
    entries = world_entries(world, None, notes)
    log = WorldLog([], notes=notes)
    timeline = _open_timeline(world, notes)
    log.in_git = timeline is not None
    for e in entries:
        if wanted is not None and e.file.id not in wanted:
            continue
        if e.error is not None:
            log.unreadable.append(e.error)
            continue
        try:
            columns = frame_columns(e.file.path.read_bytes())
        except OSError as exc:
            log.unreadable.append(f"cannot read {e.file.path}: {exc.strerror}")
            continue
        frames = agent_frames(e.file.id, columns)
        if timeline is not None and frames:
            shas = timeline.frame_commits(e.file.id, [f.heading for f in frames])
            frames = [_with_commit(f, sha) for f, sha in zip(frames, shas, strict=True)]
        log.entries.extend(frames)
    log.entries.sort(key=lambda f: f.order)
    return log


def _with_commit(entry: LogEntry, sha: str | None) -> LogEntry:
    return entry if sha is None else replace(entry, commit=sha)


# -- cutting the log at points --------------------------------------------------------------------


def cut(
    log: WorldLog, since: Point | None, until: Point | None, world: World | None = None
) -> list[LogEntry]:
    """The entries from ``since`` to ``until`` (both included): a date cuts by the frames' dates
    (undated frames are left out), a frame number by the log's order (from the first frame of at
    least that number, to the last of at most it), a revision by the commits (from the frames
    that revision brought, to the frames it held)."""
    entries = log.entries
    lo, hi = 0, len(entries)
    tests = []
    for bound, end in ((since, "from"), (until, "to")):
        if bound is None:
            continue
        if bound.kind == "frame":
            at = _frame_index(entries, bound, end)
            lo, hi = (max(lo, at), hi) if end == "from" else (lo, min(hi, at + 1))
        elif bound.kind == "date":
            tests.append(_date_test(bound, end))
        else:
            tests.append(_commit_test(world, bound, end))
    return [f for f in entries[lo:hi] if all(test(f) for test in tests)]


def _frame_index(entries: Sequence[LogEntry], bound: Point, end: str) -> int:
    n = bound.frame
    assert n is not None
    numbered = [(i, f.frame) for i, f in enumerate(entries) if f.frame is not None]
    if end == "from":
        found = next((i for i, k in numbered if k >= n), None)
    else:
        found = next((i for i, k in reversed(numbered) if k <= n), None)
    if found is None:
        if not numbered:
            raise PointError(f"no frame of this world has a number, so '{bound.text}' names none")
        numbers = [k for _, k in numbered]
        raise PointError(
            f"no frame {'from' if end == 'from' else 'up to'} {n}: "
            f"the world's frames are numbered {min(numbers)} to {max(numbers)}"
        )
    return found


def _date_test(bound: Point, end: str) -> Callable[[LogEntry], bool]:
    """A frame is inside a date cut when all its span is: one its file places on both sides of
    the point (a date-only frame between 01:00 and 02:00 against 01:40) is in neither cut."""
    day = bound.date or ""
    at = f"{day} {bound.time}" if bound.time else None

    def test(entry: LogEntry) -> bool:
        if entry.span is None:
            return False
        lo, hi = entry.span
        if end == "from":
            return lo >= (at or day)
        return hi <= at if at else hi[:10] <= day

    return test


def _commit_test(world: World | None, bound: Point, end: str) -> Callable[[LogEntry], bool]:
    """From a revision: frames it brought or that came after it (uncommitted ones too); to a
    revision: frames brought by it or its ancestors."""
    if world is None:
        raise PointError(f"'{bound.text}' is not a date nor a frame number")
    try:
        git = timeline_for(world).git
        commit = git.resolve(bound.text)
        held = git.ancestors(commit.sha)
    except HistoryError as exc:
        raise PointError(
            f"'{bound.text}' is not a date, a frame number nor a revision of this world ({exc})"
        ) from exc
    if end == "to":
        return lambda entry: entry.commit in held
    before = held - {commit.sha}
    return lambda entry: entry.commit not in before
