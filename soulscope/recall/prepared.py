"""A soul file as search needs it: its chunks and the BM25 term counts of its units, kept in the
cache folder under the sha256 of the file's bytes, so that searching a world reads every file but
parses, chunks and tokenizes only those that changed.

Like the embeddings cache, an entry is found by content: an unchanged file, a copy of it, or the
same file in another checkout is never prepared twice; a file that gained a frame is prepared
again (its older entries stay until ``prune``). The code that makes an entry (the parser, the
chunker, the tokenizer, this module) is fingerprinted into its key, so another soulscope never
reads an entry it did not write. The cache is disposable: an entry that cannot be read is made
again, and where the cache folder cannot be written nothing is kept.

Tokenizing is most of a cold search's time, and a unit's BM25 text is its bullet with up to two
earlier bullets of its block (``chunks.units_of``), so each bullet is tokenized once and a unit's
terms are those of its window's bullets (the tokenizer never joins text across a newline).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import operator
import sqlite3
import struct
import threading
import time
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np

from soulscope.keep import PREPARED
from soulscope.recall.chunks import CONTEXT_BULLETS, Chunk, chunk_soul
from soulscope.recall.lexical import LexicalIndex, TermCounts, tokenize
from soulscope.soul import parse
from soulscope.soul.when import Moment
from soulscope.world import World, WorldError

_CHUNK_FIELDS = [f.name for f in dataclasses.fields(Chunk)]
_HEADER = struct.Struct("<4sII")  # magic, lengths of the JSON part and of the arrays' spec
_MAGIC = b"SSP1"


def fingerprint() -> bytes:
    """What an entry depends on: this module and every module it imports (the parser, the
    chunker, the tokenizer, ...), as ``keep.PREPARED``'s fingerprint."""
    return bytes.fromhex(PREPARED.fingerprint())


def unit_counts(chunks: Sequence[Chunk], context: int = CONTEXT_BULLETS) -> TermCounts:
    """The term counts of ``tokenize(u.lexical)`` for every unit of ``chunks`` (see
    ``chunks.units_of``), in order, tokenizing each bullet once.

    A unit's window (its bullet and up to ``context`` bullets before it in its block) is a run of
    consecutive bullets, so its terms are one slice of all the bullets' terms laid end to end."""
    ids: dict[str, int] = {}
    add = ids.setdefault
    terms: list[int] = []  # every bullet's term ids, end to end
    ends: list[int] = []  # where each bullet's end in ``terms``
    first: list[int] = []  # each unit's first bullet (its own is the unit's number)
    block = 0  # the first bullet of the current block
    for c in chunks:
        if c.part == 0:
            block = len(ends)
        for text in c.bullets or (c.text,):  # a chunk without bullets is one unit, alone
            if not c.bullets:
                block = len(ends)
            terms += [add(t, len(ids)) for t in tokenize(text)]
            first.append(max(block, len(ends) - context))
            ends.append(len(terms))
    n = len(ends)
    bounds = np.asarray([0, *ends], dtype=np.int64)
    lo = bounds[np.asarray(first, dtype=np.int64)] if n else np.zeros(0, dtype=np.int64)
    hi = bounds[1:]
    lengths = hi - lo
    # The positions in ``terms`` of every unit's window, unit after unit.
    offsets = np.repeat(lo - (np.cumsum(lengths) - lengths), lengths)
    window = np.asarray(terms, dtype=np.int64)[np.arange(int(lengths.sum())) + offsets]
    return TermCounts.counted(ids, window, lengths)


def pack(meta: object, arrays: Sequence[np.ndarray]) -> bytes:
    """JSON and numpy arrays in one blob (the arrays are read back without copying)."""
    # ASCII JSON: text with lone surrogates (a damaged file) round-trips as escapes.
    text = json.dumps(meta, separators=(",", ":")).encode("ascii")
    arrays = [np.ascontiguousarray(a) for a in arrays]
    head = [[a.dtype.str, len(a)] for a in arrays]
    spec = json.dumps(head).encode("ascii")
    return b"".join(
        [_HEADER.pack(_MAGIC, len(text), len(spec)), text, spec, *(a.tobytes() for a in arrays)]
    )


def unpack(data: bytes, kinds: Sequence[type]) -> tuple[object, list[np.ndarray]]:
    """What ``pack`` wrote, its arrays of ``kinds``; ``ValueError`` when it is anything else."""
    try:
        magic, size, spec_size = _HEADER.unpack_from(data)
        if magic != _MAGIC:
            raise ValueError("not a soulscope cache entry")
        offset = _HEADER.size
        meta = json.loads(data[offset : offset + size])
        offset += size
        spec = json.loads(data[offset : offset + spec_size])
        offset += spec_size
        if len(spec) != len(kinds):
            raise ValueError("a cache entry of other arrays")
        arrays: list[np.ndarray] = []
        for (dtype, n), kind in zip(spec, kinds, strict=True):
            if np.dtype(dtype) != np.dtype(kind) or not isinstance(n, int) or n < 0:
                raise ValueError("a cache entry of other arrays")
            arrays.append(np.frombuffer(data, kind, n, offset))
            offset += n * np.dtype(kind).itemsize
        if offset != len(data):
            raise ValueError("a cache entry of the wrong length")
    except (struct.error, TypeError, UnicodeDecodeError) as exc:
        raise ValueError(f"not a soulscope cache entry: {exc}") from exc
    return meta, arrays


_fields_of = operator.attrgetter(*_CHUNK_FIELDS)
_MOMENT = _CHUNK_FIELDS.index("moment")  # the one field that is not plain JSON
_moment_fields = operator.attrgetter(*(f.name for f in dataclasses.fields(Moment)))


def _rows_of(chunks: Sequence[Chunk]) -> list[list]:
    rows = []
    for c in chunks:
        row = list(_fields_of(c))
        if row[_MOMENT] is not None:
            row[_MOMENT] = _moment_fields(row[_MOMENT])
        rows.append(row)
    return rows


def _chunks_from(rows: object) -> list[Chunk]:
    if not isinstance(rows, list):
        raise ValueError("chunks that are not a list")
    try:
        chunks = []
        for row in rows:
            moment = row[_MOMENT]
            if moment is not None:
                row[_MOMENT] = Moment(*moment)
            row[-1] = tuple(row[-1])
            chunks.append(Chunk(*row))
        return chunks
    except (TypeError, IndexError, KeyError) as exc:
        raise ValueError(f"a chunk that is not one: {exc}") from exc


_COUNTS = (np.int32, np.int32, np.int32, np.int64)  # TermCounts' terms, tfs, per_doc, lengths
_LEXICAL = (np.float64, np.int64, np.float64, np.int64)  # LexicalIndex.state's arrays


@dataclasses.dataclass(frozen=True, slots=True)
class Prepared:
    """One soul file's chunks and the term counts of their units."""

    chunks: list[Chunk]
    counts: TermCounts

    @classmethod
    def of(cls, chunks: list[Chunk]) -> Prepared:
        return cls(chunks, unit_counts(chunks))

    def pack(self) -> bytes:
        c = self.counts
        meta = {"chunks": _rows_of(self.chunks), "vocab": c.vocab}
        return pack(meta, [c.terms, c.tfs, c.per_doc, c.lengths])

    @classmethod
    def unpack(cls, data: bytes) -> Prepared:
        """An entry read back; ``ValueError`` when it is not one this code wrote."""
        meta, arrays = unpack(data, _COUNTS)
        if not isinstance(meta, dict) or not isinstance(meta.get("vocab"), list):
            raise ValueError("not a prepared soul file")
        counts = TermCounts(meta["vocab"], *arrays)
        terms = counts.terms
        if (
            len(counts.lengths) != len(counts.per_doc)
            or len(terms) != len(counts.tfs)
            or int(counts.per_doc.sum()) != len(terms)
            or (len(terms) and not 0 <= int(terms.min()) <= int(terms.max()) < len(counts.vocab))
        ):
            raise ValueError("a prepared soul file whose counts do not add up")
        return cls(_chunks_from(meta.get("chunks")), counts)


class PreparedCache:
    """sha256 of (fingerprint, agent id, chunk size, file bytes) -> a packed entry, in one SQLite
    file; safe across threads and processes. Every failure to read or write is a miss."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or PREPARED.path
        self._local = threading.local()
        self.broken = False  # the file cannot be opened or written: run without it

    def _db(self) -> sqlite3.Connection | None:
        if self.broken:
            return None
        db = getattr(self._local, "db", None)
        if db is None:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                db = sqlite3.connect(self.path, timeout=30)
                db.execute("PRAGMA journal_mode=WAL")
                db.execute("PRAGMA synchronous=NORMAL")  # a cache: a lost write is made again
                db.execute(
                    "CREATE TABLE IF NOT EXISTS prepared "
                    "(key BLOB PRIMARY KEY, data BLOB NOT NULL, used REAL NOT NULL)"
                )
                # One joined index per world (and choice of agents): its key is that of the
                # entries it was joined from, so any change of any file makes it stale.
                db.execute(
                    "CREATE TABLE IF NOT EXISTS joined "
                    "(place BLOB PRIMARY KEY, key BLOB NOT NULL, data BLOB NOT NULL)"
                )
            except (OSError, sqlite3.Error):
                self.broken = True
                return None
            self._local.db = db
        return db

    def get_many(self, keys: Sequence[bytes]) -> dict[bytes, bytes]:
        db = self._db()
        found: dict[bytes, bytes] = {}
        if db is None:
            return found
        try:
            for i in range(0, len(keys), 500):  # stay under SQLite's bound-parameter limit
                batch = list(keys[i : i + 500])
                marks = ",".join("?" * len(batch))
                for key, data in db.execute(
                    f"SELECT key, data FROM prepared WHERE key IN ({marks})", batch
                ):
                    found[bytes(key)] = bytes(data)
        except sqlite3.Error:
            return {}
        return found

    def put_many(self, items: Iterable[tuple[bytes, bytes]]) -> None:
        db = self._db()
        rows = [(k, d, time.time()) for k, d in items]
        if db is None or not rows:
            return
        try:
            with db:
                db.executemany("INSERT OR REPLACE INTO prepared VALUES (?, ?, ?)", rows)
        except sqlite3.Error:
            pass  # a cache: the next search prepares these files again

    def joined(self, place: bytes, key: bytes) -> bytes | None:
        """The joined index kept for ``place``, if it was joined from the entries of ``key``."""
        db = self._db()
        if db is None:
            return None
        try:
            row = db.execute(
                "SELECT data FROM joined WHERE place = ? AND key = ?", (place, key)
            ).fetchone()
        except sqlite3.Error:
            return None
        return bytes(row[0]) if row else None

    def put_joined(self, place: bytes, key: bytes, data: bytes) -> None:
        db = self._db()
        if db is None:
            return
        try:
            with db:
                db.execute("INSERT OR REPLACE INTO joined VALUES (?, ?, ?)", (place, key, data))
        except sqlite3.Error:
            pass

    def touch(self, keys: Sequence[bytes]) -> None:
        """Mark entries as used now (what ``prune`` keeps)."""
        db = self._db()
        if db is None or not keys:
            return
        now = time.time()
        try:
            with db:
                db.executemany(
                    "UPDATE prepared SET used = ? WHERE key = ?", [(now, k) for k in keys]
                )
        except sqlite3.Error:
            pass

    def prune(self, older_than: float = 30 * 86400) -> None:
        """Forget entries unused for ``older_than`` seconds (files that have changed since)."""
        db = self._db()
        if db is None:
            return
        try:
            with db:
                db.execute("DELETE FROM prepared WHERE used < ?", (time.time() - older_than,))
        except sqlite3.Error:
            pass


def entry_key(agent_id: str, max_chars: int, data: bytes) -> bytes:
    h = hashlib.sha256(fingerprint())
    h.update(f"\0{agent_id}\0{max_chars}\0".encode())
    h.update(data)
    return h.digest()


def _prepare(
    found: Sequence[tuple[str, bytes, bytes]], max_chars: int, cache: PreparedCache | None
) -> list[Prepared]:
    """The entry of each (agent id, key, file bytes): from the cache, else made (and kept)."""
    known = cache.get_many([key for _, key, _ in found]) if cache else {}
    prepared: list[Prepared] = []
    fresh: list[tuple[bytes, bytes]] = []
    used: list[bytes] = []
    for agent_id, key, data in found:
        entry = None
        if key in known:
            try:
                entry = Prepared.unpack(known[key])
                used.append(key)
            except ValueError:
                entry = None  # not one this code wrote: make it again
        if entry is None:
            soul = parse.parse(data, agent_id=agent_id)
            entry = Prepared.of(chunk_soul(soul, agent_id, max_chars=max_chars))
            fresh.append((key, entry.pack()))
        prepared.append(entry)
    if cache:
        cache.touch(used)
        if fresh:
            cache.put_many(fresh)
            cache.prune()
    return prepared


def world_index(
    world: World,
    agents: Sequence[str],
    max_chars: int,
    cache: PreparedCache | None = None,
) -> tuple[list[Chunk], LexicalIndex, list[str]]:
    """The chunks of ``agents`` (readable ones, in order), their BM25 index, and the sentence of
    each file that could not be read. Every file is read; with ``cache``, what it holds for the
    files as they are is used: the joined index, else each unchanged file's entry."""
    found: list[tuple[str, bytes, bytes]] = []  # agent id, entry key, the file's bytes
    skipped: list[str] = []
    for agent_id in agents:
        try:
            data = world.source(agent_id)
        except WorldError as exc:
            skipped.append(str(exc))
            continue
        found.append((agent_id, entry_key(agent_id, max_chars, data), data))
    place = hashlib.sha256(
        f"{world.memory_dir}\0{world.only or ''}\0{max_chars}\0{' '.join(agents)}".encode(
            "utf-8", "surrogatepass"
        )
    ).digest()
    key = hashlib.sha256(b"".join(k for _, k, _ in found)).digest()
    kept = cache.joined(place, key) if cache else None
    if kept is not None:
        try:
            return (*_restore(kept), skipped)
        except ValueError:
            pass  # not one this code wrote: join again
    prepared = _prepare(found, max_chars, cache)
    chunks = [c for p in prepared for c in p.chunks]
    lexical = LexicalIndex(TermCounts.joined([p.counts for p in prepared]))
    if cache:
        vocab, arrays = lexical.state()
        meta = {"chunks": _rows_of(chunks), "vocab": vocab, "size": lexical.size}
        cache.put_joined(place, key, pack(meta, arrays))
    return chunks, lexical, skipped


def _restore(data: bytes) -> tuple[list[Chunk], LexicalIndex]:
    """A joined index read back; ``ValueError`` when it is not one this code wrote."""
    meta, arrays = unpack(data, _LEXICAL)
    if not isinstance(meta, dict) or not isinstance(meta.get("vocab"), list):
        raise ValueError("not a joined index")
    chunks = _chunks_from(meta.get("chunks"))
    size = meta.get("size")
    if not isinstance(size, int) or size != sum(len(c.bullets) or 1 for c in chunks):
        raise ValueError("not a joined index")
    return chunks, LexicalIndex.restore(size, meta["vocab"], arrays)
