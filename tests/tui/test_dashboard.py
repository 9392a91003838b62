"""The dashboard driven as a person would: keys, clicks, the palette; real worlds in tmp and the corpus."""

from __future__ import annotations

from pathlib import Path

from textual.command import CommandList, CommandPalette
from textual.widgets import Input

from soulscope.tui.app import SoulscopeApp
from soulscope.tui.dialogs.help import HelpScreen
from soulscope.tui.dialogs.pick import PickScreen
from soulscope.tui.dialogs.prompt import PromptScreen
from soulscope.tui.messages import SoulLoaded, WorldParsed, WorldProgress
from soulscope.tui.panes.soul import SoulPane
from soulscope.tui.widgets.soul_text import SoulText
from soulscope.tui.widgets.tabbed_panes import TabbedPanes
from soulscope.tui.widgets.virtual_list import VirtualList
from soulscope.tui.widgets.virtual_table import VirtualTable
from soulscope.world import World
from tests.support.pilot import settle, table_rows, world_table
from tests.support.worlds import ADA, frame, write_world

SIZE = (120, 40)


def header(app: SoulscopeApp) -> str:
    return str(app.query_one("#soul-header").render())


def screen_text(app: SoulscopeApp) -> str:
    return "\n".join(app.query_one(SoulText).visible_rows())


async def test_window_paints_listing_before_parsing_then_fills_counts(small_world: World) -> None:
    messages: list[object] = []
    app = SoulscopeApp(small_world)
    async with app.run_test(size=SIZE, message_hook=messages.append) as pilot:
        # The list comes from the folder listing alone.
        assert app.sidebar.shown == ["ada-01", "bo-02", "cy-03"]
        await settle(pilot)
        progress = [m for m in messages if isinstance(m, WorldProgress)]
        assert progress and progress[-1].done == progress[-1].total == 3
        assert sum(len(m.summaries) for m in progress) == 3
        parsed = [m for m in messages if isinstance(m, WorldParsed)]
        assert len(parsed) == 1 and parsed[0].failed == 0
        # Counts beside the names: frames and shifts.
        rows = app.sidebar.list.visible_rows()
        assert rows[0].startswith("ada-01") and rows[0].endswith(" 4f 2s")
        assert rows[1].startswith("bo-02") and rows[1].endswith(" 2f 1s")
        assert app.agent_id == "ada-01" and app.soul is not None
        assert "# Ada Ledger" in screen_text(app)


async def test_filter_narrows_and_enter_opens_first_match(small_world: World) -> None:
    app = SoulscopeApp(small_world)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("slash")
        assert isinstance(app.focused, Input)
        await pilot.press("d", "e", "b")  # matches Bo's display name "Bo Debater"
        assert app.sidebar.shown == ["bo-02"]
        await pilot.press("enter")
        await settle(pilot)
        assert app.agent_id == "bo-02"
        assert "# Bo Debater" in screen_text(app)
        assert isinstance(app.focused, SoulText)  # opened: keys now scroll the soul
        await pilot.press("slash", "ctrl+a", "backspace", "z", "z")
        assert app.sidebar.shown == []
        assert "0 of 3 agents" in str(app.query_one("#sidebar-status").render())


async def test_moving_in_the_list_selects_and_sort_cycles(small_world: World) -> None:
    app = SoulscopeApp(small_world)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("j")
        await settle(pilot)
        assert app.agent_id == "bo-02"
        await pilot.press("s")  # by frames: ada (4), bo (2), cy (1)
        assert app.sidebar.sort == "frames"
        assert app.sidebar.shown == ["ada-01", "bo-02", "cy-03"]
        await pilot.press("s")  # by last activity, newest first, then by id
        assert app.sidebar.sort == "activity"
        assert app.sidebar.shown == ["ada-01", "bo-02", "cy-03"]
        # The highlight stays on the selected agent through re-sorting.
        assert app.sidebar.list.highlighted == "bo-02"
        # A click on a name opens that agent.
        await pilot.click("#agents", offset=(3, 2))
        await settle(pilot)
        assert app.agent_id == "cy-03"


async def test_tabs_switch_by_key_and_by_click(small_world: World) -> None:
    app = SoulscopeApp(small_world)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        tabs = app.query_one(TabbedPanes)
        assert tabs.active == "soul"
        await pilot.press("2")
        assert tabs.active == "becoming"
        await pilot.press("3")
        assert tabs.active == "world"
        await pilot.click("Tab#soul")
        assert tabs.active == "soul"


async def test_frames_step_with_brackets_and_go_to_frame(small_world: World) -> None:
    app = SoulscopeApp(small_world)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert header(app).startswith("Ada Ledger  header · 4 frames")
        await pilot.press("right_square_bracket")
        assert header(app).startswith("Frame 1 — 2026-03-01  (1 of 4)")
        assert screen_text(app).startswith("## Frame 1 — 2026-03-01")
        await pilot.press("right_square_bracket", "right_square_bracket")
        assert header(app).startswith("Frame 3 — 2026-03-03")
        await pilot.press("left_square_bracket")
        assert header(app).startswith("Frame 2 — 2026-03-02")
        await pilot.press("colon")
        await pilot.pause()
        await pilot.press("4", "enter")
        assert header(app).startswith("Frame 4 — 2026-03-04  (4 of 4)")
        await pilot.press("colon")
        await pilot.pause()
        await pilot.press("9", "9", "enter")
        # No frame 99: the nearest is shown, and a warning says so.
        assert header(app).startswith("Frame 4 —")
        assert any(
            "no frame 99" in n.message and "nearest is Frame 4 — 2026-03-04 (#4)" in n.message
            for n in app._notifications
        )


async def test_enter_on_the_arc_opens_that_frame(small_world: World) -> None:
    app = SoulscopeApp(small_world)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("2")
        table = app.query_one("#arc", VirtualTable)
        table.focus()
        assert table.row_count == 4
        # The repeat of frame 2 is not a shift; frames 3 and 4 are.
        marks = [row["mark"] for row in table_rows(table)]
        assert marks == ["", "= repeat", "▲ shift", "▲ shift"]
        await pilot.press("j", "j", "enter")
        assert app.query_one(TabbedPanes).active == "soul"
        assert header(app).startswith("Frame 3 — 2026-03-03")
        detail = str(app.query_one("#arc-detail").render())
        assert "cataloguer  →  indexer" in detail


async def test_palette_goes_to_an_agent(small_world: World) -> None:
    app = SoulscopeApp(small_world)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+p")
        assert isinstance(app.screen, CommandPalette)
        await pilot.press(*"go to agent bo")
        await pilot.pause(0.5)
        await pilot.press("enter")
        await settle(pilot)
        assert app.agent_id == "bo-02"


async def test_markup_in_soul_files_is_shown_literally(small_world: World) -> None:
    app = SoulscopeApp(small_world)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.select_agent("cy-03")
        await settle(pilot)
        text = screen_text(app)
        assert "# Cy [bold red]Markup[/]" in text
        assert "Posted [bold red]x[/] and [link=https://example.com]y[/link]." in text
        await pilot.press("2")
        await pilot.pause()
        assert table_rows(app.query_one("#arc", VirtualTable))[0]["role"] == "[i]escaper[/i]"
        assert "[b]raw[/b]  →  escaped" in str(app.query_one("#arc-detail").render())
        await pilot.press("3")
        await settle(pilot)
        cy = next(r for r in world_table(app).visible_rows() if r.startswith(" cy-03"))
        assert cy.endswith("  [i]escaper[/i]")
        # The palette lists the registry's display name as written.
        await pilot.press("ctrl+p", *"cy")
        await pilot.pause(0.5)
        hits = app.screen.query_one(CommandList)
        prompts = [str(hits.get_option_at_index(i).prompt) for i in range(hits.option_count)]
        assert any("Go to agent cy-03  Cy [bold red]Markup[/]" in p for p in prompts)


async def test_undecodable_bytes_and_problems_are_visible(tmp_path: Path) -> None:
    broken = ADA.encode() + frame(
        5, "2026-03-05", "Bad \x00 byte.", "the keeper."
    ).encode().replace(b"\x00", b"\xff")
    world = World.open(write_world(tmp_path / "w", {"ada-01": broken}))
    app = SoulscopeApp(world)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.soul is not None and app.soul.problems
        footer = str(app.query_one("#soul-footer").render())
        assert f"{len(app.soul.problems)} problem" in footer and "(p lists them)" in footer
        await pilot.press("G")
        await pilot.pause()
        assert "Bad \ufffd byte." in screen_text(app)
        await pilot.press("p")
        assert isinstance(app.screen, PickScreen)
        await pilot.press("enter")
        await pilot.pause()
        problem = app.soul.problems[0]
        assert app.query_one(SoulPane).view.top_line == problem.line


async def test_unreadable_file_is_a_notification_not_a_crash(small_world: World) -> None:
    small_world.agents()  # listed, then the file disappears
    (small_world.memory_dir / "bo-02.md").unlink()
    app = SoulscopeApp(small_world)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.select_agent("bo-02")
        await settle(pilot)
        assert app.soul is None
        errors = [n.message for n in app._notifications if n.severity == "error"]
        assert any("cannot read" in e and "bo-02.md" in e for e in errors)
        assert "bo-02" in app.sidebar.list.visible_rows()[1]
        assert app.sidebar.list.visible_rows()[1].endswith(" unreadable")
        assert any("1 of 3 soul files could not be read" in n.message for n in app._notifications)


async def test_switching_back_is_served_from_the_cache_and_sees_changes(small_world: World) -> None:
    messages: list[object] = []
    app = SoulscopeApp(small_world)
    async with app.run_test(size=SIZE, message_hook=messages.append) as pilot:
        await settle(pilot)
        first = app.soul
        app.select_agent("bo-02")
        app.select_agent("ada-01")
        # Served at once, without a worker round trip.
        assert app.soul is first
        loaded = [m for m in messages if isinstance(m, SoulLoaded)]
        path = small_world.soul_path("ada-01")
        path.write_bytes(path.read_bytes() + frame(5, "2026-03-05", "New.", "the keeper.").encode())
        app.select_agent("bo-02")
        await settle(pilot)
        app.select_agent("ada-01")
        await settle(pilot)
        assert app.soul is not first and len(app.soul.frames) == 5
        assert len([m for m in messages if isinstance(m, SoulLoaded)]) > len(loaded)


async def test_help_lists_every_binding_with_its_id(small_world: World) -> None:
    app = SoulscopeApp(small_world)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        ids = {row[3] for row in app.screen.rows}
        assert {"app.quit", "app.next_frame", "app.goto_frame", "tab.soul", "tab.world"} <= ids
        await pilot.press("escape")
        assert not isinstance(app.screen, HelpScreen)


async def test_later_corpus_opens_and_arcs_fill(later_world: Path) -> None:
    app = SoulscopeApp(World.open(later_world))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.sidebar.shown == ["zion-coder-06", "zion-coder-09", "zion-reviewer-01"]
        assert app.soul is not None and len(app.soul.frames) == 25
        await pilot.press("2")
        assert app.query_one("#arc", VirtualTable).row_count == 29
        await pilot.press("3")
        assert len(world_table(app).keys) == 3


async def test_early_corpus_parses_whole_world_and_sorts_by_frames(early_world: Path) -> None:
    world = World.open(early_world)
    app = SoulscopeApp(world)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert len(app.sidebar.summaries) == len(world.agents()) == 116
        await pilot.press("s")
        first = app.sidebar.shown[0]
        most = max(app.sidebar.summaries.values(), key=lambda s: s.frames)
        assert app.sidebar.summaries[first].frames == most.frames
        app.select_agent(first)
        await pilot.press("2")
        # The early era's arc label is "Evolving position".
        assert (
            app.query_one("#arc", VirtualTable).row_count == app.sidebar.summaries[first].statements
        )


async def test_compare_shows_two_arcs_side_by_side(small_world: World) -> None:
    app = SoulscopeApp(small_world)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("c")
        assert isinstance(app.screen, PickScreen)
        await pilot.press("b", "o", "enter")
        await settle(pilot)
        assert app.query_one(TabbedPanes).active == "becoming"
        table = app.query_one("#compare", VirtualTable)
        assert table.display
        await pilot.pause()
        rows = [[row["frame"], row["left"], row["right"]] for row in table_rows(table)]
        # Aligned in time: Bo wrote frames 2 and 4 only. Each new role in new words is where
        # these short arcs turn (◆), so a shift (▲).
        assert rows == [
            ["1", "cataloguer", ""],
            ["2", "cataloguer", "contrarian"],
            ["3", "indexer  ▲  ◆", ""],
            ["4", "archivist  ▲  ◆", "listener  ▲  ◆"],
        ]
        # The comparison takes the arc's room and the keys; the row's whole text is below it.
        assert app.focused is table and not app.query_one("#arc").display
        # Frame 1 holds Ada's statement only; the hidden arc's rows never take the detail over.
        await settle(pilot)
        opened = str(app.query_one("#arc-detail").render())
        assert "ada-01: the cataloguer." in opened and "bo-02:" in opened
        await pilot.press("j")
        detail = str(app.query_one("#arc-detail").render())
        assert "ada-01: the cataloguer. From reader to cataloguer." in detail
        assert "bo-02: the contrarian." in detail
        await pilot.press("escape")
        assert not table.display and app.focused is app.query_one("#arc")
        await pilot.pause()
        assert "bo-02:" not in str(app.query_one("#arc-detail").render())  # the arc's row again


async def test_palette_runs_actions_by_name(small_world: World) -> None:
    app = SoulscopeApp(small_world)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+p", *"next frame")
        await pilot.pause(0.5)
        await pilot.press("enter")
        await pilot.pause()
        assert header(app).startswith("Frame 1 — 2026-03-01  (1 of 4)")
        await pilot.press("ctrl+p", *"show the world tab")
        await pilot.pause(0.5)
        await pilot.press("enter")
        await pilot.pause()
        assert app.query_one(TabbedPanes).active == "world"


async def test_reload_reads_grown_files_and_keeps_the_place(small_world: World) -> None:
    app = SoulscopeApp(small_world)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("right_square_bracket", "right_square_bracket")
        assert header(app).startswith("Frame 2 —")
        path = small_world.soul_path("ada-01")
        path.write_bytes(
            path.read_bytes() + frame(5, "2026-03-05", "Kept.", "the keeper.").encode()
        )
        (small_world.memory_dir / "dee-04.md").write_text("# Dee\n", encoding="utf-8")
        await pilot.press("r")
        await settle(pilot)
        assert len(app.soul.frames) == 5
        assert header(app).startswith("Frame 2 —")  # still where the reader was
        assert "dee-04" in app.sidebar.shown
        assert app.sidebar.summaries["ada-01"].frames == 5


async def test_every_binding_has_an_id_and_q_quits(small_world: World) -> None:
    app = SoulscopeApp(small_world)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        ours = {
            type(n)
            for n in app.screen.walk_children()
            if type(n).__module__.startswith("soulscope.")
        }
        for kind in [SoulscopeApp, HelpScreen, PickScreen, PromptScreen, *ours]:
            for binding in kind.__dict__.get("BINDINGS", ()):
                assert binding.id, f"{kind.__name__} binds {binding.key} without an id"
        await pilot.press("q")
        await pilot.pause()
        assert not app.is_running


async def test_world_tab_fills_while_parsing_when_shown(small_world: World) -> None:
    messages: list[object] = []
    app = SoulscopeApp(small_world)
    async with app.run_test(size=SIZE, message_hook=messages.append) as pilot:
        await pilot.press("3")
        await settle(pilot)
        rows = world_table(app).visible_rows()
        assert rows[0].split()[:5] == ["Agent", "Frames", "Shifts", "◆", "Drift"]
        # Ada's short arc turns where each new role comes in new words: 2 turning points.
        assert rows[1].split() == ["ada-01", "4", "2", "2", "▁██", "2026-03-04", "—", "archivist"]
        assert len(world_table(app).keys) == 3
        assert str(app.query_one("#world-status").render()).startswith(
            "3 agents  (enter selects one"
        )


async def test_world_columns_sort_by_a_click_on_their_header(small_world: World) -> None:
    app = SoulscopeApp(small_world)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("3")
        await settle(pilot)
        world = world_table(app)

        def agents() -> list[str]:
            return [row.split()[0] for row in world.visible_rows()[1:] if row]

        def header(key: str) -> tuple[int, int]:
            titles = world.visible_rows()[0]
            title = next(c.title for c in world.columns if c.key == key)
            return (titles.index(title[:3]) + 1, 0)

        assert agents() == ["ada-01", "bo-02", "cy-03"]
        await pilot.click("#world-table", offset=header("last"))  # latest first
        assert agents() == ["ada-01", "bo-02", "cy-03"]  # ties (03-04) by id
        await pilot.click("#world-table", offset=header("last"))  # again: earliest first
        assert agents() == ["cy-03", "ada-01", "bo-02"]
        await pilot.click("#world-table", offset=header("frames"))  # most first
        assert agents() == ["ada-01", "bo-02", "cy-03"]
        await pilot.click("#world-table", offset=header("latest"))  # alphabetical
        assert agents() == ["cy-03", "ada-01", "bo-02"]


async def test_many_agents_list_scrolls_and_counts(tmp_path: Path) -> None:
    souls = {
        f"agent-{i:03d}": frame(i, "2026-03-01", "Acted.", f"the agent {i}.") for i in range(300)
    }
    app = SoulscopeApp(World.open(write_world(tmp_path / "many", souls)))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert len(app.sidebar.shown) == 300
        await pilot.press("end")
        await settle(pilot)
        assert app.agent_id == "agent-299"
        rows = app.sidebar.list.visible_rows()
        assert rows[-1].startswith("agent-299") and rows[-1].endswith(" 1f 0s")
        await pilot.press("s")  # by frames: every agent has one, so by id
        assert app.sidebar.shown[:2] == ["agent-000", "agent-001"]
        assert app.sidebar.list.highlighted == "agent-299"


async def test_quitting_while_the_world_is_parsed_is_clean(early_world: Path) -> None:
    app = SoulscopeApp(World.open(early_world))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause(0.05)
        assert app.workers  # still parsing
        app.select_agent("zion-coder-04")  # and one more soul on its way
        await pilot.press("q")
    # run_test re-raises any error the app met on the way out (workers still report meanwhile)
    assert app.return_code == 0


async def test_problems_on_one_line_are_listed_apart(tmp_path: Path) -> None:
    # Frame 1 again after frame 2: a duplicated heading that also goes back in time.
    text = ADA.split("## Frame 3")[0] + frame(1, "2026-03-01", "Again.", "the cataloguer.")
    world = World.open(write_world(tmp_path / "w", {"ada-01": text}))
    app = SoulscopeApp(world)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        problems = app.soul.problems
        assert len(problems) == 2 and problems[0].line == problems[1].line
        await pilot.press("p")
        picker = app.screen.query_one(VirtualList)
        assert len(picker.keys) == 2
        await pilot.press("down", "enter")
        await pilot.pause()
        assert not isinstance(app.screen, PickScreen)
        assert app.query_one(SoulPane).view.top_line == problems[1].line


async def test_the_sidebar_counts_one_agent_in_the_singular(tmp_path: Path) -> None:
    app = SoulscopeApp(World.open(write_world(tmp_path / "world", {"ada-01": ADA})))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        status = str(app.query_one("#sidebar-status").render())
        assert status.startswith("1 agent · "), status
        await pilot.press("slash", "z")
        await settle(pilot)
        assert str(app.query_one("#sidebar-status").render()).startswith("0 of 1 agent · ")
