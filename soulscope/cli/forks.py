"""Commands that ask "what if": fork a world at a point, compare two runs."""

from __future__ import annotations

import argparse
from pathlib import Path

from soulscope.cli.output import (
    CommandError,
    add_json_option,
    add_world_option,
    emit_json,
    open_world,
    print_text,
)
from soulscope.world import WorldError


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "fork",
        help="a new world in DIR: this one at a frame or revision, changed by interventions",
    )
    p.add_argument("dir", help="a new (or empty) folder for the fork")
    p.add_argument(
        "--at",
        required=True,
        help="the fork point: a frame number (0: before the first) or a revision",
    )
    p.add_argument(
        "--without",
        action="append",
        default=[],
        metavar="AGENT",
        help="the agent takes no part in frames after the fork point; repeat for several",
    )
    p.add_argument(
        "--drop-post",
        action="append",
        default=[],
        type=int,
        metavar="ID",
        help="remove post ID, its comments and votes; repeat for several",
    )
    p.add_argument(
        "--edit",
        action="append",
        default=[],
        metavar="AGENT:LINE=TEXT",
        help="line LINE (from 1) of the agent's soul file becomes TEXT; repeat for several",
    )
    add_world_option(p)
    add_json_option(p)
    p.set_defaults(run=run_fork)


def run_fork(args: argparse.Namespace) -> int:
    from soulscope.runs.fork import fork, parse_edit

    world = open_world(args.world)
    try:
        edits = [parse_edit(e) for e in args.edit]
        made = fork(world, Path(args.dir), args.at, args.without, args.drop_post, edits)
    except (WorldError, OSError) as exc:
        raise CommandError(str(exc)) from exc
    if args.json:
        emit_json(
            {
                "fork": str(made.root),
                "of": str(made.source),
                "point": made.point,
                "frame": made.frame,
                "branch": made.branch,
                "interventions": [{"commit": c, "subject": s} for c, s in made.interventions],
            }
        )
        return 0
    at = f"frame {made.frame}" if made.frame is not None else f"commit {made.point[:8]}"
    print_text(f"forked {made.source} at {at} into {made.root} (branch {made.branch})")
    for sha, subject in made.interventions:
        print_text(f"  {sha[:8]} {subject}")
    print_text(f"advance it with: soulscope frame --world {args.dir}")
    return 0
