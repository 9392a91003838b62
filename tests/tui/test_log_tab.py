"""The Log tab: the world's frames as one stream, the frame cursor, opening an agent at a frame,
following a world as its frames land, and time travel carried into it."""

from __future__ import annotations

from pathlib import Path

from textual.pilot import Pilot
from textual.widgets import Input

from soulscope.history.timeline import world_at
from soulscope.tui.app import SoulscopeApp
from soulscope.tui.panes.log import LogPane
from soulscope.world import World
from tests.support.pilot import settle, until
from tests.support.repos import commit, history_frame, history_world

SIZE = (120, 36)


async def open_log(pilot: Pilot) -> LogPane:
    pilot.app.query_one("#filter", Input).cursor_blink = False
    await settle(pilot)
    await pilot.press("6")
    pane = pilot.app.query_one(LogPane)
    await until(pilot, lambda: bool(pane.entries))
    await settle(pilot)
    pane.table.focus()
    await pilot.pause()
    return pane


async def test_the_cursor_steps_frames_and_days_and_opens_the_agent(tmp_path: Path) -> None:
    world = World.open(history_world(tmp_path))
    app = SoulscopeApp(world)
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_log(pilot)
        # history_world: ada-01 wrote frames 1-4, bo-02 frames 1 and 3, one a day from 03-01
        assert [(e.agent, e.frame) for e in pane.entries] == [
            ("ada-01", 1),
            ("bo-02", 1),
            ("ada-01", 2),
            ("ada-01", 3),
            ("bo-02", 3),
            ("ada-01", 4),
        ]
        assert all(e.commit for e in pane.entries)
        assert pane.cursor == 0
        await pilot.press("right_square_bracket", "right_square_bracket")
        assert pane.cursor == 2
        await pilot.press("right_curly_bracket")  # the first frame of 2026-03-03
        assert pane.cursor == 3 and pane.entries[3].date == "2026-03-03"
        await pilot.press("left_curly_bracket")  # back to the start of the day before
        assert pane.cursor == 2
        await pilot.press("left_curly_bracket", "left_square_bracket")
        assert pane.cursor == 0
        status = str(app.query_one("#log-status").render())
        assert "frame 1 of 6" in status and "2026-03-01" in status
        await pilot.press("right_square_bracket", "enter")
        await settle(pilot)
        assert app.agent_id == "bo-02"
        assert app.query_one("#tabs").active == "soul"


async def test_follow_reads_frames_as_they_land(tmp_path: Path) -> None:
    root = history_world(tmp_path)
    app = SoulscopeApp(World.open(root))
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_log(pilot)
        await pilot.press("f")
        assert pane.following
        assert pane.cursor == len(pane.entries) - 1
        soul = root / "memory" / "cy-03.md"
        with soul.open("a") as f:
            f.write(history_frame(5, "Read #15 at last.", "a reader.", "ada-01.", "ada-01 (guide)"))
        commit(root.parent, "frame 5: 1 agents, 0 posts, 0 comments", date="2026-03-05T12:00:00Z")
        await until(pilot, lambda: len(pane.entries) == 7)
        await settle(pilot)
        last = pane.entries[-1]
        assert (last.agent, last.frame, last.date) == ("cy-03", 5, "2026-03-05")
        assert pane.cursor == 6
        await pilot.press("f")
        assert not pane.following


async def test_time_travel_carries_into_the_log(tmp_path: Path) -> None:
    world = World.open(history_world(tmp_path))
    app = SoulscopeApp(world)
    async with app.run_test(size=SIZE) as pilot:
        await open_log(pilot)
        app.open_world(world_at(world, "HEAD~2"))  # the world after its second frame
        await settle(pilot)
        await pilot.press("6")
        pane = app.query_one(LogPane)
        await until(pilot, lambda: bool(pane.entries))
        assert [(e.agent, e.frame) for e in pane.entries] == [
            ("ada-01", 1),
            ("bo-02", 1),
            ("ada-01", 2),
        ]
        pane.table.focus()
        await pilot.press("f")  # a past world does not move
        assert not pane.following


async def test_t_charts_how_terms_spread_per_day(tmp_path: Path) -> None:
    from soulscope.tui.dialogs.trends import TrendScreen

    app = SoulscopeApp(World.open(history_world(tmp_path)))
    async with app.run_test(size=SIZE) as pilot:
        await open_log(pilot)
        await pilot.press("t")
        await settle(pilot)
        await pilot.press(*"cataloguer", "comma", *" rebuttal", "enter")
        await until(pilot, lambda: isinstance(app.screen, TrendScreen))
        screen = app.screen
        assert isinstance(screen, TrendScreen)
        assert [t.term.text for t in screen.trends] == ["cataloguer", "rebuttal"]
        text = str(screen.query_one("#trend-chart").render())
        # ada-01 was "the cataloguer." from 2026-03-01: 1 of the 2 agents active then
        assert "2026-03-01" in text and "1 so far · 1 that day of 2 active" in text
        assert "★ peak" in text
        assert "first majority" not in text  # 1 of 2 agents is not more than half
        await pilot.press("escape")
        assert not isinstance(app.screen, TrendScreen)
