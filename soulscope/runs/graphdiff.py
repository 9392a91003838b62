"""How the influence graph changed between two points: what a reader finds by diffing two
``graph --json`` answers, said plainly.

- arcs gained (in the later graph only) and lost (in the earlier only), the heaviest first;
- weights moved (arcs in both, another weight), the largest move first;
- PageRank movers: agents whose rank (place by PageRank, 1 the most influential) changed, with
  both ranks, and agents that entered or left the graph;
- groups: each earlier group is linked to the later groups that hold enough of its members (two,
  or one where either group has at most two). A group linked to several is *split*, a later
  group linked from several *merged*, a later group linked from none *born*, an earlier one
  linked to none *dissolved*.

Both sides are the dicts ``history.graph.graph_dict`` makes (or their kept JSON), so a diff
reads kept answers when there are.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from soulscope.history.graph import graph_memo, graph_text, influence
from soulscope.world import World

PAIR_MEMBERS = 2  # members two groups share for one to continue into the other


@dataclass(frozen=True, slots=True)
class ArcChange:
    source: str
    target: str
    before: int  # weight; 0 where the arc was absent
    after: int

    @property
    def delta(self) -> int:
        return self.after - self.before


@dataclass(frozen=True, slots=True)
class Mover:
    agent: str
    rank_before: int | None  # 1-based; None where the agent was not in the graph
    rank_after: int | None
    pagerank_before: float
    pagerank_after: float

    @property
    def places(self) -> int:
        """Places climbed (negative: fallen)."""
        if self.rank_before is None or self.rank_after is None:
            return 0
        return self.rank_before - self.rank_after


@dataclass(frozen=True, slots=True)
class GroupChange:
    kind: str  # split, merged, born, dissolved
    before: tuple[tuple[str, ...], ...]  # the earlier groups involved (members)
    after: tuple[tuple[str, ...], ...]  # the later groups involved


@dataclass
class GraphDiff:
    gained: list[ArcChange] = field(default_factory=list)
    lost: list[ArcChange] = field(default_factory=list)
    moved: list[ArcChange] = field(default_factory=list)
    up: list[Mover] = field(default_factory=list)
    down: list[Mover] = field(default_factory=list)
    entered: list[Mover] = field(default_factory=list)
    left: list[Mover] = field(default_factory=list)
    groups: list[GroupChange] = field(default_factory=list)


def _arcs(graph: dict[str, Any]) -> dict[tuple[str, str], int]:
    return {(e["from"], e["to"]): int(e["weight"]) for e in graph["edges"]}


def arc_changes(a: dict[str, Any], b: dict[str, Any], out: GraphDiff) -> None:
    before, after = _arcs(a), _arcs(b)
    for pair, w in after.items():
        old = before.get(pair)
        if old is None:
            out.gained.append(ArcChange(*pair, 0, w))
        elif old != w:
            out.moved.append(ArcChange(*pair, old, w))
    out.lost.extend(ArcChange(*pair, w, 0) for pair, w in before.items() if pair not in after)
    out.gained.sort(key=lambda c: (-c.after, c.source, c.target))
    out.lost.sort(key=lambda c: (-c.before, c.source, c.target))
    out.moved.sort(key=lambda c: (-abs(c.delta), c.source, c.target))


def _ranks(graph: dict[str, Any]) -> dict[str, tuple[int, float]]:
    # ``nodes`` is in rank order already: the most influential first
    return {n["agent"]: (i, float(n["pagerank"])) for i, n in enumerate(graph["nodes"], 1)}


def rank_changes(a: dict[str, Any], b: dict[str, Any], out: GraphDiff) -> None:
    before, after = _ranks(a), _ranks(b)
    for agent in sorted(before.keys() | after.keys()):
        r0, p0 = before.get(agent, (None, 0.0))
        r1, p1 = after.get(agent, (None, 0.0))
        m = Mover(agent, r0, r1, p0, p1)
        if r0 is None:
            out.entered.append(m)
        elif r1 is None:
            out.left.append(m)
        elif m.places > 0:
            out.up.append(m)
        elif m.places < 0:
            out.down.append(m)
    out.up.sort(key=lambda m: (-m.places, m.rank_after or 0))
    out.down.sort(key=lambda m: (m.places, m.rank_after or 0))
    out.entered.sort(key=lambda m: m.rank_after or 0)
    out.left.sort(key=lambda m: m.rank_before or 0)


def _linked(x: set[str], y: set[str]) -> bool:
    shared = len(x & y)
    return shared >= PAIR_MEMBERS or (shared >= 1 and min(len(x), len(y)) <= PAIR_MEMBERS)


def group_changes(a: dict[str, Any], b: dict[str, Any], out: GraphDiff) -> None:
    old = [tuple(g) for g in a["groups"]]
    new = [tuple(g) for g in b["groups"]]
    links = {
        (i, j) for i, x in enumerate(old) for j, y in enumerate(new) if _linked(set(x), set(y))
    }
    for i, x in enumerate(old):
        into = [new[j] for (k, j) in sorted(links) if k == i]
        if len(into) > 1:
            out.groups.append(GroupChange("split", (x,), tuple(into)))
        elif not into:
            out.groups.append(GroupChange("dissolved", (x,), ()))
    for j, y in enumerate(new):
        came = [old[i] for (i, k) in sorted(links) if k == j]
        if len(came) > 1:
            out.groups.append(GroupChange("merged", tuple(came), (y,)))
        elif not came:
            out.groups.append(GroupChange("born", (), (y,)))


def graph_diff(a: dict[str, Any], b: dict[str, Any]) -> GraphDiff:
    """How graph ``b`` differs from graph ``a`` (both ``graph --json`` answers)."""
    out = GraphDiff()
    arc_changes(a, b, out)
    rank_changes(a, b, out)
    group_changes(a, b, out)
    return out


def _arc(c: ArcChange) -> dict[str, Any]:
    return {"from": c.source, "to": c.target, "before": c.before, "after": c.after}


def _mover(m: Mover) -> dict[str, Any]:
    return {
        "agent": m.agent,
        "rank_before": m.rank_before,
        "rank_after": m.rank_after,
        "pagerank_before": m.pagerank_before,
        "pagerank_after": m.pagerank_after,
    }


def diff_dict(d: GraphDiff, before: str, after: str) -> dict[str, Any]:
    """``graph diff --json``."""
    return {
        "before": before,
        "after": after,
        "arcs": {
            "gained": [_arc(c) for c in d.gained],
            "lost": [_arc(c) for c in d.lost],
            "moved": [_arc(c) for c in d.moved],
        },
        "pagerank": {
            "up": [_mover(m) for m in d.up],
            "down": [_mover(m) for m in d.down],
            "entered": [_mover(m) for m in d.entered],
            "left": [_mover(m) for m in d.left],
        },
        "groups": [
            {
                "change": g.kind,
                "before": [list(x) for x in g.before],
                "after": [list(y) for y in g.after],
            }
            for g in d.groups
        ],
    }


def graph_answer(
    world: World, since: str | None = None, until: str | None = None
) -> dict[str, Any]:
    """The world's ``graph --json`` answer: the kept one when there is one, else computed and
    kept under the key ``graph`` itself uses (``history.graph.graph_memo``)."""
    memo = graph_memo(world, since, until)
    found = memo.get()
    if found is not None:
        try:
            answer = json.loads(found)  # (whole and this code's: ``soulscope.memo``)
            if isinstance(answer, dict):
                return answer
        except ValueError:
            pass  # made again
    g = influence(world, since=since, until=until)
    text = graph_text(g)
    if not g.unreadable:
        memo.put(text.encode("utf-8"))
    answer = json.loads(text)
    answer["unreadable"] = list(g.unreadable)
    return answer
