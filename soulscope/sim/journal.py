"""The frame journal: how a frame is made whole or undone after a crash.

Before a frame touches anything it writes ``.soulscope/frame.json``: the frame, its commit message,
HEAD, and every file it will touch with what is needed to undo it and to recognise its own
writes. A file it appends to (a soul file, a community file, a new frame log) is recorded by its
size, a hash of the bytes before the append point (up to ``ANCHOR`` of them) and a hash of the
bytes it appends; a file it replaces (``world.json``) by its old content and a hash of the new.
When every file is written the journal is marked ``written``; after the commit it is removed.

The next runner that finds a journal finishes the frame (commit landed, or all files written) or
rolls it back, but only after checking that every file holds exactly what the frame left there:
a file edited since (a line inserted by hand, an append of someone else) stops the recovery, names
the file and touches nothing. A git process that the stopped runner started and that still runs is
waited for, never raced.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import stat
from dataclasses import dataclass, fields
from pathlib import Path

from soulscope.atomic import remove_leftovers, write_atomic
from soulscope.sim import repo
from soulscope.sim.lock import STATE_DIR
from soulscope.world import WorldError

JOURNAL = "frame.json"
GIT_PID = "git.pid"  # the git process the runner is waiting for, while it runs
ANCHOR = 65536  # bytes before an append point whose hash is recorded


class RecoveryError(WorldError):
    """A frame left by a stopped runner cannot be finished or undone safely."""


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@dataclass(frozen=True, slots=True)
class Touch:
    path: str  # relative to the world root
    kind: str  # "append" or "replace"
    size: int | None = None  # append: the size before the frame (None: the file did not exist)
    anchor: str = ""  # append: hash of the last ANCHOR bytes before ``size``
    content: str | None = None  # replace: the content before the frame (None: did not exist)
    added: str = ""  # hash of what the frame writes: the appended bytes, or the new content
    added_size: int = 0


@dataclass(frozen=True)
class Journal:
    frame: int
    date: str
    message: str
    head: str | None
    files: tuple[Touch, ...]
    state: str = "writing"  # then "written"

    def paths(self, root: Path) -> list[Path]:
        return [root / t.path for t in self.files]


_JOURNAL_FIELDS = [f.name for f in fields(Journal)]
_TOUCH_FIELDS = [f.name for f in fields(Touch)]


def journal_path(root: Path) -> Path:
    return root / STATE_DIR / JOURNAL


def git_pidfile(root: Path) -> Path:
    return root / STATE_DIR / GIT_PID


def relative(path: Path, root: Path) -> str:
    """``path`` relative to ``root``, which holds it (a string cut: thousands per frame)."""
    text, prefix = str(path), str(root) + os.sep
    return text[len(prefix) :] if text.startswith(prefix) else os.path.relpath(path, root)


def append_touch(root: Path, path: Path, before: bytes | None, size: int, data: bytes) -> Touch:
    """An append of ``data`` to ``path``; ``before`` is the end of the file (at least its last
    ``ANCHOR`` bytes, or all of it), None when the file does not exist yet."""
    rel = relative(path, root)
    if before is None:
        return Touch(rel, "append", added=digest(data), added_size=len(data))
    anchor = digest(before[-ANCHOR:]) if size else ""
    return Touch(rel, "append", size, anchor, added=digest(data), added_size=len(data))


def replace_touch(root: Path, path: Path, new: bytes) -> Touch:
    content = path.read_text(encoding="utf-8") if path.exists() else None
    return Touch(relative(path, root), "replace", content=content, added=digest(new))


def read_end(path: Path) -> tuple[int, bytes] | None:
    """A file's size and its last ``ANCHOR`` bytes; None when it does not exist."""
    try:
        with open(path, "rb") as f:
            size = f.seek(0, os.SEEK_END)
            f.seek(max(0, size - ANCHOR))
            return size, f.read()
    except FileNotFoundError:
        return None


def write_journal(root: Path, journal: Journal) -> None:
    data = {name: getattr(journal, name) for name in _JOURNAL_FIELDS}
    data["files"] = [{name: getattr(t, name) for name in _TOUCH_FIELDS} for t in journal.files]
    write_atomic(journal_path(root), (json.dumps(data, ensure_ascii=False) + "\n").encode("utf-8"))


def read_journal(root: Path) -> Journal | None:
    path = journal_path(root)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        files = tuple(Touch(**_compatible(t)) for t in data.pop("files"))
        return Journal(files=files, **data)
    except FileNotFoundError:
        return None
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        # write_atomic never leaves half a journal, so this one was not written by a runner.
        path.unlink()
        return None


def _compatible(t: dict) -> dict:
    """A journal of an older runner: "create" is an append to a file that did not exist."""
    return {**t, "kind": "append"} if t.get("kind") == "create" else t


def clear_journal(root: Path) -> None:
    journal_path(root).unlink(missing_ok=True)


def _git_blob(data: bytes, like: str) -> str:
    """The id git gives ``data`` as a blob, in the hash of the repository (that of ``like``)."""
    h = hashlib.sha256() if len(like) == 64 else hashlib.sha1()  # noqa: S324 (git's own)
    h.update(b"blob %d\0" % len(data))
    h.update(data)
    return h.hexdigest()


def _blobs(root: Path, top: Path, journal: Journal) -> dict[str, str]:
    """The blob each appended file had in the commit the frame started from, by its path in
    the journal. A frame starts only from files equal to that commit's (it refuses over
    uncommitted edits), so the bytes before its append point must be that blob, all of them,
    not only the ``ANCHOR`` bytes the journal keeps a hash of."""
    if journal.head is None:
        return {}
    wanted = {repo.relative_path(top, root / t.path): t.path for t in journal.files}
    folders = sorted({os.path.dirname(r) or "." for r in wanted})  # (thousands of files)
    done = repo.git(top, "ls-tree", "-r", "-z", journal.head, "--", *folders, check=False)
    out: dict[str, str] = {}
    for entry in done.stdout.split(b"\0"):
        meta, _, name = entry.partition(b"\t")
        fields_ = meta.split()
        if len(fields_) == 3 and fields_[1] == b"blob":
            path = wanted.get(os.fsdecode(name))
            if path is not None:
                out[path] = fields_[2].decode("ascii")
    return out


def _state(root: Path, t: Touch, blob: str | None = None) -> tuple[str, str | None]:  # noqa: C901
    """What the frame left in one file: ("none" | "part" | "whole", why it is not the frame's).

    ``blob``: the file's blob in the commit the frame started from (checks all the bytes
    before the append point)."""
    path = root / t.path
    try:
        st = os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):  # (its folder replaced by a file)
        if t.kind == "append" and t.size is not None:
            return "none", "was removed"
        return "none", None
    if stat.S_ISLNK(st.st_mode) or not stat.S_ISREG(st.st_mode):
        return "none", "is no longer a regular file"
    if t.kind == "replace":
        data = path.read_bytes()
        if digest(data) == t.added:
            return "whole", None
        if t.content is not None and data == t.content.encode("utf-8"):
            return "none", None
        return "none", "was changed by hand"
    start = t.size or 0
    if st.st_size < start:
        return "none", "is shorter than it was before the frame"
    if st.st_size > start + t.added_size:
        return "none", "holds more than the frame appended"
    with open(path, "rb") as f:
        if blob is not None and t.size and _git_blob(f.read(start), blob) != blob:
            return "none", "was changed by hand before the frame's entry"
        f.seek(max(0, start - ANCHOR))
        data = f.read()
    cut = min(start, ANCHOR)
    if t.size and digest(data[:cut]) != t.anchor:
        return "none", "was changed by hand before the frame's entry"
    tail = data[cut:]
    if len(tail) == t.added_size:
        return ("whole", None) if digest(tail) == t.added else ("none", "was changed by hand")
    return ("part" if tail else "none"), None  # a torn or missing append: cut back


def _check(root: Path, top: Path, journal: Journal, whole: bool) -> None:
    changed = []
    blobs = _blobs(root, top, journal)
    for t in journal.files:
        state, why = _state(root, t, blobs.get(t.path) if t.kind == "append" else None)
        if why is None and whole and state != "whole":
            why = "misses part of what the frame wrote"
        if why:
            changed.append(f"{t.path} {why}")
    if changed:
        what = "finished" if whole else "undone"
        raise RecoveryError(
            f"frame {journal.frame}, left by a stopped run, cannot be {what}: "
            f"{'; '.join(changed)}; soulscope touched nothing (put the file back as it was, "
            f"or remove {journal_path(root)} to keep the world as it is)"
        )


def rollback(root: Path, top: Path, journal: Journal) -> None:
    """Put every file the frame touched back as it was before the frame (after checking them)."""
    _check(root, top, journal, whole=False)
    for t in journal.files:
        path = root / t.path
        if t.kind == "replace":
            if t.content is None:
                path.unlink(missing_ok=True)
            else:
                write_atomic(path, t.content.encode("utf-8"))
        elif t.size is None:
            with contextlib.suppress(FileNotFoundError, NotADirectoryError):
                path.unlink()
            with contextlib.suppress(OSError):
                path.parent.rmdir()  # a frame's log folder, once empty
        elif path.exists() and path.stat().st_size > t.size:
            os.truncate(path, t.size)
    repo.unstage(top, journal.paths(root))


def recover(root: Path, top: Path) -> str | None:
    """Finish or undo a frame left by a runner that stopped; says which, or None if none was left.

    Call it only while holding the world lock.
    """
    journal = read_journal(root)
    if journal is None:
        return None
    pidfile = git_pidfile(root)
    running = repo.wait_for(pidfile)
    if running:
        raise RecoveryError(
            f"git (pid {running}), started by the run that stopped during frame "
            f"{journal.frame}, is still running; wait for it to finish and run the frame again"
        )
    pidfile.unlink(missing_ok=True)
    removed = repo.remove_stale_locks(top)
    for t in journal.files:
        if t.kind == "replace":
            remove_leftovers(root / t.path)
    now = repo.head(top)
    if now != journal.head and repo.head_message(top) == journal.message:
        clear_journal(root)
        return f"frame {journal.frame} had been committed when the last run stopped; it is complete"
    if removed:
        said = f" (removed git's {', '.join(removed)}, left by a git that was killed)"
    else:
        said = ""
    if journal.state == "written":
        _check(root, top, journal, whole=True)
        repo.commit(top, journal.paths(root), journal.message, journal.date, pidfile)
        clear_journal(root)
        return (
            f"completed frame {journal.frame}: the last run had written it all but not "
            f"committed it{said}"
        )
    rollback(root, top, journal)
    clear_journal(root)
    return f"rolled back frame {journal.frame}: the last run stopped while writing it{said}"
