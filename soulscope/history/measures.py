"""The measures of the influence graph, computed on arrays: the numbers networkx gives for it.

The graph is its agents and its arcs ``source -> target`` (the target's memory names the source),
each pair once, with a whole weight. Its nodes are in networkx's order: the agents given, then
each arc's ends (target, then source) as they first occur. Influence flows from the named to the
one who names, so PageRank (weighted, networkx's ``_pagerank_scipy``: the same damping, tolerance
and dangling nodes) runs on the arcs turned round; betweenness counts hops along the arcs as
written (networkx's ``betweenness_centrality``, normalized, without the endpoints), exact up to
``Sampling.above`` agents and above it from ``Sampling.samples`` sources drawn as networkx draws
them with the seed, a block of sources searched at once, level by level; groups are on the
undirected weights (the two directions of a pair weighed together): networkx's Louvain up to
``Sampling.above`` agents, above it fast label propagation, networkx's algorithm with the same
random draws. Every sum is added in networkx's order: the same floats, the same groups.

Where a backend networkx dispatches to is installed (nx-cugraph: a ``networkx.backends`` entry
point), networkx computes every measure, so that the backend takes over (``by_networkx``).
"""

from __future__ import annotations

import math
import random
import sys
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from itertools import chain
from typing import Any

import numpy as np

# networkx.pagerank's defaults
ALPHA = 0.85
MAX_ITER = 100
TOL = 1.0e-6


@dataclass(frozen=True, slots=True)
class Measures:
    """Each node's measures, in node order, and the groups (each as a list of agents)."""

    nodes: list[str]
    pagerank: list[float]
    influences: list[int]  # out-strength: the weight of the arcs out of it
    influenced_by: list[int]  # in-strength
    betweenness: list[float]
    groups: list[list[str]]  # every community found, single agents too, in no order


@dataclass(frozen=True, slots=True)
class Sampling:
    """Above ``above`` agents, betweenness from ``samples`` sources and groups by label
    propagation, both drawn with ``seed``; up to it exact betweenness and Louvain (seeded)."""

    above: int
    samples: int
    seed: int


def measure(
    agents: Sequence[str],
    sources: Sequence[str],
    targets: Sequence[str],
    weights: Iterable[int],
    sampling: Sampling,
) -> Measures:
    """The measures of the graph of ``agents`` and the arcs ``sources[i] -> targets[i]`` of
    ``weights``: on arrays, or by networkx where a backend it dispatches to is installed."""
    if networkx_backends():
        return by_networkx(agents, sources, targets, weights, sampling)
    return by_arrays(agents, sources, targets, weights, sampling)


@cache
def networkx_backends() -> bool:
    """Whether a networkx backend is installed (its own test backend aside)."""
    loaded = sys.modules.get("networkx.utils.backends")
    if loaded is not None:
        return bool(getattr(loaded, "backends", None))
    from importlib.metadata import entry_points

    return any(e.name != "nx_loopback" for e in entry_points(group="networkx.backends"))


def by_networkx(
    agents: Sequence[str],
    sources: Sequence[str],
    targets: Sequence[str],
    weights: Iterable[int],
    sampling: Sampling,
) -> Measures:
    """``measure`` by networkx, its graphs built and asked (a backend it dispatches to takes
    over)."""
    import networkx as nx

    weights = [int(w) for w in weights]  # (numpy's whole numbers too: networkx's sums are ints)
    arcs = list(zip(sources, targets, strict=True))
    d = nx.DiGraph()
    d.add_nodes_from(agents)
    d.add_weighted_edges_from((t, s, w) for (s, t), w in zip(arcs, weights, strict=True))
    n = len(d)
    rank = nx.pagerank(d, weight="weight") if d.number_of_edges() else {}
    k = min(n, sampling.samples) if n > sampling.above else None
    between = nx.betweenness_centrality(d.reverse(copy=False), k=k, seed=sampling.seed)
    out_s: dict[str, int] = {}
    in_s: dict[str, int] = {}
    both: dict[tuple[str, str], int] = {}
    for (s, t), w in zip(arcs, weights, strict=True):
        out_s[s] = out_s.get(s, 0) + w
        in_s[t] = in_s.get(t, 0) + w
        pair = (s, t) if s < t else (t, s)
        both[pair] = both.get(pair, 0) + w
    u = nx.Graph()
    u.add_nodes_from(d)
    u.add_weighted_edges_from((s, t, w) for (s, t), w in both.items())
    nodes = list(d)
    return Measures(
        nodes,
        [rank.get(x, 1.0 / n) for x in nodes],
        [out_s.get(x, 0) for x in nodes],
        [in_s.get(x, 0) for x in nodes],
        [between[x] for x in nodes],
        [list(c) for c in _networkx_groups(nx, u, sampling)],
    )


def _networkx_groups(nx: Any, u: Any, sampling: Sampling) -> list[set[str]]:
    """Louvain with a fixed seed; above ``sampling.above`` agents, fast label propagation
    (seeded: the same groups every run), which finds the groups Louvain finds on dense clusters
    in half the time (networkx's Louvain is pure Python and was 40% of a first graph at 5,000
    agents)."""
    if not u.number_of_edges():
        return []
    community = nx.community
    if u.number_of_nodes() > sampling.above:
        return list(
            community.fast_label_propagation_communities(u, weight="weight", seed=sampling.seed)
        )
    return list(community.louvain_communities(u, weight="weight", seed=sampling.seed))


def by_arrays(
    agents: Sequence[str],
    sources: Sequence[str],
    targets: Sequence[str],
    weights: Iterable[int],
    sampling: Sampling,
) -> Measures:
    """``measure`` on numpy arrays: networkx's numbers without its graphs."""
    m = len(sources)
    ends = [""] * (2 * m)  # each arc's target, then its source
    ends[0::2], ends[1::2] = targets, sources
    nodes = list(dict.fromkeys(chain(agents, ends)))
    n = len(nodes)
    if not n:
        return Measures([], [], [], [], [], [])
    index = dict(zip(nodes, range(n), strict=True))
    both = np.fromiter(map(index.__getitem__, ends), np.intp, 2 * m)
    target, source = both[0::2], both[1::2]
    if isinstance(weights, np.ndarray):
        weight = weights.astype(np.float64)
    else:
        weight = np.fromiter(weights, np.float64, m)
    if m:
        rank = pagerank(target, source, weight, n)
        between = betweenness(source, target, n, sampling)
    else:
        rank = np.full(n, 1.0 / n)
        between = np.zeros(n)
    return Measures(
        nodes,
        rank.tolist(),
        np.bincount(source, weight, n).astype(np.int64).tolist(),
        np.bincount(target, weight, n).astype(np.int64).tolist(),
        between.tolist(),
        _groups(nodes, source, target, weight, sampling) if m else [],
    )


def pagerank(frm: np.ndarray, to: np.ndarray, weight: np.ndarray, n: int) -> np.ndarray:
    """Weighted PageRank of the arcs ``frm -> to`` as networkx's ``_pagerank_scipy`` computes
    it (its defaults: no personalization, dangling nodes spread evenly), every sum in its order
    (each node's share added up by source, as ``x @ A`` over a sparse matrix adds): the same
    floats."""
    order = _by(frm, n)
    rows, cols = frm[order], to[order]
    s = np.bincount(frm, weight, n)  # the rows' sums: whole numbers, exact in any order
    s[s != 0] = 1.0 / s[s != 0]
    share = weight[order] * s[rows]  # each row divided by its sum, as Q @ A
    x = np.repeat(1.0 / n, n)
    p = np.repeat(1.0 / n, n)
    dangling = np.where(s == 0)[0]
    for _ in range(MAX_ITER):
        last = x
        spread = np.bincount(cols, share * x[rows], n)  # x @ A
        x = ALPHA * (spread + _sequential_sum(x[dangling]) * p) + (1 - ALPHA) * p
        if np.absolute(x - last).sum() < n * TOL:
            return x
    import networkx as nx

    raise nx.PowerIterationFailedConvergence(MAX_ITER)


def _sequential_sum(x: np.ndarray) -> float:
    """``sum(x)`` as Python adds it, one after the other (numpy's sum adds in pairs)."""
    return float(np.add.accumulate(x)[-1]) if len(x) else 0.0


def betweenness(frm: np.ndarray, to: np.ndarray, n: int, sampling: Sampling) -> np.ndarray:
    """Betweenness over hops along the arcs ``frm -> to`` as networkx's
    ``betweenness_centrality(G, k, seed=seed)`` computes it (normalized, endpoints left out):
    from every node, or above ``sampling.above`` nodes from ``sampling.samples`` drawn by
    ``random.Random(seed).sample`` over the nodes as networkx draws them; each sum in networkx's
    order (the same floats)."""
    k = min(n, sampling.samples) if n > sampling.above else n
    sources = random.Random(sampling.seed).sample(range(n), k) if k < n else list(range(n))
    arcs = _Arcs(frm, to, n)
    total = np.zeros(n)
    block = max(1, _EXPANDED // max(len(frm), n))
    for at in range(0, k, block):
        done = _dependencies(arcs, sources[at : at + block])
        for column in done:  # the sources in turn, as networkx adds them
            total += column
    return _rescaled(total, n, sources if k < n else None)


_EXPANDED = 1_000_000  # arcs followed (and places kept) at once, a block of sources together


@dataclass(frozen=True, slots=True)
class _Arcs:
    """The arcs out of each node, in the order they are given (networkx's order of a node's
    successors)."""

    start: np.ndarray
    count: np.ndarray
    to: np.ndarray
    n: int

    def __init__(self, frm: np.ndarray, to: np.ndarray, n: int) -> None:
        count = np.bincount(frm, minlength=n)
        object.__setattr__(self, "start", np.cumsum(count) - count)
        object.__setattr__(self, "count", count)
        object.__setattr__(self, "to", to[_by(frm, n)])
        object.__setattr__(self, "n", n)

    def out_of(self, at: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The arcs out of the places ``at`` (``column * n + node``), in order: where each
        comes from and the place it goes to, in the same column."""
        node = at % self.n
        count = self.count[node]
        before = np.cumsum(count) - count
        where = np.repeat(self.start[node] - before, count) + np.arange(int(count.sum()))
        return np.repeat(at, count), np.repeat(at - node, count) + self.to[where]


def _dependencies(arcs: _Arcs, sources: list[int]) -> np.ndarray:
    """Brandes's dependencies of every node on each of ``sources`` (a row per source; none on
    the source itself), as networkx's ``_single_source_shortest_path_basic`` and
    ``_accumulate_basic`` find them: the breadth-first search of all sources at once, level by
    level, each level's nodes in the order that search visits them; then the dependencies
    gathered back level by level, each node's added up in the order networkx adds them (its
    successors latest visited first)."""
    n = arcs.n
    b = len(sources)
    places = np.arange(b) * n + np.asarray(sources, np.intp)  # a place: column * n + node
    level = np.full(b * n, -1, np.int32)
    level[places] = 0
    sigma = np.zeros(b * n)
    sigma[places] = 1.0
    levels = [(places, places[:0], places[:0])]
    while True:
        frm, to = arcs.out_of(levels[-1][0])
        found = level[to] < 0
        frm, to = frm[found], to[found]
        if not len(to):
            break
        visited = _first_met(to, b * n)
        level[visited] = len(levels)
        sigma[visited] = np.bincount(to, sigma[frm], b * n)[visited]  # whole numbers: exact
        levels.append((visited, frm, to))
    delta = np.zeros(b * n)
    for (visited, frm, to), (before, _, _) in zip(levels[:0:-1], levels[-2::-1], strict=True):
        coeff = np.zeros(b * n)
        coeff[visited] = (1 + delta[visited]) / sigma[visited]
        order = _latest_first(visited, to)
        frm, to = frm[order], to[order]
        delta[before] = np.bincount(frm, sigma[frm] * coeff[to], b * n)[before]
    delta[places] = 0.0
    return delta.reshape(b, n)


def _first_met(to: np.ndarray, size: int) -> np.ndarray:
    """The places ``to`` holds, each once, in the order they are first met."""
    first = np.full(size, len(to))
    np.minimum.at(first, to, np.arange(len(to)))
    met = np.flatnonzero(first < len(to))
    return met[np.argsort(first[met])]


def _latest_first(visited: np.ndarray, to: np.ndarray) -> np.ndarray:
    """An order of arcs into ``visited`` (in visit order) that takes them by their ends, the
    latest visited first (a stable sort of small whole numbers: in linear time)."""
    rank = np.zeros(int(to.max()) + 1, np.intp)
    rank[visited] = np.arange(len(visited) - 1, -1, -1)
    return _by(rank[to], len(visited))


def _by(keys: np.ndarray, bound: int) -> np.ndarray:
    """The stable order of ``keys``, whole numbers below ``bound`` (below 65,536: sorted by
    their digits, in linear time)."""
    if bound <= 1 << 16:
        keys = keys.astype(np.uint16)
    return np.argsort(keys, kind="stable")


def _rescaled(total: np.ndarray, n: int, sampled: list[int] | None) -> np.ndarray:
    """networkx's ``_rescale`` (normalized, directed, endpoints left out)."""
    pairs = n - 1
    if pairs < 2:
        return total
    if sampled is None:
        return total * (1 / (pairs * (pairs - 1)))
    k = len(sampled)
    scale = np.full(n, 1 / (k * (pairs - 1)))
    scale[sampled] = 1 / ((k - 1) * (pairs - 1)) if k > 1 else math.nan
    return total * scale


def _groups(
    nodes: list[str],
    source: np.ndarray,
    target: np.ndarray,
    weight: np.ndarray,
    sampling: Sampling,
) -> list[list[str]]:
    """The groups on the undirected weights: Louvain by networkx up to ``sampling.above``
    nodes, above it ``label_propagation``."""
    n = len(nodes)
    lo, hi = np.minimum(source, target), np.maximum(source, target)
    keys, first, inverse = np.unique(lo * n + hi, return_index=True, return_inverse=True)
    summed = np.bincount(inverse.ravel(), weight, len(keys))
    # the pairs as they first occur, as networkx adds them (each first place is one pair's)
    pair = np.full(len(source), -1)
    pair[first] = np.arange(len(keys))
    order = pair[pair >= 0]
    a, b, w = keys[order] // n, keys[order] % n, summed[order]
    if n <= sampling.above:
        return _louvain(nodes, a, b, w, sampling.seed)
    labels = label_propagation(_adjacency(a, b, w, n), sampling.seed)
    found: dict[int, list[str]] = {}
    for x, label in zip(nodes, labels, strict=True):
        found.setdefault(label, []).append(x)
    return list(found.values())


def _louvain(
    nodes: list[str], a: np.ndarray, b: np.ndarray, w: np.ndarray, seed: int
) -> list[list[str]]:
    """networkx's Louvain (seeded) on the graph of the pairs ``a``-``b`` of weights ``w``, its
    nodes and edges added in networkx's order."""
    import networkx as nx

    u = nx.Graph()
    u.add_nodes_from(nodes)
    u.add_weighted_edges_from(
        (nodes[i], nodes[j], x)
        for i, j, x in zip(a.tolist(), b.tolist(), w.astype(np.int64).tolist(), strict=True)
    )
    return [list(c) for c in nx.community.louvain_communities(u, weight="weight", seed=seed)]


def _adjacency(a: np.ndarray, b: np.ndarray, w: np.ndarray, n: int) -> _Neighbours:
    """Each node's neighbours in the order of the pairs (networkx's order of a node's
    neighbours in ``Graph``; a loop once, every other neighbour once), and the weights to
    them."""
    loop = a == b
    heads = np.column_stack((a, b)).ravel()
    tails = np.column_stack((b, a)).ravel()
    weights = np.repeat(w, 2)
    keep = ~np.repeat(loop, 2) | (np.arange(len(heads)) % 2 == 0)
    heads, tails, weights = heads[keep], tails[keep], weights[keep]
    order = _by(heads, n)
    start = np.concatenate(([0], np.cumsum(np.bincount(heads, minlength=n))))
    return _Neighbours(tails[order], start.tolist(), weights[order].astype(np.float64))


@dataclass(frozen=True, slots=True)
class _Neighbours:
    """Each node's neighbours, ``near[start[x]:start[x + 1]]``, and the weights to them alike
    (whole numbers: their sums are exact)."""

    near: np.ndarray
    start: list[int]
    weights: np.ndarray


def label_propagation(neighbours: _Neighbours, seed: int) -> list[int]:
    """Each node's label by networkx's ``fast_label_propagation_communities`` (weighted,
    ``seed``): the nodes queued in a seeded shuffle, each taking the label its neighbours weigh
    most (a tie drawn by the same generator, among the labels in the order they are met), its
    neighbours of another label queued again; the same draws, so the same groups. A node's
    labels are weighed on arrays (a few hundred neighbours each, ten thousand turns)."""
    rng = random.Random(seed)
    near, start, weights = neighbours.near, neighbours.start, neighbours.weights
    n = len(start) - 1
    shuffled = list(range(n))
    rng.shuffle(shuffled)
    queue = deque(shuffled)
    queued = np.ones(n, bool)
    labels = np.arange(n)
    while queue:
        node = queue.popleft()
        queued[node] = False
        s, e = start[node], start[node + 1]
        if s == e:
            continue
        around = near[s:e]
        met = labels[around]
        sums = np.bincount(met, weights[s:e])
        best = met[sums[met] == sums.max()]  # the heaviest labels, each as often as met
        if best[0] == best[-1] and (len(best) < 3 or (best == best[0]).all()):
            tied = [int(best[0])]
        else:  # the labels in the order they are first met
            _, first = np.unique(best, return_index=True)
            tied = best[np.sort(first)].tolist()
        chosen = rng.choice(tied)
        if labels[node] != chosen:
            labels[node] = chosen
            again = around[(labels[around] != chosen) & ~queued[around]]
            queue.extend(again.tolist())
            queued[again] = True
    return labels.tolist()
