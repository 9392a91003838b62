"""Atomic file writes: a crash leaves either the old file or the new one, never half of either."""

from __future__ import annotations

import contextlib
import glob
import os
import queue
import tempfile
import threading
from pathlib import Path


def write_atomic(path: str | Path, data: bytes, sync: bool = True) -> None:
    """Replace ``path`` with ``data``: temp file in the same folder, fsync, rename, fsync the folder.

    ``sync=False`` leaves out both fsyncs, for a write made durable later by the caller (readers
    still never see half a file).
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            if sync:
                os.fsync(f.fileno())
        if path.exists():
            os.chmod(tmp, path.stat().st_mode & 0o7777)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    if sync:
        _fsync_dir(path.parent)


def remove_leftovers(path: str | Path) -> None:
    """Remove the temp files that a ``write_atomic`` of ``path`` killed before its rename left."""
    path = Path(path)
    for tmp in path.parent.glob(f".{glob.escape(path.name)}.*.tmp"):
        with contextlib.suppress(OSError):
            tmp.unlink()


def append_atomic(path: str | Path, data: bytes, sync: bool = True) -> None:
    """Append ``data`` to ``path`` atomically (the whole file is rewritten through ``write_atomic``).

    Soul files are small (tens of KB), so rewriting is cheap, and it means a reader or a crash never
    sees half an entry.
    """
    path = Path(path)
    try:
        old = path.read_bytes()
    except FileNotFoundError:
        old = b""
    write_atomic(path, old + data, sync=sync)


def append_durable(path: str | Path, data: bytes, sync: bool | SyncBatch = True) -> int:
    """Append ``data`` to a file that only grows and fsync it; returns the old size.

    Costs the new bytes only, unlike ``append_atomic``. A crash mid-write can leave a torn tail:
    JSON-lines readers ignore it and ``cut_torn_tail`` removes it before the next append; the
    frame journal cuts a soul file back to its recorded size. A link is never written through.
    ``sync``: a ``SyncBatch`` fsyncs the file together with the rest of the batch.
    """
    path = Path(path)
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW
    try:
        fd = os.open(path, flags, 0o644)
    except FileNotFoundError:  # its folder is new too
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, flags, 0o644)
    try:
        start = os.fstat(fd).st_size
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        if isinstance(sync, SyncBatch):
            sync.add(fd, path.parent)
            fd = -1
        elif sync:
            os.fsync(fd)
    finally:
        if fd >= 0:
            os.close(fd)
    if sync is True and start == 0:
        _fsync_dir(path.parent)  # a new file: make its name durable too
    return start


def cut_torn_tail(path: str | Path) -> int:
    """Truncate a line-oriented file after its last newline; returns how many bytes were cut."""
    path = Path(path)
    try:
        with open(path, "rb+") as f:
            size = f.seek(0, os.SEEK_END)
            if size == 0:
                return 0
            # Read backwards in blocks until a newline: a torn line is at most one record long.
            pos = size
            while pos > 0:
                step = min(65536, pos)
                f.seek(pos - step)
                block = f.read(step)
                nl = block.rfind(b"\n")
                if nl >= 0:
                    keep = pos - step + nl + 1
                    break
                pos -= step
            else:
                keep = 0
            if keep == size:
                return 0
            f.truncate(keep)
            f.flush()
            os.fsync(f.fileno())
            return size - keep
    except FileNotFoundError:
        return 0


class SyncBatch:
    """Files made durable together: each written file is fsynced (and closed) by worker threads
    while the caller writes the next ones.

    The filesystem commits concurrent fsyncs together, so a frame's thousands of files cost a
    few disk flushes instead of one each, and no file is opened twice. Leaving the ``with``
    waits for every worker; unless an exception is on its way out, it then fsyncs the folders
    holding the files and raises the first fsync that failed.
    """

    def __init__(self, workers: int = 8) -> None:
        self._fds: queue.SimpleQueue[int | None] = queue.SimpleQueue()
        self._folders: set[Path] = set()
        self._errors: list[OSError] = []
        self._workers = [threading.Thread(target=self._work, daemon=True) for _ in range(workers)]
        for worker in self._workers:
            worker.start()

    def add(self, fd: int, folder: Path) -> None:
        """Take a written file's descriptor: it is fsynced, then closed."""
        self._folders.add(folder)
        self._fds.put(fd)

    def _work(self) -> None:
        while (fd := self._fds.get()) is not None:
            try:
                os.fsync(fd)
            except OSError as exc:
                self._errors.append(exc)
            finally:
                os.close(fd)

    def __enter__(self) -> SyncBatch:
        return self

    def __exit__(self, exc_type: object, *exc: object) -> None:
        for _ in self._workers:
            self._fds.put(None)
        for worker in self._workers:
            worker.join()
        if exc_type is not None:
            return
        if self._errors:
            raise self._errors[0]
        for folder in sorted(self._folders):
            _fsync_dir(folder)


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
