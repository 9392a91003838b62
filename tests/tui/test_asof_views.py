"""Time travel carries into the spread and influence views: after opening the world as of an
earlier commit, they answer as ``spread --at`` and ``graph --at`` do."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from textual.pilot import Pilot

from soulscope.history.timeline import world_at
from soulscope.tui.app import SoulscopeApp
from soulscope.tui.dialogs.influence import InfluenceScreen, SpreadScreen
from soulscope.tui.widgets.virtual_list import VirtualList
from soulscope.world import World
from tests.support.cli import soulscope
from tests.support.pilot import settle
from tests.support.repos import commit, init
from tests.support.worlds import soul, write_world
from tests.tui.test_influence_views import SOULS, open_search


@pytest.fixture
def repo(tmp_path: Path) -> tuple[Path, str]:
    """The influence views' world in git: bo-02's and cy-03's later frames a commit later."""
    root = init(tmp_path / "world")
    early = {k: v for k, v in SOULS.items() if k == "ada-01"}
    early["bo-02"] = soul("Bo", "bo-02", "Debater", [])
    write_world(root, early, {k: k for k in SOULS})
    first = commit(root, "frame 2", "2026-03-02T12:00:00Z")
    for agent, text in SOULS.items():
        (root / "memory" / f"{agent}.md").write_text(text)
    commit(root, "frame 5", "2026-03-05T12:00:00Z")
    return root, first


async def travel(pilot: Pilot, world: World, rev: str) -> None:
    await settle(pilot)
    pilot.app.open_world(world_at(world, rev))
    await settle(pilot)


async def test_spread_as_of_a_commit(repo: tuple[Path, str]) -> None:
    root, first = repo
    world = World.open(root)
    app = SoulscopeApp(world)
    async with app.run_test(size=(120, 36)) as pilot:
        await travel(pilot, world, first)
        await open_search(pilot, "quiet ledger")
        await pilot.press("s")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, SpreadScreen)
        shown = screen.query_one(VirtualList).keys
    at = json.loads(
        soulscope("spread", "quiet ledger", "-w", str(root), "--at", first, "--json").stdout
    )
    assert shown == [a["agent"] for a in at["agents"]] == ["ada-01"]


async def test_influences_as_of_a_commit(repo: tuple[Path, str]) -> None:
    root, first = repo
    world = World.open(root)
    app = SoulscopeApp(world)
    async with app.run_test(size=(120, 36)) as pilot:
        await travel(pilot, world, first)
        app.select_agent("ada-01")
        await settle(pilot)
        await pilot.press("i")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, InfluenceScreen)
        then = screen.query_one(VirtualList).keys
    graph = json.loads(soulscope("graph", "-w", str(root), "--at", first, "--json").stdout)
    assert graph["edges"] == []  # nobody had named ada-01 yet
    assert not any(k.startswith(("in-", "out-")) for k in then)
    now = json.loads(soulscope("graph", "-w", str(root), "--json").stdout)
    assert {(e["from"], e["to"]) for e in now["edges"]} >= {("ada-01", "bo-02")}


@pytest.mark.parametrize("size", [(80, 24), (160, 45)])
def test_spread_as_of_a_commit_view(snap_compare, repo: tuple[Path, str], size) -> None:
    root, first = repo
    world = World.open(root)

    async def run_before(pilot: Pilot) -> None:
        from textual.widgets import Input

        pilot.app.query_one("#filter", Input).cursor_blink = False
        await travel(pilot, world, first)
        pilot.app.query_one("#filter", Input).cursor_blink = False
        await open_search(pilot, "quiet ledger")
        await pilot.press("s")
        await settle(pilot)

    assert snap_compare(SoulscopeApp(world), terminal_size=size, run_before=run_before)
