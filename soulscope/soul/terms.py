"""What counts as a use of a term in memory: the one matching rule of ``first`` and ``spread``.

By default a term is matched as a person means it: as a word or a phrase, in any letter case,
not inside a longer word (``predictability`` is not in ``unpredictability``; ``sortition``
finds ``Sortition``), the words of a phrase separated by any spacing or a hyphen. It is found as
people write it: any apostrophe, emphasis marks around it, letters outside ASCII in any case and
Unicode form, and not inside a longer word of any script (``caf`` is not in ``café``). ``exact`` matches the
bytes as typed, as ``git log -S`` does. ``stem`` also finds the term's other endings
(``sortition`` finds ``sortitions``).

An agent's name is not its use of a word: the soul's title (``# Entropy``) and a name field of
its header (``- **Display name:** Entropy``) hold no use; its Convictions and Interests do.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import cached_property

from soulscope.soul.model import ENCODING_ERRORS

# Between the words of a term: spacing or hyphens; the same in a soul file, with emphasis marks
# beside them (``**memory** palace``). Hyphens: the ASCII one, U+2010 and the non-breaking U+2011.
_HYPHENS = "\u2010\u2011-"
_SPLIT = re.compile(rf"[\s{_HYPHENS}]+")
_MARKS = rb"[*_~`]*"
_SEP = (
    _MARKS
    + rb"(?:(?:\s|\xc2\xa0)+|"
    + b"|".join(re.escape(h.encode()) for h in _HYPHENS)
    + rb")"
    + _MARKS
)
# Apostrophes a word may be written with: typed, typographic, the letter modifier.
_APOSTROPHES = "'\u2019\u2018\u02bc"
# Around a term as typed: emphasis, code and quotation marks, no part of the word.
_TERM_MARKS = '*_~`"\u201c\u201d'
_ASCII_RUN = re.compile(r"[a-z0-9]+")
_LEAD = re.compile(rb"(?:[a-z0-9]|\\.)*")  # a pattern's first plain bytes (escaped ones too)


def _letters(word: str) -> bytes:
    """A pattern of ``word`` (in lower case) for bytes lowered as ``bytes.lower`` lowers them:
    an ASCII letter as itself, any other letter in either case and in both Unicode forms
    (composed, and decomposed into its letter and marks), an apostrophe as any apostrophe. A
    letter is not matched without its marks: ``résumé`` is not ``resume``."""
    out = []
    for c in unicodedata.normalize("NFC", word.lower()):
        if c in _APOSTROPHES:
            out.append(b"(?:" + b"|".join(re.escape(a.encode()) for a in _APOSTROPHES) + b")")
        elif c.isascii():
            out.append(re.escape(c.encode()))
        else:
            forms = {v for f in (c, c.upper()) for v in (f, unicodedata.normalize("NFD", f))}
            alts = sorted({v.encode("utf-8").lower() for v in forms}, key=lambda b: (-len(b), b))
            out.append(b"(?:" + b"|".join(re.escape(a) for a in alts) + b")")
    return b"".join(out)


def _char_before(data: bytes, at: int) -> str:
    """The character that ends just before byte ``at`` ("" at the start)."""
    return data[max(0, at - 4) : at].decode("utf-8", "replace")[-1:]


def _char_after(data: bytes, at: int) -> str:
    return data[at : at + 4].decode("utf-8", "replace")[:1]


def _in_word(c: str) -> bool:
    """A letter, a digit or a mark that joins the letter before it (the ``\u0308`` of ``ö``)."""
    return c.isalnum() or unicodedata.category(c)[:1] == "M" if c else False


def _apart(data: bytes, start: int, end: int) -> bool:
    """The match ``data[start:end]`` stands as words: no letter, digit or joining mark of any
    script against it (``caf`` is not in ``café``); underscores beside it are emphasis
    (``_sortition_``) unless a letter is beyond them (``memory_palace`` is one name)."""
    if (start == 0 or data[start - 1] < 0x5F) and (end == len(data) or data[end] < 0x5F):
        return True  # ASCII neither letter nor digit (``pattern`` saw to those) on both sides
    lo = start
    while lo > 0 and data[lo - 1] == 0x5F:  # "_"
        lo -= 1
    hi = end
    while hi < len(data) and data[hi] == 0x5F:
        hi += 1
    before, after = _char_before(data, lo), _char_after(data, hi)
    return not _in_word(before) and not _in_word(after)


_NAME_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")


def _in_name(data: bytes, start: int, end: int, names: Callable[[bytes], object]) -> bool:
    """The match ``data[start:end]`` lies inside a longer run of letters, digits and hyphens
    of which a part that ``names`` says is an agent's name holds it ("zion-curator-02" and
    "curator-04-upvote" for "curator")."""
    lo = start
    while lo > 0 and data[lo - 1] in _NAME_BYTES:
        lo -= 1
    hi = end
    while hi < len(data) and data[hi] in _NAME_BYTES:
        hi += 1
    if lo == start and hi == end:
        return False
    parts = data[lo:hi].split(b"-")
    first, last = data.count(b"-", lo, start), data.count(b"-", lo, max(start, end - 1))
    for i in range(max(0, first - 4), first + 1):  # the parts around the match, a few at most
        for j in range(last, min(len(parts), last + 5)):
            part = b"-".join(parts[i : j + 1])
            if j > i and part != data[start:end] and names(part):
                return True
    return False


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
    # what tells a run of letters, digits and hyphens that names an agent ("zion-curator-02",
    # "curator-08"): a match inside one is part of a name, not a use (``naming``)
    names: Callable[[bytes], object] | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        if not self.text.strip():
            raise ValueError("the term to look for cannot be empty")
        if self.mode not in ("word", "exact", "stem"):
            raise ValueError(f"unknown match mode '{self.mode}' (use word, exact or stem)")
        if self.mode != "exact" and not self._words:
            raise ValueError(f"the term '{self.text}' holds no word to look for")

    def naming(self, names: Callable[[bytes], object]) -> Term:
        """This term where ``names`` (a run of a file's bytes -> truthy where it names an agent)
        tells its uses from the names of agents that hold its words: "curator" is not used in
        "replied to zion-curator-02". A term that is itself a name ("curator-08") is found in
        the longer names too ("zion-curator-08")."""
        if self.mode == "exact" or names(self.text.strip().encode("utf-8", ENCODING_ERRORS)):
            return self
        return replace(self, names=names)

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
        """The term in bytes of any letter case (``exact``: as typed); its matches are uses only
        where ``starts`` keeps them (what stands around them is not part of a word)."""
        if self.mode == "exact":
            return re.compile(re.escape(self.text.encode("utf-8", ENCODING_ERRORS)))
        return re.compile(self._source, re.IGNORECASE)

    @cached_property
    def _words(self) -> list[str]:
        """The term's words, as written in any Unicode form (NFC), apart at spacing and hyphens;
        the marks of emphasis, code or quotation around the term are no part of it (a term
        pasted as ``**sortition**`` or `` `inotify` `` is the word)."""
        text = unicodedata.normalize("NFC", self.text).strip().strip(_TERM_MARKS).strip()
        return [w for w in _SPLIT.split(text) if w]

    @cached_property
    def _needles(self) -> tuple[bytes, ...]:
        """Bytes each use holds in lower case (ASCII letters folded, as ``bytes.lower``): the
        longest run of plain letters and digits of each word (in ``stem`` mode, of the last word
        what it shares with its stem)."""
        if self.mode == "exact":
            return (self.text.encode("utf-8", ENCODING_ERRORS),)
        words = [w.lower() for w in self._words]
        if self.mode == "stem":
            words[-1] = words[-1][: len(self._stem_shared)]
        runs = [max(_ASCII_RUN.findall(w), key=len, default="") for w in words]
        return tuple(r.encode() for r in runs if r)

    @cached_property
    def _stem_shared(self) -> str:
        """What the last word as typed (lower case) and its stem start with."""
        word = self._words[-1].lower()
        stem = _stem(word)
        n = 0
        while n < min(len(stem), len(word)) and stem[n] == word[n]:
            n += 1
        return word[:n]

    @cached_property
    def _source(self) -> bytes:
        """The pattern of a word or phrase, for bytes in lower case (ASCII letters folded): each
        letter in any case and Unicode form (``ö`` as one letter or as ``o`` and its mark), an
        apostrophe as any apostrophe (``won't``, ``won’t``), the words apart by any spacing or a
        hyphen (``self-model``, ``self‑model``, ``self model``), emphasis marks beside them
        (``**memory** palace``); in ``stem`` mode the last word as typed or its stem with an
        ending. Where a match stands in a longer word ``starts`` decides. It starts with the
        first word's plain bytes where it has them, and looks behind them after: ``re`` then
        searches for those bytes as ``bytes.find`` does, where a pattern that starts with a
        look-behind is tried at every byte."""
        words = [_letters(w) for w in self._words]
        if self.mode == "stem":
            shared = self._stem_shared
            typed = self._words[-1].lower()
            last = _stem(typed)
            either = _letters(typed[len(shared) :]) + b"|" + _letters(last[len(shared) :])
            words[-1] = _letters(shared) + b"(?:" + either + _STEM_TAIL + b")"
        body = _SEP.join(words)
        lead = _LEAD.match(body)
        if lead is None or not lead.group():
            return rb"(?<![a-z0-9])" + body + rb"(?![a-z0-9])"
        head = lead.group()
        return head + rb"(?<![a-z0-9]" + head + rb")" + body[len(head) :] + rb"(?![a-z0-9])"

    @cached_property
    def _folded(self) -> re.Pattern[bytes]:
        """``pattern`` for the bytes lowered (``bytes.lower``, ASCII letters, as
        ``re.IGNORECASE`` folds bytes): the same matches at the same offsets, found many times
        faster without folding case."""
        return re.compile(self._source)

    def starts(self, data: bytes) -> list[int]:
        """Where each use of the term in ``data`` starts: the matches of ``pattern`` (``_folded``
        finds the same many times faster) that stand as words (``_apart``), but for those on
        lines that name the agent (``name_spans``); [] at once when the bytes of the term's
        words (letter case folded) are not all in ``data``."""
        if self.mode == "exact":
            if self._needles[0] not in data:
                return []
            found = [m.start() for m in self.pattern.finditer(data)]
        else:
            low = data.lower()
            if not all(w in low for w in self._needles):
                return []
            spans = [m.span() for m in self._folded.finditer(low) if _apart(data, *m.span())]
            if spans and self.names is not None:
                spans = [(a, b) for a, b in spans if not _in_name(data, a, b, self.names)]
            found = [a for a, _ in spans]
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
        return bool(self.starts(line)) if self.mode != "exact" else line.find(self._needles[0]) >= 0

    def git_filter(self) -> list[str]:
        """``git log`` options that find every commit whose changes could hold the term (a
        superset: each is checked again with ``pattern``)."""
        if self.mode == "exact":
            return [f"-S{self.text}"]
        # the longest plain run of letters a use must hold (its letters in any case, its
        # apostrophes and hyphens in any form are for ``pattern`` to check)
        run = max(self._needles, key=len, default=b"")
        if len(run) >= 2:
            return ["-G" + _ERE_SPECIAL.sub(r"\\\1", run.decode()), "-i"]
        return []  # no plain letters to look for: every commit is read
