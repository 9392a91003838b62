"""Commands over a world's run: ``log`` (every frame of every agent, in time) and ``graph diff``
(how the influence graph changed between two points)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any

from soulscope.cli.output import (
    CommandError,
    add_at_option,
    add_json_option,
    add_match_option,
    add_world_option,
    emit_json,
    open_world,
    open_world_at,
    print_error,
    print_text,
)
from soulscope.controls import visible
from soulscope.soul.when import ZONE

POINT_HELP = (
    "a date (2026-03-14, UTC), a moment ('2026-03-14 20:12' in UTC, '2026-03-14 10:00 -05:00', "
    "'2026-03-14 3pm ET'), a frame number (237) or a revision"
)


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

    p = sub.add_parser(
        "trends",
        help="per day or frame, how many agents had used each term so far and in that period, "
        "against the agents active then; first majority and peak marked",
    )
    p.add_argument("terms", nargs="+", metavar="TERM", help="words or phrases, matched as words")
    add_match_option(p)
    p.add_argument(
        "--by", choices=("day", "frame"), default="day", help="the period (default: day)"
    )
    out = p.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true", help="print JSON instead of a table")
    out.add_argument("--csv", action="store_true", help="print CSV, one row per period and term")
    p.add_argument("--plot", metavar="FILE", help="also draw the trends into FILE (.png or .svg)")
    add_at_option(p)
    add_world_option(p)
    p.set_defaults(run=run_trends)

    # ``graph diff A B``: the graph command belongs to the spread area; the diff is added to it
    # here (when it is there: a command of this area alone is parsed without it).
    graph = sub.choices.get("graph")
    if graph is not None:
        graph.add_argument(
            "compare",
            nargs="*",
            metavar="diff A B",
            help=f"how the graph changed from point A to point B ({POINT_HELP})",
        )
        graph.set_defaults(run=_with_diff(graph.get_default("run")))


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
    placed = ("inferred", "misdated")
    inferred = any(e.precision in placed for e in entries)
    for e in entries:
        # a frame whose heading has no date (or one that runs backwards in its file) shows the
        # date it is placed by, marked
        day = f"~{e.date}" if e.precision in placed else e.date or "undated"
        at = f"{day:<{11 if inferred else 10}} {e.time or '':<5}"
        commit = f"  {e.commit[:7]}" if e.commit else ""
        out(visible(f"{at}  {e.agent:<{width}}  {e.heading}{commit}") + "\n")
    agents = len({e.agent for e in entries})
    frames = "frame" if len(entries) == 1 else "frames"
    print_text(
        f"{len(entries)} {frames} of {agents} {'agent' if agents == 1 else 'agents'}, in the "
        f"frames' own times ({ZONE})"
        + (
            "; ~: no date in its heading (or one that runs backwards in its file), placed by "
            "the dated frames around it"
            if inferred
            else ""
        ),
        style="dim",
    )
    return 0


def _with_diff(
    run_graph: Callable[[argparse.Namespace], int],
) -> Callable[[argparse.Namespace], int]:
    def run(args: argparse.Namespace) -> int:
        if not args.compare:
            return run_graph(args)
        if args.compare[0] != "diff" or len(args.compare) != 3:
            raise CommandError("graph takes 'diff A B' (two points) or no argument")
        if args.at or args.graphml:
            raise CommandError("graph diff takes its two points, not --at nor --graphml")
        return run_graph_diff(args, args.compare[1], args.compare[2])

    return run


def _side(world: Any, spec: str, args: argparse.Namespace) -> dict[str, Any]:
    from soulscope.errors import SoulscopeError
    from soulscope.runs.asof import world_as_of
    from soulscope.runs.graphdiff import graph_answer

    try:
        answer = graph_answer(world_as_of(world, spec), args.since, args.until)
    except SoulscopeError as exc:
        raise CommandError(str(exc)) from exc
    for problem in answer.pop("unreadable", ()):
        print_error(f"skipped: {problem}")
    return answer


def run_graph_diff(args: argparse.Namespace, a: str, b: str) -> int:
    from soulscope.runs.graphdiff import diff_dict, graph_diff

    world = open_world(args.world)
    before, after = _side(world, a, args), _side(world, b, args)
    d = graph_diff(before, after)
    if args.json:
        emit_json(diff_dict(d, a, b))
        return 0
    for line in diff_lines(d, a, b):
        print_text(line)
    return 0


LISTED = 15  # items of each kind shown; the rest counted


def _listed(title: str, items: list[str]) -> list[str]:
    if not items:
        return []
    more = f" … and {len(items) - LISTED} more" if len(items) > LISTED else ""
    return [f"{title} ({len(items)}): " + "; ".join(items[:LISTED]) + more]


def diff_lines(d: Any, a: str, b: str) -> list[str]:
    """``graph diff`` for people: one line per kind of change."""
    out = [
        f"the influence graph from {a} to {b}: {len(d.gained)} arcs gained, {len(d.lost)} lost, "
        f"{len(d.moved)} moved; {len(d.up)} agents up, {len(d.down)} down, "
        f"{len(d.entered)} entered, {len(d.left)} left; {len(d.groups)} group changes"
    ]
    out += _listed("arcs gained", [f"{c.source} → {c.target} {c.after}" for c in d.gained])
    out += _listed("arcs lost", [f"{c.source} → {c.target} {c.before}" for c in d.lost])
    out += _listed(
        "weights moved",
        [f"{c.source} → {c.target} {c.before}→{c.after} ({c.delta:+d})" for c in d.moved],
    )
    rank = "{m.agent} #{m.rank_before}→#{m.rank_after}"
    out += _listed("PageRank up", [rank.format(m=m) for m in d.up])
    out += _listed("PageRank down", [rank.format(m=m) for m in d.down])
    out += _listed("entered", [f"{m.agent} #{m.rank_after}" for m in d.entered])
    out += _listed("left", [f"{m.agent} (was #{m.rank_before})" for m in d.left])
    for g in d.groups:
        shown = [" + ".join(_group(x) for x in side) or "—" for side in (g.before, g.after)]
        out.append(f"group {g.kind}: {shown[0]} → {shown[1]}")
    return out


def _group(members: tuple[str, ...]) -> str:
    head = ", ".join(members[:6])
    return "{" + head + (f", … {len(members) - 6} more" if len(members) > 6 else "") + "}"


def run_trends(args: argparse.Namespace) -> int:
    from soulscope.runs.log import world_log
    from soulscope.runs.trends import trend, trend_dict
    from soulscope.soul.terms import Term

    world = open_world_at(args)
    try:
        terms = [Term(t, args.match) for t in args.terms]
    except ValueError as exc:
        raise CommandError(str(exc)) from exc
    log = world_log(world)
    trends = [trend(world, log, t, args.by) for t in terms]
    for problem in dict.fromkeys(p for t in trends for p in t.unreadable):
        print_error(f"skipped: {problem}")
    if not any(t.periods for t in trends):
        why = "no frame has a number" if args.by == "frame" else "no frame has a date"
        raise CommandError(f"{world.name} has no period to count: {why}", code=1)
    if args.plot:
        _plot(args.plot, trends, args.by, world.name)
    if args.json:
        emit_json({"world": world.name, "by": args.by, "terms": [trend_dict(t) for t in trends]})
    elif args.csv:
        _csv(trends)
    else:
        _trend_tables(trends, args.by)
    return 0


def _plot(path: str, trends: list[Any], by: str, world: str) -> None:
    from pathlib import Path

    from soulscope.runs.plot import PlotError, layout, write_plot

    try:
        write_plot(Path(path), layout(trends, by, world))
    except PlotError as exc:
        raise CommandError(str(exc)) from exc
    except OSError as exc:
        raise CommandError(f"cannot write {path}: {exc.strerror or exc}") from exc
    print_error(f"chart written to {path}")


def _csv(trends: list[Any]) -> None:
    import csv

    writer = csv.writer(sys.stdout, lineterminator="\n")
    writer.writerow(["period", "term", "so_far", "in_period", "active", "share", "mark"])
    for t in trends:
        for p in t.periods:
            marks = [
                m
                for m, at in (("first majority", t.first_majority), ("peak", t.peak))
                if at == p.period
            ]
            writer.writerow(
                [
                    p.period,
                    t.term.text,
                    p.so_far,
                    p.in_period,
                    p.active,
                    f"{p.share:.4f}",
                    " ".join(marks),
                ]
            )


def _trend_tables(trends: list[Any], by: str) -> None:
    from soulscope.cli.output import print_table

    for t in trends:
        rows = []
        for p in t.periods:
            marks = [
                m
                for m, at in (("first majority", t.first_majority), ("peak", t.peak))
                if at == p.period
            ]
            rows.append(
                (p.period, p.so_far, p.in_period, p.active, f"{p.share:.0%}", ", ".join(marks))
            )
        print_table(
            [by, "so far", f"in that {by}", "active", "share", ""],
            rows,
            title=f"'{t.term.text}': agents that had used it so far, used it in that {by}, "
            f"wrote a frame then (share: of those active)",
        )
