"""Soul -> chunks: one per frame and one per header section, each knowing where it came from.

A long frame is split at bullet boundaries into parts that fit the embedding model's window
(all-MiniLM-L6-v2 reads 256 word pieces, about 1,000 characters of English); every part repeats the
frame heading, so a hit on any part still names its frame. A chunk also keeps its bullets one by
one: retrieval scores bullets and returns the chunks that hold the best of them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from soulscope.soul import when
from soulscope.soul.model import Frame, Section, Soul, clean
from soulscope.soul.when import Moment

DEFAULT_MAX_CHARS = 1000


@dataclass(frozen=True, slots=True)
class Chunk:
    """A piece of a soul file that retrieval returns and answers cite."""

    agent: str
    kind: str  # "frame" or "section"
    heading: str  # the frame heading or section title, as written
    line: int  # 1-based line of the part's first line in the file
    text: str  # what is indexed and shown: the heading, then the part's lines
    frame_index: int | None = None  # index into soul.frames
    number: int | None = None
    frame_label: str | None = None  # "237", "500b", "408 solo" or the date of an unnumbered frame
    date: str | None = None
    time: str | None = None  # HH:MM (UTC) when the frame's heading gives one
    moment: Moment | None = None  # the frame's place in time (``soul.when``); None outside frames
    part: int = 0  # 0 for the first (or only) part of its block
    bullets: tuple[str, ...] = ()  # the part's bullets (continuation lines joined), in order

    @property
    def id(self) -> str:
        """Unique within a world: the agent and the line the part starts on."""
        return f"{self.agent}:{self.line}"

    @property
    def citation(self) -> str:
        """How answers cite it: ``[zion-coder-06 · frame 221 · 2026-03-22]``."""
        if self.kind == "frame" and self.number is not None:
            parts = [self.agent, f"frame {self.frame_label}", self.date]
        elif self.kind == "frame" and self.date:
            # early-era frames carry no number: their date and, where given, time of day name
            # them (a day holds many), as the why dossier names them
            parts = [
                self.agent,
                f"frame {self.date} {self.time}" if self.time else f"frame {self.date}",
            ]
        else:
            parts = [self.agent, clean(self.heading)]
        return "[" + " · ".join(p for p in parts if p) + "]"


def chunk_soul(
    soul: Soul, agent_id: str | None = None, max_chars: int = DEFAULT_MAX_CHARS
) -> list[Chunk]:
    """Every frame and header section of ``soul`` as chunks, in file order.

    ``max_chars`` bounds a part's text; a single bullet longer than that stays whole.
    The preamble (``# Name``) is folded into the Identity section's chunk.
    """
    agent = agent_id or soul.agent_id or "?"
    out: list[Chunk] = []
    name_line = clean(soul.preamble).strip()
    columns = soul.frames.columns
    moments = when.frame_moments(columns)
    for block in soul.blocks:
        if isinstance(block, Frame):
            base = Chunk(
                agent=agent,
                kind="frame",
                heading=block.heading,
                line=block.line,
                text="",
                frame_index=block.index,
                number=block.number,
                frame_label=block.label,
                date=block.date,
                time=block.time,
                moment=moments[block.index],
            )
            title = block.heading
        else:
            base = Chunk(agent=agent, kind="section", heading=block.title, line=block.line, text="")
            title = block.title
        prefix = clean(title)
        if isinstance(block, Section) and block.title.lower() == "identity" and name_line:
            prefix = f"{name_line}\n{prefix}"
        out.extend(_parts(base, prefix, block.source, max_chars))
    return out


def _parts(base: Chunk, prefix: str, source: str, max_chars: int) -> list[Chunk]:
    """Split a block's body into parts at bullet starts; each part is prefixed with the heading."""
    lines = source.split("\n")[1:]  # the first line is the heading itself
    items: list[tuple[int, str]] = []  # (offset of the item's first line, its text)
    for offset, raw in enumerate(lines, start=1):
        text = clean(raw).rstrip()
        if not text.strip():
            continue
        starts_item = text.lstrip().startswith(("- ", "* ", "+ ")) or not items
        if starts_item:
            items.append((offset, text))
        else:  # a continuation line stays with its bullet
            first, prev = items[-1]
            items[-1] = (first, f"{prev}\n{text}")
    if not items:
        return [replace(base, text=prefix)]
    parts: list[Chunk] = []
    start, body = items[0][0], [items[0][1]]
    size = len(items[0][1])
    for offset, text in items[1:]:
        if size + len(text) + 1 > max_chars:
            parts.append(_make(base, prefix, start, body, len(parts)))
            start, body, size = offset, [text], len(text)
        else:
            body.append(text)
            size += len(text) + 1
    parts.append(_make(base, prefix, start, body, len(parts)))
    return parts


def _make(base: Chunk, prefix: str, offset: int, body: list[str], part: int) -> Chunk:
    line = base.line + offset if part else base.line
    return replace(
        base, line=line, text=prefix + "\n" + "\n".join(body), part=part, bullets=tuple(body)
    )


CONTEXT_BULLETS = 2  # BM25 reads a bullet with this many earlier bullets of its block


@dataclass(frozen=True, slots=True)
class Unit:
    """What retrieval scores: one bullet of a chunk, with the text each side of the search reads.

    BM25 reads the bullet with the bullets before it in its block, so a bullet that answers
    "what did she say about it" also matches the bullet that named "it"; only earlier ones, so
    appending never changes an existing unit. The embedding model reads the bullet alone, without
    its list marker or bold markers. Both measured on LoCoMo (bench/locomo.py): the heading in
    BM25's window, a third earlier bullet, or a heading in MiniLM's text each rank worse.
    """

    chunk: int  # row of the chunk that holds it
    bullet: int  # index in the chunk's bullets (0 for a chunk without bullets)
    lexical: str
    dense: str
    first: bool  # the first unit of its block (its frame or section)


def units_of(chunks: Sequence[Chunk], context: int = CONTEXT_BULLETS) -> list[Unit]:
    """Every chunk's units in order; a chunk without bullets is one unit of its whole text."""
    out: list[Unit] = []
    block: list[str] = []  # the current block's bullets so far
    for row, c in enumerate(chunks):
        starts = c.part == 0
        if starts:
            block = []
        if not c.bullets:
            out.append(Unit(row, 0, c.text, c.text, starts))
            continue
        for i, bullet in enumerate(c.bullets):
            block.append(bullet)
            window = "\n".join(block[-1 - context :])
            out.append(Unit(row, i, window, bare(bullet), starts and i == 0))
    return out


def bare(bullet: str) -> str:
    """A bullet's text without its list marker and ``**`` bold markers."""
    text = bullet.strip()
    if text[:2] in ("- ", "* ", "+ "):
        text = text[2:]
    return text.replace("**", "").strip() or bullet
