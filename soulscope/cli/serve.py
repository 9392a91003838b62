"""``soulscope serve``: the dashboard in a browser, through textual-serve (each browser tab runs
its own dashboard process on this machine)."""

from __future__ import annotations

import argparse
import shlex
import sys

from soulscope.cli.output import CommandError, add_world_option, default_world_path, open_world


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "serve", help="serve the dashboard to a web browser (textual-serve), at http://HOST:PORT"
    )
    add_world_option(p)
    p.add_argument("--port", type=int, default=8000, help="the port to listen on (default: 8000)")
    p.add_argument(
        "--host",
        default="localhost",
        help="the address to listen on (default: localhost, this machine only)",
    )
    p.set_defaults(run=run_serve)


def run_serve(args: argparse.Namespace) -> int:
    try:
        from textual_serve.server import Server
    except ImportError as exc:
        raise CommandError(
            "soulscope serve needs the textual-serve package (pip install 'soulscope[serve]')"
        ) from exc
    if not 0 < args.port < 65536:
        raise CommandError(f"--port {args.port} is not a port (1 to 65535)")
    world = open_world(args.world)  # a world that cannot be opened: said before serving
    path = str(args.world or default_world_path())
    command = shlex.join([sys.executable, "-m", "soulscope", path])
    print(f"soulscope: serving {world.name} at http://{args.host}:{args.port}", file=sys.stderr)
    Server(command, host=args.host, port=args.port, title=f"soulscope: {world.name}").serve()
    return 0
