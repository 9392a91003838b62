"""The influence graph's measures on arrays are networkx's: the same nodes in the same order, the
same PageRank, strengths and betweenness, the same groups, on graphs of every shape."""

from __future__ import annotations

import random

import pytest

from soulscope.history import graph, measures
from soulscope.history.measures import Measures, Sampling, by_arrays, by_networkx

EXACT = Sampling(2000, 16, 7)  # graph.py's: every graph here is measured exactly
SAMPLED = Sampling(50, 16, 7)  # above 50 agents: 16 sampled sources, label propagation


def names(count: int, rng: random.Random) -> list[str]:
    """Agent ids in the forms ids take: hyphens, dots, digits first, mixed case, accents."""
    forms = ["zion-coder-{}", "Ada.{}", "{}-bot", "née_{}", "X{}", "rappter{}"]
    return [rng.choice(forms).format(i) for i in range(count)]


def clustered(
    count: int, seed: int, heavy: bool = False, loops: bool = False
) -> tuple[list[str], list[tuple[str, str]], list[int]]:
    """A world's agents (sorted, as ``graph`` gives them; three named by nobody and naming
    nobody) and arcs: clusters that name each other most, a few arcs between them,
    some agents only named (no soul file: not among the agents) and some naming nobody
    (dangling once turned round); weights of 1 to 3, or up to 40 (``heavy``)."""
    rng = random.Random(seed)
    everyone = names(count, rng)
    alone = [f"Alone.{i}" for i in range(3)]  # soul files that name nobody, named by nobody
    present = sorted(rng.sample(everyone, int(count * 0.8)) + alone)
    clusters = [everyone[i : i + 12] for i in range(0, count, 12)]
    arcs: dict[tuple[str, str], int] = {}
    for _ in range(count * 4):
        team = rng.choice(clusters)
        source = rng.choice(team) if rng.random() < 0.85 else rng.choice(everyone)
        target = rng.choice(team)
        if source == target and not loops:
            continue
        top = 40 if heavy else 3
        arcs[source, target] = arcs.get((source, target), 0) + rng.randint(1, top)
    quiet = set(rng.sample(everyone, count // 10))  # they name nobody: no arcs into them
    kept = {k: w for k, w in arcs.items() if k[1] not in quiet}
    return present, list(kept), list(kept.values())


def ends(arcs: list[tuple[str, str]]) -> tuple[list[str], list[str]]:
    """The arcs' sources and their targets."""
    return [s for s, _ in arcs], [t for _, t in arcs]


def assert_same(a: Measures, b: Measures) -> None:
    """The same measures; betweenness to the last bit (its sums are added in networkx's order,
    so ``graph --json`` prints the same digits), PageRank to the last few (scipy's sparse
    product may fuse a multiply and an add where the machine can)."""
    assert a.nodes == b.nodes
    assert a.pagerank == pytest.approx(b.pagerank, rel=1e-12, abs=1e-15)
    assert a.influences == b.influences and a.influenced_by == b.influenced_by
    assert a.betweenness == b.betweenness
    assert sorted(map(sorted, a.groups)) == sorted(map(sorted, b.groups))


@pytest.mark.parametrize("seed", [1, 2])
def test_an_exact_graph_measures_as_networkx_does(seed: int, monkeypatch: pytest.MonkeyPatch):
    if seed == 2:  # the sources searched a few at a time
        monkeypatch.setattr(measures, "_EXPANDED", 3000)
    present, arcs, weights = clustered(150, seed, loops=seed == 2)
    assert any(s == t for s, t in arcs) == (seed == 2)
    found = by_arrays(present, *ends(arcs), weights, EXACT)
    assert_same(found, by_networkx(present, *ends(arcs), weights, EXACT))
    assert max(found.betweenness) > 0.01 and len(found.groups) > 3
    # the agents named by nobody and naming nobody are nodes, measured as networkx measures them
    alone = set(present) - {x for arc in arcs for x in arc}
    assert alone and all(found.betweenness[found.nodes.index(x)] == 0 for x in alone)


@pytest.mark.parametrize(("seed", "heavy", "loops"), [(3, False, False), (4, True, True)])
def test_a_sampled_graph_draws_what_networkx_draws(seed: int, heavy: bool, loops: bool) -> None:
    present, arcs, weights = clustered(200, seed, heavy, loops)
    found = by_arrays(present, *ends(arcs), weights, SAMPLED)
    expected = by_networkx(present, *ends(arcs), weights, SAMPLED)
    assert_same(found, expected)
    # the groups are label propagation's, which ties and draws: many groups, not one
    assert len([c for c in found.groups if len(c) > 1]) > 5
    # sixteen sources drawn: another draw would give other numbers
    other = by_networkx(present, *ends(arcs), weights, Sampling(50, 16, 8))
    assert other.betweenness != pytest.approx(found.betweenness, rel=1e-6)


def test_the_nodes_come_in_networkx_order() -> None:
    """The agents as given, then each arc's ends as they are first met, the target first."""
    present = ["b-2", "a-1"]
    arcs = [("Q.9", "b-2"), ("z-0", "y-5"), ("a-1", "Q.9"), ("y-5", "z-0")]
    found = by_arrays(present, *ends(arcs), [1, 2, 3, 4], EXACT)
    assert found.nodes == ["b-2", "a-1", "Q.9", "y-5", "z-0"]
    assert_same(found, by_networkx(present, *ends(arcs), [1, 2, 3, 4], EXACT))
    assert found.influences == [0, 3, 1, 4, 2] and found.influenced_by == [1, 0, 3, 2, 4]


@pytest.mark.parametrize("sampling", [EXACT, Sampling(2, 16, 7)])
@pytest.mark.parametrize(
    ("present", "arcs"),
    [
        (["a-1", "b-2", "c-3"], []),
        ([], [("a-1", "b-2")]),
        (["a-1"], [("a-1", "b-2")]),
        (["a-1", "b-2"], [("a-1", "a-1"), ("b-2", "a-1")]),
        (["a-1", "b-2", "c-3"], [("a-1", "b-2"), ("b-2", "c-3")]),
    ],
)
def test_small_graphs_measure_as_networkx_does(
    present: list[str], arcs: list[tuple[str, str]], sampling: Sampling
) -> None:
    weights = list(range(1, len(arcs) + 1))
    found = by_arrays(present, *ends(arcs), weights, sampling)
    assert_same(found, by_networkx(present, *ends(arcs), weights, sampling))
    if len(found.nodes) == 3 and len(arcs) == 2:  # a path: its middle carries the one path
        assert found.betweenness == [0.0, 0.5, 0.0]


def test_the_influence_graph_is_measured_on_arrays(monkeypatch: pytest.MonkeyPatch) -> None:
    """``graph`` measures on arrays, and by networkx where a backend it dispatches to is
    installed: the same nodes either way."""
    present, arcs, weights = clustered(120, 5)
    touched = {x for arc in arcs for x in arc}
    g = graph.Influence(
        "w", None, None, {k: graph.Arc(*k, w) for k, w in zip(arcs, weights, strict=True)}
    )
    monkeypatch.setattr(graph, "SAMPLED_BETWEENNESS", 50)
    monkeypatch.setattr(measures, "networkx_backends", lambda: False)
    graph._measure(g, set(present))
    on_arrays = dict(g.nodes)
    assert set(on_arrays) == set(present) | touched
    monkeypatch.setattr(measures, "networkx_backends", lambda: True)
    graph._measure(g, set(present))
    assert [n.agent for n in g.nodes.values()] == list(on_arrays)
    for x, n in g.nodes.items():
        assert n.pagerank == pytest.approx(on_arrays[x].pagerank, rel=1e-9)
        assert n.betweenness == pytest.approx(on_arrays[x].betweenness, rel=1e-9, abs=1e-12)
        assert (n.group, n.influences) == (on_arrays[x].group, on_arrays[x].influences)


def test_a_graph_of_nothing_has_no_measures() -> None:
    assert (
        by_arrays([], [], [], [], EXACT)
        == by_networkx([], [], [], [], EXACT)
        == Measures([], [], [], [], [], [])
    )
