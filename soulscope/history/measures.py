"""The measures of the influence graph, computed on arrays: the numbers networkx gives for it.

The graph is its agents and its arcs ``source -> target`` (the target's memory names the source),
each pair once, with a weight. Its nodes are in networkx's order: the agents given, then each
arc's ends (target, then source) as they first occur. Influence flows from the named to the one
who names, so PageRank (weighted, networkx's ``_pagerank_scipy``: the same damping, tolerance,
dangling nodes and sums, bit for bit) runs on the arcs turned round; betweenness counts hops along
the arcs as written (networkx's ``betweenness_centrality``, normalized, without the endpoints),
exact up to ``sampled_above`` agents and above it from ``samples`` sources drawn as networkx
draws them with the seed, all of a block of sources at once, level by level, over a sparse
matrix; groups are on the undirected weights (the two directions of a pair weighed together):
networkx's Louvain up to ``sampled_above`` agents, above it fast label propagation, networkx's
algorithm with the same random draws, on lists (the same groups).

Where a backend networkx dispatches to is installed (nx-cugraph: a ``networkx.backends`` entry
point), networkx computes every measure, so that the backend takes over (``by_networkx``).
"""

from __future__ import annotations

import math
import random
import sys
from collections import Counter, deque
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from itertools import chain, pairwise
from operator import itemgetter
from typing import Any

import numpy as np

# networkx.pagerank's defaults
ALPHA = 0.85
MAX_ITER = 100
TOL = 1.0e-6
_BLOCK = 128  # sources whose paths are followed at once


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
    arcs: Sequence[tuple[str, str]],
    weights: Sequence[int],
    sampling: Sampling,
) -> Measures:
    """The measures of the graph of ``agents`` and ``arcs`` (source, target) of ``weights``: on
    arrays, or by networkx where a backend it dispatches to is installed."""
    if networkx_backends():
        return by_networkx(agents, arcs, weights, sampling)
    return by_arrays(agents, arcs, weights, sampling)


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
    arcs: Sequence[tuple[str, str]],
    weights: Sequence[int],
    sampling: Sampling,
) -> Measures:
    """``measure`` by networkx, its graphs built and asked (a backend it dispatches to takes
    over)."""
    import networkx as nx

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
    arcs: Sequence[tuple[str, str]],
    weights: Sequence[int],
    sampling: Sampling,
) -> Measures:
    """``measure`` on numpy and scipy arrays: networkx's numbers (PageRank bit for bit,
    betweenness but for the order of its sums, the same groups) without its graphs."""
    ends = list(chain.from_iterable(map(itemgetter(1, 0), arcs)))  # target, source, ...
    nodes = list(dict.fromkeys(chain(agents, ends)))
    n, m = len(nodes), len(arcs)
    index = dict(zip(nodes, range(n), strict=True))
    both = np.fromiter(map(index.__getitem__, ends), np.intp, 2 * m)
    target, source = both[0::2], both[1::2]
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
    it (its defaults: no personalization, dangling nodes spread evenly), every sum in its order:
    the same floats."""
    from scipy import sparse

    a = sparse.csr_array((weight, (frm, to)), shape=(n, n))
    s = np.bincount(frm, weight, n)  # the rows' sums: whole numbers, exact in any order
    s[s != 0] = 1.0 / s[s != 0]
    a.data *= np.repeat(s, np.diff(a.indptr))  # each row divided by its sum, as Q @ A
    x = np.repeat(1.0 / n, n)
    p = np.repeat(1.0 / n, n)
    dangling = np.where(s == 0)[0]
    for _ in range(MAX_ITER):
        last = x
        x = ALPHA * (x @ a + _sequential_sum(x[dangling]) * p) + (1 - ALPHA) * p
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
    ``random.Random(seed).sample`` over the nodes as networkx draws them."""
    from scipy import sparse

    k = min(n, sampling.samples) if n > sampling.above else n
    sources = random.Random(sampling.seed).sample(range(n), k) if k < n else list(range(n))
    hop = frm != to  # a loop is on no shortest path
    ones = np.ones(int(hop.sum()))
    forward = sparse.csr_array((ones, (to[hop], frm[hop])), shape=(n, n))  # [w, v]: v -> w
    backward = forward.T.tocsr()
    total = np.zeros(n)
    for at in range(0, k, _BLOCK):
        block = sources[at : at + _BLOCK]
        delta = _dependencies(forward, backward, np.asarray(block, np.intp), n)
        for j in range(len(block)):  # the sources in turn, as networkx adds them
            total += delta[:, j]
    return _rescaled(total, n, sources if k < n else None)


def _dependencies(forward: Any, backward: Any, sources: np.ndarray, n: int) -> np.ndarray:
    """Brandes's dependencies of each node on each source (a column per source; nothing for
    the source itself): the shortest paths counted level by level, then the dependencies
    gathered back from the farthest level."""
    b = len(sources)
    columns = np.arange(b)
    level = np.full((n, b), -1, np.int32)
    level[sources, columns] = 0
    sigma = np.zeros((n, b))
    sigma[sources, columns] = 1.0
    frontier = sigma.copy()
    depth = 0
    while True:
        reached = forward @ frontier
        new = (reached > 0) & (level < 0)
        if not new.any():
            break
        depth += 1
        level[new] = depth
        frontier = np.where(new, reached, 0.0)
        sigma += frontier
    delta = np.zeros((n, b))
    for d in range(depth, 0, -1):
        coeff = np.divide(1.0 + delta, sigma, out=np.zeros((n, b)), where=level == d)
        delta += np.where(level == d - 1, sigma * (backward @ coeff), 0.0)
    delta[level <= 0] = 0.0
    return delta


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
    order = np.argsort(first)  # the pairs as they first occur, as networkx adds them
    a, b, w = keys[order] // n, keys[order] % n, summed[order]
    if n <= sampling.above:
        return _louvain(nodes, a, b, w, sampling.seed)
    labels = label_propagation(_adjacency(a, b, w, n), sampling.seed)
    found: dict[int, list[str]] = {}
    for x, label in zip(nodes, labels, strict=True):
        found.setdefault(label, []).append(x)
    return list(found.values())


def _louvain(nodes: list[str], a: np.ndarray, b: np.ndarray, w: np.ndarray, seed: int) -> list:
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
    neighbours in ``Graph``; a loop once)."""
    loop = a == b
    heads = np.column_stack((a, b)).ravel()
    tails = np.column_stack((b, a)).ravel()
    weights = np.repeat(w, 2)
    keep = ~np.repeat(loop, 2) | (np.arange(len(heads)) % 2 == 0)
    heads, tails, weights = heads[keep], tails[keep], weights[keep]
    order = np.argsort(heads, kind="stable")
    tails, weights = tails[order], weights[order].astype(np.int64)
    spans = list(pairwise(np.concatenate(([0], np.cumsum(np.bincount(heads, minlength=n))))))
    near = tails.tolist()
    around = [near[s:e] for s, e in spans]
    if len(w) and w.min() >= 1 and weights.sum() <= _COUNTED_OUT * len(weights):
        ends = np.concatenate(([0], np.cumsum(weights))).tolist()
        out = np.repeat(tails, weights).tolist()
        return _Neighbours(around, counted=[out[ends[s] : ends[e]] for s, e in spans])
    far = weights.tolist()
    return _Neighbours(around, weights=[far[s:e] for s, e in spans])


_COUNTED_OUT = 4  # whole weights up to this many times the neighbours are counted out


@dataclass(slots=True)
class _Neighbours:
    """Each node's neighbours, and the weights to them: as a list each, or (whole weights) as
    each neighbour counted out as many times as its weight, in the same order."""

    around: list[list[int]]
    counted: list[list[int]] | None = None
    weights: list[list[int]] | None = None

    def weighed(self, node: int, label: Any) -> dict[int, int]:
        """The weight of each label among ``node``'s neighbours (``label``: a neighbour's), the
        labels in the order they are met."""
        if self.counted is not None:
            return Counter(map(label, self.counted[node]))
        assert self.weights is not None
        freqs: dict[int, int] = {}
        for x, w in zip(map(label, self.around[node]), self.weights[node], strict=True):
            freqs[x] = freqs.get(x, 0) + w
        return freqs


def label_propagation(neighbours: _Neighbours, seed: int) -> list[int]:
    """Each node's label by networkx's ``fast_label_propagation_communities`` (weighted,
    ``seed``): the nodes queued in a seeded shuffle, each taking the label its neighbours weigh
    most (a tie drawn by the same generator, among the labels in the order they are met), its
    neighbours of another label queued again; the same draws, so the same groups."""
    rng = random.Random(seed)
    around = neighbours.around
    n = len(around)
    shuffled = list(range(n))
    rng.shuffle(shuffled)
    queue = deque(shuffled)
    queued = [True] * n
    labels = list(range(n))
    label = labels.__getitem__
    while queue:
        node = queue.popleft()
        queued[node] = False
        near = around[node]
        if not near:
            continue
        freqs = neighbours.weighed(node, label)
        top = max(freqs.values())
        chosen = rng.choice([x for x, f in freqs.items() if f == top])
        if labels[node] != chosen:
            labels[node] = chosen
            for x in near:
                if labels[x] != chosen and not queued[x]:
                    queue.append(x)
                    queued[x] = True
    return labels
