"""What every command shares: errors as one sentence, opening the world, JSON and tables.

Everything a command prints goes through here, and here only text is made safe for the terminal:
control characters in soul files, commits and LLM answers are shown, never obeyed
(:func:`soulscope.controls.visible`), and Rich markup in them is never read (cells are ``Text``).
"""

from __future__ import annotations

import argparse
import codecs
import functools
import json
import os
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from json.encoder import encode_basestring as _string
from typing import TYPE_CHECKING, Any

from soulscope.controls import json_escaped, visible
from soulscope.errors import SoulscopeError
from soulscope.world import DEMO_WORLD, World, WorldError

if TYPE_CHECKING:
    from rich.text import Text

    from soulscope.soul.terms import Term


class CommandError(SoulscopeError):
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


AT_HELP = (
    "the world as it stood then: a revision (sha, tag, HEAD~5), a date (2026-03-14, the whole "
    "day in UTC), a moment ('2026-03-14 20:12' in UTC, '2026-03-14T20:12Z', '2026-03-14 10:00 "
    "-05:00', '2026-03-14 3pm ET', '... Europe/Berlin') or a frame number (237, 'frame 237'); "
    "outside git, its frames up to then"
)


def add_at_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--at", metavar="POINT", help=AT_HELP)


def add_json_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")


def add_match_option(parser: argparse.ArgumentParser) -> None:
    """How a term is matched (``soulscope.soul.terms``): as a word by default."""
    how = parser.add_mutually_exclusive_group()
    how.add_argument(
        "--exact",
        dest="match",
        action="store_const",
        const="exact",
        help="match the term exactly as typed, case-sensitive, inside words too (git log -S)",
    )
    how.add_argument(
        "--stem",
        dest="match",
        action="store_const",
        const="stem",
        help="match other endings of the term too (sortition finds sortitions)",
    )
    parser.set_defaults(match="word")


def match_term(args: argparse.Namespace) -> Term:
    """The term of a command, as its options say to match it; a bad one is a command error."""
    from soulscope.soul.terms import Term

    try:
        return Term(args.term, args.match)
    except ValueError as exc:
        raise CommandError(str(exc)) from exc


def default_world_path() -> str:
    return os.environ.get("SOULSCOPE_WORLD") or str(DEMO_WORLD)


def open_world(path: str | None) -> World:
    try:
        return World.open(path or default_world_path())
    except WorldError as exc:
        raise CommandError(str(exc)) from exc
    except OSError as exc:
        raise CommandError(f"cannot open {path}: {exc.strerror or exc}") from exc


def _escaped(exc: UnicodeError) -> tuple[str, int]:
    """The characters an encoding cannot take, as JSON's ``\\u`` escapes (a pair past U+FFFF)."""
    if not isinstance(exc, UnicodeEncodeError):
        raise exc
    units = exc.object[exc.start : exc.end].encode("utf-16-be", "surrogatepass")
    codes = (int.from_bytes(units[i : i + 2], "big") for i in range(0, len(units), 2))
    return "".join(f"\\u{c:04x}" for c in codes), exc.end


codecs.register_error("soulscope-escape", _escaped)


def fit_stdout() -> None:
    """Make stdout write what its encoding cannot take (``LANG=C``: ASCII) as ``\\u`` escapes,
    never fail: JSON stays JSON of the same value (as ``ensure_ascii`` writes it), and a table
    shows ``\\u2014`` where the terminal has no dash."""
    if _is_utf8(getattr(sys.stdout, "encoding", None)):
        return
    reconfigure = getattr(sys.stdout, "reconfigure", None)
    if reconfigure is not None:
        reconfigure(errors="soulscope-escape")


def open_world_at(args: argparse.Namespace) -> World:
    """The world named by ``--world``, as it stood at ``--at`` when given (``runs.asof``)."""
    world = open_world(args.world)
    at = getattr(args, "at", None)
    if not at:
        return world
    from soulscope.history.timeline import WorldAt
    from soulscope.runs.asof import world_as_of

    past = world_as_of(world, at)
    for note in past.notes if isinstance(past, WorldAt) else ():
        print_error(note)  # a kept snapshot found damaged and extracted again
    return past


def emit_json(value: Any) -> None:
    """``value`` as indented JSON, the text of ``json.dumps(value, indent=2)`` with every iterator
    made a list. An iterator (``map``, a generator) is written item by item, so a whole soul is
    never held as one string, and each item is encoded by the C string encoder (``json.dumps``
    with an indent runs in pure Python, twice as slow)."""
    out = sys.stdout.write
    _write_json(value, "", out)
    out("\n")


def _write_json(value: Any, margin: str, out: Callable[[str], Any]) -> None:
    inner = margin + "  "
    if type(value) is dict and _flat(value):  # most items: a statement, a hit, a row
        out(json_escaped(_flat_text(value, margin)))
    elif isinstance(value, Iterator):
        _write_items(value, margin, out)
    elif isinstance(value, dict) and any(isinstance(v, Iterator) for v in value.values()):
        for i, (key, item) in enumerate(value.items()):
            out(f"{',' if i else '{'}\n{inner}{_string(key)}: ")
            _write_json(item, inner, out)
        out(f"\n{margin}}}")
    else:
        out(json_escaped(_indented(value, margin)))


_BATCH = 256  # flat items encoded before they are written, escaped and written at once


def _write_items(items: Iterator[Any], margin: str, out: Callable[[str], Any]) -> None:
    """The items of an iterator as a JSON list (``_write_json``). Flat dicts (most items: a
    statement, a hit, a row) are encoded a batch at a time and written, escaped, in one piece
    (escaping the whole is escaping each part); what is encoded is written if the items fail."""
    inner = margin + "  "
    batch: list[str] = []
    opened = False
    try:
        for item in items:
            batch.append(f",\n{inner}" if opened else f"[\n{inner}")
            opened = True
            flat = type(item) is dict and _flat(item)
            if flat:
                batch.append(_flat_text(item, inner))
                if len(batch) < _BATCH:
                    continue
            out(json_escaped("".join(batch)))
            batch.clear()
            if not flat:
                _write_json(item, inner, out)
    finally:
        out(json_escaped("".join(batch)))
    out(f"\n{margin}]" if opened else "[]")


_SCALARS = frozenset({str, int, float, bool, type(None)})
_STR = frozenset({str})


@functools.cache
def _flat_encoder(inner: str) -> json.JSONEncoder:
    """An encoder that writes a dict of scalars as ``indent=2`` would, ``inner`` deep, in one
    call of the C encoder (``indent`` itself makes json encode in pure Python)."""
    return json.JSONEncoder(ensure_ascii=False, separators=(",\n" + inner, ": "))


def _flat(value: dict) -> bool:
    """Whether ``value`` is a non-empty dict of scalars under string keys (told in C)."""
    return (
        bool(value)
        and _STR.issuperset(map(type, value))
        and _SCALARS.issuperset(map(type, value.values()))
    )


def _flat_text(value: dict, margin: str) -> str:
    """A dict of scalars as ``json.dumps(value, ensure_ascii=False, indent=2)``, nested
    ``margin`` deep, encoded by the C encoder in one call."""
    inner = margin + "  "
    return f"{{\n{inner}{_flat_encoder(inner).encode(value)[1:-1]}\n{margin}}}"


def _indented(value: Any, margin: str) -> str:
    """``json.dumps(value, ensure_ascii=False, indent=2)``, nested ``margin`` deep."""
    kind = type(value)
    if kind is str:
        return _string(value)
    if kind is int:
        return int.__repr__(value)
    if value is None:
        return "null"
    if kind is bool:
        return "true" if value else "false"
    if (kind is list or kind is tuple or kind is dict) and not value:
        return "{}" if kind is dict else "[]"
    inner = margin + "  "
    if kind is list or kind is tuple:
        items = (_string(v) if type(v) is str else _indented(v, inner) for v in value)
        return f"[\n{inner}" + f",\n{inner}".join(items) + f"\n{margin}]"
    if kind is dict and _flat(value):
        return _flat_text(value, margin)
    if kind is dict and all(type(k) is str for k in value):
        body = f",\n{inner}".join(
            f"{_string(k)}: {_string(v) if type(v) is str else _indented(v, inner)}"
            for k, v in value.items()
        )
        return f"{{\n{inner}{body}\n{margin}}}"
    # floats, subclasses, other keys, other types: as json has them (or its TypeError)
    return json.dumps(value, ensure_ascii=False, indent=2).replace("\n", "\n" + margin)


def json_text(value: Any) -> str:
    """What ``emit_json`` prints for ``value``, as one string."""
    parts: list[str] = []
    _write_json(value, "", parts.append)
    parts.append("\n")
    return "".join(parts)


def emit_kept(data: bytes) -> None:
    """Print a kept answer (``soulscope.memo``: UTF-8 text) as it was printed when it was made."""
    sys.stdout.flush()
    target = getattr(sys.stdout, "buffer", None)
    if _is_utf8(getattr(sys.stdout, "encoding", None)) and target is not None:
        target.write(data)
        target.flush()
    else:  # a terminal or pipe of another encoding: as ``print`` would have written it
        sys.stdout.write(data.decode("utf-8"))


def _is_utf8(encoding: str | None) -> bool:
    try:
        return encoding is not None and codecs.lookup(encoding).name == "utf-8"
    except LookupError:
        return False


def emit_json_line(value: Any) -> None:
    """One JSON value on one line (for commands that print a stream of them)."""
    sys.stdout.write(json_escaped(json.dumps(value, ensure_ascii=False)) + "\n")


def write(text: str) -> None:
    """Write text as it comes (a streamed answer), flushed, control characters shown."""
    sys.stdout.write(visible(text))
    sys.stdout.flush()


def print_error(message: str) -> None:
    """``soulscope: message`` on stderr, control characters shown."""
    print(f"soulscope: {visible(message)}", file=sys.stderr)


def print_table(
    columns: Sequence[str],
    rows: Iterable[Sequence[Any]],
    title: str | None = None,
    wrap: Sequence[str] = (),
) -> None:
    """A Rich table; cells are plain text (soul-file text is never read as markup).

    No column is ever dropped or cut to nothing: piped, the table is as wide as its cells (one
    line a row, for grep and files); at a terminal too narrow for it, every column keeps at
    least its heading's width and the cells wrap within their columns (``table_widths``).
    """
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    cells = [[Text(visible("" if v is None else str(v))) for v in row] for row in rows]
    natural = [
        max([_cell_width(c)] + [_text_width(row[i]) for row in cells if i < len(row)])
        for i, c in enumerate(columns)
    ]
    border = 3 * len(columns) + 1  # a bar and a space each side of every cell
    piped = not sys.stdout.isatty() and not os.environ.get("COLUMNS")
    console = Console(soft_wrap=False, width=max(80, sum(natural) + border) if piped else None)
    widths = table_widths(columns, natural, console.width - border, wrap)
    table = Table(
        title=visible(title) if title else None,
        title_justify="left",
        expand=False,
        show_lines=False,
    )
    for c, width in zip(columns, widths, strict=True):
        if width is not None:  # too narrow a window: this many cells, wrapped within them
            table.add_column(c, overflow="fold", width=width)
        elif c in wrap:
            table.add_column(c, overflow="fold", ratio=1, min_width=12)
        else:
            table.add_column(c, overflow="ellipsis", no_wrap=True, min_width=len(c))
    for row in cells:
        table.add_row(*row)
    console.print(table)


def table_widths(
    columns: Sequence[str], natural: Sequence[int], room: int, wrap: Sequence[str] = ()
) -> list[int | None]:
    """Each column's width when the cells' natural widths do not fit in ``room`` (None each
    when they do). The widest column gives up a cell at a time (the columns meant to wrap
    first, down to 12), and none goes below its heading (or 4): no column is lost."""
    if sum(natural) <= room:
        return [None] * len(columns)
    widths = list(natural)
    floors = [min(n, max(_cell_width(c), 4)) for c, n in zip(columns, natural, strict=True)]
    passes = (
        [max(f, 12) if c in wrap else n for c, f, n in zip(columns, floors, natural, strict=True)],
        floors,
    )
    for floor in passes:
        while sum(widths) > room:
            above = [i for i, w in enumerate(widths) if w > floor[i]]
            if not above:
                break
            widest = max(above, key=lambda i: widths[i])
            widths[widest] -= 1
    return list(widths)


def _cell_width(text: str) -> int:
    from rich.cells import cell_len

    return max((cell_len(line) for line in text.split("\n")), default=0)


def _text_width(text: Text) -> int:
    return _cell_width(text.plain)


def print_text(text: str | Text, style: str | None = None) -> None:
    """A line of plain text, or a Rich ``Text`` a core renderer styled (a diff, a why)."""
    from rich.console import Console
    from rich.text import Text

    shown = visible(text) if isinstance(text, Text) else Text(visible(text), style=style or "")
    # Piped, a line stays one line (a path cut in two is found by no grep).
    Console(soft_wrap=not sys.stdout.isatty()).print(shown)
