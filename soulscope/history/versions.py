"""One version of a soul file, split at its ``## `` headings, and frame diffs between versions.

A long history is mostly the same blocks over and over: each commit appends a frame or two.
So a version is cut into blocks by a byte search, every distinct block is kept once (keyed by
its bytes), and a block is handed to the real parser only when a question needs what is inside
it (its Becoming or Relationships bullets). Frames are matched on their headings, which the
cut alone gives.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable
from dataclasses import dataclass
from types import SimpleNamespace

from soulscope.soul import when
from soulscope.soul.format import is_frame_heading, label_key
from soulscope.soul.model import ENCODING_ERRORS, clean
from soulscope.soul.parse import parse, parse_heading
from soulscope.soul.trajectory import DEFAULT_LABEL, FALLBACK_LABEL

_BECOMING = label_key(DEFAULT_LABEL)
_EVOLVING = label_key(FALLBACK_LABEL)
_RELATIONSHIPS = "relationships"
_FENCE = re.compile(rb"```|~~~|<!--")


class Block:
    """A ``## `` block: its bytes, heading and, parsed on first use, its identity bullets."""

    __slots__ = ("source", "heading", "key", "is_frame", "_parsed", "_words", "_when", "_key")

    def __init__(self, source: bytes) -> None:
        self.source = source
        end = source.find(b"\n")
        raw = source[3 : end if end >= 0 else len(source)].decode("utf-8", ENCODING_ERRORS)
        raw = raw.rstrip("\r").strip()
        self.is_frame = is_frame_heading(raw)
        self.heading = clean(raw)
        self.key = " ".join(self.heading.split())
        self._parsed: tuple[bool, str | None, str | None, str | None] | None = None
        self._words: tuple[int, int, int] | None = None
        self._when: tuple[str | None, str | None, int | None] | None = None
        self._key: tuple[str, str, int] | None = None

    def _where(self) -> tuple[int, int, int]:
        """Where each wanted label's words first occur (-1: absent), found once, any case."""
        if self._words is None:
            lower = self.source.lower()
            self._words = (
                lower.find(b"becoming"),
                lower.find(b"evolving position"),
                lower.find(b"relationships"),
            )
        return self._words

    @property
    def text(self) -> str:
        return self.source.decode("utf-8", ENCODING_ERRORS)

    @property
    def when(self) -> tuple[str, str, int]:
        """The frame's date, time of day and number as its heading gives them (``soul.when``)."""
        if self._key is None:
            self._key = when.key(*self.heading_when)[:3]
        return self._key

    @property
    def heading_when(self) -> tuple[str | None, str | None, int | None]:
        """The date, time of day and number its heading writes (None where it writes none)."""
        if self._when is None:
            number, _, date, time, _ = parse_heading(self.heading.removeprefix("Frame").strip())
            self._when = (date, time, number)
        return self._when

    def _parse(self) -> tuple[bool, str | None, str | None, str | None]:
        if self._parsed is None:
            # A labelled bullet starts at column 0 and nothing above it changes how it reads,
            # so only the lines from the first one that can hold a wanted label are parsed.
            hits = [i for i in self._where() if i >= 0]
            cut = self.source.rfind(b"\n", 0, min(hits)) + 1 if hits else len(self.source)
            if _FENCE.search(self.source, 0, cut):  # a code block or comment may hold them
                cut = 0
            tail = self.source[cut:] if cut else self.source
            blocks = parse(b"## -\n" + tail if cut else tail).blocks
            obs = blocks[0].observations if blocks else ()
            becoming = [o.text for o in obs if o.key == _BECOMING and o.text]
            evolving = [o.text for o in obs if o.key == _EVOLVING and o.text]
            rel = [o.text for o in obs if o.key == _RELATIONSHIPS and o.text]
            self._parsed = (
                bool(becoming),
                becoming[-1] if becoming else None,
                evolving[-1] if evolving else None,
                " ".join(rel) if rel else None,
            )
        return self._parsed

    @property
    def has_becoming(self) -> bool:
        """Any Becoming statement (an empty bullet states none): it decides which label the
        arc uses."""
        return self._where()[0] >= 0 and self._parse()[0]

    @property
    def becoming(self) -> str | None:
        """The block's last non-empty Becoming statement."""
        return self._parse()[1] if self._where()[0] >= 0 else None

    @property
    def evolving(self) -> str | None:
        """The same for the fallback label, ``Evolving position``."""
        return self._parse()[2] if self._where()[1] >= 0 else None

    @property
    def relationships(self) -> str | None:
        """The text of the block's Relationships bullets."""
        return self._parse()[3] if self._where()[2] >= 0 else None


class Version:
    """A file version as blocks: what a history needs without parsing the whole file."""

    __slots__ = ("size", "header", "blocks", "frames", "_becoming")

    def __init__(self, size: int, header: bytes, blocks: tuple[Block, ...]) -> None:
        self.size = size
        self.header = header  # preamble and every section before the first frame
        self.blocks = blocks
        self.frames = tuple(b for b in blocks if b.is_frame)
        self._becoming: tuple[str | None] | None = None

    def frame_lines(self) -> tuple[int, ...]:
        """The line (1-based) of each frame's heading in the file."""
        preamble = self.size - sum(len(b.source) for b in self.blocks)
        line = 1 + self.header[:preamble].count(b"\n")
        out: list[int] = []
        for block in self.blocks:
            if block.is_frame:
                out.append(line)
            line += block.source.count(b"\n")
        return tuple(out)

    @property
    def becoming(self) -> str | None:
        """The latest identity statement, by the label rule of ``trajectory.arc`` and its
        order: the latest by its frame's time (a section's by the frame above it), of equal
        times the last in the file."""
        if self._becoming is None:
            if any(b.has_becoming for b in self.blocks):
                texts: Callable[[Block], str | None] = lambda b: b.becoming  # noqa: E731
            else:
                texts = lambda b: b.evolving  # noqa: E731
            self._becoming = (self._latest(texts),)
        return self._becoming[0]

    def _latest(self, text: Callable[[Block], str | None]) -> str | None:
        """The statement ``text`` finds in the block latest in time (of equal times the last in
        the file): the file's last where its frames are dated in order, as most files are (the
        blocks before it never read)."""
        frames = self.frames
        if all(b.heading_when[0] for b in frames) and all(
            a.when <= b.when for a, b in zip(frames, frames[1:], strict=False)
        ):
            return next((t for b in reversed(self.blocks) if (t := text(b))), None)
        texts = [text(b) for b in self.blocks]
        places = self._places()
        held = [i for i, t in enumerate(texts) if t]
        return texts[max(held, key=lambda i: (places[i], i))] if held else None

    def _places(self) -> list[tuple]:
        """Each block's place in time (``when.FileTimes`` of the frames, the rule the arc
        orders by; a section takes the frame's above it, before the first frame the lowest)."""
        heads = [b.heading_when for b in self.frames]
        times = when.FileTimes(
            SimpleNamespace(  # (the columns FileTimes reads)
                dates=[h[0] for h in heads],
                times=[h[1] for h in heads],
                numbers=[-1 if h[2] is None else h[2] for h in heads],
            )
        )
        out: list[tuple] = []
        place: tuple = ()
        f = 0
        for b in self.blocks:
            if b.is_frame:
                place = times.key(f)
                f += 1
            out.append(place)
        return out

    @property
    def relationships(self) -> str | None:
        """The latest frame's Relationships text."""
        return next((b.relationships for b in reversed(self.frames) if b.relationships), None)


EMPTY = Version(0, b"", ())


class Versions:
    """Versions by blob id and blocks by their bytes, each made once."""

    def __init__(self) -> None:
        self._versions: dict[str, Version] = {}
        self.blocks: dict[bytes, Block] = {}
        # The last version split, with its bytes and where its first block starts: the next
        # version of the same file usually begins with the same blocks.
        self._last: tuple[bytes, Version, int] | None = None

    def get(self, blob: str | None, data: bytes | None) -> Version:
        """The version of ``data`` (the blob's bytes; read by the caller only when not cached)."""
        if blob is None or data is None:
            return EMPTY
        v = self._versions.get(blob)
        if v is None:
            v = self._versions[blob] = self._split(data)
        return v

    def cached(self, blob: str) -> Version | None:
        return self._versions.get(blob)

    def _split(self, data: bytes) -> Version:
        blocks: list[Block] = []
        pos = _reuse(self._last, data, blocks)
        if pos is None:  # nothing shared: the preamble runs up to the first heading
            pos = 0 if data.startswith(b"## ") else data.find(b"\n## ") + 1 or len(data)
        first = pos - sum(len(b.source) for b in blocks)
        known = self.blocks
        while pos < len(data):
            end = data.find(b"\n## ", pos) + 1 or len(data)
            piece = data[pos:end]
            block = known.get(piece)
            if block is None:
                # setdefault: two threads cutting at once still share one Block per text.
                block = known.setdefault(piece, Block(piece))
            blocks.append(block)
            pos = end
        frame_at = first
        for b in blocks:
            if b.is_frame:
                break
            frame_at += len(b.source)
        version = Version(len(data), data[:frame_at], tuple(blocks))
        self._last = (data, version, first)
        return version


def _reuse(last: tuple[bytes, Version, int] | None, data: bytes, blocks: list[Block]) -> int | None:
    """Append the leading blocks ``data`` shares with the last version; where they end.

    None when even the preamble differs. A block is shared when its bytes are found at the same
    place and a heading (or the end) follows them: blocks hold no heading inside, so that is
    exactly where the block ends in ``data`` too.
    """
    if last is None:
        return None
    ref, version, first = last
    if not data.startswith(ref[:first]) or (first and not data.startswith(b"## ", first)):
        return None
    pos = first
    for block in version.blocks:
        end = pos + len(block.source)
        if not data.startswith(block.source, pos):
            break
        if end != len(data) and not (block.source.endswith(b"\n") and data.startswith(b"## ", end)):
            break
        blocks.append(block)
        pos = end
    return pos


@dataclass(frozen=True, slots=True)
class FrameDiff:
    """Frames added, changed and removed between two versions of a soul, as frame headings."""

    added: tuple[str, ...]
    changed: tuple[str, ...]
    removed: tuple[str, ...]
    rewrote: bool  # a frame other than the last one was edited or removed
    # Where each of those is: its index in the frames after (added, changed) or before (removed),
    # which tells apart two frames of one heading.
    added_at: tuple[int, ...] = ()
    changed_at: tuple[int, ...] = ()
    removed_at: tuple[int, ...] = ()


NO_FRAME_CHANGE = FrameDiff((), (), (), False)


def _shared(
    a: tuple[Block, ...],
    b: tuple[Block, ...],
    cut: Callable[[tuple[Block, ...], int], tuple[Block, ...]],
    limit: int | None = None,
) -> int:
    """How many blocks ``a`` and ``b`` share at one end (``cut`` takes k from that end).

    Tuple comparison runs in C and blocks compare by identity, so a bisection over slices is
    much faster than a Python loop over long histories of long files.
    """
    hi = min(len(a), len(b)) if limit is None else limit
    if cut(a, hi) == cut(b, hi):
        return hi
    lo = 0  # cut(a, lo) == cut(b, lo) and cut(a, hi) != cut(b, hi)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if cut(a, mid) == cut(b, mid):
            lo = mid
        else:
            hi = mid
    return lo


def frame_diff(before: Version, after: Version) -> FrameDiff:
    """Frames added, changed and removed, matched by heading and position (duplicates handled).

    Identical frames pair up in order (longest common subsequence); of the rest, frames with the
    same heading pair up in order of occurrence and count as changed.
    """
    old, new = before.frames, after.frames
    lo = _shared(old, new, lambda t, k: t[:k])
    limit = min(len(old), len(new)) - lo
    tail = _shared(old, new, lambda t, k: t[len(t) - k :], limit)
    hi_old, hi_new = len(old) - tail, len(new) - tail
    if hi_old == lo and hi_new == lo:
        return NO_FRAME_CHANGE
    gone: list[int] = list(range(lo, hi_old))  # indexes into old
    came: list[int] = list(range(lo, hi_new))  # indexes into new
    # Blocks are shared between versions, so identity is equality; the matcher is only
    # needed when an unchanged frame sits between changes.
    if set(old[lo:hi_old]) & set(new[lo:hi_new]):
        gone, came = [], []
        matcher = difflib.SequenceMatcher(None, old[lo:hi_old], new[lo:hi_new], autojunk=False)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag != "equal":
                gone.extend(lo + i for i in range(i1, i2))
                came.extend(lo + j for j in range(j1, j2))
    waiting: dict[str, list[int]] = {}
    for i in gone:
        waiting.setdefault(old[i].key, []).append(i)
    added: list[int] = []  # indexes into new
    changed: list[int] = []
    paired: set[int] = set()
    touched: set[int] = set()  # old frames edited or removed
    for j in came:
        queue = waiting.get(new[j].key)
        if queue:
            i = queue.pop(0)
            paired.add(i)
            # Writers open the next entry with a blank line, which lands at the end of the
            # frame before it: a frame that only gained trailing blank lines is unchanged.
            if old[i].source.rstrip() != new[j].source.rstrip():
                changed.append(j)
                touched.add(i)
        else:
            added.append(j)
    removed = [i for i in gone if i not in paired]
    touched.update(removed)
    last = len(old) - 1
    rewrote = any(i != last for i in touched)
    return FrameDiff(
        tuple(new[j].heading for j in added),
        tuple(new[j].heading for j in changed),
        tuple(old[i].heading for i in removed),
        rewrote,
        tuple(added),
        tuple(changed),
        tuple(removed),
    )
