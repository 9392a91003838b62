"""Where a term first appeared in memory: by commit where frames arrived in different commits,
by the frames' own times where they arrived together (``soulscope.soul.when``).

A world's history can hold both: a world imported in one commit and then advanced a frame per
commit. The first commit that brought the term decides; among the frames that commit brought,
the earliest by its heading's time does, and frames the headings cannot tell apart from it
(the same day without a time of day, the same minute in another file) are said as ties.
Without git the files alone answer, by their frames' times.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from soulscope.history.git import Commit
from soulscope.soul import when
from soulscope.soul.model import ENCODING_ERRORS, FrameColumns, clean, frame_label
from soulscope.soul.parse import frame_columns
from soulscope.soul.terms import Term


@dataclass(frozen=True, slots=True)
class Use:
    """One line of one agent's memory that holds the term, and its frame's place in time."""

    agent_id: str
    path: str
    line: int  # 1-based
    text: str  # the line, for display
    moment: when.Moment
    frame: int | None = None  # the frame's number (237), None when it has none
    label: str | None = None  # its label: 237, 500b, or its date; None outside frames
    heading: str | None = None

    @property
    def key(self) -> tuple:
        return (self.moment.key, self.agent_id, self.line)


@dataclass(frozen=True, slots=True)
class Mention:
    """Where a term first appeared: the agent, frame and line, the commit that brought it (None
    without git), and the uses the frames' times cannot tell apart from it."""

    agent_id: str
    commit: Commit | None
    path: str
    line: int
    text: str
    frame: int | None
    label: str | None
    heading: str | None
    moment: when.Moment
    # the commit brought several frames holding the term: the frame's own time ordered them
    together: bool = False
    ties: tuple[Use, ...] = field(default=())

    @property
    def date(self) -> str | None:
        return self.moment.date

    @property
    def time(self) -> str | None:
        return self.moment.time


@dataclass(frozen=True, slots=True)
class Headings:
    """A file's frames as its headings place them (``soul.parse.frame_columns``: the parser's
    columns without parsing a body), and their places in time: what placing a line needs."""

    columns: FrameColumns
    moments: list[when.Moment]

    @classmethod
    def of(cls, data: bytes) -> Headings:
        columns = frame_columns(data)
        return cls(columns, when.frame_moments(columns))

    def place(self, line: int) -> tuple[int, int]:
        """(frame index or -1, index of the frame above it or -1) of a 1-based line."""
        columns = self.columns
        i = bisect_right(columns.lines, line) - 1
        if i < 0:
            return -1, -1
        if line <= columns.end_lines[i]:
            return i, i
        return -1, i  # a section after frame i

    def label(self, i: int) -> str:
        c = self.columns
        return frame_label(c.number(i), c.suffixes[i], c.dates[i]) or f"#{i + 1}"


def uses(
    agent_id: str,
    path: str,
    data: bytes,
    term: Term,
    lines: Iterable[int] | None = None,
    headings: Headings | None = None,
) -> list[Use]:
    """The lines of a soul file's bytes holding ``term`` (only ``lines`` when given), each
    placed in its frame and its frame in time (``headings``: the file's, when the caller has
    read them). Lines before the first frame (the identity header) come before the file's first
    frame; a section between frames after the one above."""
    if lines is None:
        lines = term.lines(data)
    lines = list(lines)
    if not lines:
        return []
    found = headings or Headings.of(data)
    moments = found.moments
    columns = found.columns
    text_lines = data.split(b"\n")
    out: list[Use] = []
    for line in lines:
        raw = text_lines[line - 1].decode("utf-8", ENCODING_ERRORS).rstrip("\r")
        i, above = found.place(line)
        if i < 0:
            if above >= 0:
                m = moments[above]
                moment = when.Moment(m.date, m.time, above, inferred="after" if m.date else None)
            elif moments:
                m = moments[0]
                moment = when.Moment(m.date, m.time, -1, inferred="before" if m.date else None)
            else:
                moment = when.Moment(None, None, -1)
            out.append(Use(agent_id, path, line, clean(raw), moment))
            continue
        out.append(
            Use(
                agent_id,
                path,
                line,
                clean(raw),
                moments[i],
                frame=columns.number(i),
                label=found.label(i),
                heading=columns.heading(i),
            )
        )
    return out


def new_lines(old: bytes, new: bytes, term: Term) -> list[int]:
    """The 1-based lines of ``new`` holding ``term`` that ``old`` did not hold (as many times)."""
    seen: dict[bytes, int] = {}
    for ln in old.split(b"\n"):
        if term.in_line(ln):
            seen[ln] = seen.get(ln, 0) + 1
    out: list[int] = []
    for i, ln in enumerate(new.split(b"\n"), 1):
        if term.in_line(ln):
            if seen.get(ln):
                seen[ln] -= 1
            else:
                out.append(i)
    return out


def earliest(found: list[Use], commit: Commit | None = None, together: bool = False) -> Mention:
    """The earliest of ``found`` by the frames' times, with the uses it cannot be told from."""
    first = min(found, key=lambda u: u.key)
    others = [u for u in found if u.agent_id != first.agent_id]
    tied_at = when.tied(first.moment, [u.moment for u in others])
    # One tie per agent: its earliest use that cannot be told apart.
    ties: dict[str, Use] = {}
    for k in tied_at:
        u = others[k]
        if u.agent_id not in ties or u.key < ties[u.agent_id].key:
            ties[u.agent_id] = u
    return Mention(
        agent_id=first.agent_id,
        commit=commit,
        path=first.path,
        line=first.line,
        text=first.text,
        frame=first.frame,
        label=first.label,
        heading=first.heading,
        moment=first.moment,
        together=together,
        ties=tuple(sorted(ties.values(), key=lambda u: u.key)),
    )


def _rel(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)


def first_in_files(
    paths: Iterable[tuple[str, Path]], term: Term, root: Path | None = None
) -> Mention | None:
    """The first use of ``term`` among soul files as they are (no git): ``paths`` are
    (agent id, file) pairs, shown relative to ``root``."""
    found: list[Use] = []
    for agent_id, path in paths:
        try:
            data = path.read_bytes()
        except OSError:
            continue
        found.extend(uses(agent_id, path.name if root is None else _rel(path, root), data, term))
    return earliest(found) if found else None
