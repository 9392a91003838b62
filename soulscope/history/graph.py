"""Who shapes whom: the influence graph of a world, from what its soul files say.

An arc ``B -> A`` means A's memory says B shaped it: an ``Influenced by:`` bullet naming B, a
``Relationships:`` bullet, a reply to B, or B named anywhere else in a frame. Its weight is how
many of A's frames in the window do so (each frame once per agent, counted under its strongest
kind). The window is the frames' own dates (``soul.when``: a frame without a date takes the one
its file places it after).

The measures are networkx's, imported only here and only when asked: weighted PageRank (who
shapes the others), in- and out-strength, betweenness (who bridges groups; sampled above 2,000
agents with a fixed seed) and groups by greedy modularity on the undirected weights.

Files are read as bytes and scanned for frame headings and names without being parsed: a world
of 10,000 agents is read as fast as its bytes allow.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date as Date
from typing import Any

from soulscope.history.names import AgentNames
from soulscope.history.spread import _BULLET, _KIND_OF_LABEL, _LABEL, KINDS, REPLY
from soulscope.history.timeline import relationships
from soulscope.soul import when
from soulscope.soul.model import ENCODING_ERRORS, label_key
from soulscope.soul.parse import parse_heading
from soulscope.world import World

_HEADING = re.compile(r"^## ([^\n]*)", re.M)
# a run of word characters and hyphens that holds a hyphen: every form of a world's ids where
# all of them do (zion-coder-06, coder-06), found without looking at every word
_HYPHENATED = re.compile(r"(?<![\w-])\w*-[\w-]*")
_RUN = re.compile(r"(?<![\w-])[\w-]+")
SAMPLED_BETWEENNESS = 2000  # above this many agents betweenness is estimated from k sources
SEED = 7


class GraphError(Exception):
    """A window that cannot be read (a date that is not one): one sentence."""


@dataclass
class Arc:
    source: str  # the agent that shaped
    target: str  # the agent whose memory says so
    weight: int = 0  # frames that say so
    kinds: Counter[str] = field(default_factory=Counter)  # frames per strongest kind
    first: str | None = None  # the earliest date of those frames
    last: str | None = None


@dataclass(frozen=True, slots=True)
class Node:
    agent: str
    present: bool  # the world holds its soul file
    pagerank: float
    influences: int  # out-strength: frames of others that name it
    influenced_by: int  # in-strength: its frames that name others
    betweenness: float
    group: int | None


@dataclass
class Influence:
    """The influence graph of a world within a window of dates."""

    world: str
    since: str | None
    until: str | None
    arcs: dict[tuple[str, str], Arc]
    nodes: dict[str, Node] = field(default_factory=dict)
    groups: list[list[str]] = field(default_factory=list)  # largest first, members by PageRank
    frames: int = 0  # frames read in the window
    agents: int = 0  # soul files read

    @property
    def summary(self) -> str:
        window = (
            f" from {self.since or 'the start'} to {self.until or 'the end'}"
            if self.since or self.until
            else ""
        )
        return (
            f"{len(self.arcs)} influence arcs among {len(self.nodes)} agents{window} "
            f"({self.frames} frames of {self.agents} soul files), {len(self.groups)} groups"
        )

    def ranked(self) -> list[Node]:
        return sorted(self.nodes.values(), key=lambda n: (-n.pagerank, n.agent))

    def bridges(self) -> list[Node]:
        return sorted(self.nodes.values(), key=lambda n: (-n.betweenness, n.agent))

    def strongest(self) -> list[Arc]:
        return sorted(self.arcs.values(), key=lambda a: (-a.weight, a.source, a.target))

    def influencers(self, agent: str) -> list[Arc]:
        """The arcs into ``agent``: who shaped it, strongest first."""
        return sorted(
            (a for a in self.arcs.values() if a.target == agent),
            key=lambda a: (-a.weight, a.source),
        )

    def influenced(self, agent: str) -> list[Arc]:
        """The arcs out of ``agent``: whom it shaped, strongest first."""
        return sorted(
            (a for a in self.arcs.values() if a.source == agent),
            key=lambda a: (-a.weight, a.target),
        )

    def networkx(self) -> Any:
        """The graph as a ``networkx.DiGraph`` (weights, kinds and measures as attributes)."""
        import networkx as nx

        g = nx.DiGraph(world=self.world)
        for n in self.nodes.values():
            g.add_node(
                n.agent,
                present=n.present,
                pagerank=n.pagerank,
                influences=n.influences,
                influenced_by=n.influenced_by,
                betweenness=n.betweenness,
                group=-1 if n.group is None else n.group,
            )
        for a in self.arcs.values():
            g.add_edge(
                a.source,
                a.target,
                weight=a.weight,
                first=a.first or "",
                last=a.last or "",
                **{k: a.kinds.get(k, 0) for k in KINDS},
            )
        return g


def _day(value: str | None, name: str) -> str | None:
    if value is None:
        return None
    try:
        return Date.fromisoformat(value.strip()).isoformat()
    except ValueError as exc:
        raise GraphError(f"--{name} {value!r} is not a date (YYYY-MM-DD)") from exc


def influence(
    world: World,
    since: str | None = None,
    until: str | None = None,
    names: AgentNames | None = None,
    measures: bool = True,
) -> Influence:
    """The arcs of influence among ``world``'s agents in frames dated ``since``..``until``
    (inclusive), and the measures over them."""
    since, until = _day(since, "since"), _day(until, "until")
    if since and until and since > until:
        raise GraphError(f"--since {since} is after --until {until}")
    names = names or AgentNames.of(world, words=False)
    hyphenated = all("-" in form for form in names.forms)
    runs = _HYPHENATED if hyphenated else _RUN
    arcs: dict[tuple[str, str], Arc] = {}
    frames = files = 0
    present: set[str] = set()
    for a in world.agents():
        try:
            with open(a.path, "rb") as f:
                text = f.read().decode("utf-8", ENCODING_ERRORS)
        except OSError:
            continue
        files += 1
        present.add(a.id)
        for moment, body in _frames(text):
            if moment.date is None:
                if since or until:
                    continue
            elif (since and moment.date < since) or (until and moment.date > until):
                continue
            frames += 1
            for source, kind in _named(body, names, runs, a.id).items():
                arc = arcs.get((source, a.id))
                if arc is None:
                    arc = arcs[(source, a.id)] = Arc(source, a.id)
                arc.weight += 1
                arc.kinds[kind] += 1
                d = moment.date
                if d:
                    arc.first = d if arc.first is None or d < arc.first else arc.first
                    arc.last = d if arc.last is None or d > arc.last else arc.last
    g = Influence(world.name, since, until, arcs, frames=frames, agents=files)
    if measures:
        _measure(g, present)
    return g


def _frames(text: str) -> Iterable[tuple[when.Moment, str]]:
    """Each ``## Frame`` entry of a soul file's text: its Moment and its body."""
    heads = list(_HEADING.finditer(text))
    spans: list[tuple[int, int]] = []
    dates: list[str | None] = []
    times: list[str | None] = []
    numbers: list[int | None] = []
    for k, m in enumerate(heads):
        heading = m.group(1).strip()
        if not (heading.startswith("Frame") and (len(heading) == 5 or not heading[5].isalnum())):
            continue
        number, _suffix, d, t, _title = parse_heading(heading)
        end = heads[k + 1].start() if k + 1 < len(heads) else len(text)
        spans.append((m.end(), end))
        dates.append(d)
        times.append(t)
        numbers.append(number)
    for moment, (start, end) in zip(when.moments(dates, times, numbers), spans, strict=True):
        yield moment, text[start:end]


def _named(body: str, names: AgentNames, runs: re.Pattern[str], own: str) -> dict[str, str]:
    """The agents a frame's body names -> the strongest kind it names each by."""
    out: dict[str, str] = {}
    kinds_of_line: dict[int, tuple[str, set[str]]] = {}
    for m in runs.finditer(body):
        found = names.find(m.group())
        if not found or found[0] == own:
            continue
        who = found[0]
        start = body.rfind("\n", 0, m.start()) + 1
        known = kinds_of_line.get(start)
        if known is None:
            end = body.find("\n", m.end())
            line = body[start : len(body) if end < 0 else end]
            kind = "named"
            if _BULLET.match(line):
                lm = _LABEL.match(line)
                said = (lm.group(1) or lm.group(2)) if lm else ""
                kind = _KIND_OF_LABEL.get(label_key(said), "named")
            replied = {
                r
                for rm in REPLY.finditer(line)
                for r in (names.find(rm.group(1)) or [names.resolve(rm.group(1).rstrip("."))])
            }
            if kind == "relationship":
                for n in relationships(line):
                    r = names.resolve(n)
                    if r != own and (r in names.present or r in names.ids):
                        out.setdefault(r, kind)
            known = kinds_of_line[start] = (kind, replied)
        kind, replied = known
        if kind == "named" and who in replied:
            kind = "reply"
        old = out.get(who)
        if old is None or KINDS.index(kind) < KINDS.index(old):
            out[who] = kind
    out.pop(own, None)
    return out


def _measure(g: Influence, present: set[str]) -> None:
    """PageRank, strengths, betweenness and groups (networkx, imported here)."""
    import networkx as nx
    from networkx.algorithms import community

    d = nx.DiGraph()
    d.add_nodes_from(present)
    for a in g.arcs.values():
        d.add_edge(a.source, a.target, weight=a.weight)
    if d.number_of_nodes() == 0:
        return
    # Influence flows from the named to the one who names: PageRank on the reversed arcs
    # ranks the agents whose influence the others' memories cite.
    rank = nx.pagerank(d.reverse(copy=False), weight="weight") if d.number_of_edges() else {}
    n = d.number_of_nodes()
    k = min(n, 256) if n > SAMPLED_BETWEENNESS else None
    # betweenness on distances: a stronger arc is a shorter way
    for _, _, data in d.edges(data=True):
        data["distance"] = 1.0 / data["weight"]
    between = nx.betweenness_centrality(d, k=k, weight="distance", seed=SEED)
    u = d.to_undirected()
    for x, y in u.edges():
        w = d.get_edge_data(x, y, {}).get("weight", 0) + d.get_edge_data(y, x, {}).get("weight", 0)
        u[x][y]["weight"] = w
    found = (
        community.louvain_communities(u, weight="weight", seed=SEED) if u.number_of_edges() else []
    )
    groups = [sorted(c, key=lambda x: (-rank.get(x, 0.0), x)) for c in found if len(c) > 1]
    groups.sort(key=lambda c: (-len(c), c[0]))
    group_of = {x: i for i, c in enumerate(groups) for x in c}
    out_s = dict(d.out_degree(weight="weight"))
    in_s = dict(d.in_degree(weight="weight"))
    g.groups = groups
    g.nodes = {
        x: Node(
            agent=x,
            present=x in present,
            pagerank=rank.get(x, 1.0 / n),
            influences=int(out_s.get(x, 0)),
            influenced_by=int(in_s.get(x, 0)),
            betweenness=between.get(x, 0.0),
            group=group_of.get(x),
        )
        for x in d.nodes
    }


def graph_dict(g: Influence) -> dict:
    """``graph --json``: nodes with their measures, weighted arcs, groups."""
    return {
        "world": g.world,
        "since": g.since,
        "until": g.until,
        "frames": g.frames,
        "nodes": [
            {
                "agent": n.agent,
                "present": n.present,
                "pagerank": round(n.pagerank, 6),
                "influences": n.influences,
                "influenced_by": n.influenced_by,
                "betweenness": round(n.betweenness, 6),
                "group": n.group,
            }
            for n in g.ranked()
        ],
        "edges": [
            {
                "from": a.source,
                "to": a.target,
                "weight": a.weight,
                "kinds": {k: a.kinds[k] for k in KINDS if a.kinds.get(k)},
                "first": a.first,
                "last": a.last,
            }
            for a in g.strongest()
        ],
        "groups": g.groups,
    }


def write_graphml(g: Influence, path: str) -> None:
    """The graph as GraphML (Gephi, networkx.read_graphml)."""
    import networkx as nx

    nx.write_graphml(g.networkx(), path)
