"""One frame runner per world: an advisory lock on ``.soulscope/lock`` holding the runner's pid.

The kernel releases the lock when its process dies (SIGKILL included), so a lock left by a dead
runner never blocks; the pid it left behind is reported as recovered.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

from soulscope.world import WorldError

STATE_DIR = ".soulscope"


class LockedError(WorldError):
    """Another runner holds the world."""


class WorldLock:
    """``with WorldLock(root) as lock:``; ``lock.stale_pid`` is the dead runner it replaced, if any."""

    def __init__(self, root: Path) -> None:
        self.path = root / STATE_DIR / "lock"
        self.stale_pid: int | None = None
        self._fd: int | None = None

    def acquire(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            pid = _read_pid(fd)
            os.close(fd)
            who = f"pid {pid}" if pid else "another process"
            raise LockedError(
                f"another frame runner ({who}) is advancing this world; wait for it to finish"
            ) from None
        pid = _read_pid(fd)
        self.stale_pid = pid if pid and pid != os.getpid() else None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        self._fd = fd

    def release(self) -> None:
        if self._fd is None:
            return
        # Emptied, not removed: removing would let a third runner lock a fresh file while a
        # second one still waits on the old inode. Empty also keeps demo worlds byte-identical.
        os.ftruncate(self._fd, 0)
        os.close(self._fd)  # closing releases the lock
        self._fd = None

    def __enter__(self) -> WorldLock:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def _read_pid(fd: int) -> int | None:
    try:
        text = os.pread(fd, 32, 0).decode().strip()
        return int(text) if text else None
    except (OSError, ValueError):
        return None
