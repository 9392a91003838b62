"""The command line: ``soulscope [WORLD]`` opens the dashboard; subcommands print or emit JSON.

Each module in this package registers the subcommands of one area and knows nothing of the others.
The settings are read here, once: commands find them in ``args.settings``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

from soulscope import __version__
from soulscope.cli import frames, history, recall, souls, spread
from soulscope.cli.output import CommandError, print_error
from soulscope.config import load_settings
from soulscope.errors import SoulscopeError

# Every area's ``register(subparsers)``; each adds its commands with ``set_defaults(run=...)``.
AREAS: list[Callable[[argparse._SubParsersAction], None]] = [
    souls.register,
    history.register,
    frames.register,
    recall.register,
    spread.register,
]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="soulscope",
        description="Inspect, search and advance the memory of AI agents kept in soul files.",
        epilog="Run 'soulscope [WORLD]' with no command to open the dashboard.",
    )
    parser.add_argument("--version", action="version", version=f"soulscope {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for register in AREAS:
        register(sub)
    return parser


def _dashboard_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="soulscope", description="Open the dashboard on a world.")
    parser.add_argument(
        "world",
        nargs="?",
        help="world folder, memory folder or soul file (default: the demo world)",
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    commands = set(parser._subparsers._group_actions[0].choices) if parser._subparsers else set()
    settings = load_settings()
    try:
        if not args_list or (args_list[0] not in commands and not args_list[0].startswith("-")):
            args = _dashboard_parser().parse_args(args_list)
            from soulscope.cli.dashboard import open_dashboard

            return open_dashboard(args.world, settings)  # the dashboard reports its problem
        args = parser.parse_args(args_list)
        if settings.problem:
            print_error(settings.problem)
        args.settings = settings
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
