"""What counts as a use of a term in memory: the one matching rule of ``first`` and ``spread``.

By default a term is matched as a person means it: as a word or a phrase, in any letter case,
not inside a longer word (``predictability`` is not in ``unpredictability``; ``sortition``
finds ``Sortition``), the words of a phrase separated by any spacing. ``exact`` matches the
bytes as typed, as ``git log -S`` does. ``stem`` also finds the term's other endings
(``sortition`` finds ``sortitions``).

An agent's name is not its use of a word: the soul's title (``# Entropy``) and a name field of
its header (``- **Display name:** Entropy``) hold no use; its Convictions and Interests do.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property

from soulscope.soul.model import ENCODING_ERRORS


def _stem(word: str) -> str:
    import snowballstemmer

    return snowballstemmer.stemmer("english").stemWord(word.lower())


_ERE_SPECIAL = re.compile(r"([.\[\]()*+?{}|^$\\])")
# The endings a stemmed match admits after the stem: inflections and common derivations, not any
# letters ("lantern" must not find "Lanternfield").
_STEM_TAIL = (
    rb"(?:e?s|e?d|ing|ings|e?r|e?rs|ions?|ations?|als?|ally|ly|ity|ities|ive|ives|isms?|ists?"
    rb"|ments?|ness|ies|y)?"
)


# The lines that name the agent: the title (a ``#`` heading as the file's first line) and, before the
# first frame, a name field (``- **Name:** Entropy``, ``Display name: ...``).
_TITLE = re.compile(rb"[ \t\r\n]*(?:\xef\xbb\xbf)?#[ \t][^\n]*")
_NAME_FIELD = re.compile(
    rb"^[ \t]*(?:[-*+][ \t]+)?(?:\*\*|__)?[ \t]*(?:display[ _]?|full[ _]?)?name"
    rb"[ \t]*(?:\*\*|__)?[ \t]*:[^\n]*",
    re.IGNORECASE | re.MULTILINE,
)
# A frame's heading; after a newline, so that ``re`` finds it as fast as ``bytes.find`` does.
_FRAME_HEADING = rb"#{2,3}[ \t]*(?:[Ff][Rr][Aa][Mm][Ee]\b|\d{4}-)"
_FIRST_FRAME = re.compile(b"\n" + _FRAME_HEADING)
_FRAME_AT_START = re.compile(_FRAME_HEADING)


def name_spans(data: bytes) -> list[tuple[int, int]]:
    """The byte spans of a soul file's lines that name its agent (see the module's docstring)."""
    out = []
    title = _TITLE.match(data)
    if title is not None:
        out.append((title.end() - len(title.group().lstrip(b" \t\r\n\xef\xbb\xbf")), title.end()))
    if _FRAME_AT_START.match(data):
        return out
    frame = _FIRST_FRAME.search(data)
    end = len(data) if frame is None else frame.start()
    header = data[:end].lower()
    at = header.find(b"name")
    while at >= 0:  # each line of the header that holds "name", read from its start
        start = header.rfind(b"\n", 0, at) + 1
        m = _NAME_FIELD.match(data, start, end)
        if m is not None:
            out.append(m.span())
        stop = header.find(b"\n", at)
        at = -1 if stop < 0 else header.find(b"name", stop)
    return out


def _outside(starts: list[int], spans: list[tuple[int, int]]) -> list[int]:
    return [at for at in starts if not any(lo <= at < hi for lo, hi in spans)]


@dataclass(frozen=True)
class Term:
    """A term to look for, and how: ``word`` (default), ``exact`` or ``stem``."""

    text: str
    mode: str = "word"

    def __post_init__(self) -> None:
        if not self.text.strip():
            raise ValueError("the term to look for cannot be empty")
        if self.mode not in ("word", "exact", "stem"):
            raise ValueError(f"unknown match mode '{self.mode}' (use word, exact or stem)")

    @property
    def described(self) -> str:
        """How it was matched, for output: ``as a word, any case`` ..."""
        return {
            "word": "as a word or phrase, any letter case",
            "exact": "exactly as typed (case-sensitive, inside words too)",
            "stem": "by its stem, any ending and letter case",
        }[self.mode]

    @cached_property
    def pattern(self) -> re.Pattern[bytes]:
        if self.mode == "exact":
            return re.compile(re.escape(self.text.encode("utf-8", ENCODING_ERRORS)))
        return re.compile(self._source, re.IGNORECASE)

    @cached_property
    def _needles(self) -> tuple[bytes, ...]:
        raw = self.text.encode("utf-8", ENCODING_ERRORS)
        if self.mode == "exact":
            return (raw,)
        words = [w.lower() for w in raw.split()]
        if self.mode == "stem":  # what the word as typed and its stem share
            stem = _stem(words[-1].decode("utf-8", ENCODING_ERRORS)).encode("utf-8")
            n = 0
            while n < min(len(stem), len(words[-1])) and stem[n] == words[-1][n]:
                n += 1
            words[-1] = words[-1][:n]
        return tuple(words)

    @cached_property
    def _source(self) -> bytes:
        """The pattern of a word or phrase, in lower case: its words, apart by any spacing, not
        inside a longer word; in ``stem`` mode the last word as typed or its stem with an ending.
        It starts with the first word's bytes and looks behind them after, not before: ``re``
        then searches for those bytes as ``bytes.find`` does, where a pattern that starts with a
        look-behind is tried at every byte."""
        typed = self.text.encode("utf-8", ENCODING_ERRORS).lower().split()
        words = [re.escape(w) for w in typed]
        lead = words[0]
        if self.mode == "stem":  # what the word as typed and its stem start with, then either
            shared = self._needles[-1]
            n = len(shared)
            last = _stem(typed[-1].decode("utf-8", ENCODING_ERRORS)).encode("utf-8").lower()
            either = re.escape(typed[-1][n:]) + b"|" + re.escape(last[n:]) + _STEM_TAIL
            words[-1] = re.escape(shared) + b"(?:" + either + b")"
            if len(words) == 1:
                lead = re.escape(shared)  # may be empty: then the look-behind is first, and slow
        rest = rb"\s+".join(words)[len(lead) :]
        return lead + rb"(?<![\w]" + lead + rb")" + rest + rb"(?![\w])"

    @cached_property
    def _folded(self) -> re.Pattern[bytes]:
        """``pattern`` for the bytes lowered (``bytes.lower``, ASCII letters, as
        ``re.IGNORECASE`` folds bytes): the same matches at the same offsets, found many times
        faster without folding case."""
        return re.compile(self._source)

    def starts(self, data: bytes) -> list[int]:
        """Where each match of ``pattern`` in ``data`` starts, as ``pattern.finditer`` finds them
        (``_folded`` finds the same many times faster), but for those on lines that name the
        agent (``name_spans``); [] at once when the bytes of the term's words (letter case
        folded) are not all in ``data``."""
        if self.mode == "exact":
            if self._needles[0] not in data:
                return []
            found = [m.start() for m in self.pattern.finditer(data)]
        else:
            low = data.lower()
            if not all(w in low for w in self._needles):
                return []
            found = [m.start() for m in self._folded.finditer(low)]
        return _outside(found, name_spans(data)) if found else found

    def count(self, data: bytes) -> int:
        return len(self.starts(data))

    def lines(self, data: bytes) -> list[int]:
        """The 1-based lines of ``data`` holding the term."""
        out: list[int] = []
        line, last = 1, 0
        for at in self.starts(data):
            line += data.count(b"\n", last, at)
            last = at
            if not out or out[-1] != line:
                out.append(line)
        return out

    def in_line(self, line: bytes) -> bool:
        return self.pattern.search(line) is not None

    def git_filter(self) -> list[str]:
        """``git log`` options that find every commit whose changes could hold the term (a
        superset: each is checked again with ``pattern``)."""
        if self.mode == "exact":
            return [f"-S{self.text}"]
        words = self.text.split()
        if self.mode == "stem":
            words[-1] = _stem(words[-1])
        ere = "[[:space:]]+".join(_ERE_SPECIAL.sub(r"\\\1", w) for w in words)
        return [f"-G{ere}", "-i"]
