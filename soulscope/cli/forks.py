"""Commands that ask "what if": fork a world at a point, compare two runs."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from soulscope.cli.output import (
    CommandError,
    add_json_option,
    add_match_option,
    add_world_option,
    emit_json,
    open_world,
    print_table,
    print_text,
)
from soulscope.world import WorldError

if TYPE_CHECKING:
    from soulscope.runs.compare import RunsComparison


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

    p = sub.add_parser(
        "compare-runs",
        help="two runs of a world side by side: the fork point, where each agent diverged, the arcs",
    )
    p.add_argument("left", help="a world (the original, or a fork)")
    p.add_argument("right", help="another run of it (a fork)")
    p.add_argument(
        "--term", action="append", default=[], help="also compare how this term spread; repeat"
    )
    add_match_option(p)
    add_json_option(p)
    p.set_defaults(run=run_compare_runs)
    add_without(sub)


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
                "world": str(made.world),
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
    if made.world != made.root:
        print_text(f"the forked world is {made.world}, where it sits in the original's repository")
    print_text(f"advance it with: soulscope frame --world {_shown(made.world, args.dir)}")
    return 0


def _shown(world: Path, given: str) -> str:
    """The forked world's folder as the user named the fork's (``w2``, ``w2/state``)."""
    fork = Path(given).expanduser().absolute()
    return str(Path(given) / world.relative_to(fork)) if world.is_relative_to(fork) else str(world)


def run_compare_runs(args: argparse.Namespace) -> int:
    from soulscope.runs.compare import compare_runs, comparison_dict

    left, right = open_world(args.left), open_world(args.right)
    try:
        found = compare_runs(left, right, args.term, args.match)
    except (WorldError, OSError, ValueError) as exc:
        raise CommandError(str(exc)) from exc
    if args.json:
        emit_json(comparison_dict(found))
        return 0
    _print_comparison(found)
    return 0


def _pair(a: object, b: object) -> str:
    return f"{'-' if a is None else a} / {'-' if b is None else b}"


def _print_comparison(c: RunsComparison) -> None:
    from soulscope.runs.compare import IGNORED, curve_pair

    if c.point is None:
        print_text(f"{c.left} and {c.right} share no commit: they are not runs of one world")
    else:
        at = f"frame {c.point_frame}" if c.point_frame is not None else "a commit"
        print_text(f"fork point: {at} ({c.point[:8]}); left {c.left}, right {c.right}")
    rows = []
    for a in c.agents:
        d = a.difference
        where = "same" if d is None else f"frame {d.frame}" if d.frame is not None else "header"
        left, right = a.left, a.right
        rows.append(
            (
                a.agent,
                where,
                _pair(left and left.statements, right and right.statements),
                _pair(left and left.turning_points, right and right.turning_points),
                _pair(left and len(left.chapters), right and len(right.chapters)),
                "-" if a.drift is None else f"{a.drift:.2f}",
            )
        )
    print_table(
        ["agent", "first differs", "statements", "turning points", "chapters", "drift"],
        rows,
        title="after the fork point, left / right",
    )
    print_text(f"first differs: {IGNORED} aside (--json: first_byte_difference counts them)")
    for term, curves in c.curves.items():
        print_table(
            ["date", "left", "right"], curve_pair(curves), title=f"agents that had used '{term}'"
        )


def add_without(sub: argparse._SubParsersAction) -> None:
    """``spread TERM --without AGENT`` and ``graph --without AGENT``: the cheap counterfactuals
    (when those commands are there: a command of this area alone is parsed without them)."""
    for name, run in (("spread", _spread_without), ("graph", _graph_without)):
        p = sub.choices.get(name)
        if p is None:
            continue
        p.add_argument(
            "--without",
            action="append",
            default=[],
            metavar="AGENT",
            help="as if this agent had not been there (repeat for several): "
            + ("who would still have been reached" if name == "spread" else "which arcs vanish"),
        )
        p.set_defaults(run=_unless_without(p.get_default("run"), run))


def _unless_without(plain, counterfactual):  # noqa: ANN001, ANN202 (two commands' runs)
    def run(args: argparse.Namespace) -> int:
        return counterfactual(args) if args.without else plain(args)

    return run


def _known(world, agents: list[str]) -> set[str]:  # noqa: ANN001 (a World)
    ids = {a.id for a in world.agents()}
    missing = [a for a in agents if a not in ids]
    if missing:
        raise CommandError(f"no agent '{missing[0]}' in {world.name}")
    return set(agents)


def _spread_without(args: argparse.Namespace) -> int:
    from soulscope.cli.output import match_term, open_world_at
    from soulscope.history.spread import spread, spread_dict
    from soulscope.runs.without import spread_without

    world = open_world_at(args)
    gone = _known(world, args.without)
    found = spread_without(spread_dict(spread(world, match_term(args))), gone)
    if args.json:
        emit_json(found)
        return 0
    print_text(
        f"'{found['term']}' without {', '.join(found['without'])}: "
        f"{len(found['reached'])} agents still reached, {len(found['not_reached'])} not",
        style="bold",
    )
    print_text("still reached: " + (", ".join(found["reached"]) or "nobody"))
    for a in found["not_reached"]:
        print_text(f"not reached: {a['agent']} (only through {', '.join(a['through'])})")
    print_text(f"links that vanish: {len(found['vanished_edges'])}")
    return 0


def _graph_without(args: argparse.Namespace) -> int:
    from soulscope.cli.output import open_world_at
    from soulscope.history.graph import graph_dict, influence
    from soulscope.runs.without import graph_without

    world = open_world_at(args)
    gone = _known(world, args.without)
    found = graph_without(graph_dict(influence(world, since=args.since, until=args.until)), gone)
    if args.json:
        emit_json(found)
        return 0
    print_text(
        f"without {', '.join(found['without'])}: {len(found['vanished_arcs'])} arcs vanish, "
        f"{found['arcs_left']} are left",
        style="bold",
    )
    print_table(
        ["from", "to", "weight"],
        [(e["from"], e["to"], e["weight"]) for e in found["vanished_arcs"]],
        title="arcs that vanish, strongest first",
    )
    if found["shaped_only_by_them"]:
        print_text("shaped by them alone: " + ", ".join(found["shaped_only_by_them"]))
    return 0
