"""Commands over the whole world's influence: ``spread`` (how a term spread) and ``graph`` (who
shapes whom)."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import TYPE_CHECKING

from soulscope.cli.output import (
    CommandError,
    add_json_option,
    add_match_option,
    add_world_option,
    emit_json,
    emit_json_text,
    match_term,
    open_world,
    print_error,
    print_table,
    print_text,
)
from soulscope.soul.when import ZONE

if TYPE_CHECKING:
    from soulscope.history.first import Use

SPARKS = "▁▂▃▄▅▆▇█"
CURVE_WIDTH = 60


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "spread",
        help="how a term spread: every agent that used it in order of first use (the frames' "
        "own times), the earlier adopters each names, and the adoption curve",
    )
    p.add_argument("term", help="a word or phrase, matched as a word in any letter case")
    add_match_option(p)
    add_world_option(p)
    add_json_option(p)
    p.set_defaults(run=run_spread)

    p = sub.add_parser(
        "graph",
        help="who shapes whom: influence between agents (Influenced by, Relationships, "
        "replies, mentions), the most influential, the bridges and the groups",
    )
    p.add_argument("--since", metavar="DATE", help="only frames on or after this date")
    p.add_argument("--until", metavar="DATE", help="only frames on or before this date")
    out = p.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true", help="print JSON instead of tables")
    out.add_argument("--graphml", metavar="FILE", help="write the graph as GraphML (Gephi)")
    add_world_option(p)
    p.set_defaults(run=run_graph)


def sparkline(values: Sequence[int], width: int = CURVE_WIDTH) -> str:
    """``values`` as block characters, at most ``width`` (the last value of each bucket)."""
    if not values:
        return ""
    if len(values) > width:
        step = len(values) / width
        values = [values[min(len(values) - 1, int((i + 1) * step) - 1)] for i in range(width)]
    top = max(values) or 1
    return "".join(SPARKS[min(len(SPARKS) - 1, v * len(SPARKS) // (top + 1))] for v in values)


def run_spread(args: argparse.Namespace) -> int:
    from soulscope.history.spread import daily, sentence, spread, spread_dict

    world = open_world(args.world)
    term = match_term(args)
    s = spread(world, term)
    for problem in s.unreadable:  # beside JSON too: on stderr
        print_error(f"skipped: {problem}")
    if args.json:
        emit_json(spread_dict(s))
        return 0
    if not s.adopters:
        raise CommandError(
            f"'{args.term}' never appears in the memory of {world.name} (matched {term.described})",
            code=1,
        )
    started = ", ".join(a.agent_id for a in s.started) or s.adopters[0].agent_id
    print_text(
        f"'{term.text}' in {world.name}: {len(s.adopters)} of {s.files} agents used it, "
        f"matched {term.described}; ordered by the frames' own times ({ZONE}). "
        f"Started by {started}.",
        style="bold",
    )
    curve = daily(s.timeline)
    if curve:
        print_text(
            f"adoption {sparkline([n for _, n in curve])} {curve[0][0]} → {curve[-1][0]}, "
            f"{curve[-1][1]} agents"
            + (f" (and {s.undated} whose first use has no date)" if s.undated else "")
        )
    width = len(str(len(s.adopters))) + 1
    for i, a in enumerate(s.adopters, 1):
        rank = f"{i}≈" if a.tied else str(i)
        print_text(
            f"{rank:>{width}} {a.agent_id}  {_where(a.first)}, line {a.first.line}, "
            f"{a.uses} {'frame' if a.uses == 1 else 'frames'} with it"
        )
        print_text(f"{'':>{width}}   {sentence(a.first.text, term)}", style="dim")
        for link in a.links:
            print_text(
                f"{'':>{width}}   ← {link.source} ({KIND_TEXT[link.kind]}, "
                f"{_frame(link.label)}, line {link.line})"
            )
    if any(a.tied for a in s.adopters):
        print_text(
            "≈ tied: the headings cannot tell whether its first use came before or after "
            "another agent's"
        )
    return 0


KIND_TEXT = {
    "influenced": "Influenced by",
    "relationship": "Relationships",
    "reply": "replied to",
    "named": "named",
}


def _where(use: Use) -> str:
    if use.label is None:
        m = use.moment
        at = f"{m.date} {m.time} {ZONE}" if m.time else (m.date or "no date")
        return f"a section {'after its frame of' if m.inferred == 'after' else 'before its first frame,'} {at}"
    return f"frame {use.label}, {use.moment.text}"


def _frame(label: str | None) -> str:
    return f"frame {label}" if label else "header"


def run_graph(args: argparse.Namespace) -> int:
    from soulscope.history.graph import graph_json, influence, write_graphml

    world = open_world(args.world)
    g = influence(world, since=args.since, until=args.until)  # GraphError: one sentence
    for problem in g.unreadable:
        print_error(f"skipped: {problem}")
    if args.graphml:
        try:
            write_graphml(g, args.graphml)
        except OSError as exc:
            raise CommandError(f"cannot write {args.graphml}: {exc.strerror or exc}") from exc
        print_text(f"{g.summary}; written to {args.graphml}")
        return 0
    if args.json:
        emit_json_text(graph_json(g))  # the text of emit_json(graph_dict(g)), written faster
        return 0
    print_text(f"{world.name}: {g.summary}", style="bold")
    print_table(
        ["agent", "pagerank", "shapes", "shaped by", "bridge", "group"],
        [
            (
                n.agent,
                f"{n.pagerank:.3f}",
                n.influences,
                n.influenced_by,
                f"{n.betweenness:.3f}",
                n.group + 1 if n.group is not None else "—",
            )
            for n in g.ranked()[:20]
        ],
        title="most influential: PageRank over the arcs; shapes / shaped by: frames that cite it "
        "/ that it cites; bridge: betweenness",
    )
    bridges = [n for n in g.bridges()[:10] if n.betweenness > 0]
    if bridges:
        print_text(
            "bridges (betweenness): " + ", ".join(f"{n.agent} {n.betweenness:.3f}" for n in bridges)
        )
    for k, members in enumerate(g.groups[:10], 1):
        print_text(
            f"group {k} ({len(members)}): "
            + ", ".join(members[:12])
            + (" …" if len(members) > 12 else "")
        )
    print_table(
        ["from", "to", "weight", "how"],
        [
            (e.source, e.target, e.weight, ", ".join(f"{k} {v}" for k, v in e.kinds.items()))
            for e in g.strongest()[:20]
        ],
        title="strongest arcs (from shapes to)",
    )
    return 0
