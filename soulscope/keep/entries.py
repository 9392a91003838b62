"""Kept entries as files: written whole (atomic), read back only when they are what was written.

An entry file is a header line and the payload: ``soulscope-kept``, the kind, the fingerprint
of the code that made it, the payload's sha256 and its length, joined by tabs. Reading one
opens it without following links, takes only a regular file, and checks every field: a
truncated, empty, foreign or tampered entry, a link (to ``/etc/passwd`` or anywhere), or one
made by other code is not used; it is removed, said in one sentence (``Kept.problem``), and
made again by the caller.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
import time
from dataclasses import dataclass
from pathlib import Path

from soulscope.atomic import write_atomic

MAGIC = b"soulscope-kept"
HEADER_MAX = 256  # a header line is never longer
LEFTOVER_NS = 3_600_000_000_000  # a killed write's temp file older than this is removed


@dataclass(frozen=True, slots=True)
class Kept:
    """What reading an entry found: its payload, or None with the problem (None when absent)."""

    payload: bytes | None
    problem: str | None = None


def header(kind: str, fingerprint: str, payload: bytes) -> bytes:
    """The first line of an entry file: its fields joined by tabs."""
    digest = hashlib.sha256(payload).hexdigest()
    fields = [kind, fingerprint, digest, str(len(payload))]
    return b"\t".join([MAGIC, *(f.encode() for f in fields)]) + b"\n"


def write_entry(path: Path, kind: str, fingerprint: str, payload: bytes) -> None:
    """Keep ``payload`` at ``path``, whole or not at all (no fsync: a cache is made again)."""
    write_atomic(path, header(kind, fingerprint, payload) + payload, sync=False)


def read_entry(path: Path, kind: str, fingerprint: str) -> Kept:
    """The payload kept at ``path`` when it is whole and was made by this code for ``kind``.

    A bad entry is removed (never what a link points to) and its problem said."""
    try:
        fd = os.open(
            path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
        )
    except FileNotFoundError:
        return Kept(None)
    except OSError as exc:
        problem = "a link" if os.path.islink(path) else (exc.strerror or str(exc))
        return _bad(path, problem)
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(f.fileno())
        if not stat.S_ISREG(st.st_mode):
            return _bad(path, "not a regular file")
        head = f.readline(HEADER_MAX)
        fields = head.rstrip(b"\n").split(b"\t")
        if not head.endswith(b"\n") or len(fields) != 5 or fields[0] != MAGIC:
            return _bad(path, "not an entry soulscope wrote" if head else "empty")
        if fields[1] != kind.encode() or fields[2] != fingerprint.encode():
            return _bad(path, "made by other code")
        payload = f.read()
    if str(len(payload)).encode() != fields[4]:
        return _bad(path, f"{len(payload)} of {fields[4].decode(errors='replace')} bytes")
    if hashlib.sha256(payload).hexdigest().encode() != fields[3]:
        return _bad(path, "its checksum does not match")
    with contextlib.suppress(OSError):
        os.utime(path)  # the newest used are the ones kept
    return Kept(payload)


def _bad(path: Path, problem: str) -> Kept:
    with contextlib.suppress(OSError):
        path.unlink()  # (a link is removed, never what it points to)
    return Kept(None, problem)


def trim(folder: Path, max_entries: int | None, max_bytes: int | None) -> None:
    """Keep the entries of ``folder`` used last, at most ``max_entries`` of them and
    ``max_bytes`` in all (the newest always), and remove what a write killed before its rename
    left (``.NAME.*.tmp``) once it is old enough not to be another run's write in progress."""
    try:
        found = [(p, p.lstat()) for p in folder.iterdir()]
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
        if n and (
            (max_entries is not None and n >= max_entries)
            or (max_bytes is not None and total > max_bytes)
        ):
            with contextlib.suppress(OSError):
                old.unlink()
