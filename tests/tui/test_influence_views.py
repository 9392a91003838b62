"""Search, a term's spread and an agent's influences in the dashboard, driven with keys."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Input, Sparkline

from soulscope.tui.app import SoulscopeApp
from soulscope.tui.dialogs.influence import InfluenceScreen, SearchScreen, SpreadScreen
from soulscope.tui.panes.soul import SoulPane
from soulscope.tui.widgets.tabbed_panes import TabbedPanes
from soulscope.tui.widgets.virtual_list import VirtualList
from soulscope.world import World
from tests.support.pilot import settle
from tests.support.worlds import soul, write_world

SIZES = {"80x24": (80, 24), "160x45": (160, 45)}


def frame(n: int, day: int, lines: str, becoming: str) -> str:
    return f"## Frame {n} — 2026-03-{day:02d} (0{n}:00 UTC)\n{lines}- Becoming: {becoming}\n\n"


# ada coins "the quiet ledger"; bo takes it up influenced by her; cy votes on ada's post, replies
# to bo and uses it.
SOULS = {
    "ada-01": soul(
        "Ada",
        "ada-01",
        "Archivist",
        [
            frame(1, 1, "- Catalogued the commons.\n", "the cataloguer."),
            frame(
                2, 2, "- Named: the quiet ledger, where nothing is thrown away.\n", "the keeper."
            ),
        ],
    ),
    "bo-02": soul(
        "Bo",
        "bo-02",
        "Debater",
        [
            frame(1, 1, "- Argued about the commons.\n", "the contrarian."),
            frame(
                3,
                3,
                "- Influenced by: ada-01, her post on keeping things.\n"
                "- Wrote that a quiet ledger still needs a reader.\n",
                "the reader.",
            ),
        ],
    ),
    "cy-03": soul(
        "Cy",
        "cy-03",
        "Coder",
        [
            frame(
                4,
                5,
                "- Voted: 👍 ada-01/#3\n- Replied to bo-02 on #7: the quiet ledger is a database.\n",
                "the builder.",
            ),
        ],
    ),
}


@pytest.fixture
def world(tmp_path: Path) -> World:
    return World.open(write_world(tmp_path / "world", SOULS, {k: k for k in SOULS}))


async def open_search(pilot: Pilot, query: str) -> SearchScreen:
    await settle(pilot)
    await pilot.press("F")
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, SearchScreen)
    screen.query_one(Input).value = query
    await pilot.press("enter")
    await settle(pilot)
    return screen


async def test_search_lists_cited_hits_and_enter_opens_the_frame(world: World) -> None:
    app = SoulscopeApp(world)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_search(pilot, "quiet ledger")
        hits = screen.query_one(VirtualList)
        assert {screen.hits[int(k)].chunk.agent for k in hits.keys} == set(SOULS)
        assert "[" in str(screen._label(hits.keys[0], 80))  # each hit cites agent and frame
        chosen = screen.hits[int(hits.highlighted)].chunk
        await pilot.press("enter")
        await settle(pilot)
        assert not isinstance(app.screen, SearchScreen)
        assert app.agent_id == chosen.agent
        assert app.query_one(TabbedPanes).active == SoulPane.TAB_ID


async def test_f_opens_the_first_mention(world: World) -> None:
    app = SoulscopeApp(world)
    async with app.run_test(size=(120, 36)) as pilot:
        await open_search(pilot, "quiet ledger")
        await pilot.press("f")
        await settle(pilot)
        assert app.agent_id == "ada-01"
        assert app.query_one(TabbedPanes).active == SoulPane.TAB_ID
        assert any("ada-01" in n.message for n in app._notifications)


async def test_s_shows_the_spread_in_order_with_its_chains(world: World) -> None:
    app = SoulscopeApp(world)
    async with app.run_test(size=(120, 36)) as pilot:
        await open_search(pilot, "quiet ledger")
        await pilot.press("s")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, SpreadScreen)
        rows = screen.query_one(VirtualList)
        assert rows.keys == ["ada-01", "bo-02", "cy-03"]
        assert "← ada-01 (credit)" in str(screen._label("bo-02", 120))
        assert "← bo-02 (reply)" in str(screen._label("cy-03", 120))
        # a vote is exposure: shown apart, never a link
        assert "← ada-01" not in str(screen._label("cy-03", 120))
        assert "voted on ada-01" in str(screen._label("cy-03", 200))
        assert screen.query_one(Sparkline).data[-1] == 3
        await pilot.press("down", "enter")
        await settle(pilot)
        assert len(app.screen_stack) == 1  # the search closed too
        assert app.agent_id == "bo-02"


async def open_influences(pilot: Pilot, agent: str) -> InfluenceScreen:
    await settle(pilot)
    pilot.app.select_agent(agent)
    await settle(pilot)
    await pilot.press("i")
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, InfluenceScreen)
    return screen


async def test_i_shows_who_shaped_the_agent_and_enter_opens_their_arc(world: World) -> None:
    app = SoulscopeApp(world)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_influences(pilot, "bo-02")
        keys = screen.query_one(VirtualList).keys
        assert keys == ["h-in", "in-ada-01", "h-out", "out-cy-03"]
        await pilot.press("down", "enter")
        await settle(pilot)
        assert app.agent_id == "ada-01"
        assert app.query_one(TabbedPanes).active == "becoming"


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("view", ["search", "spread", "influence"])
def test_view(snap_compare, world: World, view: str, size: str) -> None:
    async def run_before(pilot: Pilot) -> None:
        pilot.app.query_one("#filter", Input).cursor_blink = False
        if view == "influence":
            await open_influences(pilot, "bo-02")
        else:
            screen = await open_search(pilot, "quiet ledger")
            screen.query_one(Input).cursor_blink = False
            if view == "spread":
                await pilot.press("s")
        await settle(pilot)

    assert snap_compare(SoulscopeApp(world), terminal_size=SIZES[size], run_before=run_before)


async def test_the_dashboard_reads_and_keeps_the_graph_the_command_line_keeps(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``soulscope graph`` and the dashboard's influences share one kept answer: a graph made by
    one is read back by the other, until a file changes."""
    from soulscope.keep import ANSWERS, fresh
    from soulscope.tui.dialogs import influence
    from tests.support.cli import soulscope
    from tests.support.kept import kept_text, rewrite

    monkeypatch.setattr(fresh, "RACY_NS", 0)  # the files were just written: count them settled

    async def shaped_bo(world: World) -> int:
        """The weight the dashboard shows for ada-01 -> bo-02 in bo-02's influences."""
        async with SoulscopeApp(world).run_test(size=(120, 36)) as pilot:
            screen = await open_influences(pilot, "bo-02")
            _, arc = screen.rows["in-ada-01"]
            return arc.weight

    assert await shaped_bo(world) == 1
    (kept,) = ANSWERS.path.glob("*/graph.json-*")  # kept by the dashboard
    printed = soulscope("graph", "--world", str(world.root), "--json").stdout
    assert printed == kept_text(kept)
    # What the dashboard shows next is the kept answer (here with another weight)
    rewrite(kept, printed.replace('"weight": 1', '"weight": 7'))
    influence._GRAPHS.clear()  # (a new dashboard)
    assert await shaped_bo(World.open(world.root)) == 7


async def test_the_dashboard_keeps_the_links_once_the_world_is_listed(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Then its influence views (and ``graph``) read no soul file."""
    from soulscope.history import graph
    from soulscope.history.tallystore import prepared
    from soulscope.keep import fresh
    from soulscope.tui import app as app_module

    monkeypatch.setattr(fresh, "RACY_NS", 0)  # the files count as settled: their tallies kept
    monkeypatch.setattr(app_module, "LINKS_AFTER_S", 0.01)  # (the world still: 2 s)
    assert not prepared(world)
    app = SoulscopeApp(world)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.pause(0.05)
        await app.workers.wait_for_complete()
        assert prepared(world)
        monkeypatch.setattr(graph, "_file_tally", None)  # a file read for its links would fail
        screen = await open_influences(pilot, "bo-02")
        assert screen.query_one(VirtualList).keys == ["h-in", "in-ada-01", "h-out", "out-cy-03"]
