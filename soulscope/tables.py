"""A world as five tables of plain rows, for DuckDB, pandas and notebooks (``soulscope export``).

- ``agents``: one row per soul file, as ``agents --json`` lists it.
- ``frames``: one row per frame (agent, frame, label, date, time, heading, line, commit, text);
  ``commit`` is the commit that brought the frame where the world is in git (``runs.log``).
- ``statements``: one row per statement of each agent's identity arc, as ``becoming --json``
  gives it (kind, drift, turning point, chapter).
- ``links``: one row per line of a soul file that names another agent, typed by the link reader
  (``history.links``): from (the agent named), to (the agent whose memory names it), kind,
  frame, line, text.
- ``edges``: one row per arc of ``graph --json`` (the frames counted per kind in columns of
  their own).

Rows are made one soul file at a time (each file read once, parsed once), so a world of any size
is exported holding one soul and one batch of rows per table, never the world.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from soulscope import __version__, collector
from soulscope.history import graph
from soulscope.history.first import dated_line
from soulscope.history.kinds import KINDS
from soulscope.history.links import read
from soulscope.history.names import AgentNames
from soulscope.history.timeline import Timeline
from soulscope.soul.model import Soul
from soulscope.soul.parse import parse
from soulscope.soul.trajectory import arc
from soulscope.world import AgentFile, World

# Each table's columns and their types (``str``, ``int``, ``float``, ``bool``); every column may
# be null where the file says nothing (a frame without a date).
COLUMNS: dict[str, tuple[tuple[str, str], ...]] = {
    "agents": (
        ("id", "str"),
        ("name", "str"),
        ("path", "str"),
        ("frames", "int"),
        ("becoming", "int"),
        ("bytes", "int"),
        ("last_frame", "str"),
        ("problems", "int"),
    ),
    "frames": (
        ("agent", "str"),
        ("index", "int"),
        ("frame", "int"),
        ("label", "str"),
        ("date", "str"),
        ("time", "str"),
        ("heading", "str"),
        ("line", "int"),
        ("end_line", "int"),
        ("commit", "str"),
        ("text", "str"),
    ),
    "statements": (
        ("agent", "str"),
        ("index", "int"),
        ("frame", "int"),
        ("label", "str"),
        ("date", "str"),
        ("time", "str"),
        ("heading", "str"),
        ("line", "int"),
        ("text", "str"),
        ("role", "str"),
        ("from_role", "str"),
        ("to_role", "str"),
        ("kind", "str"),
        ("drift", "float"),
        ("turning_point", "bool"),
        ("chapter", "int"),
    ),
    "links": (
        ("from", "str"),
        ("to", "str"),
        ("kind", "str"),
        ("frame", "int"),
        ("label", "str"),
        ("date", "str"),
        ("time", "str"),
        ("line", "int"),
        ("text", "str"),
    ),
    "edges": (
        ("from", "str"),
        ("to", "str"),
        ("weight", "int"),
        *((k, "int") for k in KINDS),
        ("first", "str"),
        ("last", "str"),
        ("kind", "str"),
        ("line", "int"),
    ),
}
TABLES = tuple(COLUMNS)

Row = dict[str, Any]


@dataclass
class Extent:
    """What the tables hold, for the manifest: rows per table, the frames' range, what was
    skipped."""

    rows: dict[str, int] = field(default_factory=lambda: dict.fromkeys(TABLES, 0))
    first_frame: int | None = None
    last_frame: int | None = None
    first_date: str | None = None
    last_date: str | None = None
    unreadable: list[str] = field(default_factory=list)
    commits: bool = False  # frames carry their commits (the world is in git)

    def frame(self, number: int | None, date: str | None) -> None:
        if number is not None:
            self.first_frame = min(number, self.first_frame if self.first_frame else number)
            self.last_frame = max(number, self.last_frame or number)
        if date:
            self.first_date = min(date, self.first_date or date)
            self.last_date = max(date, self.last_date or date)

    def as_dict(self) -> dict[str, Any]:
        return {
            "rows": dict(self.rows),
            "frames": {
                "first": self.first_frame,
                "last": self.last_frame,
                "first_date": self.first_date,
                "last_date": self.last_date,
            },
            "commits": self.commits,
            "skipped": list(self.unreadable),
        }


def _timeline(world: World) -> Timeline | None:
    """The world's history, for each frame's commit; None outside git."""
    from soulscope.history.git import HistoryError
    from soulscope.history.timeline import timeline_for

    try:
        timeline = timeline_for(world)
        timeline.git.require_full_history()
    except HistoryError:
        return None
    return timeline if timeline.git.head() else None


class FrameCommits:
    """The commit that brought each frame (``Timeline.frame_commits``), asked of git only for
    the soul files git tracks: a generated world under an ignored folder costs no process per
    file."""

    def __init__(self, world: World) -> None:
        self.timeline = _timeline(world)
        self.tracked: set[str] = set()
        if self.timeline is not None:
            git = self.timeline.git
            paths = self.timeline.memory_paths()
            listed = git._run("ls-files", "-z", "--full-name", "--", *paths)
            self.tracked = {p.decode("utf-8", "surrogateescape") for p in listed.split(b"\0") if p}

    def of(self, agent_id: str, headings: list[str]) -> list[str | None]:
        if self.timeline is None or self.timeline.path_of(agent_id) not in self.tracked:
            return [None] * len(headings)
        return self.timeline.frame_commits(agent_id, headings)


def world_rows(world: World, extent: Extent) -> Iterator[tuple[str, Row]]:
    """Every row of every table, as (table, row), one soul file at a time."""
    names = AgentNames.of(world, words=False)
    commits = FrameCommits(world)
    extent.commits = bool(commits.tracked)
    for a, data in world.sources(extent.unreadable):
        with collector.paused():
            rows = list(_file_rows(world, names, commits, a, data, extent))
        for table, row in rows:
            extent.rows[table] += 1
            yield table, {k: _text(v) if type(v) is str else v for k, v in row.items()}


def _text(value: str) -> str:
    """Text any file format takes: bytes that were not UTF-8 (kept by the parser as lone
    surrogates) as U+FFFD, as the dashboard shows them."""
    if value.isascii():
        return value
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return value.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    return value


def _file_rows(
    world: World,
    names: AgentNames,
    commits: FrameCommits,
    a: AgentFile,
    data: bytes,
    extent: Extent,
) -> Iterator[tuple[str, Row]]:
    soul = parse(data, agent_id=a.id)
    statements = arc(soul)
    yield "agents", agent_row(world, a, soul, len(statements))
    for row in frame_rows(a.id, soul, commits):
        extent.frame(row["frame"], row["date"])
        yield "frames", row
    for s in statements:
        yield "statements", statement_row(a.id, s)
    for row in link_rows(names, a.id, soul):
        yield "links", row
    for row in edge_rows(names, a.id, data):
        yield "edges", row


def agent_row(world: World, a: AgentFile, soul: Soul, statements: int) -> Row:
    """As ``agents --json`` lists the agent."""
    last = soul.last_frame
    return {
        "id": a.id,
        "name": soul.name or world.display_name(a.id),
        "path": str(a.path),
        "frames": len(soul.frames),
        "becoming": statements,
        "bytes": len(soul.data),
        "last_frame": last.heading if last else None,
        "problems": len(soul.problems),
    }


def frame_rows(agent: str, soul: Soul, commits: FrameCommits) -> Iterator[Row]:
    """Each frame as ``show --json`` gives it, and its text, read from the parser's columns
    (no frame's body is parsed again)."""
    c = soul.frames.columns
    n = len(c.starts)
    headings = [c.heading(i) for i in range(n)]
    shas = commits.of(agent, headings) if n else []
    data = c.data
    for i in range(n):
        yield {
            "agent": agent,
            "index": i,
            "frame": c.number(i),
            "label": c.label(i),
            "date": c.dates[i],
            "time": c.times[i],
            "heading": headings[i],
            "line": c.lines[i],
            "end_line": c.end_lines[i],
            "commit": shas[i],
            "text": data[c.starts[i] : c.ends[i]].decode("utf-8", "replace"),
        }


def statement_row(agent: str, s: Any) -> Row:
    """As ``becoming --json`` gives the statement (its magnitude is the drift)."""
    return {
        "agent": agent,
        "index": s.index + 1,
        "frame": s.number,
        "label": s.frame_label if s.frame_index is not None else None,
        "date": s.date,
        "time": s.time,
        "heading": s.heading,
        "line": s.line,
        "text": s.text,
        "role": None if s.position else s.role,
        "from_role": s.from_role,
        "to_role": s.to_role,
        "kind": s.kind,
        "drift": s.magnitude,
        "turning_point": s.turning_point,
        "chapter": s.chapter or None,
    }


def link_rows(names: AgentNames, agent: str, soul: Soul) -> Iterator[Row]:
    """Each line of the soul that names another agent, in the order written, placed in its
    frame (none outside frames, dated there only by a time of its own)."""
    data = soul.data
    c = soul.frames.columns
    line, last = 1, 0
    for at, who, kind in read(names, data, 0, len(data), agent):
        line += data.count(b"\n", last, at)
        last = at
        j = bisect_right(c.lines, line) - 1
        inside = j >= 0 and line <= c.end_lines[j]
        end = data.find(b"\n", at)
        raw = data[at : len(data) if end < 0 else end]
        text = raw.decode("utf-8", "replace")
        # a line outside frames may carry its own time (History's "- **2026-02-19T18:38Z** —")
        date, time = (c.dates[j], c.times[j]) if inside else (dated_line(raw) or (None, None))
        yield {
            "from": who,
            "to": agent,
            "kind": kind,
            "frame": c.number(j) if inside else None,
            "label": c.label(j) if inside else None,
            "date": date,
            "time": time,
            "line": line,
            "text": " ".join(text.split()).lstrip("- "),
        }


def edge_rows(names: AgentNames, target: str, data: bytes) -> Iterator[Row]:
    """The arcs into ``target`` that its file says, as ``graph --json`` gives them (every
    arc's frames are in its target's file: the graph is the union of these)."""
    starts, ends, dates = graph.frame_dates(data)
    who, weights, details = graph._tally(
        names, data, target, starts, ends, dates, [True] * len(dates)
    )
    for source, weight, counts, first, last, kind, line in zip(who, weights, *details, strict=True):
        yield {
            "from": source,
            "to": target,
            "weight": weight,
            **dict(zip(KINDS, counts, strict=True)),
            "first": first,
            "last": last,
            "kind": kind,
            "line": line,
        }


def manifest(world: World, extent: Extent, options: dict[str, Any], made: str) -> dict[str, Any]:
    """What an export holds and how it was made."""
    return {
        "world": world.name,
        "root": str(world.root),
        "commit": world_commit(world),
        "soulscope": __version__,
        "made": made,
        "options": options,
        "tables": {t: [name for name, _ in COLUMNS[t]] for t in TABLES},
        **extent.as_dict(),
    }


def world_commit(world: World) -> str | None:
    """The commit the exported files stand at: a snapshot's, or HEAD of the world's repository
    (None outside git)."""
    commit = getattr(world, "commit", None)
    if commit is not None:
        return str(commit.sha)
    timeline = _timeline(world)
    return timeline.git.head() if timeline is not None else None
