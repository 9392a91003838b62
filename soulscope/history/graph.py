"""Who shapes whom: the influence graph of a world, from what its soul files say.

An arc ``B -> A`` means A's memory says B shaped it: an ``Influenced by:`` bullet naming B, a
``Relationships:`` bullet, a reply to B, or B named anywhere else in a frame. Its weight is how
many of A's frames in the window do so (each frame once per agent, counted under its strongest
kind). The window is the frames' own dates (``soul.when``: a frame without a date takes the one
its file places it after).

The measures are networkx's, imported only here and only when asked: weighted PageRank (who
shapes the others), in- and out-strength, betweenness over hops (who bridges groups; sampled
above 2,000 agents with a fixed seed) and groups by greedy modularity on the undirected weights.

Files are read as bytes and scanned for frame headings and names without being parsed: a world
of 10,000 agents is read as fast as its bytes allow.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections import Counter
from dataclasses import dataclass, field
from datetime import date as Date
from typing import Any

from soulscope.errors import SoulscopeError
from soulscope.history.names import KINDS, AgentNames, cites
from soulscope.soul.model import ENCODING_ERRORS
from soulscope.soul.parse import block_starts, parse_heading
from soulscope.world import World

SAMPLED_BETWEENNESS = 2000  # above this many agents betweenness is estimated from SAMPLES
SAMPLES = 16
SEED = 7


class GraphError(SoulscopeError):
    """A window that cannot be read (a date that is not one): one sentence."""


@dataclass(slots=True)
class Arc:
    source: str  # the agent that shaped
    target: str  # the agent whose memory says so
    weight: int = 0  # frames that say so
    counts: tuple[int, ...] = (0, 0, 0, 0)  # frames per strongest kind, in KINDS order
    first: str | None = None  # the earliest date of those frames
    last: str | None = None

    @property
    def kinds(self) -> Counter[str]:
        """Frames per strongest kind, the kinds that occur."""
        return Counter({k: n for k, n in zip(KINDS, self.counts, strict=True) if n})


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
    unreadable: list[str] = field(default_factory=list)  # files not read, one sentence each

    @property
    def summary(self) -> str:
        return _summary(
            len(self.arcs),
            len(self.nodes),
            self.since,
            self.until,
            self.frames,
            self.agents,
            len(self.groups),
        )

    def ranked(self) -> list[Node]:
        return sorted(self.nodes.values(), key=lambda n: (-n.pagerank, n.agent))

    def bridges(self) -> list[Node]:
        return sorted(self.nodes.values(), key=lambda n: (-n.betweenness, n.agent))

    def strongest(self) -> list[Arc]:
        arcs = sorted(self.arcs.values(), key=lambda a: (a.source, a.target))
        arcs.sort(key=lambda a: a.weight, reverse=True)  # stable: ties stay by name
        return arcs

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


def _summary(
    arcs: int,
    nodes: int,
    since: str | None,
    until: str | None,
    frames: int,
    files: int,
    groups: int,
) -> str:
    window = f" from {since or 'the start'} to {until or 'the end'}" if since or until else ""
    return (
        f"{arcs} influence arcs among {nodes} agents{window} "
        f"({frames} frames of {files} soul files), {groups} groups"
    )


def summary(answer: dict) -> str:
    """``Influence.summary`` of a ``graph_dict`` (a kept ``graph --json`` answer)."""
    return _summary(
        len(answer["edges"]),
        len(answer["nodes"]),
        answer["since"],
        answer["until"],
        answer["frames"],
        answer["files"],
        len(answer["groups"]),
    )


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
    # (source, target) -> [frames, frames per kind..., first date, last date]
    tally: dict[tuple[str, str], list] = {}
    frames = files = 0
    present: set[str] = set()
    window = since is not None or until is not None
    unreadable: list[str] = []
    for a, data in world.sources(unreadable):
        files += 1
        present.add(a.id)
        starts, ends, dates = frame_dates(data)
        if not starts:
            continue
        inside = [
            not window
            or (d is not None and (not since or d >= since) and (not until or d <= until))
            for d in dates
        ]
        frames += sum(inside)
        # the names of the whole file in one pass, each placed in its frame (they come in order)
        j, stop = -1, -1
        strongest: dict[str, int] = {}
        for at, who, kind in cites(names, data, starts[0], len(data), a.id):
            if at >= stop:
                _count(tally, strongest, a.id, dates[j] if j >= 0 else None)
                j = bisect_right(starts, at) - 1
                stop = (
                    ends[j] if at < ends[j] else starts[j + 1] if j + 1 < len(starts) else len(data)
                )
                if at >= ends[j] or not inside[j]:
                    j = -1  # a section between frames, or a frame outside the window
                    continue
            if j < 0:
                continue
            k = _KIND_INDEX[kind]
            if strongest.get(who, 9) > k:
                strongest[who] = k
        _count(tally, strongest, a.id, dates[j] if j >= 0 else None)
    arcs = {
        key: Arc(key[0], key[1], row[0], tuple(row[1:5]), row[5], row[6])
        for key, row in tally.items()
    }
    g = Influence(
        world.name, since, until, arcs, frames=frames, agents=files, unreadable=unreadable
    )
    if measures:
        _measure(g, present)
    return g


def _count(tally: dict, strongest: dict[str, int], target: str, d: str | None) -> None:
    """One frame's names into the tally (each agent once, its strongest kind), then forgotten."""
    for who, k in strongest.items():
        row = tally.get((who, target))
        if row is None:
            row = tally[(who, target)] = [0, 0, 0, 0, 0, d, d]
        row[0] += 1
        row[1 + k] += 1
        if d is not None:
            if row[5] is None or d < row[5]:
                row[5] = d
            if row[6] is None or d > row[6]:
                row[6] = d
    strongest.clear()


_DATE = re.compile(rb"\d{4}-\d{2}-\d{2}")


def frame_dates(data: bytes) -> tuple[list[int], list[int], list[str | None]]:
    """Where each frame of a soul file's bytes starts and ends, and its date as ``soul.when``
    places it (an undated frame takes the nearest dated frame's before it, else after it):
    read from the headings alone, each looked at once."""
    starts: list[int] = []
    ends: list[int] = []
    dates: list[str | None] = []
    for start in block_starts(data):
        if starts and len(ends) < len(starts):
            ends.append(start)
        eol = data.find(b"\n", start)
        heading = data[start + 3 : len(data) if eol < 0 else eol].strip()
        if not (heading.startswith(b"Frame") and not heading[5:6].isalnum()):
            continue
        m = _DATE.search(heading)
        if m is not None:
            date: str | None = m.group().decode()
        else:  # a date in words ("March 14, 2026"), or none
            date = parse_heading(heading.decode("utf-8", ENCODING_ERRORS))[2]
        starts.append(start)
        dates.append(date)
    if len(ends) < len(starts):
        ends.append(len(data))
    return starts, ends, _dates(dates)


_KIND_INDEX = {kind: i for i, kind in enumerate(KINDS)}


def _dates(dates: list[str | None]) -> list[str | None]:
    """Each frame's date, as ``soul.when`` places it: an undated frame takes the date of the
    nearest dated frame before it in its file, else the first after it."""
    out = list(dates)
    last = None
    for i, d in enumerate(dates):
        if d:
            last = d
        elif last:
            out[i] = last
    following = None
    for i in range(len(out) - 1, -1, -1):
        if out[i]:
            following = out[i] if dates[i] else following
        else:
            out[i] = following
    return out


def _measure(g: Influence, present: set[str]) -> None:
    """PageRank, strengths, betweenness and groups (networkx, imported here)."""
    import networkx as nx
    from networkx.algorithms import community

    d = nx.DiGraph()
    d.add_nodes_from(sorted(present))  # (a set: its order moves with the hash seed)
    d.add_weighted_edges_from((s, t, a.weight) for (s, t), a in g.arcs.items())
    if d.number_of_nodes() == 0:
        return
    # Influence flows from the named to the one who names: PageRank on the reversed arcs
    # ranks the agents whose influence the others' memories cite.
    rank = nx.pagerank(d.reverse(copy=False), weight="weight") if d.number_of_edges() else {}
    n = d.number_of_nodes()
    # Bridges: betweenness over hops (a weighted one costs 25 times more at 10,000 agents),
    # estimated from SAMPLES sources with a fixed seed above SAMPLED_BETWEENNESS agents.
    k = min(n, SAMPLES) if n > SAMPLED_BETWEENNESS else None
    between = nx.betweenness_centrality(d, k=k, seed=SEED)
    both: dict[tuple[str, str], int] = {}  # the two directions of a pair, weighed together
    for (s, t), a in g.arcs.items():
        pair = (s, t) if s < t else (t, s)
        both[pair] = both.get(pair, 0) + a.weight
    u = nx.Graph()
    u.add_nodes_from(d)
    u.add_weighted_edges_from((s, t, w) for (s, t), w in both.items())
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
    """``graph --json``: nodes with their measures, weighted arcs (strongest first), groups."""
    return {
        "world": g.world,
        "since": g.since,
        "until": g.until,
        "frames": g.frames,
        "files": g.agents,
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
                "kinds": {k: c for k, c in zip(KINDS, a.counts, strict=True) if c},
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
