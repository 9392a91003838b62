"""How a kept entry is told current: by stat, or by content.

- **Stat keys**: a file is unchanged while its name, size, mtime, change time and inode are (an
  edit of the same size whose mtime was put back still changes the change time, which no user
  sets). A stat taken within ``RACY_NS`` of the file's last change may not show the next one: two
  writes in one tick of a coarse clock, the same size, look alike (git's "racy" entries). Such a
  stat is never trusted on its own: ``stat_key`` gives None (keep nothing), and a row keyed by
  it holds a hash of the bytes too (the world index).
- **Content keys**: a sha256 of the bytes an entry is made from, and of the code that makes it.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Iterable

RACY_NS = 2_000_000_000

Stat = tuple[str, int, int, int, int]  # name, size, mtime_ns, ctime_ns, inode


def racy(mtime_ns: int, ctime_ns: int, now_ns: int | None = None) -> bool:
    """Whether a stat of a file changed at ``mtime_ns``/``ctime_ns`` may miss its next change."""
    now = time.time_ns() if now_ns is None else now_ns
    return now - max(mtime_ns, ctime_ns) < RACY_NS


def stat_key(where: bytes, stats: Iterable[Stat], now_ns: int | None = None) -> str | None:
    """A digest of ``where`` and the files' stats, or None when any stat may not show the last
    change yet (``racy``)."""
    now = time.time_ns() if now_ns is None else now_ns
    h = hashlib.sha256(where + b"\0")
    for name, size, mtime, ctime, inode in stats:
        if racy(mtime, ctime, now):
            return None
        h.update(f"{name}\0{size}\0{mtime}\0{ctime}\0{inode}\n".encode("utf-8", "surrogatepass"))
    return h.hexdigest()


def content_key(*parts: bytes | str) -> bytes:
    """A sha256 of ``parts``, each told apart from the next."""
    h = hashlib.sha256()
    for part in parts:
        data = part.encode("utf-8", "surrogatepass") if isinstance(part, str) else part
        h.update(len(data).to_bytes(8, "little"))
        h.update(data)
    return h.digest()
