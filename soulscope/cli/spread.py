"""Commands over the whole world's influence: ``spread`` (how a term spread) and ``graph`` (who
shapes whom)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence

from soulscope import collector
from soulscope.cli.output import (
    CommandError,
    add_at_option,
    add_json_option,
    add_match_option,
    add_world_option,
    emit_kept,
    json_text,
    match_term,
    open_world_at,
    print_error,
    print_table,
    print_text,
)
from soulscope.memo import Memo
from soulscope.soul.when import ZONE

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
    add_at_option(p)
    add_world_option(p)
    add_json_option(p)
    p.set_defaults(run=run_spread)

    p = sub.add_parser(
        "graph",
        help="who shapes whom: influence between agents (credits, replies, comments, "
        "relationships, mentions, votes), the most influential, the bridges and the groups",
    )
    p.add_argument("--since", metavar="DATE", help="only frames on or after this date")
    p.add_argument("--until", metavar="DATE", help="only frames on or before this date")
    out = p.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true", help="print JSON instead of tables")
    out.add_argument("--graphml", metavar="FILE", help="write the graph as GraphML (Gephi)")
    add_at_option(p)
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
    from soulscope.history.spread import daily, spread, spread_dict

    world = open_world_at(args)
    term = match_term(args)
    memo = Memo(world, "spread.json", term.text, term.mode)
    answer = _kept_answer(memo, args.json, _spread_shape)
    if answer is None:
        s = spread(world, term)
        for problem in s.unreadable:  # beside JSON too: on stderr
            print_error(f"skipped: {problem}")
        answer = spread_dict(s)
        _answer(json_text(answer), memo, keep=not s.unreadable, show=args.json)
    if args.json:
        return 0
    agents = answer["agents"]
    if not agents:
        raise CommandError(
            f"'{args.term}' never appears in the memory of {world.name} (matched {term.described})",
            code=1,
        )
    started = ", ".join(answer["started_by"]) or agents[0]["agent"]
    print_text(
        f"'{term.text}' in {world.name}: {len(agents)} of {answer['files']} agents used it, "
        f"matched {term.described}; ordered by the frames' own times ({ZONE}). "
        f"Started by {started}.",
        style="bold",
    )
    curve = daily([(t["date"], t["agents"]) for t in answer["timeline"]])
    if curve:
        undated = answer["undated"]
        print_text(
            f"adoption {sparkline([n for _, n in curve])} {curve[0][0]} → {curve[-1][0]}, "
            f"{curve[-1][1]} {'agent' if curve[-1][1] == 1 else 'agents'}"
            + (f" (and {undated} whose first use has no date)" if undated else "")
        )
    _print_adopters(answer)
    if any(a["tied"] for a in agents):
        print_text(
            "≈ tied: the headings cannot tell whether its first use came before or after "
            "another agent's"
        )
    return 0


def _print_adopters(answer: dict) -> None:
    """Each adopter of a ``spread --json`` answer: where it first used the term, the sentence,
    its links (``←``) and, apart, the earlier adopters it only voted on."""
    agents = answer["agents"]
    links = _by_target(answer["edges"])
    votes = _by_target(answer.get("votes", ()))
    width = len(str(len(agents))) + 1
    for i, a in enumerate(agents, 1):
        rank = f"{i}≈" if a["tied"] else str(i)
        print_text(
            f"{rank:>{width}} {a['agent']}  {_where(a)}, line {a['line']}, "
            f"{a['uses']} {'frame' if a['uses'] == 1 else 'frames'} with it"
        )
        print_text(f"{'':>{width}}   {a['text']}", style="dim")
        for link in links.get(a["agent"], ()):
            print_text(
                f"{'':>{width}}   ← {link['from']} ({KIND_TEXT[link['kind']]}, "
                f"{_frame(link['label'])}, line {link['line']})"
            )
        for vote in votes.get(a["agent"], ()):
            print_text(
                f"{'':>{width}}   · voted on {vote['from']} (exposure only, "
                f"{_frame(vote['label'])}, line {vote['line']})",
                style="dim",
            )


def _by_target(edges: Sequence[dict]) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {}
    for edge in edges:
        out.setdefault(edge["to"], []).append(edge)
    return out


def _kept_answer(memo: Memo, as_json: bool, check: Callable[[dict], object]) -> dict | None:
    """The kept answer: printed as it is for ``--json`` (then ``{}``: it is whole and this code
    wrote it, ``soulscope.memo``), else read back and ``check``ed (which raises on a field that
    is not there or not of its kind); None when there is none, or one that cannot be used (it
    is made again, and said)."""
    found = memo.get()
    if found is not None and not as_json:
        try:
            answer = json.loads(found)
            check(answer)
        except (ValueError, KeyError, TypeError, AttributeError, IndexError) as exc:
            memo.unusable(f"not an answer to this question: {type(exc).__name__} {exc}")
            found = None
    if memo.problem is not None:
        print_error(memo.problem)
    if found is None:
        return None
    if as_json:
        emit_kept(found)
        return {}
    return answer


def _fields(value: object, **kinds: type | tuple[type, ...]) -> None:
    """Raise unless ``value`` is a dict holding each of ``kinds``' fields, of its kind."""
    if not isinstance(value, dict):
        raise TypeError(f"{type(value).__name__} where an object was")
    for key, kind in kinds.items():
        if not isinstance(value[key], kind):
            raise TypeError(f"'{key}' is a {type(value[key]).__name__}")


def _spread_shape(answer: dict) -> None:
    """Every field the spread's text reads, of its kind."""
    _fields(answer, agents=list, started_by=list, files=int, edges=list, timeline=list)
    _fields(answer, undated=(int, type(None)))
    for t in answer["timeline"]:
        _fields(t, date=str, agents=int)
    optional = (str, type(None))
    for a in answer["agents"]:
        _fields(a, agent=str, line=int, uses=int, text=str, tied=bool, label=optional)
        _fields(a, date=optional, time=optional, section=optional, when=optional)
    for edge in [*answer["edges"], *answer.get("votes", ())]:
        _fields(edge, **{"from": str}, to=str, line=int, label=optional, kind=str)
        KIND_TEXT[edge["kind"]]  # noqa: B018 (a kind the text cannot name: KeyError)


def _graph_shape(answer: dict) -> None:
    """Every field the graph's text reads, of its kind."""
    from soulscope.history.graph import influence_of

    influence_of(answer)  # (raises on a field that is not there)
    for n in answer["nodes"]:
        _fields(n, agent=str, pagerank=(int, float), betweenness=(int, float))
        _fields(n, influences=int, influenced_by=int, group=(int, type(None)))
    for e in answer["edges"]:
        _fields(e, kinds=dict)


def _answer(text: str, memo: Memo, keep: bool, show: bool) -> None:
    """A new answer's JSON text: kept for the same question of the same files (not when a file
    could not be read: the next run may read it), and printed when ``show``."""
    if keep:
        memo.put(text.encode("utf-8"))
    if show:
        sys.stdout.write(text)


KIND_TEXT = {  # how each kind of link (``history.kinds.KINDS``) reads after "← agent (": a reply
    # either way ("Replied to X", "X replied to me") is one kind, so its words name no direction
    "credit": "credited",
    "reply": "a reply between them",
    "comment": "commented on",
    "relationship": "Relationships",
    "mention": "named",
    "vote": "voted on",
}


def _where(adopter: dict) -> str:
    """Where an adopter's first use is, from ``spread --json``'s fields."""
    if adopter["label"] is None:
        date, time = adopter["date"], adopter["time"]
        at = f"{date} {time} {ZONE}" if time else (date or "no date")
        after = adopter["section"] == "after"
        return f"a section {'after its frame of' if after else 'before its first frame,'} {at}"
    return f"frame {adopter['label']}, {adopter['when']}"


def _frame(label: str | None) -> str:
    return f"frame {label}" if label else "header"


_STRONGEST = 20  # arcs in graph's table


def run_graph(args: argparse.Namespace) -> int:
    # Half a million arcs are made, and none is in a cycle: with the collector on, the next
    # allocations after them would start a pass over them all (a tenth of the command), twice.
    with collector.paused():
        return _graph(args)


def _graph(args: argparse.Namespace) -> int:
    from soulscope.history.graph import (
        cores,
        estimated,
        graph_dict,
        graph_memo,
        graph_text,
        influence,
        summary,
        write_graphml,
    )

    world = open_world_at(args)
    memo = graph_memo(world, args.since, args.until)
    answer = None if args.graphml else _kept_answer(memo, args.json, _graph_shape)
    if answer is None:
        # GraphError: one sentence
        g = influence(world, since=args.since, until=args.until, workers=cores())
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
            _answer(graph_text(g), memo, keep=not g.unreadable, show=True)
            return 0
        # The table shows the strongest arcs: the whole answer's text (most of the work at
        # thousands of agents) is made and kept when it is asked for (--json).
        headline, answer = g.summary, graph_dict(g, top=_STRONGEST)
    elif args.json:
        return 0
    else:
        headline = summary(answer)
    nodes = answer["nodes"]  # the most influential first
    print_text(f"{world.name}: {headline}", style="bold")
    if note := estimated(len(nodes)):
        print_text(note)
    print_table(
        ["agent", "pagerank", "shapes", "shaped by", "bridge", "group"],
        [
            (
                n["agent"],
                f"{n['pagerank']:.3f}",
                n["influences"],
                n["influenced_by"],
                f"{n['betweenness']:.3f}",
                n["group"] + 1 if n["group"] is not None else "—",
            )
            for n in nodes[:20]
        ],
        title="most influential: PageRank over the arcs; shapes / shaped by: frames that cite it "
        "/ that it cites; bridge: betweenness",
    )
    bridges = sorted(nodes, key=lambda n: (-n["betweenness"], n["agent"]))[:10]
    bridges = [n for n in bridges if n["betweenness"] > 0]
    if bridges:
        print_text(
            "bridges (betweenness): "
            + ", ".join(f"{n['agent']} {n['betweenness']:.3f}" for n in bridges)
        )
    for k, members in enumerate(answer["groups"][:10], 1):
        print_text(
            f"group {k} ({len(members)}): "
            + ", ".join(members[:12])
            + (" …" if len(members) > 12 else "")
        )
    print_table(
        ["from", "to", "weight", "how"],
        [
            (e["from"], e["to"], e["weight"], ", ".join(f"{k} {v}" for k, v in e["kinds"].items()))
            for e in answer["edges"][:_STRONGEST]  # the strongest first
        ],
        title="strongest arcs (from shapes to)",
    )
    return 0
