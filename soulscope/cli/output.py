"""What every command shares: errors as one sentence, opening the world, JSON and tables."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Iterable, Sequence
from typing import Any

from soulscope.world import DEMO_WORLD, World, WorldError


class CommandError(Exception):
    """A failure the user can fix; printed as one line, exit status ``code``."""

    def __init__(self, message: str, code: int = 2) -> None:
        super().__init__(message)
        self.code = code


def add_world_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--world",
        "-w",
        default=None,
        help="world folder, memory folder or soul file (default: $SOULSCOPE_WORLD or the demo world)",
    )


def add_json_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")


def default_world_path() -> str:
    return os.environ.get("SOULSCOPE_WORLD") or str(DEMO_WORLD)


def open_world(path: str | None) -> World:
    try:
        return World.open(path or default_world_path())
    except WorldError as exc:
        raise CommandError(str(exc)) from exc
    except OSError as exc:
        raise CommandError(f"cannot open {path}: {exc.strerror or exc}") from exc


def emit_json(value: Any) -> None:
    json.dump(value, sys.stdout, ensure_ascii=False, indent=2)
    sys.stdout.write("\n")


def print_table(
    columns: Sequence[str],
    rows: Iterable[Sequence[Any]],
    title: str | None = None,
    wrap: Sequence[str] = (),
) -> None:
    """A Rich table; cells are plain text (soul-file text is never read as markup)."""
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    table = Table(title=title, title_justify="left", expand=False, show_lines=False)
    for c in columns:
        if c in wrap:
            table.add_column(c, overflow="fold", ratio=1, min_width=12)
        else:
            table.add_column(c, overflow="ellipsis", no_wrap=True, min_width=len(c))
    for row in rows:
        table.add_row(*(Text("" if v is None else str(v)) for v in row))
    Console(soft_wrap=False).print(table)


def print_text(text: str, style: str | None = None) -> None:
    from rich.console import Console
    from rich.text import Text

    Console().print(Text(text, style=style or ""))
