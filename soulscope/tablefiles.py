"""The tables of ``soulscope.tables`` written to a folder as Parquet, CSV or JSON Lines files, with
``manifest.json`` (what they hold and how they were made).

Rows are written as they come (Parquet's in row groups of ``BATCH``, held as columns until
written): memory holds at most one row group per table, whatever the size of the world. Each file is
written under a temporary name and renamed when every table is complete, the manifest last: a
killed export leaves the folder's earlier files as they were, never half a table under its
name.
"""

from __future__ import annotations

import csv
import json
import os
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

from soulscope.errors import SoulscopeError
from soulscope.tables import COLUMNS, TABLES, Extent, Row, manifest, world_rows
from soulscope.world import World

FORMATS = ("parquet", "csv", "jsonl")
SUFFIX = {"parquet": ".parquet", "csv": ".csv", "jsonl": ".jsonl"}
BATCH = 5000  # rows of a Parquet row group, held (as columns) before they are written
MANIFEST = "manifest.json"


class ExportError(SoulscopeError):
    """A folder that cannot be written, a format not known: one sentence."""


class TableFile(Protocol):
    def add(self, row: Row) -> None: ...
    def close(self) -> None: ...


class JsonLines:
    """One JSON object a line, each written as it comes."""

    def __init__(self, path: Path, table: str) -> None:
        self.f = path.open("w", encoding="utf-8", newline="\n")

    def add(self, row: Row) -> None:
        self.f.write(json.dumps(row, ensure_ascii=False) + "\n")

    def close(self) -> None:
        self.f.close()


class Csv:
    """RFC 4180 CSV with a header row, each row written as it comes; a null is an empty cell, a
    flag true or false."""

    def __init__(self, path: Path, table: str) -> None:
        self.f = path.open("w", encoding="utf-8", newline="")
        self.names = [name for name, _ in COLUMNS[table]]
        self.out = csv.writer(self.f)
        self.out.writerow(self.names)

    def add(self, row: Row) -> None:
        self.out.writerow([_cell(row[n]) for n in self.names])

    def close(self) -> None:
        self.f.close()


def _cell(value: Any) -> Any:
    if value is None:
        return ""
    if value is True or value is False:
        return "true" if value else "false"
    return value


class Parquet:
    """A Parquet file of the table's schema, a row group per ``BATCH`` rows (pyarrow), the rows
    of a group held as columns (a list of values each) until it is written."""

    def __init__(self, path: Path, table: str) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        types = {"str": pa.string(), "int": pa.int64(), "float": pa.float64(), "bool": pa.bool_()}
        self.pa = pa
        self.names = [name for name, _ in COLUMNS[table]]
        self.schema = pa.schema([(name, types[kind]) for name, kind in COLUMNS[table]])
        # the system's allocator, which gives back what a written row group held (pyarrow's
        # default pool kept it: 13 MB more at its peak)
        self.pool = pa.system_memory_pool()
        self.out = pq.ParquetWriter(
            str(path), self.schema, compression="zstd", memory_pool=self.pool
        )
        self.columns: list[list[Any]] = [[] for _ in self.names]

    def add(self, row: Row) -> None:
        for column, name in zip(self.columns, self.names, strict=True):
            column.append(row[name])
        if len(self.columns[0]) >= BATCH:
            self._flush()

    def _flush(self) -> None:
        if self.columns[0]:
            arrays = [
                self.pa.array(c, type=t, memory_pool=self.pool)
                for c, t in zip(self.columns, self.schema.types, strict=True)
            ]
            self.out.write_table(self.pa.Table.from_arrays(arrays, schema=self.schema))
            self.columns = [[] for _ in self.names]

    def close(self) -> None:
        try:
            self._flush()
        finally:
            self.out.close()


WRITERS: dict[str, type[JsonLines] | type[Csv] | type[Parquet]] = {
    "jsonl": JsonLines,
    "csv": Csv,
    "parquet": Parquet,
}


def export(
    world: World, folder: Path, fmt: str, options: dict[str, Any] | None = None
) -> dict[str, Any]:
    """Write the world's tables into ``folder`` as ``fmt``; the manifest written, returned."""
    if fmt not in WRITERS:
        raise ExportError(f"unknown format {fmt!r}: choose one of {', '.join(FORMATS)}")
    made = datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ExportError(f"cannot make {folder}: {exc.strerror or exc}") from exc
    extent = Extent()
    parts = {t: folder / f".{t}{SUFFIX[fmt]}.part" for t in TABLES}
    try:
        _write_tables(world_rows(world, extent), parts, fmt)
        info = manifest(world, extent, {"format": fmt, **(options or {})}, made)
        for t, part in parts.items():
            os.replace(part, folder / f"{t}{SUFFIX[fmt]}")
        _write_text(folder / MANIFEST, json.dumps(info, ensure_ascii=False, indent=2) + "\n")
    except OSError as exc:
        raise ExportError(f"cannot write in {folder}: {exc.strerror or exc}") from exc
    finally:
        for part in parts.values():
            part.unlink(missing_ok=True)
    return info


def _write_tables(rows: Iterable[tuple[str, Row]], parts: dict[str, Path], fmt: str) -> None:
    files: dict[str, TableFile] = {}
    try:
        for t, part in parts.items():
            files[t] = WRITERS[fmt](part, t)
        for table, row in rows:
            files[table].add(row)
    finally:
        for f in files.values():
            f.close()


def _write_text(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.part")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)
