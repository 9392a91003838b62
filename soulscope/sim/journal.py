"""The frame journal: how a frame is made whole or undone after a crash.

Before a frame touches anything it writes ``.soulscope/frame.json``: the frame, its commit message,
HEAD, and every file it will touch with what is needed to undo it (the size of a file it appends
to, the old bytes of a file it replaces, nothing for a file it creates). When every file is
written the journal is marked ``written``; after the commit it is removed. The next runner that
finds a journal finishes the frame (commit landed, or all files written) or rolls it back.
"""

from __future__ import annotations

import contextlib
import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path

from soulscope.atomic import write_atomic
from soulscope.sim import repo
from soulscope.sim.lock import STATE_DIR

JOURNAL = "frame.json"


@dataclass(frozen=True, slots=True)
class Touch:
    path: str  # relative to the world root
    kind: str  # "append", "replace" or "create"
    size: int | None = None  # before the frame, for "append" (None: the file did not exist)
    content: str | None = None  # before the frame, for "replace" (None: the file did not exist)


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


def journal_path(root: Path) -> Path:
    return root / STATE_DIR / JOURNAL


def plan(root: Path, appends: list[Path], replaces: list[Path], creates: list[Path]) -> list[Touch]:
    """Record the state of every file a frame is about to touch."""
    out = []
    for p in appends:
        size = p.stat().st_size if p.exists() else None
        out.append(Touch(os.path.relpath(p, root), "append", size=size))
    for p in replaces:
        content = p.read_text(encoding="utf-8") if p.exists() else None
        out.append(Touch(os.path.relpath(p, root), "replace", content=content))
    out.extend(Touch(os.path.relpath(p, root), "create") for p in creates)
    return out


def write_journal(root: Path, journal: Journal) -> None:
    data = asdict(journal)
    write_atomic(journal_path(root), (json.dumps(data, ensure_ascii=False) + "\n").encode("utf-8"))


def read_journal(root: Path) -> Journal | None:
    path = journal_path(root)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        files = tuple(Touch(**t) for t in data.pop("files"))
        return Journal(files=files, **data)
    except FileNotFoundError:
        return None
    except (OSError, ValueError, TypeError, KeyError):
        # write_atomic never leaves half a journal, so this one was not written by a runner.
        path.unlink()
        return None


def clear_journal(root: Path) -> None:
    journal_path(root).unlink(missing_ok=True)


def rollback(root: Path, top: Path, journal: Journal) -> None:
    """Put every file the frame touched back as it was before the frame."""
    for t in journal.files:
        path = root / t.path
        if t.kind == "append":
            if t.size is None:
                path.unlink(missing_ok=True)
            elif path.exists() and path.stat().st_size > t.size:
                os.truncate(path, t.size)
        elif t.kind == "replace":
            if t.content is None:
                path.unlink(missing_ok=True)
            else:
                write_atomic(path, t.content.encode("utf-8"))
        else:
            path.unlink(missing_ok=True)
            with contextlib.suppress(OSError):
                path.parent.rmdir()  # a frame's log folder, once empty
    repo.unstage(top, journal.paths(root))


def recover(root: Path, top: Path) -> str | None:
    """Finish or undo a frame left by a runner that stopped; says which, or None if none was left.

    Call it only while holding the world lock.
    """
    journal = read_journal(root)
    if journal is None:
        return None
    repo.remove_stale_locks(top)
    now = repo.head(top)
    if now != journal.head and repo.head_message(top) == journal.message:
        clear_journal(root)
        return f"frame {journal.frame} had been committed when the last run stopped; it is complete"
    if journal.state == "written":
        repo.commit(top, journal.paths(root), journal.message, journal.date)
        clear_journal(root)
        return (
            f"completed frame {journal.frame}: the last run had written it all but not committed it"
        )
    rollback(root, top, journal)
    clear_journal(root)
    return f"rolled back frame {journal.frame}: the last run stopped while writing it"
