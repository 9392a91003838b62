"""The world index: one SQLite row per soul file, keyed by its name, size, mtime, change time and
inode, holding what the lists of agents need (the dashboard's agent list and World tab,
``soulscope agents`` and ``overview``), so that a world of thousands of agents is listed without
parsing every file again.

The soul files stay the source of truth. The index lives in the cache folder, is updated
incrementally (a file whose stat changed is parsed again, a deleted file's row goes), and is
disposable: a missing, stale (another soulscope version, another parser) or corrupt index is rebuilt
from the files; where the cache folder cannot be written it is kept in memory for the run.

A stat says a file is unchanged only when it was taken after the file's last change could show
in it: an edit of the same size whose mtime was put back still changes the change time, which no
user sets. A file changed within ``keep.fresh.RACY_NS`` of being indexed (two writes in one tick of a coarse
clock look alike) gets a hash of the bytes parsed, and is read and hashed again before its row is
used (git's "racy" entries).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import sqlite3
from collections.abc import Iterable
from dataclasses import astuple, dataclass
from pathlib import Path

from soulscope import collector
from soulscope.keep import WORLD_INDEX, place_key
from soulscope.keep.entries import trim
from soulscope.keep.fresh import racy
from soulscope.soul import parse
from soulscope.soul.model import Soul
from soulscope.soul.trajectory import ArcSummary, Statement, summarize
from soulscope.world import AgentFile, World

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS souls (
    name TEXT PRIMARY KEY,   -- the file's name in the memory folder
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    ctime_ns INTEGER NOT NULL,
    inode INTEGER NOT NULL,
    digest TEXT,             -- sha256 of the bytes parsed, for a file changed just before
    summary TEXT NOT NULL,   -- the ArcSummary's fields as a JSON array, in their order
    last_frame TEXT,         -- the last frame's heading, as a JSON string
    problems INTEGER NOT NULL
);
"""


@dataclass(frozen=True, slots=True)
class Entry:
    """One soul file as the index knows it; ``error`` (one sentence) when it cannot be read."""

    file: AgentFile
    summary: ArcSummary | None = None
    last_frame: str | None = None
    problems: int = 0
    error: str | None = None
    digest: str | None = None  # sha256 of the bytes parsed, when the file had just changed


def _racy(file: AgentFile) -> bool:
    """Changed too recently for its stat to show the next change (``keep.fresh.racy``): its row
    holds a hash of its bytes."""
    return racy(file.mtime_ns, file.ctime_ns)


def fingerprint() -> str:
    """What the rows depend on: this module and every module it imports (the parser, the
    grammar, arcs and their chapters, ...), as ``keep.WORLD_INDEX``'s fingerprint. Another
    value means a stale index."""
    return WORLD_INDEX.fingerprint()


def index_path(world: World, label: str | None = None) -> Path:
    """Where the index of ``world`` (for arcs of ``label``) lives in the cache folder."""
    return WORLD_INDEX.path / f"{place_key(world.memory_dir, label or '')}.sqlite"


def _summary_json(summary: ArcSummary) -> str:
    # Positional: the field names are in the fingerprint, so an index of other fields is stale.
    # ASCII JSON: an undecodable byte of a soul file is a lone surrogate in the parsed text, which
    # SQLite (UTF-8) cannot store; JSON's \u escapes carry it and give it back unchanged.
    return json.dumps(astuple(summary), separators=(",", ":"))


def _heading_json(heading: str | None) -> str | None:
    return None if heading is None else json.dumps(heading)


def _heading_from(text: str | None) -> str | None:
    if text is None:
        return None
    heading = json.loads(text)
    if not isinstance(heading, str):
        raise ValueError("not a heading")
    return heading


_FIELDS = [f.name for f in dataclasses.fields(ArcSummary)]
_LATEST, _DRIFT = _FIELDS.index("latest"), _FIELDS.index("drift")


def _summary_from(text: str) -> ArcSummary:
    values = json.loads(text)
    latest = values[_LATEST]
    if latest is not None:
        values[_LATEST] = Statement(*latest)
    values[_DRIFT] = tuple(values[_DRIFT])
    return ArcSummary(*values)


class WorldIndex:
    """The index of one world, for arcs of one label. Use it from one thread at a time."""

    def __init__(self, world: World, label: str | None = None, path: Path | None = None) -> None:
        self.world = world
        self.label = label
        # A single soul file is not worth a file of its own.
        self.path = None if world.only is not None else (path or index_path(world, label))
        self.notes: list[str] = []  # what the index did about itself, one sentence each
        self._db = self._connect()

    def __enter__(self) -> WorldIndex:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._db.close()

    # -- opening -----------------------------------------------------------------------------
    def _connect(self) -> sqlite3.Connection:
        if self.path is not None:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                new = not self.path.exists()
                db = self._prepare(sqlite3.connect(self.path, timeout=10, check_same_thread=False))
                if new:  # one world more: the indexes of the worlds used least go
                    trim(self.path.parent, WORLD_INDEX.max_entries, WORLD_INDEX.max_bytes)
                return db
            except (OSError, sqlite3.DatabaseError) as exc:
                # Corrupt, or not ours: it is disposable. Start again from the files.
                why = getattr(exc, "strerror", None) or str(exc)
                try:
                    self.path.unlink(missing_ok=True)
                    db = self._prepare(
                        sqlite3.connect(self.path, timeout=10, check_same_thread=False)
                    )
                    self.notes.append(
                        f"the world index {self.path} was unreadable ({why}); it was rebuilt"
                    )
                    return db
                except (OSError, sqlite3.DatabaseError) as again:
                    self.notes.append(
                        f"the world index {self.path} cannot be used "
                        f"({getattr(again, 'strerror', None) or again}); it is kept in memory "
                        "for this run"
                    )
                    self.path = None  # an unwritable cache folder: keep it in memory this run
        return self._prepare(sqlite3.connect(":memory:", check_same_thread=False))

    def _prepare(self, db: sqlite3.Connection) -> sqlite3.Connection:
        try:
            db.executescript(_SCHEMA)
            row = db.execute("SELECT value FROM meta WHERE key = 'fingerprint'").fetchone()
            if row is not None and row[0] != fingerprint():
                self.notes.append(
                    "the world index was made by another version of soulscope; it was rebuilt"
                )
            if row is None or row[0] != fingerprint():
                with db:
                    # (dropped, not emptied: another version's table may have other columns)
                    db.execute("DROP TABLE souls")
                    db.executescript(_SCHEMA)
                    db.execute(
                        "INSERT OR REPLACE INTO meta VALUES ('fingerprint', ?)", (fingerprint(),)
                    )
        except sqlite3.DatabaseError:
            db.close()
            raise
        return db

    # -- reading -----------------------------------------------------------------------------
    def scan(self) -> tuple[list[Entry], list[AgentFile]]:
        """The files whose row is current (as entries) and those to parse again; no parsing.

        Rows of files that are gone are deleted.
        """
        files = self.world.agents()
        try:
            rows = {
                r[0]: r
                for r in self._db.execute(
                    "SELECT name, size, mtime_ns, ctime_ns, inode, digest, summary, last_frame, "
                    "problems FROM souls"
                )
            }
        except sqlite3.DatabaseError as exc:
            self._db.close()
            if self.path is not None:
                self.path.unlink(missing_ok=True)
                self.notes.append(f"the world index {self.path} was unreadable ({exc}); rebuilt")
            self._db = self._connect()
            rows = {}
        fresh: list[Entry] = []
        stale: list[AgentFile] = []
        with collector.paused():
            for f in files:
                row = rows.pop(f.path.name, None)
                if row is not None and row[1:5] == (f.size, f.mtime_ns, f.ctime_ns, f.inode):
                    if row[5] is not None and row[5] != _digest_of(f):
                        stale.append(f)  # changed within a tick of being indexed
                        continue
                    try:
                        fresh.append(Entry(f, _summary_from(row[6]), _heading_from(row[7]), row[8]))
                        continue
                    except (ValueError, TypeError, KeyError, IndexError):
                        pass  # a row this code cannot read: parse the file again
                stale.append(f)
        if rows:
            with self._db:
                self._db.executemany("DELETE FROM souls WHERE name = ?", ((n,) for n in rows))
        return fresh, stale

    def parse(self, file: AgentFile) -> Entry:
        """Parse one file and keep its row (written at the next ``save``)."""
        try:
            data = file.path.read_bytes()
        except OSError as exc:
            return Entry(file, error=f"cannot read {file.path}: {exc.strerror}")
        entry = self.entry(file, parse.parse(data, agent_id=file.id))
        if _racy(file):
            entry = dataclasses.replace(entry, digest=hashlib.sha256(data).hexdigest())
        return entry

    def entry(self, file: AgentFile, soul: Soul, summary: ArcSummary | None = None) -> Entry:
        """The entry of a file parsed elsewhere (the dashboard's cache of parsed souls)."""
        last = soul.last_frame
        return Entry(
            file,
            summary or summarize(file.id, soul, self.label),
            last.heading if last else None,
            len(soul.problems),
        )

    def save(self, entries: Iterable[Entry]) -> None:
        """Write the rows of parsed entries (unreadable files get none: they are tried again,
        nor do files changed just now whose bytes were not hashed)."""
        rows = [
            (
                e.file.path.name,
                e.file.size,
                e.file.mtime_ns,
                e.file.ctime_ns,
                e.file.inode,
                e.digest,
                _summary_json(e.summary),
                _heading_json(e.last_frame),
                e.problems,
            )
            for e in entries
            if e.summary is not None and (e.digest is not None or not _racy(e.file))
        ]
        if not rows:
            return
        try:
            with self._db:
                self._db.executemany(
                    "INSERT OR REPLACE INTO souls VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", rows
                )
        except sqlite3.DatabaseError:
            pass  # the index is a cache: the next run parses these files again

    def entries(self) -> list[Entry]:
        """Every agent of the world, in the world's order, parsing only what changed."""
        fresh, stale = self.scan()
        parsed = [self.parse(f) for f in stale]
        self.save(parsed)
        order = {f.path.name: i for i, f in enumerate(self.world.agents())}
        return sorted(fresh + parsed, key=lambda e: order[e.file.path.name])


def _digest_of(file: AgentFile) -> str | None:
    try:
        return hashlib.sha256(file.path.read_bytes()).hexdigest()
    except OSError:
        return None


def world_entries(
    world: World, label: str | None = None, notes: list[str] | None = None
) -> list[Entry]:
    """Every agent of ``world`` with its summary, from the index (updated first); what the
    index did about itself (rebuilt, kept in memory) is added to ``notes``."""
    with WorldIndex(world, label) as index:
        entries = index.entries()
        if notes is not None:
            notes.extend(index.notes)
        return entries
