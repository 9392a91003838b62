"""The why panel driven with keys: the dossier scrolls, and its keys follow the trail."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Input, Sparkline, Static

from soulscope.tui.app import SoulscopeApp
from soulscope.tui.dialogs.pick import PickScreen
from soulscope.tui.dialogs.why import WhyScreen
from soulscope.tui.panes.becoming import BecomingPane
from soulscope.tui.panes.soul import SoulPane
from soulscope.tui.widgets.tabbed_panes import TabbedPanes
from soulscope.tui.widgets.virtual_table import VirtualTable
from soulscope.world import World
from tests.support.pilot import settle
from tests.support.worlds import soul, write_world

SIZE = (120, 36)


def frame(n: int, lines: str, becoming: str) -> str:
    return f"## Frame {n} — 2026-03-0{n}\n{lines}- Becoming: {becoming}\n\n"


ADA = soul(
    "Ada Ledger",
    "ada-01",
    "Archivist",
    [
        frame(1, "- Catalogued the commons.\n", "the cataloguer."),
        frame(2, "- Indexed the river notes.\n", "the cataloguer who reads rivers."),
        frame(3, "- Drew the first cartography sketch.\n", "the cataloguer, still."),
        frame(
            4,
            "- Replied to bo-02 on #15 with a map.\n- Influenced by: bo-02's survey on #15.\n"
            + "".join(f"- Noted landmark {i} of the east bank.\n" for i in range(40)),
            "the cartographer. From cataloguer to cartographer.",
        ),
    ],
)
BO = soul(
    "Bo Surveyor",
    "bo-02",
    "Researcher",
    [
        frame(1, "- Walked the bank.\n", "the walker."),
        frame(2, "- Posted #15 with the survey.\n", "the surveyor. From walker to surveyor."),
        frame(3, "- Measured the ford.\n", "the measurer. From surveyor to measurer."),
        frame(5, "- Rested.\n", "the teacher. From measurer to teacher."),
    ],
)


def why_world(tmp_path: Path) -> World:
    return World.open(write_world(tmp_path / "w", {"ada-01": ADA, "bo-02": BO}))


async def open_why(pilot, row: int) -> WhyScreen:
    pilot.app.query_one("#filter", Input).cursor_blink = False
    await settle(pilot)
    await pilot.press("2")
    await settle(pilot)
    table = pilot.app.query_one("#arc", VirtualTable)
    table.focus()
    table.move_cursor(row)
    await pilot.press("w")
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, WhyScreen) and screen.why is not None
    return screen


async def test_a_opens_the_influencers_arc_at_the_influences_date(tmp_path: Path) -> None:
    app = SoulscopeApp(why_world(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_why(pilot, 3)
        assert [s.agent for s in screen.why.influencer_states] == ["bo-02"]
        await pilot.press("a")
        await settle(pilot)
        assert app.agent_id == "bo-02"
        assert app.query_one(TabbedPanes).active == BecomingPane.TAB_ID
        # Frame 3 (2026-03-03) is bo-02's last frame before ada-01's frame 4: "the measurer".
        assert app.query_one("#arc", VirtualTable).cursor_row == 2


async def test_o_opens_a_cited_post_author_at_that_frame(tmp_path: Path) -> None:
    app = SoulscopeApp(why_world(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await open_why(pilot, 3)
        await pilot.press("o")
        await settle(pilot)
        picker = app.screen
        assert isinstance(picker, PickScreen)
        assert "[bo-02 · frame 2]" in picker.labels.values()  # bo-02 names #15 in its frame 2
        await pilot.press("b", "o")  # the mention comes before the influencer's state
        await pilot.pause(0.2)
        await pilot.press("enter")
        await settle(pilot)
        assert app.agent_id == "bo-02"
        assert app.query_one(TabbedPanes).active == SoulPane.TAB_ID
        assert str(app.query_one("#soul-header", Static).render()).startswith("Frame 2 —")


async def test_p_shows_the_previous_statements_dossier_and_the_body_scrolls(
    tmp_path: Path,
) -> None:
    app = SoulscopeApp(why_world(tmp_path))
    async with app.run_test(size=(100, 24)) as pilot:
        screen = await open_why(pilot, 3)
        scroll = screen.query_one("#why-scroll")
        assert scroll.max_scroll_y > 0  # a long dossier scrolls
        await pilot.press("j", "j", "j")
        assert scroll.scroll_y > 0
        await pilot.press("p")
        await settle(pilot)
        assert screen.why is not None and screen.why.statement.index == 2
        assert "statement 3" in str(screen.query_one("#why-title", Static).render())
        assert "the cataloguer, still." in str(screen.query_one("#why-body", Static).render())


async def test_becoming_tab_plots_drift_for_each_statement(tmp_path: Path) -> None:
    app = SoulscopeApp(why_world(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        app.query_one("#filter", Input).cursor_blink = False
        await settle(pilot)
        await pilot.press("2")
        await settle(pilot)
        plot = app.query_one("#drift", Sparkline)
        values = [s.magnitude for s in app.query_one(BecomingPane).statements]
        assert list(plot.data) == values[1:]
        # The shift to the cartographer is the largest move of ada-01's arc.
        assert max(plot.data) == plot.data[-1] > plot.data[0]
        assert "largest" in str(app.query_one("#drift-title", Static).render())


def early(date_time: str, lines: str, position: str) -> str:
    return f"## Frame {date_time}\n{lines}- Evolving position: {position}\n\n"


async def test_a_lands_by_time_on_an_arc_of_dated_frames(tmp_path: Path) -> None:
    """Early-era frames carry dates and times, no numbers, and parallel writers appended them
    out of order: `a` shows the influencer as of the statement's time, not its statement #1."""
    cy = soul(
        "Cy Critic",
        "cy-03",
        "Critic",
        [
            early("2026-03-14 (09:00 UTC)", "- Read.\n", "taste is trained."),
            early("2026-03-14 (11:00 UTC)", "- Wrote.\n", "taste is argued."),
            early("2026-03-14 (10:00 UTC)", "- Late copy.\n", "taste is earned."),
            early("2026-03-14 (15:00 UTC)", "- Later.\n", "taste is a market."),
        ],
    )
    dee = soul(
        "Dee Debater",
        "dee-04",
        "Debater",
        [
            early("2026-03-14 (08:00 UTC)", "- Opened.\n", "the doubter."),
            early(
                "2026-03-14 (12:00 UTC)",
                "- Influenced by: cy-03's argument on taste.\n",
                "the doubter who prices taste.",
            ),
        ],
    )
    app = SoulscopeApp(World.open(write_world(tmp_path / "w", {"cy-03": cy, "dee-04": dee})))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.select_agent("dee-04")
        await settle(pilot)
        screen = await open_why(pilot, 1)
        assert screen.why.agent_id == "dee-04", screen.why.agent_id
        state = screen.why.influencer_states[0]
        assert state.agent == "cy-03" and state.becoming == "taste is argued."
        await pilot.press("a")
        await settle(pilot)
        assert app.agent_id == "cy-03"
        # 11:00 is cy-03's latest frame before 12:00 (the 10:00 frame was appended after it):
        # its arc, in time order, lists it third
        assert app.query_one("#arc", VirtualTable).cursor_row == 2
