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

A world's index, joined from its files' entries, is kept too, as one entry file per world and
choice of agents (``keep.entries``: checksummed, never read through a link), laid out column by
column so that a search reads it without decoding it: the BM25 terms sorted (found by bisection),
the postings and the chunks' numbers, dates and agents as arrays, and each chunk's JSON on its
own, read only when a hit shows it. Read back, the arrays are ``memoryview``s of the entry's
bytes: a search from a kept index imports no numpy (only building one does). One made from other
files is joined again; one that cannot be used is removed, made again and said in one sentence
(``WorldIndex.notes``).
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import operator
import sqlite3
import struct
import threading
import time
from array import array
from collections.abc import Iterable, Sequence
from itertools import accumulate
from pathlib import Path
from typing import Any, NoReturn, overload

from soulscope.keep import PREPARED
from soulscope.keep.entries import read_entry, trim, write_entry
from soulscope.recall.chunks import CONTEXT_BULLETS, Chunk, chunk_soul
from soulscope.recall.lexical import KeptTerms, LexicalIndex, TermCounts, tokenize
from soulscope.soul import parse
from soulscope.soul.when import Moment
from soulscope.world import World, WorldError

_CHUNK_FIELDS = [f.name for f in dataclasses.fields(Chunk)]
_HEADER = struct.Struct("<4sII")  # magic, lengths of the JSON part and of the arrays' spec
_MAGIC = b"SSP3"


def fingerprint() -> bytes:
    """What an entry depends on: this module and every module it imports (the parser, the
    chunker, the tokenizer, ...), as ``keep.PREPARED``'s fingerprint."""
    return bytes.fromhex(PREPARED.fingerprint())


def unit_counts(chunks: Sequence[Chunk], context: int = CONTEXT_BULLETS) -> TermCounts:
    """The term counts of ``tokenize(u.lexical)`` for every unit of ``chunks`` (see
    ``chunks.units_of``), in order, tokenizing each bullet once.

    A unit's window (its bullet and up to ``context`` bullets before it in its block) is a run of
    consecutive bullets, so its terms are one slice of all the bullets' terms laid end to end."""
    import numpy as np

    tokens: list[str] = []  # every bullet's terms, end to end
    ends: list[int] = []  # where each bullet's end in ``tokens``
    first: list[int] = []  # each unit's first bullet (its own is the unit's number)
    block = 0  # the first bullet of the current block
    for c in chunks:
        if c.part == 0:
            block = len(ends)
        for text in c.bullets or (c.text,):  # a chunk without bullets is one unit, alone
            if not c.bullets:
                block = len(ends)
            tokens += tokenize(text)
            first.append(max(block, len(ends) - context))
            ends.append(len(tokens))
    # Term ids in the order of first sight, given in C (a dictionary's setdefault per token was
    # a fifth of a cold search).
    ids = {t: i for i, t in enumerate(dict.fromkeys(tokens))}
    terms = np.fromiter(map(ids.__getitem__, tokens), np.int64, len(tokens))
    n = len(ends)
    bounds = np.asarray([0, *ends], dtype=np.int64)
    lo = bounds[np.asarray(first, dtype=np.int64)] if n else np.zeros(0, dtype=np.int64)
    hi = bounds[1:]
    lengths = hi - lo
    # The positions in ``terms`` of every unit's window, unit after unit.
    offsets = np.repeat(lo - (np.cumsum(lengths) - lengths), lengths)
    window = terms[np.arange(int(lengths.sum())) + offsets]
    return TermCounts.counted(ids, window, lengths)


def _padding(offset: int) -> bytes:
    return b"\0" * (-offset % 8)


def _code(view: memoryview) -> str:
    """The ``struct`` code of an array's items (numpy's 64-bit ints say ``l``: kept as ``q``)."""
    code = view.format.lstrip("@=")
    return {"l": "q", "L": "Q"}.get(code, code) if view.itemsize == 8 else code


def pack(meta: object, arrays: Sequence[Any]) -> bytes:
    """JSON and arrays of numbers (numpy's, ``array``'s, ``memoryview``s: one dimension, in this
    machine's byte order) in one blob, each array at a multiple of 8 bytes."""
    # ASCII JSON: text with lone surrogates (a damaged file) round-trips as escapes.
    text = json.dumps(meta, separators=(",", ":")).encode("ascii")
    views = [memoryview(a) for a in arrays]
    spec = json.dumps([[_code(v), len(v)] for v in views]).encode("ascii")
    parts = [_HEADER.pack(_MAGIC, len(text), len(spec)), text, spec]
    offset = sum(map(len, parts))
    parts.append(_padding(offset))
    offset += len(parts[-1])
    for v in views:
        data = v.tobytes()
        parts += [data, _padding(offset + len(data))]
        offset += len(data) + len(parts[-1])
    return b"".join(parts)


def unpack(data: bytes, kinds: Sequence[str | tuple[str, ...]]) -> tuple[object, list[memoryview]]:
    """What ``pack`` wrote, its arrays of ``kinds`` (``struct`` codes; a tuple: any of those) as
    ``memoryview``s of ``data``; ``ValueError`` when it is anything else."""
    try:
        magic, size, spec_size = _HEADER.unpack_from(data)
        if magic != _MAGIC:
            raise ValueError("not a soulscope cache entry")
        offset = _HEADER.size
        meta = json.loads(data[offset : offset + size])
        offset += size
        spec = json.loads(data[offset : offset + spec_size])
        offset += spec_size
        if not isinstance(spec, list) or len(spec) != len(kinds):
            raise ValueError("a cache entry of other arrays")
        offset += -offset % 8
        whole = memoryview(data)
        arrays: list[memoryview] = []
        for (code, n), kind in zip(spec, kinds, strict=True):
            if code not in (kind if isinstance(kind, tuple) else (kind,)):
                raise ValueError("a cache entry of other arrays")
            if not isinstance(n, int) or n < 0:
                raise ValueError("a cache entry of other arrays")
            end = offset + n * struct.calcsize(code)
            if end > len(data):
                raise ValueError("a cache entry of the wrong length")
            arrays.append(whole[offset:end].cast(code))
            offset = end + -end % 8
        if offset != len(data):
            raise ValueError("a cache entry of the wrong length")
    except (struct.error, TypeError, UnicodeDecodeError) as exc:
        raise ValueError(f"not a soulscope cache entry: {exc}") from exc
    return meta, arrays


_fields_of = operator.attrgetter(*_CHUNK_FIELDS)
_MOMENT = _CHUNK_FIELDS.index("moment")  # the one field that is not plain JSON
_moment_fields = operator.attrgetter(*(f.name for f in dataclasses.fields(Moment)))


_TEXT = _CHUNK_FIELDS.index("text")


def _rows_of(chunks: Sequence[Chunk]) -> list[list]:
    """Chunks as JSON rows: their fields, then whether the text was cut before its bullets (a
    chunk's text is most often its heading, then its bullets: those are not kept twice)."""
    rows = []
    for c in chunks:
        row = list(_fields_of(c))
        if row[_MOMENT] is not None:
            row[_MOMENT] = _moment_fields(row[_MOMENT])
        tail = "\n" + "\n".join(c.bullets)
        cut = bool(c.bullets) and c.text.endswith(tail)
        if cut:
            row[_TEXT] = c.text[: -len(tail)]
        rows.append([*row, cut])
    return rows


def _chunks_from(rows: object) -> list[Chunk]:
    if not isinstance(rows, list):
        raise ValueError("chunks that are not a list")
    try:
        chunks = []
        for row in rows:
            *fields, cut = row
            moment = fields[_MOMENT]
            if moment is not None:
                fields[_MOMENT] = Moment(*moment)
            fields[-1] = bullets = tuple(fields[-1])
            if cut:
                fields[_TEXT] += "\n" + "\n".join(bullets)
            chunks.append(Chunk(*fields))
        return chunks
    except (TypeError, IndexError, KeyError, ValueError) as exc:
        raise ValueError(f"a chunk that is not one: {exc}") from exc


_COUNTS = ("i", "i", "i", "q")  # TermCounts' terms, tfs, per_doc, lengths


@dataclasses.dataclass(frozen=True, slots=True)
class ChunkColumns:
    """What search needs of every chunk before it shows one: its units (its bullets, or 1),
    frame number (-1: none), date ("": none), whether it is its block's first part, and the
    agents, each with its number of chunks (one agent's chunks are consecutive)."""

    units: Sequence[int]
    numbers: Sequence[int]
    dates: Sequence[str]
    first: Sequence[int]  # 1 or 0
    agents: list[tuple[str, int]]

    @classmethod
    def of(cls, chunks: Sequence[Chunk]) -> ChunkColumns:
        agents: list[tuple[str, int]] = []
        for c in chunks:
            if agents and agents[-1][0] == c.agent:
                agents[-1] = (c.agent, agents[-1][1] + 1)
            else:
                agents.append((c.agent, 1))
        return cls(
            array("q", [len(c.bullets) or 1 for c in chunks]),
            array("q", [c.number if c.number is not None else -1 for c in chunks]),
            [c.date or "" for c in chunks],
            array("B", [c.part == 0 for c in chunks]),
            agents,
        )

    def arrays(self) -> list[Any]:
        return [self.units, self.numbers, self.first]


_COLUMNS = ("q", "q", "B")


class KeptChunks(Sequence[Chunk]):
    """A world's chunks as kept, each one's JSON on its own (``blob``, chunk ``i`` ending at
    ``ends[i]``): a chunk is read when first asked for, then held (the same object every time)."""

    def __init__(self, blob: bytes | memoryview, ends: Sequence[int]) -> None:
        if len(ends) and (ends[-1] != len(blob) or not all(map(operator.le, ends[:-1], ends[1:]))):
            raise ValueError("kept chunks that do not add up")
        self._blob = blob
        self._ends = ends
        self._made: dict[int, Chunk] = {}

    @staticmethod
    def layout(chunks: Sequence[Chunk]) -> tuple[bytes, array]:
        """``chunks`` as ``KeptChunks`` reads them: their JSON end to end, and where each ends."""
        parts = [json.dumps(row, separators=(",", ":")).encode("ascii") for row in _rows_of(chunks)]
        return b"".join(parts), array("q", accumulate(map(len, parts)))

    def __len__(self) -> int:
        return len(self._ends)

    @overload
    def __getitem__(self, i: int) -> Chunk: ...

    @overload
    def __getitem__(self, i: slice) -> list[Chunk]: ...

    def __getitem__(self, i: int | slice) -> Chunk | list[Chunk]:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        n = len(self._ends)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError("chunk index out of range")
        chunk = self._made.get(i)
        if chunk is None:
            lo = self._ends[i - 1] if i else 0
            made = _chunks_from([json.loads(bytes(self._blob[lo : self._ends[i]]))])[0]
            chunk = self._made.setdefault(i, made)  # one object, whichever thread made it first
        return chunk


@dataclasses.dataclass(frozen=True, slots=True)
class WorldIndex:
    """What search reads of a world: its chunks, as columns too, their BM25 index, the sentence
    of each file that could not be read, and of each kept index found unusable (and rebuilt)."""

    chunks: Sequence[Chunk]
    columns: ChunkColumns
    lexical: LexicalIndex
    skipped: list[str]
    notes: list[str]


# The postings' rows and counts are kept in 16 bits where they fit (a world of 65,536 units or
# more, a word 65,536 times in one unit: 32; read without numpy, they are a sixth of the entry).
_WORLD = ("B", "q", "d", "q", ("H", "I"), ("H", "i"), "q")
_WORLD_KINDS = (*_WORLD, *_COLUMNS, "B", "q")


def pack_world(
    key: bytes, chunks: Sequence[Chunk], columns: ChunkColumns, lexical: LexicalIndex
) -> bytes:
    """A world's index as one kept entry: ``key`` (the entries it was joined from), the BM25
    columns (``LexicalIndex.columns``), the chunks' columns and their JSON."""
    import numpy as np

    terms, ends, arrays = lexical.columns()
    if lexical.size <= 1 << 16:
        arrays[2] = arrays[2].astype(np.uint16)
    tfs = arrays[3]
    if not len(tfs) or int(tfs.max()) < 1 << 16:
        arrays[3] = tfs.astype(np.uint16)
    blob, chunk_ends = KeptChunks.layout(chunks)
    meta = {"key": key.hex(), "agents": columns.agents, "k1": lexical.k1, "dates": columns.dates}
    return pack(meta, [terms, ends, *arrays, *columns.arrays(), blob, chunk_ends])


def unpack_world(data: bytes, key: bytes) -> WorldIndex | None:
    """A world's index read back; None when it was joined from other entries (files changed
    since), ``ValueError`` when it is not one this code wrote."""
    meta, arrays = unpack(data, _WORLD_KINDS)
    if not isinstance(meta, dict) or meta.get("key") != key.hex():
        return None if isinstance(meta, dict) else _not_an_index()
    terms, ends, idf, start, rows, tfs, lengths, *rest = arrays
    units, numbers, first, blob, chunk_ends = rest
    agents, k1, dates = meta.get("agents"), meta.get("k1"), meta.get("dates")
    if not (
        isinstance(agents, list)
        and isinstance(k1, float)
        and isinstance(dates, list)
        and all(isinstance(d, str) for d in dates)
    ):
        _not_an_index()
    try:
        runs = [(str(a), int(n)) for a, n in agents]
    except (TypeError, ValueError):
        _not_an_index()
    if any(c <= 0 for _, c in runs):
        _not_an_index()
    n = len(chunk_ends)
    if not (
        len(units) == len(numbers) == len(dates) == len(first) == n == sum(c for _, c in runs)
        and sum(units) == len(lengths)
        and min(units, default=1) > 0
    ):
        _not_an_index()
    lexical = LexicalIndex.kept(KeptTerms(terms, ends), [idf, start, rows, tfs, lengths], k1)
    chunks = KeptChunks(blob, chunk_ends)
    return WorldIndex(chunks, ChunkColumns(units, numbers, dates, first, runs), lexical, [], [])


def _not_an_index() -> NoReturn:
    raise ValueError("not a world's search index")


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
        import numpy as np

        counts = TermCounts(meta["vocab"], *map(np.asarray, arrays))
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
    """The search index's folder: ``prepared.sqlite3``, sha256 of (fingerprint, agent id, chunk
    size, file bytes) -> a packed entry, safe across threads and processes, where every failure
    to read or write is a miss; and ``worlds/``, one entry file per world's joined index."""

    def __init__(self, folder: Path | None = None) -> None:
        self.folder = folder or PREPARED.path
        self.path = self.folder / "prepared.sqlite3"
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

    def world_path(self, place: bytes) -> Path:
        """Where the index of the world at ``place`` is kept by this code (other code's are
        other files, trimmed in time)."""
        name = hashlib.sha256(fingerprint() + place).hexdigest()[:32]
        return self.folder / "worlds" / name

    def world(self, place: bytes, key: bytes) -> tuple[WorldIndex | None, str | None]:
        """The index kept for the world at ``place`` if it was joined from the entries of
        ``key``, and the sentence said when the one kept could not be used (it is removed)."""
        path = self.world_path(place)
        kept = read_entry(path, PREPARED.name, PREPARED.fingerprint())
        if kept.payload is None:
            return None, PREPARED.rebuilt(path, kept.problem) if kept.problem else None
        try:
            return unpack_world(kept.payload, key), None
        except ValueError as exc:
            path.unlink(missing_ok=True)
            return None, PREPARED.rebuilt(path, str(exc))

    def put_world(self, place: bytes, data: bytes) -> None:
        """Keep a world's index (nothing where the folder cannot be written); each folder keeps
        ``keep.PREPARED``'s number of worlds, those used last."""
        path = self.world_path(place)
        with contextlib.suppress(OSError):
            write_entry(path, PREPARED.name, PREPARED.fingerprint(), data)
            trim(path.parent, PREPARED.max_entries, PREPARED.max_bytes)

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
) -> WorldIndex:
    """The chunks of ``agents`` (readable ones, in order) and their BM25 index. Every file is
    read; with ``cache``, what it holds for the files as they are is used: the world's joined
    index, else each unchanged file's entry."""
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
    notes: list[str] = []
    if cache:
        kept, problem = cache.world(place, key)
        notes += [problem] if problem else []
        if kept is not None:
            return dataclasses.replace(kept, skipped=skipped, notes=notes)
    prepared = _prepare(found, max_chars, cache)
    chunks = [c for p in prepared for c in p.chunks]
    lexical = LexicalIndex(TermCounts.joined([p.counts for p in prepared]))
    columns = ChunkColumns.of(chunks)
    if cache:
        cache.put_world(place, pack_world(key, chunks, columns, lexical))
    return WorldIndex(chunks, columns, lexical, skipped, notes)
