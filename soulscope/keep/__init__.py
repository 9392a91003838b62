"""What soulscope keeps on disk, in one place: every kind of kept data, where it lives, the code
that shapes it, how its freshness is told and how much of it is kept.

Everything here is disposable: the soul files and the world's repository stay the source of
truth, and an entry that is missing, stale, corrupt or foreign is made again from them, said in
one sentence (``rebuilt``). The kinds (``KINDS``; ``docs/configuration.md`` lists them):

- each lives under the cache folder (``config.cache_dir()``) at ``Kind.place``;
- each has one code fingerprint, computed from the module that makes its entries and every
  soulscope module that module imports (``keep.code``): no list of modules is kept by hand;
- freshness is told by stat (``keep.fresh``: name, size, mtime, change time and inode, never
  trusted within ``RACY_NS`` of a change) or by content (a sha256 of the bytes an entry is made
  from: an unchanged file, or a copy of it, is never made twice);
- entries are written atomically (``soulscope.atomic``); entry files carry a checksum and are
  read without following links (``keep.entries``);
- each kind is trimmed to its limit (``Kind.max_entries`` and ``Kind.max_bytes``).

A new kind of kept data is one ``register(Kind(...))`` call, here or in the module that makes it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from soulscope.config import cache_dir
from soulscope.keep.code import fingerprint as code_fingerprint
from soulscope.keep.code import producers


@dataclass(frozen=True)
class Kind:
    """One kind of kept data."""

    name: str  # as said to a user: "world index"
    place: str  # under the cache folder: a file, or a folder of entries
    makers: tuple[str, ...]  # the modules that make its entries (their imports shape them too)
    fresh_by: Literal["stat", "content", "commit", "weights"]  # how an entry is told current
    limit: str  # how much is kept, in words (docs/configuration.md)
    max_entries: int | None = None  # per folder of entries
    max_bytes: int | None = None  # per folder of entries (the newest is always kept)
    format: int = 1  # bumped when an entry's layout changes without its code changing

    @property
    def path(self) -> Path:
        """Where it lives now (the cache folder may be set per run)."""
        return cache_dir() / self.place

    def fingerprint(self) -> str:
        """The code that shapes this kind's entries, as one digest: another value, a stale entry."""
        return code_fingerprint(f"{self.name} {self.format}", self.makers)

    def producers(self) -> list[str]:
        """Every module whose source is in the fingerprint."""
        return producers(self.makers)

    def rebuilt(self, where: Path | str, why: str) -> str:
        """The one sentence said when an entry of this kind could not be used and is made again."""
        return f"the {self.name} {where} was unreadable ({why}); it was rebuilt"


KINDS: dict[str, Kind] = {}


def register(kind: Kind) -> Kind:
    """Add a kind of kept data (its name is its key; registering it again replaces it)."""
    KINDS[kind.name] = kind
    return kind


def place_key(*parts: object) -> str:
    """The name a kept entry has for a place (a world's folder, with what else tells its
    entries apart): 24 hex digits of a digest of ``parts`` (a folder name's undecodable bytes
    included)."""
    named = "\0".join(str(p) for p in parts).encode("utf-8", "surrogatepass")
    return hashlib.sha256(named).hexdigest()[:24]


def kinds() -> Iterable[Kind]:
    return KINDS.values()


WORLD_INDEX = register(
    Kind(
        "world index",
        "index",
        ("soulscope.index",),
        "stat",
        "one SQLite file per world and arc label; the 64 used last",
        max_entries=64,
    )
)
PREPARED = register(
    Kind(
        "search index",
        "search",
        ("soulscope.recall.prepared",),
        "content",
        "one SQLite file of each soul file's chunks and BM25 counts, by the sha256 of its bytes "
        "(those unused for 30 days are dropped); each world's joined index, the 16 used last, "
        "at most 2 GB",
        max_entries=16,
        max_bytes=2_000_000_000,
    )
)
VECTORS = register(
    Kind(
        "embeddings cache",
        "embeddings.sqlite3",
        ("soulscope.recall.semantic",),
        "content",
        "one SQLite file: a vector per (model, sha256 of the text); grows with the text embedded",
    )
)
STATIC_MODEL = register(
    Kind(
        "static model",
        "models",
        ("soulscope.recall.static",),
        "weights",
        "one table per MiniLM weights and recipe (about 16 MB), checked by its sha256 on load",
    )
)
SNAPSHOTS = register(
    Kind(
        "snapshot",
        "snapshots",
        ("soulscope.history.timeline",),
        "commit",
        "the world's files at a commit, per repository; the 16 used last, at most 2 GB",
        max_entries=16,
        max_bytes=2_000_000_000,
    )
)
ANSWERS = register(
    Kind(
        "kept answer",
        "memo",
        ("soulscope.cli.spread", "soulscope.history.graph", "soulscope.history.spread"),
        "stat",
        "per world, the 8 answers used last, at most 400 MB (a graph of 10,000 agents is 100 MB)",
        max_entries=8,
        max_bytes=400_000_000,
    )
)
LINK_TALLIES = register(
    Kind(
        "link tallies",
        "links",
        ("soulscope.history.graph",),
        "stat",
        "one SQLite file per world: each soul file's named agents as the graph counts them; "
        "the 64 worlds used last",
        max_entries=64,
    )
)
CUTS = register(
    Kind(
        "cut",
        "cuts",
        ("soulscope.runs.asof",),
        "stat",
        "a world's frames up to a point, by the world's stats and the point; the 16 used last",
        max_entries=16,
    )
)
