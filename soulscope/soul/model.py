"""Immutable values for a parsed soul file.

A soul is a sequence of blocks (preamble, sections, frames) whose ``source`` strings concatenate
back to the decoded file exactly; decoding uses ``surrogateescape`` so undecodable bytes survive
the round trip. Display strings (``text``, ``heading``...) have such bytes replaced by U+FFFD.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property

ENCODING_ERRORS = "surrogateescape"
UNDECODED = re.compile("[\ud800-\udfff]")  # lone surrogates: how surrogateescape keeps bytes


def clean(text: str) -> str:
    """Replace undecodable bytes (kept as lone surrogates) with U+FFFD for display; ``text``
    itself, not a copy, when it has none."""
    if text.isascii() or not UNDECODED.search(text):
        return text
    return text.encode("utf-8", ENCODING_ERRORS).decode("utf-8", "replace")


def label_key(label: str) -> str:
    """The canonical form of an observation label: lower case, single spaces."""
    return " ".join(label.lower().split())


def frame_heading(source: str) -> str:
    """The display text of the ``## `` heading that begins ``source``."""
    end = source.find("\n")
    return clean((source[3:end] if end >= 0 else source[3:]).strip())


def frame_label(number: int | None, suffix: str, date: str | None) -> str | None:
    """``237``, ``500b``, ``408 solo``; the date for unnumbered frames; None when neither is known."""
    if number is not None:
        return f"{number}{suffix}" if len(suffix) <= 1 else f"{number} {suffix}"
    return date


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


@dataclass(frozen=True)
class Soul:
    """A parsed soul file. ``render()`` gives back the exact bytes it was parsed from."""

    preamble: str  # everything before the first ``##`` heading (the ``# Name`` line)
    blocks: tuple[Section | Frame, ...]
    problems: tuple[Problem, ...]
    name: str | None = None
    identity: dict[str, str] = field(default_factory=dict)
    agent_id: str | None = None

    @cached_property
    def frames(self) -> tuple[Frame, ...]:
        return tuple(b for b in self.blocks if isinstance(b, Frame))

    @cached_property
    def sections(self) -> tuple[Section, ...]:
        return tuple(b for b in self.blocks if isinstance(b, Section))

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
        return self.source.encode("utf-8", ENCODING_ERRORS)

    @property
    def source(self) -> str:
        return self.preamble + "".join(b.source for b in self.blocks)

    @cached_property
    def display_text(self) -> str:
        """The whole file for display, undecodable bytes replaced (computed once: a worker can
        prepare it for the UI)."""
        return clean(self.source)

    def frame_at_line(self, line: int) -> Frame | None:
        for f in self.frames:
            if f.line <= line <= f.end_line:
                return f
        return None

    def find_frames(self, number: int | str) -> list[Frame]:
        """Frames whose number (``237``) or label (``500b``) matches, in file order."""
        text = str(number).strip()
        return [
            f
            for f in self.frames
            if f.label == text or (f.number is not None and str(f.number) == text)
        ]

    @property
    def last_frame(self) -> Frame | None:
        return self.frames[-1] if self.frames else None

    @property
    def duplicates(self) -> list[Frame]:
        return [f for f in self.frames if f.duplicate_of is not None]

    @property
    def time_reversals(self) -> list[Frame]:
        """Frames dated before the previous dated frame."""
        return [f for f in self.frames if f.time_reversed]
