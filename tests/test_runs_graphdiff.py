"""``graph diff A B``: what a reader finds by diffing ``graph --at A --json`` and
``graph --at B --json``, on the real history and on hand-made graphs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from soulscope.runs.graphdiff import diff_dict, graph_diff
from tests.support.cli import one_sentence, soulscope
from tests.support.repos import clone_bundle


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return clone_bundle(tmp_path_factory.mktemp("bundle") / "rappterbook")


def graph_at(world: Path, point: str) -> dict:
    done = soulscope("graph", "--world", str(world), "--at", point, "--json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def reader_diff(a: dict, b: dict) -> dict:
    """What a reader gets by comparing two graph answers by hand."""
    wa = {(e["from"], e["to"]): e["weight"] for e in a["edges"]}
    wb = {(e["from"], e["to"]): e["weight"] for e in b["edges"]}
    ra = {n["agent"]: i for i, n in enumerate(a["nodes"], 1)}
    rb = {n["agent"]: i for i, n in enumerate(b["nodes"], 1)}
    return {
        "gained": {k: w for k, w in wb.items() if k not in wa},
        "lost": {k: w for k, w in wa.items() if k not in wb},
        "moved": {k: (wa[k], w) for k, w in wb.items() if k in wa and wa[k] != w},
        "up": {x: (ra[x], rb[x]) for x in ra.keys() & rb.keys() if rb[x] < ra[x]},
        "down": {x: (ra[x], rb[x]) for x in ra.keys() & rb.keys() if rb[x] > ra[x]},
        "entered": set(rb) - set(ra),
        "left": set(ra) - set(rb),
    }


def listed(d: dict) -> dict:
    arcs, ranks = d["arcs"], d["pagerank"]
    return {
        "gained": {(c["from"], c["to"]): c["after"] for c in arcs["gained"]},
        "lost": {(c["from"], c["to"]): c["before"] for c in arcs["lost"]},
        "moved": {(c["from"], c["to"]): (c["before"], c["after"]) for c in arcs["moved"]},
        "up": {m["agent"]: (m["rank_before"], m["rank_after"]) for m in ranks["up"]},
        "down": {m["agent"]: (m["rank_before"], m["rank_after"]) for m in ranks["down"]},
        "entered": {m["agent"] for m in ranks["entered"]},
        "left": {m["agent"] for m in ranks["left"]},
    }


@pytest.mark.parametrize(
    ("a", "b"), [("2026-03-08", "2026-03-15"), ("2026-03-14", "2026-03-15"), ("HEAD~120", "HEAD")]
)
def test_graph_diff_lists_what_diffing_two_graphs_finds(bundle: Path, a: str, b: str) -> None:
    done = soulscope("graph", "diff", a, b, "--world", str(bundle), "--json")
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    expected = reader_diff(graph_at(bundle, a), graph_at(bundle, b))
    assert listed(found) == expected
    assert sum(len(v) for v in expected.values()) > 5  # the history did change
    text = soulscope("graph", "diff", a, b, "--world", str(bundle)).stdout
    assert f"from {a} to {b}: {len(expected['gained'])} arcs gained" in text


def test_groups_split_merge_and_are_born() -> None:
    def graph(groups: list[list[str]]) -> dict:
        nodes = [{"agent": x, "pagerank": 0.1} for g in groups for x in g]
        return {"nodes": nodes, "edges": [], "groups": groups}

    a = graph([["Ada.L", "bo-2", "Cy", "dee"], ["e-1", "f-1", "g-1"], ["h-1", "i-1"], ["lone"]])
    b = graph([["Ada.L", "bo-2"], ["Cy", "dee", "e-1", "f-1", "g-1"], ["new-1", "new-2"]])
    d = diff_dict(graph_diff(a, b), "A", "B")
    kinds = {(g["change"], len(g["before"]), len(g["after"])) for g in d["groups"]}
    assert kinds == {
        ("split", 1, 2),  # Ada.L..dee went two ways
        ("merged", 2, 1),  # Cy and dee joined e-1's group
        ("dissolved", 1, 0),  # h-1 and i-1's group
        ("dissolved", 1, 0),
        ("born", 0, 1),  # the new agents' group
    }
    assert sum(g["change"] == "dissolved" for g in d["groups"]) == 2


def test_bad_diff_arguments_are_one_sentence(bundle: Path) -> None:
    w = ("--world", str(bundle))
    assert "diff A B" in one_sentence(soulscope("graph", "diff", "HEAD", *w))
    assert "diff A B" in one_sentence(soulscope("graph", "compare", "HEAD", "HEAD~1", *w))
    said = one_sentence(soulscope("graph", "diff", "HEAD~1", "nope", *w))
    assert "unknown revision 'nope'" in said
    assert "not --at" in one_sentence(
        soulscope("graph", "diff", "HEAD~1", "HEAD", "--at", "HEAD", *w)
    )
