"""A reader of frame headings' times of its own, to check soulscope's answers against: each use
of a term as the span of time its frame can have, a date-only frame bounded by the timed frames
of its date around it in its file (files are append-only), a frame dated more than a day
before (or after) both frames around it placed by them, and which uses may be the first.

It shares no code with ``soulscope.soul``: a regular expression for the date, one for the time
of day right after it (or one that says its zone), one for a UTC offset after an ISO time.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

_HEADING = re.compile(r"^## Frame\b(.*)$")
_DATE = re.compile(r"(\d{4}-\d{2}-\d{2})")
_TIME = re.compile(r"(\d{1,2}):(\d{2})(:\d{2})?")
_ZONE = re.compile(r"\s?(UTC|GMT|Z)\b")
_OFFSET = re.compile(r"([+-])(\d{2}):?(\d{2})")


@dataclass(frozen=True)
class Span:
    """A use of a term: its agent, line and the earliest and latest ``YYYY-MM-DD HH:MM`` its
    frame can have."""

    agent: str
    line: int
    low: str
    high: str

    def before(self, other: Span) -> bool:
        return self.high < other.low


def heading_time(rest: str) -> tuple[str, str] | None:
    """(date, time or "") of a heading's text after ``Frame``, in UTC; None without a date."""
    d = _DATE.search(rest)
    if d is None:
        return None
    t = _TIME.search(rest, d.end())
    if t is None or not (t.start() - d.end() <= 4 or _ZONE.match(rest, t.end())):
        return d.group(1), ""
    hh, mm = int(t.group(1)), t.group(2)
    offset = _OFFSET.match(rest, t.end())
    if offset and rest[d.end() : d.end() + 1] == "T":
        at = datetime.fromisoformat(f"{d.group(1)}T{hh:02d}:{mm}")
        shift = timedelta(hours=int(offset.group(2)), minutes=int(offset.group(3)))
        at = at + shift if offset.group(1) == "-" else at - shift
        return at.strftime("%Y-%m-%d"), at.strftime("%H:%M")
    return d.group(1), f"{hh:02d}:{mm}"


def frame_times(lines: list[str]) -> list[tuple[int, str, str] | None]:
    """For each line, (frame index, date, time or "") of the dated frame it is in, else None."""
    out: list[tuple[int, str, str] | None] = []
    current: tuple[int, str, str] | None = None
    index = -1
    for raw in lines:
        if raw.startswith("## "):
            m = _HEADING.match(raw)
            got = heading_time(m.group(1)) if m else None
            if m:
                index += 1
            current = (index, *got) if got else None
        out.append(current)
    return out


def spans_of(frames: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Each frame's (low, high) time of day: its own, or the nearest timed frames of its date
    before and after it (either way round), else the day's ends."""
    out = []
    for i, (date, time) in enumerate(frames):
        if time:
            out.append((time, time))
            continue
        before = _nearest(reversed(frames[:i]), date)
        after = _nearest(frames[i + 1 :], date)
        low, high = sorted([before, after]) if before and after else (before, after)
        out.append((low or "00:00", high or "23:59"))
    return out


def _nearest(frames: Iterable[tuple[str, str]], date: str) -> str:
    """The time of the first timed frame in ``frames`` if no frame of another date comes first."""
    for d, t in frames:
        if d != date:
            return ""
        if t:
            return t
    return ""


def uses(path: Path, term: re.Pattern[str]) -> tuple[list[Span], bool]:
    """The frame uses of ``term`` in a soul file; and whether it also occurs outside dated
    frames (the header: a caller may leave such a term out)."""
    lines = path.read_text("utf-8", "replace").splitlines()
    placed = frame_times(lines)
    frames: dict[int, tuple[str, str]] = {}
    for p in placed:
        if p is not None:
            frames[p[0]] = (p[1], p[2])
    order = sorted(frames)
    spans = {
        i: (f"{frames[i][0]} {low}", f"{frames[i][0]} {high}")
        for i, (low, high) in zip(order, spans_of([frames[i] for i in order]), strict=True)
    }
    spans |= misplaced(order, frames, spans)
    out: list[Span] = []
    elsewhere = False
    for n, (raw, p) in enumerate(zip(lines, placed, strict=True), 1):
        if not term.search(raw):
            continue
        if p is None:
            elsewhere = True
            continue
        out.append(Span(path.stem, n, *spans[p[0]]))
    return out, elsewhere


def misplaced(
    order: list[int], frames: dict[int, tuple[str, str]], spans: dict[int, tuple[str, str]]
) -> dict[int, tuple[str, str]]:
    """The spans of frames whose dates run backwards against their file by more than a day:
    out of every longest run of frames whose dates never go back (files are appended), and
    more than a day before the latest frame of such runs above it (or after the earliest
    below it). Such a frame is placed by its file instead: after the frame of the runs above
    it, or before the one below it."""
    day = [datetime.fromisoformat(frames[i][0]) for i in order]
    n = len(day)
    ending = [1] * n  # the longest run that ends at each frame, and that starts at it
    starting = [1] * n
    for k in range(n):
        ending[k] = 1 + max((ending[j] for j in range(k) if day[j] <= day[k]), default=0)
    for k in reversed(range(n)):
        starting[k] = 1 + max((starting[j] for j in range(k + 1, n) if day[j] >= day[k]), default=0)
    longest = max(ending, default=0)
    run = [k for k in range(n) if ending[k] + starting[k] - 1 == longest]
    out = {}
    for k in set(range(n)) - set(run):
        above = [j for j in run if j < k]
        below = [j for j in run if j > k]
        if above and (max(day[j] for j in above) - day[k]).days > 1:
            out[order[k]] = (spans[order[above[-1]]][0], "~")
        elif below and (day[k] - min(day[j] for j in below)).days > 1:
            out[order[k]] = ("", spans[order[below[0]]][1])
    return out


def possible_firsts(found: list[Span]) -> set[str]:
    """The agents with a use that no other use is known to precede."""
    end = min(s.high for s in found)
    return {s.agent for s in found if s.low <= end}


def first_day_terms(memory: Path, n: int = 12) -> list[tuple[str, list[Span]]]:
    """``n`` words of a world's files (every seventh of those used in 4 to 60 files, in
    alphabetical order) whose first day holds a use in a date-only frame: the headings of that
    day alone would tie it with every frame of the day. Words also used outside dated frames
    are passed over. Each with its uses."""
    counts: dict[str, int] = {}
    paths = sorted(memory.glob("*.md"))
    texts = {p: p.read_text("utf-8", "replace") for p in paths}
    for text in texts.values():
        for w in set(re.findall(r"[a-z]{6,}", text.lower())):
            counts[w] = counts.get(w, 0) + 1
    out = []
    for word in sorted(w for w, c in counts.items() if 4 <= c <= 60)[::7]:
        pattern = re.compile(rf"(?<!\w){word}(?!\w)", re.I)
        found: list[Span] = []
        elsewhere = False
        for path in paths:
            if word in texts[path].lower():
                spans, outside = uses(path, pattern)
                found.extend(spans)
                elsewhere = elsewhere or outside
        if elsewhere or not found:
            continue
        day = min(s.low for s in found)[:10]
        if any(s.low[:10] == day and s.low != s.high for s in found):  # a date-only frame
            out.append((word, found))
        if len(out) == n:
            break
    return out
