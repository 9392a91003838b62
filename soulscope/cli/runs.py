"""Commands over a world's run: ``log`` (every frame of every agent, in time)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from soulscope.cli.output import (
    CommandError,
    add_json_option,
    add_world_option,
    emit_json,
    open_world,
    print_error,
    print_text,
)
from soulscope.controls import visible
from soulscope.soul.when import ZONE

POINT_HELP = "a date (2026-03-14, '2026-03-14 20:12', UTC), a frame number (237) or a revision"


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "log",
        help="every frame of every agent as one stream, in the frames' own time, each with the "
        "commit that brought it",
    )
    p.add_argument("--from", dest="since", metavar="POINT", help=f"start here: {POINT_HELP}")
    p.add_argument("--to", dest="until", metavar="POINT", help=f"end here: {POINT_HELP}")
    p.add_argument(
        "--agent",
        dest="agents",
        action="append",
        metavar="AGENT",
        help="only this agent's frames (repeat for several)",
    )
    add_world_option(p)
    add_json_option(p)
    p.set_defaults(run=run_log)


def entry_dict(entry: Any) -> dict[str, Any]:
    """A log entry as JSON."""
    return {
        "agent": entry.agent,
        "frame": entry.frame,
        "label": entry.label,
        "date": entry.date,
        "time": entry.time,
        "precision": entry.precision,
        "heading": entry.heading,
        "line": entry.line,
        "commit": entry.commit,
    }


def run_log(args: argparse.Namespace) -> int:
    from soulscope.errors import SoulscopeError
    from soulscope.runs.log import cut, world_log
    from soulscope.runs.points import point
    from soulscope.world import WorldError

    world = open_world(args.world)
    try:
        for agent in args.agents or ():
            world.agent(agent)
        since = point(args.since) if args.since is not None else None
        until = point(args.until) if args.until is not None else None
        log = world_log(world, args.agents)
        entries = cut(log, since, until, world)
    except WorldError as exc:
        raise CommandError(str(exc)) from exc
    except SoulscopeError as exc:
        raise CommandError(str(exc)) from exc
    for note in log.notes:
        print_error(note)
    for problem in log.unreadable:
        print_error(f"skipped: {problem}")
    if args.json:
        emit_json(map(entry_dict, entries))
        return 0
    if not entries:
        raise CommandError(f"no frame of {world.name} lies in that stretch", code=1)
    width = max(len(e.agent) for e in entries)
    out = sys.stdout.write
    for e in entries:
        at = f"{e.date or 'undated':<10} {e.time or '':<5}"
        commit = f"  {e.commit[:7]}" if e.commit else ""
        out(visible(f"{at}  {e.agent:<{width}}  {e.heading}{commit}") + "\n")
    agents = len({e.agent for e in entries})
    print_text(
        f"{len(entries)} frames of {agents} {'agent' if agents == 1 else 'agents'}, in the "
        f"frames' own times ({ZONE})",
        style="dim",
    )
    return 0
