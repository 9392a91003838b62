"""Answers over a whole world kept until the world changes: the influence graph or the spread of
a term, read from every soul file, asked again of the same files, is read back instead of
computed again.

An answer is kept under a key made of what it depends on: the question (its kind and
arguments), the world's folder, every soul file's stat (name, size, mtime, change time, inode),
the registry's (``agents.json``: display names), and soulscope's own code. Any file added,
removed or changed, or another version of soulscope, is another key: the answer is computed
again from the files, which stay the source of truth.

A stat shows a change only once the file's clock has moved past it: while any file changed
within ``world.RACY_NS`` (two writes in one tick of a coarse clock look alike), answers are
neither read nor kept. Answers that skipped an unreadable file are not kept either. Each world
keeps its ``KEEP`` answers used last (at most ``KEEP_BYTES``), each written atomically (whole or absent); the folder is
disposable.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import threading
import time
from pathlib import Path

import soulscope
from soulscope.atomic import write_atomic
from soulscope.config import cache_dir
from soulscope.world import World, racy

MEMO_FORMAT = 1
KEEP = 8  # answers kept per world, the newest used
KEEP_BYTES = 400_000_000  # and at most this much of them (a graph of 10,000 agents is 100 MB)
LEFTOVER_NS = 3_600_000_000_000  # a killed write's temp file older than this is removed

_code_lock = threading.Lock()
_code: str | None = None


def code_fingerprint() -> str:
    """soulscope's version and the source of every module outside the dashboard: an answer
    made by other code is another key."""
    global _code
    with _code_lock:
        if _code is None:
            package = Path(soulscope.__file__).parent
            h = hashlib.sha256(f"{MEMO_FORMAT} {soulscope.__version__}".encode())
            for path in sorted(package.rglob("*.py")):
                if "tui" in path.relative_to(package).parts:
                    continue
                h.update(path.relative_to(package).as_posix().encode() + b"\0")
                h.update(path.read_bytes())
            _code = h.hexdigest()
        return _code


def world_state(world: World, now_ns: int | None = None) -> str | None:
    """A digest of the world's files as their stats show them, or None when a stat may not
    show the last change yet (``world.racy``)."""
    now = time.time_ns() if now_ns is None else now_ns
    h = hashlib.sha256(os.fsencode(world.memory_dir) + b"\0")
    stats = [(a.path.name, a.size, a.mtime_ns, a.ctime_ns, a.inode) for a in world.agents()] + [
        (a.path.name, -1, a.mtime_ns, a.ctime_ns, a.inode) for a in world.junk()
    ]
    try:
        st = (world.root / "agents.json").stat()
        stats.append(("agents.json", st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino))
    except OSError:
        stats.append(("agents.json", -1, 0, 0, 0))
    for name, size, mtime, ctime, inode in stats:
        if racy(mtime, ctime, now):
            return None
        h.update(f"{name}\0{size}\0{mtime}\0{ctime}\0{inode}\n".encode("utf-8", "surrogatepass"))
    return h.hexdigest()


class Memo:
    """One question about one world: ``get`` the kept answer, or ``put`` a new one."""

    def __init__(self, world: World, kind: str, *args: object, folder: Path | None = None) -> None:
        state = world_state(world)
        where = hashlib.sha256(os.fsencode(world.memory_dir)).hexdigest()[:24]
        self.folder = (folder or cache_dir() / "memo") / where
        self.path: Path | None = None
        if state is not None:
            question = repr((kind, args)).encode("utf-8", "surrogatepass")
            key = hashlib.sha256(
                b"\0".join([code_fingerprint().encode(), state.encode(), question])
            )
            self.path = self.folder / f"{kind}-{key.hexdigest()[:32]}"

    def get(self) -> Path | None:
        """The kept answer's file, or None."""
        if self.path is None or not self.path.is_file():
            return None
        with contextlib.suppress(OSError):
            os.utime(self.path)  # the newest used are the ones kept
        return self.path

    def put(self, data: bytes) -> None:
        """Keep ``data`` as the answer; a cache folder that cannot be written keeps nothing."""
        if self.path is None:
            return
        try:
            write_atomic(self.path, data, sync=False)
            self._trim()
        except OSError:
            pass

    def _trim(self) -> None:
        """Keep the ``KEEP`` answers used last, within ``KEEP_BYTES`` (the newest always), and
        remove what a write killed before its rename left (``.NAME.*.tmp``) once it is old
        enough not to be another run's write in progress."""
        try:
            found = [(p, p.stat()) for p in self.folder.iterdir()]
        except OSError:
            return
        stale = time.time_ns() - LEFTOVER_NS
        for p, st in found:
            if p.name.startswith(".") and p.name.endswith(".tmp") and st.st_mtime_ns < stale:
                with contextlib.suppress(OSError):
                    p.unlink()
        kept = sorted(
            ((p, st) for p, st in found if not p.name.startswith(".")),
            key=lambda f: f[1].st_mtime_ns,
            reverse=True,
        )
        total = 0
        for n, (old, st) in enumerate(kept):
            total += st.st_size
            if n and (n >= KEEP or total > KEEP_BYTES):
                with contextlib.suppress(OSError):
                    old.unlink()
