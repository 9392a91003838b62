"""The command line: ``soulscope [WORLD]`` opens the dashboard; subcommands print or emit JSON.

Each module in this package registers the subcommands of one area and knows nothing of the others.
A command imports only its own area (``--version`` imports none): starting the interpreter is most of
what a short command costs, and one area's imports (numpy, the recall stack) are not another's.
The settings are read here, once: commands find them in ``args.settings``.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from soulscope import __version__

# Each area's module and the commands its ``register(subparsers)`` adds (with ``set_defaults(run=...)``)
# or extends (history adds ``--at`` to ``show``, runs adds ``diff`` to ``graph``), in the order they are registered.
AREAS: dict[str, tuple[str, ...]] = {
    "soulscope.cli.souls": ("agents", "becoming", "show", "compare", "overview"),
    "soulscope.cli.history": ("history", "diff", "first", "why", "show"),
    "soulscope.cli.frames": ("init", "register", "frame", "demo"),
    "soulscope.cli.recall": ("search", "ask", "chat", "embed"),
    "soulscope.cli.spread": ("spread", "graph"),
    "soulscope.cli.export": ("export",),
    "soulscope.cli.mcp": ("mcp",),
    "soulscope.cli.serve": ("serve",),
    "soulscope.cli.runs": ("log", "trends", "graph"),
    "soulscope.cli.forks": ("fork", "compare-runs", "spread", "graph"),
    "soulscope.cli.memory": ("memory",),
    "soulscope.cli.seen": ("show",),
}


def areas_of(command: str) -> list[str]:
    """The areas a command needs: the one that adds it and those that extend it."""
    return [area for area, commands in AREAS.items() if command in commands]


def build_parser(areas: Sequence[str] = tuple(AREAS)) -> argparse.ArgumentParser:
    """The parser of every command, or of the commands of ``areas`` only."""
    parser = argparse.ArgumentParser(
        prog="soulscope",
        description="Inspect, search and advance the memory of AI agents kept in soul files.",
        epilog="Run 'soulscope [WORLD]' with no command to open the dashboard.",
    )
    parser.add_argument("--version", action="version", version=f"soulscope {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for area in areas:
        importlib.import_module(area).register(sub)
    return parser


def _dashboard_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="soulscope [dashboard]", description="Open the dashboard on a world."
    )
    parser.add_argument(
        "world",
        nargs="?",
        help="world folder, memory folder or soul file (default: the demo world)",
    )
    parser.add_argument(
        "--world",
        "-w",
        dest="world_option",
        metavar="WORLD",
        help="the world, as other commands take it",
    )
    return parser


def _dashboard_args(args_list: list[str]) -> argparse.Namespace:
    """The dashboard's arguments: ``soulscope [WORLD]``, also written ``soulscope dashboard
    [WORLD]`` (unless a folder ``dashboard`` is meant) and with ``--world WORLD`` as the
    commands take it."""
    from pathlib import Path

    if args_list[:1] == ["dashboard"] and not Path("dashboard").exists():
        args_list = args_list[1:]
    parser = _dashboard_parser()
    args = parser.parse_args(args_list)
    if args.world and args.world_option and args.world != args.world_option:
        parser.error(f"two worlds given: {args.world} and --world {args.world_option}")
    args.world = args.world or args.world_option
    return args


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line ``argv`` (default: this process's own, which then ends with it: its
    background work stopped, see ``_end``)."""
    if argv is not None:  # (in a process that goes on: its background work is stopped)
        try:
            return _run(list(argv))
        finally:
            _end(None, leave=False)
    code: int | str | None = 1
    try:
        code = _run(sys.argv[1:], ends=True)
    except SystemExit as exc:  # SIGTERM in chat, argparse's --help
        code = exc.code
        raise
    finally:
        _end(code)
    return code


def _end(code: int | str | None, leave: bool = True) -> None:
    """Stop the background embedding of a command (``chat``, the dashboard), if one was started,
    before the process exits with ``code``; one still inside its model ends the process now
    (``leave``)."""
    background = sys.modules.get("soulscope.recall.background")
    if background is None:
        return
    if not leave:
        background.stop_all()
        return
    background.leave(code if isinstance(code, int) else 0 if code is None else 1)


def _run(args_list: list[str], ends: bool = False) -> int:
    if args_list == ["--version"]:
        print(f"soulscope {__version__}")
        return 0
    from soulscope.cli.output import CommandError, fit_stdout, print_error
    from soulscope.config import load_settings
    from soulscope.errors import SoulscopeError

    fit_stdout()
    settings = load_settings()
    try:
        first = args_list[0] if args_list else ""
        needed = areas_of(first)
        if not needed and (not first.startswith("-") or first in ("--world", "-w")):
            args = _dashboard_args(args_list)
            from soulscope.cli.dashboard import open_dashboard

            return open_dashboard(args.world, settings)  # the dashboard reports its problem
        # A command's own area, or every area for the top-level options (--help).
        parser = build_parser(needed or tuple(AREAS))
        args = parser.parse_args(args_list)
        if settings.problem:
            print_error(settings.problem)
        args.settings = settings
        args.ends = ends  # the process ends with the command (it may let its output go first)
        if getattr(args, "label", "") is None:
            args.label = settings.arc_label
        return int(args.run(args) or 0)
    except SoulscopeError as exc:  # what a user can fix: one sentence, never a traceback
        print_error(str(exc))
        return exc.code if isinstance(exc, CommandError) else 2
    except KeyboardInterrupt:
        print("soulscope: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
