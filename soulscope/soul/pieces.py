"""A parsed soul and its arc in pieces that are cheap to receive, for parsing it in another
process.

Unpickling a big soul whole (218,000 frames: lists of hundreds of thousands of strings) is one
long C call, which holds the interpreter while it runs; its columns go instead as flat arrays
(bytes) and its lists a few thousand items at a time. The file's bytes are not sent: the
receiver has them already and puts the soul together around them.
"""

from __future__ import annotations

import sys
from array import array
from collections.abc import Iterator, Sequence
from typing import Any

from soulscope.soul.chapters import Chapter, Outline
from soulscope.soul.model import FrameColumns, Frames, Problem, Soul
from soulscope.soul.trajectory import Arc

# Items of a list in one piece (a few milliseconds to unpickle).
CHUNK = 5000

_ARRAYS = ("starts", "ends", "lines", "end_lines", "numbers", "duplicates")
_STRINGS = ("suffixes", "dates", "times", "titles")
_ARC_ARRAYS = ("lines", "frame_indices", "magnitudes")

Piece = tuple[str, Any]


def chunks(items: Sequence[Any], kind: str, name: str = "") -> Iterator[Piece]:
    """``items`` as pieces ``(kind, (name, a few thousand items))``."""
    for start in range(0, len(items), CHUNK):
        yield kind, (name, list(items[start : start + CHUNK]))


def soul_pieces(soul: Soul) -> Iterator[Piece]:
    """``soul`` as pieces, each a small value to pickle, in the order ``SoulPieces`` takes them."""
    columns = soul.frames.columns
    yield (
        "soul",
        (
            soul.preamble,
            soul.sections,
            soul.name,
            soul.identity,
            soul.agent_id,
            soul.section_places,
            columns.build,
        ),
    )
    for name in _ARRAYS:
        yield "array", (name, getattr(columns, name).tobytes())
    yield "array", ("reversed", bytes(columns.reversed))
    for name in _STRINGS:
        yield from chunks(getattr(columns, name), "strings", name)
    yield from chunks(soul.problems, "problems")


class SoulPieces:
    """The receiving side: ``add`` each piece, then ``soul()`` is the soul of ``data``."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self._head: tuple | None = None
        self._columns: FrameColumns | None = None
        self._problems: list[Problem] = []

    def add(self, kind: str, value: Any) -> None:
        if kind == "soul":
            self._head = value
            self._columns = FrameColumns(self.data, value[-1])
            return
        columns = self._columns
        assert columns is not None, "the soul's head comes first"
        name, items = value
        if kind == "array":
            if name == "reversed":
                columns.reversed = bytearray(items)
            else:
                column = array("q")
                column.frombytes(items)
                setattr(columns, name, column)
        elif kind == "strings":
            # One string for each recurring date, time or title, as the parser keeps them.
            getattr(columns, name).extend([s and sys.intern(s) for s in items])
        elif kind == "problems":
            self._problems += items
        else:
            raise ValueError(f"not a piece of a soul: {kind}")

    def soul(self) -> Soul:
        assert self._head is not None and self._columns is not None, "no soul was received"
        preamble, sections, name, identity, agent_id, places, _ = self._head
        return Soul(
            data=self.data,
            preamble=preamble,
            sections=sections,
            frames=Frames(self._columns),
            problems=tuple(self._problems),
            name=name,
            identity=identity,
            agent_id=agent_id,
            section_places=places,
        )


def arc_pieces(statements: Arc) -> Iterator[Piece]:
    """An arc as pieces ``("arc", (name, value))``, in the order ``ArcPieces`` takes them."""
    for name in _ARC_ARRAYS:
        yield "arc", (name, getattr(statements, name).tobytes())
    yield "arc", ("kinds", bytes(statements.kinds))
    yield from chunks(statements.texts, "arc", "texts")
    yield from chunks(statements.roles, "arc", "roles")
    turns = [(i, *turn) for i, turn in statements.turns.items()]
    yield from chunks(turns, "arc", "turns")
    yield from chunks(sorted(statements.mismatches), "arc", "mismatches")
    yield from chunks(list(statements.titles.items()), "arc", "titles")
    yield "arc", ("position", b"\x01" if statements.position else b"")
    outline = statements.outline()
    yield "arc", ("moves", outline.moves.tobytes())
    yield "arc", ("turning", bytes(outline.turning))
    chapters = [(c.number, c.start, c.end, c.title) for c in outline.chapters]
    yield from chunks(chapters, "arc", "chapters")


class ArcPieces:
    """The receiving side: ``add`` each arc piece's value, then ``arc(frames)`` is the arc, its
    statements reading their frames from ``frames`` (the soul's, parsed from the same bytes)."""

    def __init__(self) -> None:
        self._values: dict[str, Any] = {}
        self._lists: dict[str, list[Any]] = {}

    def add(self, value: tuple[str, Any]) -> None:
        name, items = value
        if isinstance(items, bytes):
            self._values[name] = items
        else:
            self._lists.setdefault(name, []).extend(items)

    def arc(self, frames: FrameColumns) -> Arc:
        statements = Arc(frames, position=bool(self._values.get("position")))
        for name in _ARC_ARRAYS:
            getattr(statements, name).frombytes(self._values.get(name, b""))
        statements.kinds = bytearray(self._values.get("kinds", b""))
        statements.texts = self._lists.get("texts", [])
        for role in self._lists.get("roles", []):
            statements.add_role(role)
        statements.turns = {i: (y, z) for i, y, z in self._lists.get("turns", [])}
        statements.mismatches = set(self._lists.get("mismatches", []))
        statements.titles = dict(self._lists.get("titles", []))
        if (
            not len(statements.lines)
            == len(statements.kinds)
            == len(statements.texts)
            == len(statements.roles)
        ):
            raise ValueError("the arc's pieces do not agree on its length")
        moves = array("d")
        moves.frombytes(self._values.get("moves", b""))
        chapters = tuple(Chapter(*c) for c in self._lists.get("chapters", []))
        statements.set_outline(Outline(moves, self._values.get("turning", b""), chapters))
        return statements
