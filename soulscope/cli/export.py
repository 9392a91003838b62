"""``soulscope export DIR``: the world as tables (agents, frames, statements, links, edges) for
DuckDB, pandas and notebooks."""

from __future__ import annotations

import argparse
from pathlib import Path

from soulscope.cli.output import (
    CommandError,
    add_at_option,
    add_world_option,
    open_world_at,
    print_error,
    print_text,
)


def register(sub: argparse._SubParsersAction) -> None:
    from soulscope.tablefiles import FORMATS

    p = sub.add_parser(
        "export",
        help="write the world as tables (agents, frames, statements, links, edges) and a "
        "manifest, as Parquet, CSV or JSON Lines",
    )
    p.add_argument("dir", metavar="DIR", help="the folder to write the tables into")
    p.add_argument(
        "--format",
        choices=FORMATS,
        default="parquet",
        help="the tables' file format (default: parquet)",
    )
    add_at_option(p)
    add_world_option(p)
    p.set_defaults(run=run_export)


def run_export(args: argparse.Namespace) -> int:
    from soulscope.tablefiles import ExportError, export

    world = open_world_at(args)
    options = {"at": args.at, "world": args.world}
    try:
        info = export(world, Path(args.dir), args.format, options)
    except ExportError as exc:
        raise CommandError(str(exc)) from exc
    for problem in info["skipped"]:
        print_error(f"skipped: {problem}")
    rows = ", ".join(f"{n} {t}" for t, n in info["rows"].items())
    print_text(f"{world.name}: {rows}; written to {args.dir} ({args.format})")
    return 0
