"""The tables of ``soulscope.tables`` written to a folder as Parquet, CSV or JSON Lines files, with
``manifest.json`` (what they hold and how they were made).

Rows are written in batches as they come: memory holds one batch per table. Each file is
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
BATCH = 5000  # rows per table held before they are written
MANIFEST = "manifest.json"


class ExportError(SoulscopeError):
    """A folder that cannot be written, a format not known: one sentence."""


class TableFile(Protocol):
    def write(self, rows: list[Row]) -> None: ...
    def close(self) -> None: ...


class JsonLines:
    def __init__(self, path: Path, table: str) -> None:
        self.f = path.open("w", encoding="utf-8", newline="\n")

    def write(self, rows: list[Row]) -> None:
        self.f.writelines(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)

    def close(self) -> None:
        self.f.close()


class Csv:
    """RFC 4180 CSV with a header row; a null is an empty cell, a flag true or false."""

    def __init__(self, path: Path, table: str) -> None:
        self.f = path.open("w", encoding="utf-8", newline="")
        self.names = [name for name, _ in COLUMNS[table]]
        self.out = csv.writer(self.f)
        self.out.writerow(self.names)

    def write(self, rows: list[Row]) -> None:
        self.out.writerows([_cell(r[n]) for n in self.names] for r in rows)

    def close(self) -> None:
        self.f.close()


def _cell(value: Any) -> Any:
    if value is None:
        return ""
    if value is True or value is False:
        return "true" if value else "false"
    return value


class Parquet:
    """A Parquet file of the table's schema, a row group per batch (pyarrow)."""

    def __init__(self, path: Path, table: str) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        types = {"str": pa.string(), "int": pa.int64(), "float": pa.float64(), "bool": pa.bool_()}
        self.pa = pa
        self.schema = pa.schema([(name, types[kind]) for name, kind in COLUMNS[table]])
        self.out = pq.ParquetWriter(str(path), self.schema, compression="zstd")

    def write(self, rows: list[Row]) -> None:
        self.out.write_table(self.pa.Table.from_pylist(rows, schema=self.schema))

    def close(self) -> None:
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
        batches: dict[str, list[Row]] = {t: [] for t in TABLES}
        for table, row in rows:
            batch = batches[table]
            batch.append(row)
            if len(batch) >= BATCH:
                files[table].write(batch)
                batch.clear()
        for table, batch in batches.items():
            if batch:
                files[table].write(batch)
    finally:
        for f in files.values():
            f.close()


def _write_text(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.part")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)
