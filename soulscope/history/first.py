"""Where a term first appeared in memory: by commit where frames arrived in different commits,
by the frames' own times where they arrived together (``soulscope.soul.when``).

A world's history can hold both: a world imported in one commit and then advanced a frame per
commit. The first commit that brought the term decides; among the frames that commit brought,
the earliest by its heading's time does, and frames the headings cannot tell apart from it
(the same day without a time of day, the same minute in another file) are said as ties.
Without git the files alone answer, by their frames' times.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import date as Date
from itertools import repeat
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
    # the commit brought several frames to the files that gained the term (an import): it does
    # not date the use, the frame's own time does
    together: bool = False
    ties: tuple[Use, ...] = field(default=())
    # the later commit that took the line out of the memory again (a revert, a file deleted),
    # None while it is there
    removed_by: Commit | None = None
    # uses in frames whose headings date them before this one, in dates that run backwards in
    # their files (``when.misdated``): by their files' order they came later; one per agent
    misdated: tuple[Use, ...] = field(default=())

    @property
    def date(self) -> str | None:
        return self.moment.date

    @property
    def time(self) -> str | None:
        return self.moment.time


class Headings:
    """A file's frames as its headings place them (``soul.parse.frame_columns``: the parser's
    columns without parsing a body), and their places in time: what placing a line needs. A
    frame's Moment is built when it is asked for (a world's files hold hundreds of thousands)."""

    __slots__ = (
        "columns",
        "header_date",
        "numbered",
        "_moments",
        "_keys",
        "_bounds",
        "_orders",
        "_misdated",
    )

    def __init__(self, columns: FrameColumns, header_date: str | None = None) -> None:
        self.columns = columns
        # the latest date of the lines above the first frame that date themselves (History
        # bullets): the frames were appended after it
        self.header_date = header_date
        # False: the frames' numbers order nothing (each agent counts its own frames, as
        # ``without_own_counts`` found): the Moments and keys are without them
        self.numbered = True
        self._orders: list[int] | None = None
        self._moments: list[when.Moment] | None = None
        self._keys: list[tuple[str, str, int, int]] | None = None
        self._bounds: dict[int, tuple[str | None, str | None]] | None = None
        self._misdated: dict[int, tuple[int, int]] | None = None

    @classmethod
    def of(cls, data: bytes) -> Headings:
        columns = frame_columns(data)
        return cls(columns, _header_date(data, columns.starts[0] if columns.starts else 0))

    @property
    def keys(self) -> list[tuple[str, str, int, int]]:
        """Every frame's ``Moment.key`` (``when.frame_keys``: mostly without the Moments)."""
        if self._keys is None:
            self._keys = when.frame_keys(self.columns)
            for i in self.misdated:  # placed by its file (``moment``)
                self._keys[i] = self.moment(i).key
            if not self.numbered:
                self._keys = [(d, t, -1, p) for d, t, _, p in self._keys]
        return self._keys

    @property
    def misdated(self) -> dict[int, tuple[int, int]]:
        """The frames whose heading's date runs backwards against the file's order
        (``when.misdated``), each with the frames of its file above and below it that place
        it instead."""
        if self._misdated is None:
            dates = self.columns.dates
            if self.header_date is None:
                self._misdated = when.misdated(dates)
            else:  # the header's dated lines come before every frame: dated with them
                found = when.misdated([self.header_date, *dates])
                self._misdated = {
                    i - 1: (max(above - 1, -1), max(below - 1, -1))
                    for i, (above, below) in found.items()
                    if i > 0
                }
        return self._misdated

    def unnumber(self) -> None:
        """Moments and keys from now on without frame numbers (``numbered``)."""
        self.numbered, self._keys, self._moments = False, None, None

    def moment(self, i: int) -> when.Moment:
        """Frame ``i``'s Moment (``when.frame_moments``)."""
        c = self.columns
        if i in self.misdated:
            return self._placed_by_file(i)
        if c.dates[i]:  # its heading dates it: built alone, as ``when.moments`` builds it
            if self._bounds is None:
                self._bounds = when.day_bounds(c.dates, c.times)
            low, high = self._bounds.get(i, (None, None))
            if not self.numbered:
                return when.Moment(c.dates[i], c.times[i], i, None, low=low, high=high)
            if self._orders is None:
                self._orders = when.order_numbers(c.numbers)
            order = self._orders[i]
            return when.Moment(c.dates[i], c.times[i], i, c.number(i), None, low, high, order)
        if self._moments is None:  # it takes another frame's date: every frame's, once
            self._moments = when.frame_moments(c)
            if not self.numbered:
                self._moments = [when.unnumbered(m) for m in self._moments]
        return self._moments[i]

    def _placed_by_file(self, i: int) -> when.Moment:
        """A misdated frame's Moment: after the frame above it that is dated right (before the
        one below it where none is above), with the date its heading says (``when.moments``)."""
        c = self.columns
        above, below = self.misdated[i]
        if self._orders is None:
            self._orders = when.order_numbers(c.numbers)
        own = when.Moment(None, None, i, c.number(i), order=self._orders[i])
        up = self.moment(above) if above >= 0 else None
        down = self.moment(below) if below >= 0 else None
        placed = when.placed_by_file(own, up, down, c.dates[i], c.times[i])
        return placed if self.numbered else when.unnumbered(placed)

    def place(self, line: int) -> tuple[int, int]:
        """(frame index or -1, index of the frame above it or -1) of a 1-based line."""
        columns = self.columns
        i = bisect_right(columns.lines, line) - 1
        if i < 0:
            return -1, -1
        if line <= columns.end_lines[i]:
            return i, i
        return -1, i  # a section after frame i

    def line_moment(self, raw: bytes, i: int, above: int) -> when.Moment:
        """The Moment of a line at a ``place``: outside frames, a line that dates itself (a
        History bullet, ``- **2026-02-13T01:26:59Z** — Poked ...``) is placed by its own date
        and time; every other line by ``place_moment``."""
        if i < 0:
            dated = dated_line(raw)
            if dated is not None:
                return when.Moment(dated[0], dated[1], above)
        return self.place_moment(i, above)

    def place_moment(self, i: int, above: int) -> when.Moment:
        """The Moment of a ``place``: frame ``i``'s; outside frames (``i`` < 0) that of frame
        ``above``, after it, and before the file's first frame for the header (``above`` < 0)."""
        if i >= 0:
            return self.moment(i)
        if above >= 0:
            m = self.moment(above)
            after = "after" if m.date else None
            return when.Moment(m.date, m.time, above, None, after, m.low, m.high)
        if self.columns.starts:
            m = self.moment(0)
            before = "before" if m.date else None
            return when.Moment(m.date, m.time, -1, None, before, m.low, m.high)
        return when.Moment(None, None, -1)

    def header_moment(self, data: bytes, at: int) -> when.Moment | None:
        """An undated line of the header at byte ``at``: before the first line below it that
        dates itself (History's ``- **2026-02-13T01:26:59Z** — Registered``), where one comes
        before the first frame. The identity is written first: "The keyboard is faster than the
        mouse" in Convictions comes before the History bullets under it. None where no such
        line is below it (the place is then before the first frame, ``place_moment``)."""
        c = self.columns
        end = c.starts[0] if c.starts else len(data)
        pos = data.find(b"\n", at, end)
        while 0 <= pos < end:
            stop = data.find(b"\n", pos + 1, end)
            dated = dated_line(data[pos + 1 : end if stop < 0 else stop])
            if dated is not None:
                return when.Moment(dated[0], dated[1], -1, None, "before")
            pos = stop
        return None

    def label(self, i: int) -> str:
        c = self.columns
        return frame_label(c.number(i), c.suffixes[i], c.dates[i]) or f"#{i + 1}"

    def use(self, agent_id: str, path: str, line: int, raw: bytes, i: int, above: int) -> Use:
        """The Use of a line (``raw``, its bytes) at a ``place``."""
        text = clean(raw.decode("utf-8", ENCODING_ERRORS).rstrip("\r"))
        moment = self.line_moment(raw, i, above)
        if i < 0:
            return Use(agent_id, path, line, text, moment)
        c = self.columns
        return Use(agent_id, path, line, text, moment, c.number(i), self.label(i), c.heading(i))


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
    text_lines = data.split(b"\n")
    out = [
        found.use(agent_id, path, line, text_lines[line - 1], *found.place(line)) for line in lines
    ]
    return [_in_header(found, data, u) for u in out]


def _in_header(headings: Headings, data: bytes, use: Use) -> Use:
    """``use`` placed by ``Headings.header_moment`` where it is an undated line of the header."""
    if headings.place(use.line) != (-1, -1):
        return use
    at = _line_offset(data, use.line)
    end = data.find(b"\n", at)
    if dated_line(data[at : len(data) if end < 0 else end]) is not None:
        return use
    moment = headings.header_moment(data, at)
    return replace(use, moment=moment) if moment is not None else use


def _line_offset(data: bytes, line: int) -> int:
    pos = 0
    for _ in range(line - 1):
        pos = data.find(b"\n", pos) + 1
    return pos


def first_use(
    agent_id: str, path: str, data: bytes, starts: Sequence[int], headings: Headings
) -> tuple[Use, int]:
    """The earliest of a file's ``uses`` (by ``Use.key``) and how many places hold the term (its
    frames, the header, the sections between frames), from where its matches start
    (``Term.starts``, one at least): what ``spread`` needs of each file, with one Use built."""
    columns = headings.columns
    # A match's place as an index into the frames' bounds, each frame's start then its end: an
    # odd index k is frame k // 2, an even one the section after frame k // 2 - 1 (0: the header).
    bounds = [0] * (2 * len(columns.starts))  # a list: bisect reads it faster than an array
    bounds[0::2], bounds[1::2] = columns.starts, columns.ends
    places = list(map(bisect_right, repeat(bounds), starts))
    first_at = dict(zip(reversed(places), reversed(starts), strict=True))  # each place's first
    # The earliest place by its moment, then by where its first match is (its line): the
    # header's and sections' Moments built (each line that dates itself by its own), the
    # frames' keys compared without theirs.
    candidates = []
    header: dict[int, when.Moment] = {}  # undated header lines placed by a dated line below
    for k, at in zip(places, starts, strict=True):
        if not k % 2:
            above = k // 2 - 1
            end = data.find(b"\n", at)
            raw = data[data.rfind(b"\n", 0, at) + 1 : len(data) if end < 0 else end]
            moment = headings.line_moment(raw, -1, above)
            if above < 0 and dated_line(raw) is None:
                bound = headings.header_moment(data, at)
                if bound is not None:
                    moment = header[at] = bound
            candidates.append((moment.key, at, k))
    frames = [k // 2 for k in first_at if k % 2]
    if frames:
        keys = headings.keys
        i = min(frames, key=keys.__getitem__)
        candidates.append((keys[i], first_at[2 * i + 1], 2 * i + 1))
    _, at, k = min(candidates)
    i, above = (k // 2, k // 2) if k % 2 else (-1, k // 2 - 1)
    line_start = data.rfind(b"\n", 0, at) + 1
    line_end = data.find(b"\n", at)
    raw = data[line_start : len(data) if line_end < 0 else line_end]
    line = data.count(b"\n", 0, at) + 1
    use = headings.use(agent_id, path, line, raw, i, above)
    if at in header:
        use = replace(use, moment=header[at])
    return use, len(first_at)


# A bullet that begins with its own date, and time of day: ``- **2026-02-13T01:26:59Z** —``,
# ``- 2026-03-01 09:30 UTC:``, ``- 2026-05-09T23:30:00-05:00 —``, ``* 2026-03-01:``.
_DATED_LINE = re.compile(
    rb"[ \t]*[-*+][ \t]+(?:\*\*|__)?[ \t]*(\d{4}-\d{2}-\d{2})"
    rb"(?:([T ])([0-2]\d):([0-5]\d)(:[0-5]\d(?:\.\d+)?)?[ \t]*(?:Z|UTC|GMT)?"
    rb"(?:[+-]\d{2}(?::?\d{2})?)?)?"
    rb"(?:\*\*|__)?(?=[\s:,-]|\xe2\x80[\x93\x94]|$)"
)


def _header_date(data: bytes, end: int) -> str | None:
    """The latest date of the lines before byte ``end`` (the first frame) that date themselves
    (``dated_line``), None where none does."""
    latest = None
    for raw in data[:end].split(b"\n"):
        if b"**" in raw:
            dated = dated_line(raw)
            if dated is not None and (latest is None or dated[0] > latest):
                latest = dated[0]
    return latest


def dated_line(raw: bytes) -> tuple[str, str | None] | None:
    """The date and time in UTC (``HH:MM``, or None) a line of a soul file gives itself at its
    start, as a bullet (History's ``- **2026-02-13T01:26:59Z** — ...``); None when it gives none.
    A UTC offset or a zone's abbreviation after the time (``-05:00``, ``10:00 -05:00``,
    ``UTC+2``, ``EST``) is converted; ``09:30-10:00`` is a span of time, not an offset
    (``when.offset_after``)."""
    m = _DATED_LINE.match(raw)
    if m is None:
        return None
    day = m.group(1).decode()
    try:
        Date.fromisoformat(day)
    except ValueError:
        return None
    sep, hour, minute, seconds = m.group(2, 3, 4, 5)
    if hour is None or int(hour) > 23:
        return day, None
    time = f"{hour.decode()}:{minute.decode()}"
    at = m.end(5) if seconds else m.end(4)
    after = raw[at : at + 24].decode("utf-8", "replace")
    offset = when.offset_after(after, 0, time, sep == b"T" or seconds is not None)
    return (day, time) if offset is None else when.to_utc(day, time, offset)


def new_lines(old: bytes, new: bytes, term: Term) -> list[int]:
    """The 1-based lines of ``new`` holding ``term`` (``Term.lines``) that ``old`` did not hold
    (as many times)."""
    seen: dict[bytes, int] = {}
    old_lines = old.split(b"\n")
    for n in term.lines(old):
        ln = old_lines[n - 1]
        seen[ln] = seen.get(ln, 0) + 1
    out: list[int] = []
    lines = new.split(b"\n")
    for i in term.lines(new):
        ln = lines[i - 1]
        if seen.get(ln):
            seen[ln] -= 1
        else:
            out.append(i)
    return out


def earliest(
    found: list[Use],
    commit: Commit | None = None,
    together: bool = False,
    files: Sequence[FrameColumns] = (),
) -> Mention:
    """The earliest of ``found`` by the frames' times, with the uses it cannot be told from:
    every use no other is known to precede (``when.firsts``), one per agent (its earliest); of
    these, the earliest one its own heading dates leads where there is one.
    Frame numbers order uses of one date only where the frames of ``files`` (those of the
    uses) show them one clock of the world (``when.one_clock``)."""
    own: dict[str, Use] = {}  # each agent's earliest use: its file orders its own
    for u in found:
        if u.agent_id not in own or u.key < own[u.agent_id].key:
            own[u.agent_id] = u
    candidates = without_own_counts(list(own.values()), files)
    possible = [candidates[i] for i in when.firsts([u.moment for u in candidates])]
    # Of uses the headings cannot tell apart, one its own heading (or line) dates leads: an
    # undated one is said among the ties, not named as the first.
    dated = [u for u in possible if u.moment.date and not u.moment.inferred]
    first = min(dated or possible, key=lambda u: u.key)
    ties = {u.agent_id: u for u in possible if u.agent_id != first.agent_id}
    return Mention(
        misdated=_misdated_before(found, first, ties.values()),
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


def _misdated_before(found: Sequence[Use], first: Use, ties: Iterable[Use]) -> tuple[Use, ...]:
    """The uses of ``found`` whose headings date them before ``first`` in dates that run
    backwards in their files (``when.Moment.written``), the earliest so dated of each agent;
    not ``first`` nor its ``ties``, which say their own."""
    at = (first.moment.date or "", first.moment.time or "")
    said = {(u.agent_id, u.line) for u in (first, *ties)}
    own: dict[str, tuple[tuple[str, ...], Use]] = {}
    for u in found:
        if not u.moment.written or (u.agent_id, u.line) in said:
            continue
        written = tuple(u.moment.written.split()[:2])
        if written < at and (u.agent_id not in own or written < own[u.agent_id][0]):
            own[u.agent_id] = (written, u)
    return tuple(u for _, u in sorted(own.values(), key=lambda e: e[0]))


def without_own_counts(candidates: list[Use], files: Sequence[FrameColumns]) -> list[Use]:
    """``candidates`` (one per agent) without their frame numbers where these would order two
    of them and the frames of ``files`` (theirs; else the candidates alone) show that each agent
    counts its own frames: frame 12 of one agent is not known to come after frame 1 of another
    of the same day."""
    moments = [u.moment for u in candidates]
    if not when.numbers_decide(moments):
        return candidates
    counts: list[tuple[Sequence[str | None], Sequence[int]]]
    if files:
        counts = [(c.dates, c.numbers) for c in files]
    else:
        counts = [([m.date], [-1 if m.number is None else m.number]) for m in moments]
    if when.one_clock(counts):
        return candidates
    return [replace(u, moment=when.unnumbered(u.moment)) for u in candidates]


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
    files: list[FrameColumns] = []
    for agent_id, path in paths:
        try:
            data = path.read_bytes()
        except OSError:
            continue
        headings = Headings.of(data)
        shown = path.name if root is None else _rel(path, root)
        file_uses = uses(agent_id, shown, data, term, headings=headings)
        if file_uses:
            found.extend(file_uses)
            files.append(headings.columns)
    return earliest(found, files=files) if found else None
