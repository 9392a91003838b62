"""The influence graph's measures at scale: above a size, bridges are sampled and groups found by
label propagation, and the answer says so."""

from __future__ import annotations

from pathlib import Path

import pytest

from soulscope.history import graph
from tests.support.cli import soulscope
from tests.support.worlds import soul, write_world


def clustered(root: Path) -> Path:
    """Two groups of four agents that cite each other, one arc between them."""
    souls = {}
    for team in ("Red", "blue"):
        ids = [f"{team.lower()}-{i}" for i in range(4)]
        for me in ids:
            lines = [
                f"## Frame {n} — 2026-03-0{n}\n- Influenced by: {peer.upper() if n % 2 else peer}\n"
                f"- Relationships: {peer} (ally)\n- Becoming: one of {team}.\n\n"
                for n, peer in enumerate((p for p in ids if p != me), 1)
            ]
            souls[me] = soul(me.title(), me, "Member", lines)
    souls["red-0"] += "## Frame 9 — 2026-03-09\n- Replied to blue-0 on #4\n\n"
    return write_world(root, souls)


@pytest.mark.parametrize("threshold", [2000, 4])
def test_groups_are_the_clusters_at_either_size(tmp_path: Path, monkeypatch, threshold: int):
    monkeypatch.setattr(graph, "SAMPLED_BETWEENNESS", threshold)
    world = clustered(tmp_path / "w")
    from soulscope.world import World

    g = graph.influence(World.open(world))
    assert sorted(map(sorted, g.groups)) == [
        [f"blue-{i}" for i in range(4)],
        [f"red-{i}" for i in range(4)],
    ]
    # the bridges: red-0 and blue-0 carry every path between the groups
    assert {n.agent for n in g.bridges()[:2]} == {"red-0", "blue-0"}


def test_the_answer_says_what_is_estimated(tmp_path: Path, monkeypatch):
    world = clustered(tmp_path / "w")
    done = soulscope("graph", "--world", str(world))
    assert done.returncode == 0 and "estimated" not in done.stdout
    monkeypatch.setattr(graph, "SAMPLED_BETWEENNESS", 4)
    monkeypatch.setenv("SOULSCOPE_CACHE", str(tmp_path / "cache"))
    done = soulscope("graph", "--world", str(world))
    assert done.returncode == 0
    assert "estimated from the paths of 16 agents" in done.stdout
    assert "groups by label propagation" in done.stdout
