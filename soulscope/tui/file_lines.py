"""A big file's lines for the Soul view, held as its bytes and where each line starts: a line is
decoded when it is shown. (A 20 MB soul as 650,000 strings, and its text as one more, took five
times the file's size.) Nothing here imports Textual: the loading process cuts the lines too.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Iterator, Sequence
from itertools import accumulate, compress
from operator import sub
from typing import overload

from soulscope.controls import visible
from soulscope.soul.model import clean, decoded_pieces

# Lines looked at in one C call (about a millisecond's worth) by a scan of the whole file.
_SCAN_LINES = 20_000
_SPLIT_BYTES = 1 << 20


def line_bounds(data: bytes) -> array:
    """Where each of the view's lines starts in ``data``, and where the last one ends: the lines
    ``display_lines`` cuts from the decoded file (a newline ends a line; text after the last one
    is a line; an empty file is one empty line). The file is split a megabyte at a time: its
    650,000 lines as objects at once would weigh twice the file."""
    bounds = array("q")
    pos, last_start, last = 0, 0, b""
    while pos < len(data):
        cut = data.find(b"\n", pos + _SPLIT_BYTES)
        end = len(data) if cut < 0 else cut + 1
        parts = data[pos:end].split(b"\n")
        last = parts.pop()  # after a newline, empty: the next piece's first line starts there
        bounds.extend(accumulate((len(p) + 1 for p in parts), initial=pos))
        last_start = bounds.pop()
        pos = end
    bounds.append(last_start)  # the end of the last line, or where the text after it starts
    if last or len(bounds) == 1:
        bounds.append(len(data))  # text after the last newline, or none at all: one more line
    return bounds


def long_lines(data: bytes, length: int) -> tuple[array, array, bytes]:
    """The lines of ``data`` longer than ``length`` characters as shown: their indices, their
    lengths, and whether each is ASCII (1) or not (0). (Decoded a piece at a time: the whole
    file's text and lines at once would double the loading process's memory.)"""
    indices, lengths, plain = array("q"), array("q"), bytearray()
    first = 0
    for piece in decoded_pieces(data):
        shown = visible(clean(piece)).split("\n")
        if piece.endswith("\n"):
            shown.pop()  # a newline ends a line; what follows it is not a line of its own
        longer = list(map(length.__lt__, map(len, shown)))
        long = list(compress(shown, longer))
        indices.extend(compress(range(first, first + len(shown)), longer))
        lengths.extend(map(len, long))
        plain.extend(map(str.isascii, long))
        first += len(shown)
    return indices, lengths, bytes(plain)


class FileLines(Sequence[str]):
    """The lines of ``data`` as the view shows them (undecodable bytes as U+FFFD, control
    characters as pictures), each decoded when asked for; ``bounds`` from ``line_bounds``."""

    __slots__ = ("data", "bounds")

    def __init__(self, data: bytes, bounds: array) -> None:
        self.data = data
        self.bounds = bounds

    def __len__(self) -> int:
        return len(self.bounds) - 1

    @overload
    def __getitem__(self, i: int) -> str: ...
    @overload
    def __getitem__(self, i: slice) -> list[str]: ...
    def __getitem__(self, i: int | slice) -> str | list[str]:
        if isinstance(i, slice):
            return [self[k] for k in range(len(self))[i]]
        if i < 0:
            i += len(self)
        if not 0 <= i < len(self):
            raise IndexError(i)
        # With its newline: a carriage return before it is the line's end, not a control shown.
        line = visible(self.data[self.bounds[i] : self.bounds[i + 1]].decode("utf-8", "replace"))
        return line[:-1] if line.endswith("\n") else line

    def __iter__(self) -> Iterator[str]:
        return map(self.__getitem__, range(len(self)))

    def longer_than(self, length: int) -> Iterable[int]:
        """The indices of the lines that may be longer than ``length`` characters (those of more
        bytes: a character is one byte or more), found from the bounds alone, a slice at a time."""
        bounds = self.bounds
        for start in range(0, len(self), _SCAN_LINES):
            stop = min(start + _SCAN_LINES, len(self))
            sizes = map(sub, bounds[start + 1 : stop + 1], bounds[start:stop])  # (and newlines)
            yield from compress(range(start, stop), map(length.__lt__, sizes))
