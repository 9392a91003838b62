"""Text -> Soul. Tolerant (never raises on content) and lossless (``parse(b).render() == b``)."""

from __future__ import annotations

import re
import sys
from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterator
from datetime import date as date_type
from itertools import accumulate, repeat
from pathlib import Path

from soulscope.soul import when
from soulscope.soul.format import (
    BLOCK,
    BULLET,
    DASH_LABELS,
    dash_label,
    heading_label,
    is_frame_heading,
    label_key,
    loose_bullet,
    loose_label,
    match_label,
)
from soulscope.soul.model import (
    ENCODING_ERRORS,
    UNDECODED,
    Frame,
    FrameColumns,
    Frames,
    Observation,
    Problem,
    Section,
    Soul,
    clean,
    decoded_pieces,
)
from soulscope.soul.when import zone_note

_LINE = re.compile(r"[^\n]*\n|[^\n]+\Z")
# A date: ISO, or with slashes the same way round ("2026/03/15").
_DATE = re.compile(r"(\d{4})([-/])(\d{2})\2(\d{2})")
ZONE_OFFSETS = when.ZONE_OFFSETS
_ZONED = re.compile(r"\s?(?:UTC|GMT|Z|" + "|".join(ZONE_OFFSETS) + r")\b")
# A heading that may name a zone of several, or one soulscope does not know (``when.zone_note``):
# a letter in capitals or "local" after a time that is not UTC's. Most name none.
_NAMES_A_ZONE = re.compile(r"\d[ \t(]{0,3}(?!UTC|GMT)(?:[A-Z]|[Ll]ocal|[ap]\.?m)").search
_TIME = re.compile(r"(?<![\d:])(\d{1,2}):(\d{2})(:\d{2}(?:\.\d+)?)?")
# ``March 14, 2026``, ``Mar 14 2026``, ``14 March 2026``, ``14th Sept. 2026``
_MONTH = (
    r"(Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?"
    r"|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)\.?"
)
_MONTH_DATE = re.compile(
    rf"\b(?:{_MONTH}\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+(\d{{4}})"
    rf"|(\d{{1,2}})(?:st|nd|rd|th)?\s+{_MONTH},?\s+(\d{{4}}))\b",
    re.I,
)
# ``25/12/2026``, ``12/25/2026``, ``25.12.2026``: day and month in either order, read only where
# the numbers say which is which (``03/12/2026`` is March or December, and stays undated).
_NUMERIC_DATE = re.compile(r"(?<![\d/.])(\d{1,2})([/.])(\d{1,2})\2(\d{4})(?![\d/.])")
# A time of day by its hour alone, said to be one by "am" or "pm" after it: ``3pm``, ``10 a.m.``
# (its minutes and seconds groups, 2 and 3, never match: ``_TIME``'s groups).
_HOUR = re.compile(r"(?<![\d:.,/])(\d{1,2})(?=[ \t]?[apAP]\.?[mM]\b)()?()?")
# Noon right after a date: ``2026-03-06 noon``, ``March 6, 2026, at noon ET``.
_NOON = re.compile(r"[ \t,(]*(?:at[ \t]+)?(?:noon|midday)\b", re.I)
# ``9:15 PM``, ``9:15pm``, ``9:15 a.m.`` right after a time of day.
_MERIDIEM = re.compile(r"\s?([ap])\.?m\b\.?", re.I)
# A time of day written just before the date: ``10:00 UTC 2026-03-04``, ``9:15 PM, Mar 4 2026``.
_TIME_BEFORE = re.compile(
    r"(?<![\d:])(\d{1,2}):(\d{2})(?::\d{2}(?:\.\d+)?)?(?:\s?([aApP])\.?[mM]\b\.?)?(?P<at>)"
    r"(?:\s?\(?(UTC|GMT|Z|" + when.ABBREVIATIONS + r")\b\)?)?"
    r"(?:\s?\(?\s?(?:UTC|GMT)?\s?[+\-\u2212]\d{1,2}(?::?\d{2})?\)?)?[ \t]*(?:,|on\b)?[ \t]*$"
)
_MONTHS = {
    m: i + 1
    for i, m in enumerate(
        ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
    )
}
_NUMBER = re.compile(r"(\d{1,6})([A-Za-z]?)(?![\d-]|[/.]\d)")
_SEPARATOR = re.compile(r"(?:^|\s+)(?:—|–|--|-)(?:\s+|$)")
_ARCHIVE = re.compile(r"<!--\s*(\d+)\s+earlier entries archived")


def read_soul(path: str | Path, agent_id: str | None = None) -> Soul:
    """Parse a soul file from disk. Raises OSError only for an unreadable file."""
    data = Path(path).read_bytes()
    return parse(data, agent_id=agent_id or Path(path).stem)


def parse(data: bytes | str, agent_id: str | None = None) -> Soul:
    """Parse a soul file's bytes (or text). Never raises on content."""
    if isinstance(data, str):
        text = data
        try:
            data = text.encode("utf-8", ENCODING_ERRORS)
        except UnicodeEncodeError:  # lone surrogates no file decodes to
            data = text.encode("utf-8", "surrogatepass")
    problems = _encoding_problems(data)

    # Split into the preamble and blocks at every "## " heading. The soul keeps the file's bytes;
    # a frame is parsed here as far as its problems and the columns need (its heading, whether it
    # has a body), and its body again when the frame is asked for (``Frames``): no frame object
    # and no decoded copy of the file is held. (Blocks start after a newline, so each one decodes
    # alone as it does in the whole file.)
    offsets = array("q", map(re.Match.start, BLOCK.finditer(data)))
    first = offsets[0] if offsets else len(data)
    offsets.append(len(data))
    preamble = data[:first].decode("utf-8", ENCODING_ERRORS)
    name = _name_from_preamble(_LINE.findall(preamble), problems)

    columns = FrameColumns(data, _build_frame)
    sections: list[Section] = []
    places: list[int] = []
    keys = _read_blocks(data, offsets, columns, sections, places, problems, preamble.count("\n"))
    columns.duplicates = _duplicates(columns, keys, problems)

    identity = _identity(sections)
    if _is_blank(data, 0, len(data)):
        problems.append(Problem(1, "empty", "the file is empty"))
    elif name is None and not identity:
        problems.append(_NO_HEADER)
    problems.sort(key=_problem_order)
    return Soul(
        data=data,
        preamble=preamble,
        sections=tuple(sections),
        frames=Frames(columns),
        problems=tuple(problems),
        name=name,
        identity=identity,
        agent_id=identity.get("ID") or agent_id,
        section_places=tuple(places),
    )


_NO_HEADER = Problem(1, "header", "no '# Name' title and no Identity section")
_WHOLE_FILE = frozenset({"empty", "header"})  # problems of the whole file, not of a line


def _read_blocks(
    data: bytes,
    offsets: array,
    columns: FrameColumns,
    sections: list[Section],
    places: list[int],
    problems: list[Problem],
    hi: int,
    prev_when: tuple[str, str] | None = None,
) -> array:
    """Read the blocks that start at ``offsets`` (the last offset: where the last one ends) into
    ``columns``, ``sections`` and ``problems``; ``hi`` is the 0-based line where the first one
    starts, ``prev_when`` the date and time of the dated frame before it. Returns a hash of each
    frame's heading (spaces normalized), for telling duplicates."""
    keys = array("q")
    comment = data.find(b"<!--", offsets[0] if offsets else 0)  # the next one (-1: none is left)
    for b in range(len(offsets) - 1):
        start, end = offsets[b], offsets[b + 1]
        eol = data.find(b"\n", start, end)
        head_end = end if eol < 0 else eol
        # Lines with their newlines, as ``_LINE`` cuts them (only the file's last may lack one).
        lo, hi = hi, hi + data.count(b"\n", start, end) + (data[end - 1] != 10)
        heading = data[start + 3 : head_end].decode("utf-8", ENCODING_ERRORS).strip()
        read = _frame_heading(heading)
        if read is None:
            source = data[start:end].decode("utf-8", ENCODING_ERRORS)
            places.append(len(columns.starts))
            sections.append(_section(heading, lo + 1, hi, source, _LINE.findall(source)[1:]))
            continue
        line = lo + 1
        number, suffix, date, time, title, key = read
        if 0 <= comment < head_end:
            comment = data.find(b"<!--", head_end)
        if 0 <= comment < end:
            problems += _archived(data[start:end], line)
        if date is None and prev_when is not None:  # "Tuesday, March 3": the year above
            date = _year_above(heading, prev_when[0], line, problems)
        if date is None or (time and _NAMES_A_ZONE(heading)):
            problems += _heading_problems(line, heading, number, date)
        if _is_blank(data, head_end, end):
            problems.append(Problem(line, "empty-frame", "frame heading with no body"))
        reversed_ = False
        if date:
            when = (date, time or "")
            reversed_ = prev_when is not None and _before(when, prev_when)
            if reversed_:
                shown = f"{date} {time}" if time else date
                problems.append(Problem(line, "time", f"dated {shown}, before the frame above it"))
            prev_when = when
        keys.append(key)
        columns.starts.append(start)
        columns.ends.append(end)
        columns.lines.append(line)
        columns.end_lines.append(hi)
        columns.numbers.append(-1 if number is None else number)
        # the same few dates, times, titles and suffixes recur in thousands of frames: one string each
        columns.suffixes.append(suffix and sys.intern(suffix))
        columns.dates.append(date and sys.intern(date))
        columns.times.append(time and sys.intern(time))
        columns.titles.append(sys.intern(title))
        columns.reversed.append(reversed_)
    return keys


def _frame_heading(heading: str) -> tuple[int | None, str, str | None, str | None, str, int] | None:
    """A frame's heading read: its number, suffix, date, time, title (clean) and key
    (``_heading_key``); None for a section's heading."""
    m = _PLAIN_HEADING.fullmatch(heading)
    if m is not None and real_date(m.group(2)):  # single spaces, ASCII: its own key, title clean
        time = m.group(3)
        return int(m.group(1)), "", m.group(2), time, f"{time} UTC" if time else "", hash(heading)
    if not is_frame_heading(heading):
        return None
    number, suffix, date, time, title = read_heading(heading)
    return number, suffix, date, time, clean(title), _heading_key(heading)


def _archived(block: bytes, line: int) -> list[Problem]:
    """The notes of a frame (heading at ``line``) saying earlier entries were archived."""
    text = block.decode("utf-8", ENCODING_ERRORS)
    body = _LINE.findall(text)[1:]
    out = []
    for ln_no, note, is_bullet in _bullets(body, line + 1, text):
        m = None if is_bullet else _ARCHIVE.search(note)
        if m:
            out.append(Problem(ln_no, "archived", f"{m.group(1)} earlier entries were archived"))
    return out


def _before(when: tuple[str, str], prev: tuple[str, str]) -> bool:
    """Whether a frame dated ``when`` (date, time) is dated before the one above it: by date
    and time when both have a time, else by date."""
    return when < prev if (when[1] and prev[1]) else when[:1] < prev[:1]


def _heading_key(heading: str) -> int:
    return hash(" ".join(heading.split()))


class GrowingSoul:
    """One soul file parsed again and again as it grows: ``parse(data)`` gives what ``parse``
    gives, but when ``data`` begins with the bytes it parsed last (entries were appended), only
    the last block it knew and what follows are read, so a frame runner's reading of a soul does
    not grow with the soul. Any other change is parsed whole."""

    def __init__(self, agent_id: str | None = None) -> None:
        self.agent_id = agent_id
        self.soul: Soul | None = None
        # Heading key -> the frames that are the first with their heading (``_heading_key``
        # collides rarely: then several), made when the soul first grows. Tuples of ints, which
        # the garbage collector stops tracking: they add nothing to its every walk.
        self._firsts: dict[int, tuple[int, ...]] | None = None

    def parse(self, data: bytes) -> Soul:
        old, self.soul = self.soul, None
        soul = None
        if old is not None and data.startswith(old.data):
            try:
                soul = _grown(old, data, self.agent_id, self._firsts_of(old))
            except BaseException:
                self._firsts = None
                raise
        if soul is None:
            soul, self._firsts = parse(data, self.agent_id), None
        self.soul = soul
        return soul

    def _firsts_of(self, soul: Soul) -> dict[int, tuple[int, ...]]:
        if self._firsts is None:
            columns, firsts = soul.frames.columns, dict[int, tuple[int, ...]]()
            for i, dup in enumerate(columns.duplicates):
                if dup < 0:
                    key = _heading_key(columns.raw_heading(i))
                    firsts[key] = (*firsts.get(key, ()), i)
            self._firsts = firsts
        return self._firsts


def _grown(
    old: Soul, data: bytes, agent_id: str | None, firsts: dict[int, tuple[int, ...]]
) -> Soul | None:
    """``parse(data)`` for ``data`` that begins with ``old.data``: the blocks before ``old``'s last
    are kept, the last is read again with what follows (``firsts``, the first frame of each
    heading, is kept up to date). None when there is no earlier block to keep."""
    if len(data) == len(old.data):
        return old if old.agent_id == (old.identity.get("ID") or agent_id) else None
    last = old.data.rfind(b"\n## ") + 1  # where the last block starts
    old_columns = old.frames.columns
    n = len(old_columns.starts)
    in_frame = n > 0 and old_columns.starts[n - 1] == last
    if last == 0 or not in_frame and not old.sections:
        return None
    kept = n - 1 if in_frame else n  # frames before the last block
    line = old_columns.lines[n - 1] if in_frame else old.sections[-1].line
    if in_frame and old_columns.duplicates[n - 1] < 0:  # it is read again: no longer a first
        key = _heading_key(old_columns.raw_heading(n - 1))
        firsts[key] = firsts[key][:-1]  # (the last first there is)

    columns = FrameColumns(data, _build_frame)
    for name in FrameColumns.__slots__:
        if name not in ("data", "build"):
            setattr(columns, name, getattr(old_columns, name)[:kept])
    sections = list(old.sections)
    places = list(old.section_places)
    if not in_frame:
        sections.pop()
        places.pop()
    prev_when = next(
        ((d, columns.times[i] or "") for i in range(kept - 1, -1, -1) if (d := columns.dates[i])),
        None,
    )
    problems = _encoding_problems(data[last:], line)
    offsets = array("q", (m.start() for m in BLOCK.finditer(data, last)))
    offsets.append(len(data))
    keys = _read_blocks(data, offsets, columns, sections, places, problems, line - 1, prev_when)
    for i, key in enumerate(keys, kept):
        heading = columns.raw_heading(i)
        normal = " ".join(heading.split())
        same = firsts.get(key, ())
        earlier = next((j for j in same if " ".join(columns.raw_heading(j).split()) == normal), -1)
        columns.duplicates.append(earlier)
        if earlier < 0:
            firsts[key] = (*same, i)
        else:
            problems.append(
                Problem(
                    columns.lines[i],
                    "duplicate",
                    f"frame heading repeats frame {earlier + 1} ({clean(heading)})",
                )
            )
    problems.sort(key=_problem_order)

    # The problems of the lines before the last block stay; those of the whole file are found
    # again (the file holds a block: it is not empty).
    identity = _identity(sections)
    at_one = bisect_right(old.problems, 1, key=_line)
    before = bisect_left(old.problems, line, key=_line)
    first_line = [p for p in old.problems[:at_one] if p.kind not in _WHOLE_FILE]
    if old.name is None and not identity:
        first_line.append(_NO_HEADER)
        first_line.sort(key=_problem_order)
    return Soul(
        data=data,
        preamble=old.preamble,
        sections=tuple(sections),
        frames=Frames(columns),
        problems=(*first_line, *old.problems[at_one:before], *problems),
        name=old.name,
        identity=identity,
        agent_id=identity.get("ID") or agent_id,
        section_places=tuple(places),
    )


def _line(problem: Problem) -> int:
    return problem.line


def _problem_order(problem: Problem) -> tuple[int, int]:
    return (problem.line, _PROBLEM_ORDER.get(problem.kind, 0))


# Problems of one line, in the order they are listed (as a reader meets them).
_PROBLEM_ORDER = {
    kind: i
    for i, kind in enumerate(
        ["encoding", "stray", "archived", "heading", "empty-frame", "duplicate", "time"]
    )
}


def _encoding_problems(data: bytes, line: int = 1) -> list[Problem]:
    """One problem per line with undecodable bytes (``data`` starts at line ``line``)."""
    problems: list[Problem] = []
    if data.isascii():
        return problems
    for text in decoded_pieces(data):
        if not text.isascii():
            at, here, reported = 0, line, 0
            for m in UNDECODED.finditer(text):
                here, at = here + text.count("\n", at, m.start()), m.start()
                if here != reported:
                    problems.append(Problem(here, "encoding", "undecodable bytes, shown as \ufffd"))
                    reported = here
        line += text.count("\n")
    return problems


# Whitespace as ``str.strip`` knows it among ASCII bytes; other bytes are decoded to be sure.
_NONBLANK = re.compile(rb"[^\t\n\x0b\x0c\r\x1c-\x1f ]")


def _is_blank(data: bytes, start: int, end: int) -> bool:
    m = _NONBLANK.search(data, start, end)
    if m is None:
        return True
    return m.group()[0] >= 0x80 and data[start:end].decode("utf-8", ENCODING_ERRORS).isspace()


def _duplicates(columns: FrameColumns, keys: array, problems: list[Problem]) -> array:
    """Each frame's earlier frame with the same heading (spaces normalized), -1 for none: frames
    are grouped by their heading's hash (``keys``), and a group's headings compared from the file."""
    duplicates = array("q", [-1]) * len(keys)
    # Grouped in a loop, not sorted: one sort of 218,000 keys is a single C call that holds the
    # interpreter for a tenth of a second (the dashboard's UI thread waits on it).
    repeated = _repeated(keys)
    groups: dict[int, list[int]] = {}  # the frames of each repeated hash, in file order
    if repeated:
        for i, key in enumerate(keys):
            if key in repeated:
                groups.setdefault(key, []).append(i)
    for group in groups.values():
        first: dict[str, int] = {}
        for i in group:
            heading = columns.raw_heading(i)
            earlier = first.setdefault(" ".join(heading.split()), i)
            if earlier != i:
                duplicates[i] = earlier
                problems.append(
                    Problem(
                        columns.lines[i],
                        "duplicate",
                        f"frame heading repeats frame {earlier + 1} ({clean(heading)})",
                    )
                )
    return duplicates


def _repeated(keys: array) -> set[int]:
    """The values that occur more than once in ``keys``, found with a table of positions (an
    array, open addressing): a set or dict of 218,000 hashes, each an object, was a third of the
    memory a big soul's parse needs at its peak."""
    size = 1 << max(4, (2 * len(keys)).bit_length())  # at most half full
    mask = size - 1
    table = array("q", [-1]) * size  # where in ``keys`` each slot's value first is
    repeated: set[int] = set()
    for i, key in enumerate(keys):
        slot = key & mask
        while (j := table[slot]) >= 0 and keys[j] != key:
            slot = (slot + 1) & mask
        if j < 0:
            table[slot] = i
        else:
            repeated.add(key)
    return repeated


def _build_frame(columns: FrameColumns, i: int) -> Frame:
    """Frame ``i`` of ``columns``, its body parsed from its source."""
    source = columns.data[columns.starts[i] : columns.ends[i]].decode("utf-8", ENCODING_ERRORS)
    line = columns.lines[i]
    actions, observations, notes = _body(_LINE.findall(source)[1:], line + 1, source)
    dup = columns.duplicates[i]
    return Frame(
        index=i,
        line=line,
        end_line=columns.end_lines[i],
        source=source,
        number=columns.number(i),
        suffix=columns.suffixes[i],
        date=columns.dates[i],
        time=columns.times[i],
        title=columns.titles[i],
        actions=actions,
        observations=observations,
        notes=notes,
        duplicate_of=None if dup < 0 else dup,
        time_reversed=bool(columns.reversed[i]),
    )


def frame_observations(
    columns: FrameColumns, i: int, dash: str | None = None
) -> tuple[Observation, ...]:
    """Frame ``i``'s ``Frame.observations`` alone (its actions and notes, and the frame, not
    made): what an arc reads of each frame that holds its label. ``dash``: a label (its
    ``label_key``) asked for by name, read in its dash form too (``- Key insight — x``)."""
    if columns.build is not _build_frame:  # (columns without bodies: theirs)
        return columns.build(columns, i).observations
    source = columns.data[columns.starts[i] : columns.ends[i]].decode("utf-8", ENCODING_ERRORS)
    found = []
    body = _LINE.findall(source)[1:]
    for ln_no, text, is_bullet in _bullets(body, columns.lines[i] + 1, source):
        if not is_bullet:
            continue
        obs = _observation(text, ln_no)
        if obs is None and dash is not None and (m := dash_label(text, dash)) is not None:
            obs = Observation(sys.intern(m.label), clean(m.text.strip()), ln_no)
        if obs is not None:
            found.append(obs)
    return tuple(found)


def _name_from_preamble(lines: list[str], problems: list[Problem]) -> str | None:
    name = None
    for i, ln in enumerate(lines, 1):
        s = ln.strip().lstrip("\ufeff")
        if not s:
            continue
        if name is None and s.startswith("# "):
            name = clean(s[2:].strip())
        elif s.startswith("<!--"):
            continue
        else:
            problems.append(Problem(i, "stray", "text before the first section"))
            break
    return name


def _fenced(body: list[str]) -> set[int]:
    """The indices of the lines of a fenced code block (its fences too: a line of three or more
    backticks or tildes, up to the next such line of the same character) and of an HTML comment
    over several lines (``<!--`` on a line of its own, through ``-->``). A fence or comment never
    closed in the block hides nothing: a stray one would otherwise hide every line after it."""
    inside: set[int] = set()
    opened: tuple[int, str] | None = None
    for i, raw in enumerate(body):
        s = raw.lstrip(" ")
        if opened is not None and opened[1] == "<!--":
            if "-->" in s:
                inside.update(range(opened[0], i + 1))
                opened = None
            continue
        if s.startswith("<!--") and "-->" not in s:
            if opened is None:
                opened = (i, "<!--")
            continue
        if not s.startswith(("```", "~~~")) or len(raw) - len(s) > 3:
            continue
        if opened is None:
            opened = (i, s[:3])
        elif s[:3] == opened[1] and not s.rstrip()[3:].strip(s[0]):
            inside.update(range(opened[0], i + 1))
            opened = None
    return inside


def _bullets(body: list[str], first_line: int, source: str) -> list[tuple[int, str, bool]]:
    """Group body lines into (line, text, is_bullet); continuation lines join the bullet above.
    The lines of a fenced code block or an HTML comment are notes: ``- Becoming: x`` shown as
    code, or hidden, states nothing (``source``: the block's text, searched for a fence or a
    comment before its lines are)."""
    out: list[tuple[int, str, bool]] = []
    open_bullet = False
    hidden = "```" in source or "~~~" in source or "<!--" in source
    code = _fenced(body) if hidden else ()
    titled = "\n#" in source  # a subheading may name a label (``### Becoming``)
    waiting = False  # its statement not read yet
    for i, raw in enumerate(body):
        ln = raw.rstrip("\r\n")
        s = ln.strip()
        if not s:
            open_bullet = open_bullet and waiting
            continue
        if waiting:
            waiting = False
            if _states_below(s, i in code):  # its statement, as a bullet or not
                line, text, _ = out[-1]
                out[-1] = (line, f"{text} {s[2:] if BULLET.match(s) else s}", True)
                continue
        if i in code:
            out.append((first_line + i, s, False))
            open_bullet = False
        elif titled and (label := heading_label(ln)) is not None:
            out.append((first_line + i, f"- {label}:", True))
            open_bullet = waiting = True
        elif BULLET.match(ln):
            out.append((first_line + i, ln, True))
            open_bullet = True
        elif (bullet := loose_bullet(ln)) is not None:
            out.append((first_line + i, bullet, True))
            open_bullet = True
        elif open_bullet and (ln[0] in " \t" or not s.startswith(("#", "<!--"))):
            line, text, _ = out[-1]
            out[-1] = (line, text + "\n" + s, True)
        else:
            out.append((first_line + i, s, False))
            open_bullet = False
    return out


def _states_below(s: str, code: bool) -> bool:
    """Whether a line (stripped) is the statement of a label's subheading above it: not code,
    a heading, or a line of one of the entry's labels (``- Becoming: x`` states itself;
    ``- the bridge builder: from wall to bridge`` is the statement)."""
    if code or s.startswith("#"):
        return False
    found = match_label(s) if BULLET.match(s) else loose_label(s)
    return found is None or label_key(found.label) not in DASH_LABELS


def _observation(text: str, line: int) -> Observation | None:
    m = match_label(text)
    return None if m is None else Observation(sys.intern(m.label), clean(m.text.strip()), line)


def _body(
    body: list[str], first_line: int, source: str
) -> tuple[tuple[str, ...], tuple[Observation, ...], tuple[str, ...]]:
    """A frame's actions, observations and notes, from its lines after the heading."""
    actions: list[str] = []
    observations: list[Observation] = []
    notes: list[str] = []
    for ln_no, text, is_bullet in _bullets(body, first_line, source):
        if not is_bullet:
            notes.append(clean(text))
            continue
        obs = _observation(text, ln_no)
        if obs is not None:
            observations.append(obs)
        else:
            actions.append(clean(text[2:].strip()))
    return tuple(actions), tuple(observations), tuple(notes)


# The heading of most frames: ``Frame 408 — 2026-03-28``, then ``(07:00 UTC)`` or nothing. It is
# read in one match, as ``read_heading`` reads it (a test compares the two on every form).
_PLAIN_HEADING = re.compile(r"Frame (\d{1,6}) — (\d{4}-\d{2}-\d{2})(?: \((\d{2}:\d{2}) UTC\))?")


def parse_heading(heading: str) -> tuple[int | None, str, str | None, str | None, str]:
    """``Frame 408 solo — 2026-03-28 (seed note)`` -> (408, "solo", "2026-03-28", None, "seed note")."""
    m = _PLAIN_HEADING.fullmatch(heading)
    if m is None or not real_date(m.group(2)):
        return read_heading(heading)
    time = m.group(3)
    return int(m.group(1)), "", m.group(2), time, f"{time} UTC" if time else ""


def read_heading(heading: str) -> tuple[int | None, str, str | None, str | None, str]:
    """``parse_heading`` for a heading of any form."""
    rest = heading[5:].strip() if heading.startswith("Frame") else heading.strip()
    rest = rest.lstrip(":").strip()
    if rest[1:2].isdigit() and rest[0] == "#":  # "Frame #12": frame 12
        rest = rest[1:]
    number: int | None = None
    suffix = ""
    m = _NUMBER.match(rest)
    if m and not _DATE.match(rest):
        number = int(m.group(1))
        suffix = m.group(2)
        rest = rest[m.end() :].strip()
    parts = _SEPARATOR.split(rest, maxsplit=1)
    lead, tail = parts[0].strip(), (parts[1].strip() if len(parts) > 1 else "")
    if number is not None and lead and not _dated(lead, re.Pattern.search):
        suffix = (suffix + " " + lead).strip() if suffix else lead
        lead = ""

    dm = _DATE.search(heading)
    if dm is None or real_date(f"{dm.group(1)}-{dm.group(3)}-{dm.group(4)}"):
        date, time = _heading_when(heading, dm)
    else:  # "2026-13-04" is no day: nothing else in the heading dates it
        date, time = None, None

    if tail:
        title = tail
        written = dm.group(0) if dm else None  # the date as written, before any offset
        if written and title.startswith(written):
            title = title[len(written) :].strip()
            if title.startswith("(") and title.endswith(")"):
                title = title[1:-1].strip()
    elif lead and not _dated(lead, re.Pattern.match):
        title = lead
    else:
        title = ""
    return number, suffix, date, time, title


def real_date(iso: str) -> bool:
    """Whether an ISO date as written (``2026-03-04``) is a day of the calendar: a heading's
    ``2026-13-04`` or ``2026-02-30`` dates nothing."""
    try:
        date_type.fromisoformat(iso)
    except ValueError:
        return False
    return True


def _dated(text: str, how: Callable[..., re.Match[str] | None]) -> bool:
    """Whether ``text`` holds (``re.Pattern.search``) or begins with (``match``) a date."""
    return any(how(p, text) for p in (_DATE, _MONTH_DATE, _NUMERIC_DATE))


# A day of a month without its year: ``Tuesday, March 3``, ``3rd of March``, ``Mar 3``.
_MONTH_DAY = re.compile(
    rf"\b(?:{_MONTH}\s+(\d{{1,2}})(?:st|nd|rd|th)?|(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH})"
    rf"(?![\w,]*\s*\d{{4}})\b",
    re.I,
)


def _heading_problems(
    line: int, heading: str, number: int | None, date: str | None
) -> list[Problem]:
    """What a frame's heading leaves unsaid or unsure of its time: no number nor date, a date
    that dates nothing (``undated_note``), a zone not known or of several (``zone_note``)."""
    if number is None and date is None:
        return [Problem(line, "heading", f"frame heading without number or date: {clean(heading)}")]
    note = undated_note(heading) if date is None else zone_note(heading, date)
    return [Problem(line, "time", note)] if note else []


_WEEKDAY = re.compile(
    r"\b(mon|tue|wed|thu|fri|sat|sun)(?:day|s|sday|nesday|rsday|urday)?\b\.?", re.I
)
_WEEKDAYS = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]


def yearless_date(heading: str, above: str) -> str | None:
    """The date of a heading that gives a day of a month without its year (``Tuesday, March
    3``), in the year that puts it nearest ``above``, the date of the dated frame above it in
    its file (within half a year; its day of the week, where named, must agree); None where it
    gives no such day, or no year agrees."""
    m = _MONTH_DAY.search(heading)
    if m is None:
        return None
    month_name, day = (m.group(1), m.group(2)) if m.group(1) else (m.group(4), m.group(3))
    month = _MONTHS[month_name[:3].lower()]
    weekday = _WEEKDAY.search(heading)
    try:
        near = date_type.fromisoformat(above)
    except ValueError:
        return None
    found = []
    for year in (near.year - 1, near.year, near.year + 1):
        try:
            d = date_type(year, month, int(day))
        except ValueError:
            continue
        if weekday is None or _WEEKDAYS[d.weekday()] == weekday.group(1).lower():
            found.append((abs((d - near).days), d))
    best = min(found, default=None)
    return best[1].isoformat() if best is not None and best[0] <= 183 else None


def _year_above(heading: str, above: str, line: int, problems: list[Problem]) -> str | None:
    """``yearless_date``, said among ``problems`` where it dates the heading."""
    date = yearless_date(heading, above)
    if date is not None:
        problems.append(
            Problem(line, "time", f"the date gives no year: read as {date}, by the frame above it")
        )
    return date


def undated_note(heading: str) -> str | None:
    """Why a heading that seems to give a date dates nothing, for the file's problems: a day
    and month whose order the numbers do not say (``03/04/2026``), a day of no calendar
    (``31/02/2026``, ``2026-13-04``), a day without its year (``Tuesday, March 3``); None
    where it gives none of these."""
    placed = "left undated, placed by the frames around it"
    for m in _NUMERIC_DATE.finditer(heading):
        a, b, year = int(m.group(1)), int(m.group(3)), m.group(4)
        if a != b and a <= 12 and b <= 12:
            return (
                f"date {m.group(0)} may be day/month or month/day "
                f"({year}-{b:02d}-{a:02d} or {year}-{a:02d}-{b:02d}): {placed}"
            )
        return f"date {m.group(0)} is no day of the calendar: {placed}"
    iso = _DATE.search(heading)
    if iso is not None:
        return f"date {iso.group(0)} is no day of the calendar: {placed}"
    day = _MONTH_DAY.search(heading)
    if day is not None:
        return f"date {day.group(0)} gives no year: {placed}"
    return None


def _numeric_date(heading: str) -> tuple[re.Match[str], str] | None:
    """The first ``25/12/2026`` or ``12/25/2026`` of a heading whose numbers say which is the
    day, with its ISO date; None where there is none or they do not say (``03/12/2026``)."""
    for m in _NUMERIC_DATE.finditer(heading):
        a, b, year = int(m.group(1)), int(m.group(3)), int(m.group(4))
        if a != b and a <= 12 and b <= 12:
            continue  # day first or month first: either reading is a date
        day, month = (a, b) if a > 12 else (b, a)
        try:
            return m, date_type(year, month, day).isoformat()
        except ValueError:
            continue
    return None


def _heading_when(heading: str, dm: re.Match[str] | None) -> tuple[str | None, str | None]:
    """A heading's date (ISO, from ``dm``, a ``March 14, 2026`` or a ``25/12/2026``) and time
    of day in UTC."""
    worded = None if dm else _MONTH_DATE.search(heading)
    if dm:
        found, date = dm, f"{dm.group(1)}-{dm.group(3)}-{dm.group(4)}"
    elif worded is not None:
        month, day, year = worded.group(1, 2, 3) if worded.group(1) else worded.group(5, 4, 6)
        found, date = worded, f"{year}-{_MONTHS[month[:3].lower()]:02d}-{int(day):02d}"
    else:
        numeric = _numeric_date(heading)
        if numeric is None:
            return None, None
        found, date = numeric
    tm = _TIME.search(heading, found.end())
    # A time of day right after the date ("(23:00 UTC)", "T17:33:00Z", "3pm"), or one that says
    # its zone further on ("(morning sim 07:00 UTC)"); a bare number in a title is no time.
    if tm is None or not (tm.start() - found.end() <= 4 or _ZONED.match(heading, tm.end())):
        tm = _HOUR.search(heading, found.end())
        if tm is None or not (tm.start() - found.end() <= 4 or _ZONED.match(heading, tm.end())):
            return _noon(heading, found.end(), date) or _time_before(heading, found.start(), date)
    hour = int(tm.group(1))
    meridiem = _MERIDIEM.match(heading, tm.end())
    if meridiem is not None and 1 <= hour <= 12:  # "9:15 PM" is 21:15, "12:30 am" 00:30
        hour = hour % 12 + (12 if meridiem.group(1).lower() == "p" else 0)
        tm_end = meridiem.end()
    else:
        tm_end = tm.end()
    if hour > 23:
        return _time_before(heading, found.start(), date)
    time = f"{hour:02d}:{tm.group(2) or '00'}"
    # A UTC offset or a zone's name right after it is converted (``when.offset_after``:
    # ``-05:00`` after an ISO time or seconds, ``10:00 -05:00``, ``UTC+2``, ``EST``, ``ET``);
    # ``18:15-18:45`` is a span of time.
    iso = heading[found.end() : found.end() + 1] == "T" or tm.group(3) is not None
    offset = when.offset_after(heading, tm_end, time, iso)
    return (date, time) if offset is None else when.to_utc(date, time, offset)


def _noon(heading: str, at: int, date: str) -> tuple[str, str] | None:
    """``date`` at 12:00 where the heading says "noon" right after it (at ``at``), in UTC;
    None where it does not."""
    m = _NOON.match(heading, at)
    if m is None:
        return None
    offset = when.offset_after(heading, m.end(), "12:00")
    return (date, "12:00") if offset is None else when.to_utc(date, "12:00", offset)


def _time_before(heading: str, at: int, date: str) -> tuple[str, str | None]:
    """``date`` with the time of day written just before it (at ``at``) in ``heading``
    (``_TIME_BEFORE``), in UTC; None for the time where none is."""
    m = _TIME_BEFORE.search(heading, 0, at)
    if m is None:
        return date, None
    hour, meridiem = int(m.group(1)), m.group(3)
    if meridiem is not None:
        if not 1 <= hour <= 12:
            return date, None
        hour = hour % 12 + (12 if meridiem in "pP" else 0)
    if hour > 23:
        return date, None
    time = f"{hour:02d}:{m.group(2)}"
    offset = when.offset_after(heading, m.end("at"), time)
    return (date, time) if offset is None else when.to_utc(date, time, offset)


def _section(heading: str, line: int, end: int, source: str, body: list[str]) -> Section:
    items: list[str] = []
    observations: list[Observation] = []
    for ln_no, text, is_bullet in _bullets(body, line + 1, source):
        if is_bullet:
            items.append(clean(text[2:].strip()))
            obs = _observation(text, ln_no)
            if obs is not None:
                observations.append(obs)
    return Section(
        title=clean(heading),
        line=line,
        end_line=end,
        source=source,
        items=tuple(items),
        observations=tuple(observations),
    )


def _identity(sections: list[Section]) -> dict[str, str]:
    for b in sections:
        if b.title.lower() == "identity":
            fields: dict[str, str] = {}
            for obs in b.observations:
                fields.setdefault(obs.label, obs.text)
            return fields
    return {}


# The usual heading shapes, read in one pass over a file's bytes: ``Frame 12 — 2026-01-05
# (08:33 UTC)``, ``Frame 2026-03-15 (19:50 UTC) — title``, ``Frame 2026-03-15``. Any other
# ``## `` line (group 5) is read by ``parse_heading``; a title that starts with a digit could
# hold a time of day, so it goes there too.
_QUICK_HEADING = re.compile(
    rb"## (?:Frame(?: (\d{1,6}))? (?:\xe2\x80\x94 )?(\d{4}-\d{2}-\d{2})"
    rb"(?: \((\d{2}:\d{2}) UTC\))?(?: \xe2\x80\x94 (?![\d\s])[^\r\n]*)?[ \t]*\r?$"
    rb"|([^\n]*))",
    re.M,
)


# ``_QUICK_HEADING`` after a newline: every ``## `` line but one at the very start, found in one
# search (a pattern that starts with literal bytes is searched for as ``bytes.find`` does).
_NEXT_HEADING = re.compile(b"\n" + _QUICK_HEADING.pattern, re.M)


def frame_columns(data: bytes) -> FrameColumns:
    """The columns ``parse`` gives a soul's frames (where each is, its number, date and time),
    read from the headings alone: no frame body, section or problem is read. For scanning a
    whole world quickly; its frames cannot be built (``parse`` the file for those)."""
    columns = FrameColumns(data, _no_body)
    # Column by column rather than block by block: a world holds hundreds of thousands of frames.
    heads = list(_NEXT_HEADING.finditer(data))
    blocks = [m.start() + 1 for m in heads]  # where each ``## `` line starts (``block_starts``)
    first = _QUICK_HEADING.match(data) if data.startswith(b"## ") else None
    if first is not None:
        heads.insert(0, first)
        blocks.insert(0, 0)
    # each block as a frame's (number, suffix, date, time), None for a section
    strings, dates = _HEADING_STRINGS, _HEADING_DATES
    rows = [
        (int(number) if number else -1, "", dates[date], dates[date] and strings[time])
        if other is None
        else _other_heading(other)
        for number, date, time, other in map(re.Match.groups, heads)
    ]
    frames = [b for b, row in enumerate(rows) if row is not None]
    if not frames:
        return columns
    # each block's first line; past the last block, the line after the file's last
    lines = list(accumulate(map(data.count, repeat(b"\n"), [0, *blocks], blocks), initial=1))
    del lines[0]
    lines.append(lines[-1] + data.count(b"\n", blocks[-1]) - data.endswith(b"\n") + 1)
    blocks.append(len(data))
    numbers, suffixes, dates, times = zip(*[rows[b] for b in frames], strict=True)
    columns.numbers.extend(numbers)
    columns.suffixes.extend(suffixes)
    if None in dates:  # "Tuesday, March 3": the year of the dated frame above (``_read_blocks``)
        columns.dates.extend(_years_above(data, [blocks[b] for b in frames], dates))
    else:
        columns.dates.extend(dates)
    columns.times.extend(times)
    columns.starts.extend([blocks[b] for b in frames])
    columns.lines.extend([lines[b] for b in frames])
    # a frame ends where the next block starts
    columns.ends.extend([blocks[b + 1] for b in frames])
    columns.end_lines.extend([lines[b + 1] - 1 for b in frames])
    return columns


def _years_above(data: bytes, starts: list[int], dates: tuple) -> list[str | None]:
    """``dates`` of the frames that start at ``starts``, each without one dated where its
    heading gives a day without its year (``yearless_date``) by the dated frame above it."""
    out = list(dates)
    above = None
    for i, date in enumerate(out):
        if date is None and above is not None:
            eol = data.find(b"\n", starts[i])
            heading = data[starts[i] + 3 : len(data) if eol < 0 else eol]
            date = out[i] = yearless_date(heading.decode("utf-8", ENCODING_ERRORS), above)
        above = date or above
    return out


def _other_heading(other: bytes) -> tuple[int, str, str | None, str | None] | None:
    """A heading of another shape than ``_QUICK_HEADING``'s (its text after ``## ``) as a frame's
    (number, suffix, date, time), or None: a section's."""
    heading = other.decode("utf-8", ENCODING_ERRORS).strip()
    if not is_frame_heading(heading):
        return None
    number, suffix, date, time, _title = parse_heading(heading)
    return (
        -1 if number is None else number,
        suffix,
        date and sys.intern(date),
        time and sys.intern(time),
    )


class _Strings(dict[bytes | None, str | None]):
    """A date's or time's bytes -> the string, decoded once (the same dates and times recur in
    thousands of headings), and None -> None."""

    def __missing__(self, key: bytes | None) -> str | None:
        value = self[key] = None if key is None else sys.intern(key.decode())
        return value


class _Dates(_Strings):
    """The same for dates, a date that is no day of the calendar (``2026-13-04``) -> None."""

    def __missing__(self, key: bytes | None) -> str | None:
        value = super().__missing__(key)
        if value is not None and not real_date(value):
            value = self[key] = None
        return value


_HEADING_STRINGS = _Strings()  # shared by every file
_HEADING_DATES = _Dates()


def block_starts(data: bytes) -> Iterator[int]:
    """Where each ``## `` line starts (what ``format.BLOCK`` finds), by searching for the bytes."""
    at = 0 if data.startswith(b"## ") else data.find(b"\n## ")
    while at >= 0:
        if data[at] == 10:  # the newline before it
            at += 1
        yield at
        at = data.find(b"\n## ", at)


def _no_body(columns: FrameColumns, i: int) -> Frame:
    raise TypeError("frame_columns() reads headings only: parse() the file to build its frames")
