"""Immutable values for a parsed soul file.

A soul is a sequence of blocks (preamble, sections, frames) whose ``source`` strings concatenate
back to the decoded file exactly; decoding uses ``surrogateescape`` so undecodable bytes survive
the round trip. Display strings (``text``, ``heading``...) have such bytes replaced by U+FFFD.
A soul keeps the file's bytes and builds its frames from them when they are asked for.
"""

from __future__ import annotations

import re
from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import overload

from soulscope.soul.format import label_key

ENCODING_ERRORS = "surrogateescape"
UNDECODED = re.compile("[\ud800-\udfff]")  # lone surrogates: how surrogateescape keeps bytes


def clean(text: str) -> str:
    """Replace undecodable bytes (kept as lone surrogates) with U+FFFD for display; ``text``
    itself, not a copy, when it has none."""
    if text.isascii() or not UNDECODED.search(text):
        return text
    return text.encode("utf-8", ENCODING_ERRORS).decode("utf-8", "replace")


_PIECE = 1 << 18


def decoded_pieces(data: bytes) -> Iterator[str]:
    """``data`` decoded (surrogateescape) a quarter of a megabyte at a time, each piece cut after a
    newline, where it decodes as it does in the whole: a thread that decodes a big file this way
    never holds the interpreter for long (one C call on 20 MB stalls the dashboard's UI thread,
    and even a megabyte's decoding, cleaning and searching take some milliseconds each)."""
    pos = 0
    while pos < len(data):
        cut = data.find(b"\n", pos + _PIECE)
        end = len(data) if cut < 0 else cut + 1
        yield data[pos:end].decode("utf-8", ENCODING_ERRORS)
        pos = end


def frame_heading(source: str) -> str:
    """The display text of the ``## `` heading that begins ``source``."""
    end = source.find("\n")
    return clean((source[3:end] if end >= 0 else source[3:]).strip())


def frame_label(number: int | None, suffix: str, date: str | None) -> str | None:
    """``237``, ``500b``, ``408 solo``; the date for unnumbered frames; None when neither is known."""
    if number is not None:
        return f"{number}{suffix}" if len(suffix) <= 1 else f"{number} {suffix}"
    return date


def frame_name(number: int | None, suffix: str, date: str | None, time: str | None) -> str | None:
    """How a citation names a frame: its label, with the time of day for an unnumbered frame
    (``2026-03-15 02:10``: one day holds many frames of the early era)."""
    label = frame_label(number, suffix, date)
    return f"{label} {time}" if number is None and label and time else label


@dataclass(frozen=True, slots=True)
class Problem:
    """Something odd in a file, with the 1-based line where it is."""

    line: int
    kind: str
    message: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}"


@dataclass(frozen=True, slots=True)
class Observation:
    """A labelled bullet (``- Becoming: ...`` or ``- **Becoming:** ...``)."""

    label: str  # as written, without markup
    text: str  # continuation lines joined with newlines
    line: int

    @property
    def key(self) -> str:
        return label_key(self.label)


@dataclass(frozen=True, slots=True)
class Section:
    """A ``##`` section that is not a frame (Identity, Convictions, History, ...)."""

    title: str
    line: int
    end_line: int
    source: str
    items: tuple[str, ...] = ()  # its bullets, display text
    observations: tuple[Observation, ...] = ()  # labelled bullets among the items

    def get(self, label: str) -> list[str]:
        key = label_key(label)
        return [o.text for o in self.observations if o.key == key]


@dataclass(frozen=True, slots=True)
class Frame:
    """One ``## Frame ...`` entry and the lines up to the next ``##`` heading."""

    index: int  # position among the file's frames, 0-based, file order
    line: int
    end_line: int
    source: str
    number: int | None = None
    suffix: str = ""  # "b" in "500b", "solo" in "408 solo", "stream-3"...
    date: str | None = None  # ISO YYYY-MM-DD
    time: str | None = None  # HH:MM
    title: str = ""
    actions: tuple[str, ...] = ()  # unlabelled bullets and loose lines
    observations: tuple[Observation, ...] = ()
    notes: tuple[str, ...] = ()  # other non-blank lines: sub-headings, comments, paragraphs
    duplicate_of: int | None = None  # index of an earlier frame with the same heading
    time_reversed: bool = False  # dated before the previous dated frame

    @property
    def heading(self) -> str:
        """Heading text without the leading ``## `` (read from ``source``: not held twice)."""
        return frame_heading(self.source)

    @property
    def label(self) -> str:
        """Short name for lists: ``237``, ``500b``, ``408 solo`` or the date."""
        return frame_label(self.number, self.suffix, self.date) or "?"

    @property
    def when(self) -> str | None:
        """Date and time, as far as the heading tells them."""
        if self.date and self.time:
            return f"{self.date} {self.time}"
        return self.date

    def get(self, label: str) -> list[str]:
        """Texts of this frame's observations with that label (case-insensitive)."""
        key = label_key(label)
        return [o.text for o in self.observations if o.key == key]

    def first(self, label: str) -> str | None:
        found = self.get(label)
        return found[0] if found else None


class FrameColumns:
    """What a soul's parser keeps of each frame (compactly: arrays and shared strings), from which
    a ``Frame`` is built again when it is asked for. A 218,000-frame soul holds its text and these
    columns, not 218,000 objects with their own strings, tuples and ints."""

    __slots__ = (
        "data",
        "starts",
        "ends",
        "lines",
        "end_lines",
        "numbers",
        "suffixes",
        "dates",
        "times",
        "titles",
        "duplicates",
        "reversed",
        "build",
    )

    def __init__(self, data: bytes, build: Callable[[FrameColumns, int], Frame]) -> None:
        self.data = data  # the file
        self.starts = array("q")  # offsets of each frame's source in ``data``
        self.ends = array("q")
        self.lines = array("q")  # 1-based line of the heading
        self.end_lines = array("q")
        self.numbers = array("q")  # -1: no number
        self.suffixes: list[str] = []
        self.dates: list[str | None] = []
        self.times: list[str | None] = []
        self.titles: list[str] = []
        self.duplicates = array("q")  # -1: not a duplicate
        self.reversed = bytearray()
        self.build = build  # (columns, index) -> the Frame, its body parsed from its source

    def number(self, i: int) -> int | None:
        n = self.numbers[i]
        return None if n < 0 else n

    def label(self, i: int) -> str:
        return frame_label(self.number(i), self.suffixes[i], self.dates[i]) or "?"

    def raw_heading(self, i: int) -> str:
        """Frame ``i``'s heading as decoded, from its first line alone (undecodable bytes kept:
        two headings are the same when their bytes are)."""
        start, end = self.starts[i], self.ends[i]
        cut = self.data.find(b"\n", start, end)
        return (
            self.data[start + 3 : end if cut < 0 else cut].decode("utf-8", ENCODING_ERRORS).strip()
        )

    def heading(self, i: int) -> str:
        """Frame ``i``'s ``Frame.heading``."""
        return clean(self.raw_heading(i))


class Frames(Sequence[Frame]):
    """A soul's frames in file order (or a slice of them), each parsed from its source when asked:
    nothing but the columns is held, so iterate once rather than index the same frame often."""

    __slots__ = ("columns", "indices")

    def __init__(self, columns: FrameColumns, indices: range | None = None) -> None:
        self.columns = columns
        self.indices = range(len(columns.starts)) if indices is None else indices

    def __len__(self) -> int:
        return len(self.indices)

    @overload
    def __getitem__(self, i: int) -> Frame: ...
    @overload
    def __getitem__(self, i: slice) -> Frames: ...
    def __getitem__(self, i: int | slice) -> Frame | Frames:
        if isinstance(i, slice):
            return Frames(self.columns, self.indices[i])
        return self.columns.build(self.columns, self.indices[i])

    def __iter__(self) -> Iterator[Frame]:
        build, columns = self.columns.build, self.columns
        for i in self.indices:
            yield build(columns, i)

    def __reversed__(self) -> Iterator[Frame]:
        build, columns = self.columns.build, self.columns
        for i in reversed(self.indices):
            yield build(columns, i)

    def mentioning(self, word: str) -> Iterator[int]:
        """The indices (``Frame.index``) of the frames whose source holds ``word`` (ASCII letters
        in any case), in file order: found in the file's bytes, so the other frames are never built."""
        if not self.indices:
            return
        columns, needle = self.columns, word.encode().lower()
        first, last = sorted((self.indices[0], self.indices[-1]))  # (a slice may step back)
        pos, stop = columns.starts[first], columns.ends[last]
        find = _FoldedSearch(columns.data, needle, stop).find
        while (at := find(pos)) >= 0:
            i = bisect_right(columns.starts, at) - 1
            if at + len(needle) <= columns.ends[i] and i in self.indices:
                yield i
                pos = columns.ends[i]
            else:  # in a section between frames
                pos = at + len(needle)

    def mentioning_from_end(self, word: str) -> Iterator[int]:
        """``mentioning``, last first: searched from the end in windows that double, so that the
        last frames holding ``word`` are found without searching all of a long file."""
        stop, size = len(self), 8
        while stop > 0:
            start = max(0, stop - size)
            yield from reversed(list(self[start:stop].mentioning(word)))
            stop, size = start, 2 * size

    def __eq__(self, other: object) -> bool:
        """The same frames as another ``Frames``, tuple or list."""
        if isinstance(other, (Frames, tuple, list)):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    def __hash__(self) -> int:
        return hash((id(self.columns), self.indices))

    def __repr__(self) -> str:
        return f"<{len(self)} frames>"


class _FoldedSearch:
    """Where ``needle`` (lower case) is in ``data`` before ``stop``, ASCII letters in any case (as
    a bytes pattern with ``re.I`` finds it): a window of ``data`` is lowered at a time and
    searched as ``bytes.find`` does, many times faster than the pattern (which reads byte by
    byte), and no lowered copy of the whole file is held."""

    __slots__ = ("data", "needle", "stop", "lo", "hi", "window")

    WINDOW = 1 << 20

    def __init__(self, data: bytes, needle: bytes, stop: int) -> None:
        self.data, self.needle, self.stop = data, needle, stop
        self.lo = self.hi = 0
        self.window = b""

    def find(self, pos: int) -> int:
        """The first place at or after ``pos`` where ``needle`` starts (and ends before
        ``stop``), -1 for none."""
        size = len(self.needle)
        while pos + size <= self.stop:
            if not self.lo <= pos < self.hi:
                self.lo, self.hi = pos, min(self.stop, pos + max(self.WINDOW, 2 * size))
                self.window = self.data[self.lo : self.hi].lower()
            at = self.window.find(self.needle, pos - self.lo)
            if at >= 0:
                return self.lo + at
            if self.hi >= self.stop:
                return -1
            # A needle across the window's end is whole in the next window, which starts there.
            pos, self.hi = max(pos, self.hi - size + 1), self.lo
        return -1


class Blocks(Sequence["Section | Frame"]):
    """A soul's sections and frames in file order; frames are built when reached."""

    __slots__ = ("frames", "sections", "places", "_at")

    def __init__(self, frames: Frames, sections: tuple[Section, ...], places: tuple[int, ...]):
        self.frames = frames
        self.sections = sections
        self.places = places  # for each section, how many frames come before it
        self._at = [p + j for j, p in enumerate(places)]  # each section's position among blocks

    def __len__(self) -> int:
        return len(self.frames) + len(self.sections)

    @overload
    def __getitem__(self, k: int) -> Section | Frame: ...
    @overload
    def __getitem__(self, k: slice) -> list[Section | Frame]: ...
    def __getitem__(self, k: int | slice) -> Section | Frame | list[Section | Frame]:
        if isinstance(k, slice):
            return [self[i] for i in range(len(self))[k]]
        if k < 0:
            k += len(self)
        if not 0 <= k < len(self):
            raise IndexError(k)
        j = bisect_left(self._at, k)
        if j < len(self._at) and self._at[j] == k:
            return self.sections[j]
        return self.frames[k - j]

    def __iter__(self) -> Iterator[Section | Frame]:
        done = 0
        for section, place in zip(self.sections, self.places, strict=True):
            yield from self.frames[done:place]
            done = place
            yield section
        yield from self.frames[done:]

    def mentioning(self, word: str) -> Iterator[Section | Frame]:
        """The sections, and the frames whose source holds ``word`` (``Frames.mentioning``), in
        file order: what a search for observations of a label needs to look at."""
        columns = self.frames.columns
        found = self.frames.mentioning(word)
        i = next(found, None)
        for section, place in zip(self.sections, self.places, strict=True):
            while i is not None and i < place:
                yield columns.build(columns, i)
                i = next(found, None)
            yield section
        while i is not None:
            yield columns.build(columns, i)
            i = next(found, None)


@dataclass(frozen=True, eq=False)
class Soul:
    """A parsed soul file. ``render()`` gives back the exact bytes it was parsed from."""

    data: bytes  # the file; the preamble's and its blocks' sources decode it piece by piece
    preamble: str  # everything before the first ``##`` heading (the ``# Name`` line)
    sections: tuple[Section, ...]
    frames: Frames
    problems: tuple[Problem, ...]
    name: str | None = None
    identity: dict[str, str] = field(default_factory=dict)
    agent_id: str | None = None
    section_places: tuple[int, ...] = ()  # for each section, how many frames come before it

    @cached_property
    def blocks(self) -> Blocks:
        return Blocks(self.frames, self.sections, self.section_places)

    def section(self, title: str) -> Section | None:
        key = title.lower()
        return next((s for s in self.sections if s.title.lower() == key), None)

    def items(self, title: str) -> tuple[str, ...]:
        """Bullets of a header section: ``soul.items("Convictions")``."""
        s = self.section(title)
        return s.items if s else ()

    @property
    def interests(self) -> tuple[str, ...]:
        """The Interests section: one per bullet, or comma-separated on one bullet."""
        return tuple(
            i.strip() for item in self.items("Interests") for i in item.split(",") if i.strip()
        )

    def render(self) -> bytes:
        """The file's bytes, exactly as parsed."""
        return self.data

    @property
    def source(self) -> str:
        """The decoded file (undecodable bytes kept as lone surrogates), decoded when asked."""
        return self.data.decode("utf-8", ENCODING_ERRORS)

    @cached_property
    def display_text(self) -> str:
        """The whole file for display, undecodable bytes replaced (computed once: a worker can
        prepare it for the UI)."""
        return "".join(map(clean, decoded_pieces(self.data)))

    @property
    def frame_lines(self) -> Sequence[int]:
        """Each frame's heading line (1-based), in file order, without building the frames."""
        return self.frames.columns.lines

    def frame_at_line(self, line: int) -> Frame | None:
        lines = self.frame_lines
        i = bisect_right(lines, line) - 1
        if i >= 0 and line <= self.frames.columns.end_lines[i]:
            return self.frames[i]
        return None

    def find_frames(self, number: int | str) -> list[Frame]:
        """Frames whose number (``237``) or label (``500b``) matches, in file order."""
        text = str(number).strip()
        columns = self.frames.columns
        return [
            self.frames[i]
            for i in range(len(self.frames))
            if columns.label(i) == text
            or (columns.numbers[i] >= 0 and str(columns.numbers[i]) == text)
        ]

    def latest(self, label: str) -> list[str]:
        """The texts of ``label`` in the last frame that has it ([] when none does), found from
        the end of the file: a frame that does not mention the label is not built."""
        word = label_key(label).split()[0]
        columns = self.frames.columns
        for i in self.frames.mentioning_from_end(word):
            texts = columns.build(columns, i).get(label)
            if texts:
                return texts
        return []

    @property
    def last_frame(self) -> Frame | None:
        return self.frames[-1] if self.frames else None

    @property
    def duplicates(self) -> list[Frame]:
        return [self.frames[i] for i, d in enumerate(self.frames.columns.duplicates) if d >= 0]

    @property
    def time_reversals(self) -> list[Frame]:
        """Frames dated before the previous dated frame."""
        return [self.frames[i] for i, r in enumerate(self.frames.columns.reversed) if r]
