"""Answers over a whole world kept until the world changes: the influence graph or the spread of
a term, read from every soul file, asked again of the same files, is read back instead of
computed again.

An answer is kept under a key made of what it depends on: the question (its kind and
arguments), the world's folder, every soul file's stat (name, size, mtime, change time, inode),
the registry's (``agents.json``: display names), and the code that makes it (the fingerprint of
``keep.ANSWERS``). Any file added, removed or changed, or other code, is another key: the answer
is computed again from the files, which stay the source of truth.

A stat shows a change only once the file's clock has moved past it (``keep.fresh``): while any
file changed within ``RACY_NS``, answers are neither read nor kept. Answers that skipped an
unreadable file are not kept either. A kept answer is read back only when it is whole and was
written by this code (``keep.entries``: checksummed, never through a link); one that is not is
removed, said in one sentence (``Memo.problem``), and made again. Each world keeps the answers
used last, within ``keep.ANSWERS``'s limits.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from soulscope.keep import ANSWERS, place_key
from soulscope.keep.entries import read_entry, trim, write_entry
from soulscope.keep.fresh import stat_key
from soulscope.world import World


def world_state(world: World, now_ns: int | None = None) -> str | None:
    """A digest of the world's files as their stats show them, or None when a stat may not
    show the last change yet (``keep.fresh.racy``)."""
    stats = [(a.path.name, a.size, a.mtime_ns, a.ctime_ns, a.inode) for a in world.agents()] + [
        (a.path.name, -1, a.mtime_ns, a.ctime_ns, a.inode) for a in world.junk()
    ]
    try:
        st = (world.root / "agents.json").stat()
        stats.append(("agents.json", st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino))
    except OSError:
        stats.append(("agents.json", -1, 0, 0, 0))
    return stat_key(os.fsencode(world.memory_dir), stats, now_ns)


class Memo:
    """One question about one world: ``get`` the kept answer, or ``put`` a new one."""

    def __init__(self, world: World, kind: str, *args: object, folder: Path | None = None) -> None:
        state = world_state(world)
        where = place_key(world.memory_dir)
        self.kind = kind
        self.folder = (folder or ANSWERS.path) / where
        self.path: Path | None = None
        self.problem: str | None = None  # the sentence said when a kept answer was unusable
        if state is not None:
            question = repr((kind, args)).encode("utf-8", "surrogatepass")
            key = hashlib.sha256(
                b"\0".join([ANSWERS.fingerprint().encode(), state.encode(), question])
            )
            self.path = self.folder / f"{kind}-{key.hexdigest()[:32]}"

    def get(self) -> bytes | None:
        """The kept answer, or None (none kept, or one that could not be used: ``problem``)."""
        if self.path is None:
            return None
        kept = read_entry(self.path, self.kind, ANSWERS.fingerprint())
        if kept.problem is not None:
            self.problem = ANSWERS.rebuilt(self.path, kept.problem)
        return kept.payload

    def unusable(self, why: str) -> None:
        """The kept answer read back is not an answer (``why``): removed, and said."""
        if self.path is not None:
            self.path.unlink(missing_ok=True)
            self.problem = ANSWERS.rebuilt(self.path, why)

    def put(self, data: bytes) -> None:
        """Keep ``data`` as the answer; a cache folder that cannot be written keeps nothing."""
        if self.path is None:
            return
        try:
            write_entry(self.path, self.kind, ANSWERS.fingerprint(), data)
            trim(self.folder, ANSWERS.max_entries, ANSWERS.max_bytes)
        except OSError:
            pass
