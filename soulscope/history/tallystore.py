"""Each soul file's link tallies kept between runs (``keep.LINK_TALLIES``): what one file says of
the others, as the influence graph counts it (``graph._file_tally``), read back instead of read
again while the file and the world's names are unchanged.

Reading the links of every file is most of a first ``graph``: a world of 5,000 agents holds
hundreds of thousands of names to type. Kept per file, a graph after one frame reads only the files
that frame changed, and a graph after the world was indexed (``graph.prepare``) reads none.

One SQLite file per world, a row per soul file keyed by its name and stat (size, mtime, change
time, inode; a file changed within ``keep.fresh.RACY_NS`` is not kept: its stat may not show the
next change), and by ``names_key``: the names of the world's agents decide what a file's words
are, so an agent joining the world or a registry edited makes every row stale. The code that
makes the tallies is the kind's fingerprint. Disposable like every kept kind: a store that cannot
be read is made again, one that cannot be written keeps nothing this run.
"""

from __future__ import annotations

import hashlib
import marshal
import sqlite3
import sys
from array import array
from collections.abc import Iterable, Sequence
from contextlib import closing
from pathlib import Path
from typing import TYPE_CHECKING, Any

from soulscope.keep import LINK_TALLIES, place_key
from soulscope.keep.entries import trim
from soulscope.keep.fresh import racy
from soulscope.memo import world_state
from soulscope.world import AgentFile, World

if TYPE_CHECKING:  # (the names are read only where links are: not by a warm listing's check)
    from soulscope.history.names import AgentNames

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS tallies (
    name TEXT PRIMARY KEY,   -- the file's name in the memory folder
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    ctime_ns INTEGER NOT NULL,
    inode INTEGER NOT NULL,
    frames INTEGER NOT NULL, -- graph.Tally's fields: its frames counted,
    who BLOB NOT NULL,       -- the agents named (marshal),
    weights BLOB NOT NULL,   -- their weights (8-byte whole numbers, as array('q') writes them),
    details BLOB NOT NULL    -- the rest of their columns (marshal: unpacked when asked for)
);
CREATE TABLE IF NOT EXISTS listed (
    name TEXT PRIMARY KEY,   -- as in tallies; a row of the archetypes the file lists as agents
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    ctime_ns INTEGER NOT NULL,
    inode INTEGER NOT NULL,
    prefix TEXT NOT NULL,    -- the world's prefix they were read with
    archetypes TEXT NOT NULL -- names.listed_in's, joined by spaces
);
"""

Tally = tuple[int, list[str], Sequence[int], Any]  # graph.Tally: a file's, or as kept


def names_key(names: AgentNames) -> str:
    """What a file's tally depends on besides the file: the world's names (``AgentNames``, read
    as its fields, each in a fixed order) and the Python that wrote the rows."""
    listed = sorted(names.listed) if names.guess and names.prefix else None
    parts = (
        sorted(names.forms.items()),
        sorted(names.present),
        names.prefix,
        sorted(names.archetypes),
        sorted(names.people.items()),
        names.guess,
        listed,
        sys.version_info[:2],
    )
    return hashlib.sha256(repr(parts).encode("utf-8", "surrogatepass")).hexdigest()


def prepared(world: World) -> bool:
    """Whether every file's tally is kept as the world is now (its files' and registry's stats,
    as ``prepare`` last left them, by this code): told without opening a file of the world."""
    path = store_path(world)
    state = world_state(world)
    if state is None or not path.exists():
        return False
    try:
        with closing(sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True, timeout=10)) as db:
            row = db.execute("SELECT value FROM meta WHERE key = 'world'").fetchone()
    except sqlite3.DatabaseError:
        return False
    return row is not None and row[0] == f"{LINK_TALLIES.fingerprint()} {state}"


def store_path(world: World) -> Path:
    return LINK_TALLIES.path / f"{place_key(world.memory_dir)}.sqlite"


class TallyStore:
    """The kept tallies of one world: ``know`` its names, then ``get`` and ``put``."""

    def __init__(self, world: World) -> None:
        self.world = world
        self.path = store_path(world)
        self._db = self._connect()

    def __enter__(self) -> TallyStore:
        return self

    def __exit__(self, *exc: object) -> None:
        if self._db is not None:
            self._db.close()

    def _connect(self) -> sqlite3.Connection | None:
        for attempt in range(2):
            db = None
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                new = not self.path.exists()
                db = sqlite3.connect(self.path, timeout=10)
                self._stamp(db, "code", LINK_TALLIES.fingerprint(), ("tallies", "listed"))
                if new:
                    trim(self.path.parent, LINK_TALLIES.max_entries, LINK_TALLIES.max_bytes)
                return db
            except (OSError, sqlite3.DatabaseError):
                if db is not None:
                    db.close()  # (the broken file is not left open while it is replaced)
                if attempt == 0:  # corrupt or foreign: disposable, made again
                    try:
                        self.path.unlink(missing_ok=True)
                    except OSError:
                        return None
        return None  # a cache folder that cannot be written: nothing kept this run

    @staticmethod
    def _stamp(db: sqlite3.Connection, key: str, value: str, tables: tuple[str, ...]) -> None:
        """The rows were made under ``value`` (code, names): under another, ``tables`` go."""
        db.executescript(_SCHEMA)
        row = db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        if row is None or row[0] != value:
            with db:
                for table in tables:
                    db.execute(f"DROP TABLE {table}")
                db.executescript(_SCHEMA)
                db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))

    def know(self, names: AgentNames, files: list[AgentFile]) -> None:
        """Tallies are kept for these names of the world's agents (other names: every row is
        stale); where the names guess from what the files list (no registry), that is read from
        the listings kept per file, reading only the files changed."""
        if names.guess and names.prefix:
            names.knowing(frozenset(self._listed(files, names.prefix)))
        if self._db is not None:
            try:
                self._stamp(self._db, "names", names_key(names), ("tallies",))
            except sqlite3.DatabaseError:
                self._db.close()
                self._db = None

    def _listed(self, files: list[AgentFile], prefix: str) -> set[str]:
        from soulscope.history.names import listed_in

        kept = {
            name: text
            for name, *stat, p, text in self._rows("listed", "prefix, archetypes", files)
            if p == prefix
        }
        found: set[str] = set()
        new = []
        for f, data in self.world.sources(None, [f for f in files if f.path.name not in kept]):
            listed = listed_in(data, prefix)
            found |= listed
            new.append((f.path.name, *_stat(f), prefix, " ".join(sorted(listed))))
        for text in kept.values():
            found.update(text.split())
        self._write("INSERT OR REPLACE INTO listed VALUES (?, ?, ?, ?, ?, ?, ?)", _settled(new))
        return found

    def _rows(self, table: str, columns: str, files: Iterable[AgentFile]) -> list[tuple]:
        """The rows of ``table`` of ``files`` whose stat is the one kept."""
        if self._db is None:
            return []
        wanted = {f.path.name: _stat(f) for f in files}
        try:
            cursor = self._db.execute(
                f"SELECT name, size, mtime_ns, ctime_ns, inode, {columns} FROM {table}"
            )
            return [r for r in cursor if wanted.get(r[0]) == tuple(r[1:5])]
        except sqlite3.DatabaseError:
            return []

    def _write(self, sql: str, rows: list[tuple]) -> None:
        if self._db is None or not rows:
            return
        try:
            with self._db:
                self._db.executemany(sql, rows)
        except sqlite3.DatabaseError:
            pass  # kept data is disposable: the next run reads these files again

    def complete(self) -> None:
        """Every file's tally is kept now: said in the store for ``prepared``."""
        state = world_state(self.world)
        if state is not None:
            value = f"{LINK_TALLIES.fingerprint()} {state}"
            self._write("INSERT OR REPLACE INTO meta VALUES ('world', ?)", [(value,)])

    def missing(self, files: list[AgentFile]) -> list[AgentFile]:
        """Those of ``files`` whose tally is not kept (or kept of another stat)."""
        kept = {r[0] for r in self._rows("tallies", "NULL", files)}
        return [f for f in files if f.path.name not in kept]

    def get(self, files: Iterable[AgentFile]) -> dict[str, Tally]:
        """The kept tallies of ``files`` whose stat is the one kept, by file name."""
        found: dict[str, Tally] = {}
        for name, *_, frames, who, weights, details in self._rows(
            "tallies", "frames, who, weights, details", files
        ):
            try:
                named, weight = marshal.loads(who), array("q", weights)
            except (ValueError, EOFError, TypeError):
                continue  # a row this code cannot read: the file is read again
            if len(named) == len(weight):
                found[name] = (frames, named, weight, details)
        return found

    def put(self, tallies: Iterable[tuple[AgentFile, Tally]]) -> None:
        """Keep these files' tallies."""
        rows = [
            (
                f.path.name,
                *_stat(f),
                frames,
                marshal.dumps(who),
                array("q", weight).tobytes(),
                (details if isinstance(details, bytes) else marshal.dumps(details)),
            )
            for f, (frames, who, weight, details) in tallies
        ]
        self._write(
            "INSERT OR REPLACE INTO tallies VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", _settled(rows)
        )


def _settled(rows: list[tuple]) -> list[tuple]:
    """The rows of files not changed just now (``keep.fresh.racy``): a stat taken within a
    tick of a change may not show the next one."""
    return [r for r in rows if not racy(r[2], r[3])]


def _stat(f: AgentFile) -> tuple[int, int, int, int]:
    return f.size, f.mtime_ns, f.ctime_ns, f.inode
