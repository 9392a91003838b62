"""The keyboard: where the next key goes after every path that used to misroute it, the action
registry behind bindings, palette and help, and the user's keymap from the config file."""

from __future__ import annotations

from pathlib import Path

from textual import events
from textual.widgets import Input

from soulscope.config import load_settings
from soulscope.history.timeline import WorldAt
from soulscope.tui.actions import ACTIONS, BY_ID, CONTEXTS, DIALOG_CONTEXTS, TABS
from soulscope.tui.app import PANES, SoulscopeApp
from soulscope.tui.dialogs.help import HelpScreen
from soulscope.tui.dialogs.pick import PickScreen
from soulscope.tui.dialogs.why import WhyScreen
from soulscope.tui.focus import focus_now
from soulscope.tui.palette import help_rows, run_registered
from soulscope.tui.panes.becoming import BecomingPane
from soulscope.tui.panes.history import HistoryPane
from soulscope.tui.widgets.key_footer import KeyFooter
from soulscope.tui.widgets.soul_text import SoulText
from soulscope.tui.widgets.tabbed_panes import TabbedPanes
from soulscope.tui.widgets.virtual_list import VirtualList
from soulscope.tui.widgets.virtual_table import VirtualTable
from soulscope.world import World
from tests.support.paths import ROOT
from tests.support.pilot import settle, table_rows, world_table
from tests.support.repos import history_world
from tests.support.worlds import ASTRONOMER, BAKER, GARDENER, frame, soul, write_world

SIZE = (120, 40)


def filter_box(app: SoulscopeApp) -> Input:
    return app.query_one("#filter", Input)


def tab(app: SoulscopeApp) -> str:
    return app.query_one(TabbedPanes).active


async def test_tab_keys_focus_the_tab_content_so_its_keys_act_at_once(small_world: World) -> None:
    app = SoulscopeApp(small_world)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("2")
        await settle(pilot)
        arc = app.query_one("#arc", VirtualTable)
        assert app.focused is arc
        await pilot.press("j")  # the arc's cursor moves, not the agent list
        assert arc.cursor_row == 1 and app.agent_id == "ada-01"
        await pilot.press("G")
        assert arc.cursor_row == arc.row_count - 1
        await pilot.press("g")
        assert arc.cursor_row == 0
        await pilot.press("3")
        assert app.focused is app.query_one("#world-table")
        await pilot.press("1")
        assert isinstance(app.focused, SoulText)
        await pilot.press("G")  # the text's last page: its last line on screen
        last = (small_world.memory_dir / "ada-01.md").read_text().rstrip().splitlines()[-1]
        assert last in app.focused.visible_rows()


async def test_help_then_escape_gives_the_keys_back_to_the_list(small_world: World) -> None:
    app = SoulscopeApp(small_world)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        assert isinstance(app.focused, VirtualList) and filter_box(app).value == ""
        await pilot.press("j")
        await settle(pilot)
        assert app.agent_id == "bo-02" and filter_box(app).value == ""
        await pilot.press("q")
        await pilot.pause()
        assert not app.is_running


async def test_enter_in_the_problems_list_leaves_the_keys_in_the_soul_text(tmp_path: Path) -> None:
    dup = soul(
        "Dee",
        "dee-04",
        "Coder",
        [frame(1, "2026-03-01", "a", "b"), frame(1, "2026-03-01", "a", "b")],
    )
    app = SoulscopeApp(World.open(write_world(tmp_path / "w", {"dee-04": dup})))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("p")
        assert isinstance(app.screen, PickScreen)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.focused, SoulText) and tab(app) == "soul"
        await pilot.press("colon")
        await pilot.pause()
        await pilot.press(*"2026-03-01", "enter")
        await settle(pilot)
        assert filter_box(app).value == "" and app.sidebar.shown == ["dee-04"]
        assert str(app.query_one("#soul-header").render()).startswith("Frame 1 — 2026-03-01")


async def test_the_filter_takes_keys_only_while_focused(small_world: World) -> None:
    app = SoulscopeApp(small_world)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        # Tab from the last widget (the chat input) wraps round without landing in the filter.
        await pilot.press("5")
        await settle(pilot)
        assert app.focused is app.query_one("#chat-input")
        await pilot.press("tab")
        assert app.focused is not filter_box(app)
        await pilot.press("1", "slash")
        assert app.focused is filter_box(app)
        await pilot.press("d", "e", "b")
        assert app.sidebar.shown == ["bo-02"]
        await pilot.press("escape")  # Esc leaves it; the next j moves the list
        assert isinstance(app.focused, VirtualList)
        await pilot.press("j", "k")
        assert filter_box(app).value == "deb"
        await pilot.press("slash", *["backspace"] * 3, "c", "y", "enter")
        await settle(pilot)
        # Enter opened the match and left the filter for the tab's content.
        assert app.agent_id == "cy-03" and isinstance(app.focused, SoulText)
        await pilot.press("j")
        assert filter_box(app).value == "cy"


async def test_escape_leaves_the_chat_input(small_world: World) -> None:
    app = SoulscopeApp(small_world)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("5")
        await settle(pilot)
        assert app.focused is app.query_one("#chat-input")
        await pilot.press("escape")
        assert app.focused is app.query_one("#chat-log")
        await pilot.press("1")
        assert isinstance(app.focused, SoulText)


async def test_history_keys_after_the_tab_key_and_time_travel_from_any_tab(tmp_path: Path) -> None:
    world = World.open(history_world(tmp_path))
    app = SoulscopeApp(world)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("down")  # bo-02
        await settle(pilot)
        await pilot.press("4")
        await settle(pilot)
        pane = app.query_one(HistoryPane)
        assert app.focused is pane.table and pane.table.row_count == 2
        await pilot.press("right_square_bracket")  # a commit, not a frame of the Soul tab
        await settle(pilot)
        assert tab(app) == "history" and pane.table.cursor_row == 1
        await pilot.press("o")  # the world as of bo-02's first commit
        await settle(pilot)
        # The past world keeps the selected agent, and its History stops at the snapshot.
        assert isinstance(app.world, WorldAt) and app.agent_id == "bo-02"
        pane = app.query_one(HistoryPane)  # the dashboard was built again for the past world
        await settle(pilot)
        assert app.focused is pane.table
        assert [c.commit.message[:7] for c in pane.commits] == ["frame 1"]
        assert len(app.soul.frames) == 1
        await pilot.press("1")
        await pilot.press("o")  # back to now from another tab
        await settle(pilot)
        assert app.world is world and app.agent_id == "bo-02" and tab(app) == "soul"
        assert isinstance(app.focused, SoulText) and filter_box(app).value == ""


async def test_turning_point_keys_marks_bands_and_shifts_only(tmp_path: Path) -> None:
    # An arc of three stretches: it turns where the second and the third begin.
    texts = GARDENER + ASTRONOMER + BAKER
    frames = [frame(i, f"2026-03-{i:02d}", "Acted.", t) for i, t in enumerate(texts, 1)]
    world = World.open(write_world(tmp_path / "w", {"di-04": soul("Di", "di-04", "Maker", frames)}))
    app = SoulscopeApp(world)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("right_curly_bracket")
        pane = app.query_one(BecomingPane)
        table = pane.table
        assert tab(app) == "becoming" and table.cursor_row == 5
        rows = table_rows(table)
        assert rows[5]["turn"] == "◆" and rows[5]["chapter"].startswith("2 ")
        assert [r["turn"] for r in rows].count("◆") == 2
        assert rows[0]["chapter"].startswith("1 ") and rows[1]["chapter"] == ""
        # The rows are banded by chapter: every row of a chapter alike, the next one not.
        styles = [table.row_style(i) for i in range(len(texts))]
        assert len(set(styles[:5])) == 1 and styles[4] != styles[5] and styles[5] == styles[9]
        assert "2 turning points ◆ · 3 chapters" in str(app.query_one("#arc-summary").render())
        await pilot.press("right_curly_bracket")
        assert table.cursor_row == 10
        await pilot.press("right_curly_bracket")  # none after the last: it stays
        assert table.cursor_row == 10
        await pilot.press("left_curly_bracket", "left_curly_bracket")
        assert table.cursor_row == 5
        await pilot.press("f")
        assert table.row_count == sum(s.shift for s in pane.statements) == len(pane.rows)
        assert all(pane.statement_at(row).shift for row in range(len(pane.rows)))
        await pilot.press("f")
        assert table.row_count == len(pane.statements)


async def test_m_judges_turning_points_by_meaning_and_leaves_the_cached_arc_alone(
    tmp_path: Path,
) -> None:
    texts = GARDENER + ASTRONOMER + BAKER
    frames = [frame(i, f"2026-03-{i:02d}", "Acted.", t) for i, t in enumerate(texts, 1)]
    world = World.open(write_world(tmp_path / "w", {"di-04": soul("Di", "di-04", "Maker", frames)}))
    app = SoulscopeApp(world)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("2")
        await settle(pilot)
        pane = app.query_one(BecomingPane)
        cached = pane.statements
        await pilot.press("m")  # loads the embedding model (once)
        await settle(pilot)
        summary = str(app.query_one("#arc-summary").render())
        assert "(by meaning)" in summary and "semantic" in str(
            app.query_one("#drift-title").render()
        )
        # Three subjects apart in meaning as in words: the turns stay where they begin.
        assert pane.statements.turning_positions() == [5, 10]
        assert pane.statements is not cached and app.cache.arc("di-04", app.soul) is cached
        await pilot.press("right_curly_bracket")
        assert pane.table.cursor_row == 5


async def test_world_sorts_from_the_keyboard_with_a_mark(small_world: World) -> None:
    app = SoulscopeApp(small_world)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("3")
        await settle(pilot)
        table = world_table(app)

        def agents() -> list[str]:
            return [row.split()[0] for row in table.visible_rows()[1:] if row]

        sidebar = app.sidebar.sort
        await pilot.press("s", "s")  # agent, then frames (most first)
        assert app.sidebar.sort == sidebar  # s in the World tab sorts the World table
        assert agents() == ["ada-01", "bo-02", "cy-03"]
        header = table.visible_rows()[0]
        assert " Frames▼ " in header and " Agent   " in header
        await pilot.press("S")
        assert agents() == ["cy-03", "bo-02", "ada-01"]
        assert " Frames▲ " in table.visible_rows()[0]


async def test_the_sidebar_folds_in_a_narrow_window_and_on_its_key(small_world: World) -> None:
    app = SoulscopeApp(small_world)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert not app.sidebar.display
        await pilot.press("backslash")
        assert app.sidebar.display
        await pilot.press("backslash")
        assert not app.sidebar.display
        await pilot.press("slash")  # filtering brings the list back
        assert app.sidebar.display and app.focused is filter_box(app)
    app = SoulscopeApp(small_world)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        assert app.sidebar.display
        await pilot.press("backslash")
        assert not app.sidebar.display and isinstance(app.focused, SoulText)


def test_every_action_has_a_context_keys_and_a_handler() -> None:
    holders = {"app": SoulscopeApp, "why": WhyScreen, **{p.TAB_ID: p for p in PANES}}
    for tab, p in zip(TABS, PANES, strict=True):
        assert tab.id == p.TAB_ID, f"the {tab.title} tab's pane says it is {p.TAB_ID}"
        assert f"tab.{tab.id}" in BY_ID and CONTEXTS[tab.id] == f"{tab.title} tab"
    for action in ACTIONS:
        assert action.context in CONTEXTS and action.keys and action.description
        holder = holders.get(action.context)
        if holder is not None:
            name = action.action.split("(")[0]
            assert hasattr(holder, f"action_{name}"), f"{action.id}: no action_{name}"


async def test_palette_holds_every_action_and_help_lists_no_class_names(small_world: World) -> None:
    app = SoulscopeApp(small_world)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        commands = {c.title: c.help for c in app.get_system_commands(app.screen)}
        for action in ACTIONS:
            if action.palette and action.context not in DIALOG_CONTEXTS:
                assert action.description in commands, action.id
        # Keys in the palette are the live ones, as Textual shows them.
        assert commands[BY_ID["history.layout"].description] == "History tab · t"
        assert commands[BY_ID["app.next_frame"].description] == "everywhere · ]"
        rows = list(help_rows(app))
        wheres = {r[0] for r in rows}
        assert wheres <= set(CONTEXTS.values())
        assert not any(
            name in " ".join(map(str, rows)) for name in ("VirtualList", "SoulText", "Pane")
        )
        # Running a tab's action from the palette shows that tab and acts there.
        await run_registered(app, BY_ID["history.layout"])
        await settle(pilot)
        assert tab(app) == "history" and app.query_one(HistoryPane).side_by_side


async def test_keymap_from_the_config_file(small_world: World, tmp_path: Path, monkeypatch) -> None:
    config = tmp_path / "config.toml"
    config.write_text(
        '[keys]\n"app.next_frame" = ["l", "right_square_bracket"]\n"app.nope" = "z"\n'
    )
    monkeypatch.setenv("SOULSCOPE_CONFIG", str(config))
    app = SoulscopeApp(small_world, settings=load_settings())
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("l")
        assert str(app.query_one("#soul-header").render()).startswith("Frame 1 —")
        commands = {c.title: c.help for c in app.get_system_commands(app.screen)}
        assert commands[BY_ID["app.next_frame"].description] == "everywhere · l or ]"
        assert any("app.nope" in n.message for n in app._notifications)


async def test_a_broken_config_file_is_one_sentence_at_start(
    small_world: World, tmp_path: Path, monkeypatch
) -> None:
    config = tmp_path / "config.toml"
    config.write_text("[llm\nbase_url = 3\n")
    monkeypatch.setenv("SOULSCOPE_CONFIG", str(config))
    app = SoulscopeApp(small_world, settings=load_settings())
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        notes = [n.message for n in app._notifications]
        assert any(m.startswith(f"The config file {config} cannot be read") for m in notes)
        assert app.soul is not None  # and the dashboard works on defaults


async def test_goto_frame_by_date_and_nearest(tmp_path: Path) -> None:
    frames = [frame(n, f"2026-05-{n:02d}", "x", "y") for n in (1, 5, 15)]
    app = SoulscopeApp(
        World.open(write_world(tmp_path / "w", {"ed-05": soul("Ed", "ed-05", "C", frames)}))
    )
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        for spec, heading in (("2026-05-15", "Frame 15"), ("2", "Frame 1"), ("#2", "Frame 5")):
            await pilot.press("colon")
            await pilot.pause()
            await pilot.press(*spec, "enter")
            await pilot.pause()
            assert str(app.query_one("#soul-header").render()).startswith(heading), spec
        assert any("nearest is Frame 1" in n.message for n in app._notifications)


def test_docs_key_table_is_the_registry() -> None:
    from textual.app import App
    from textual.binding import Binding

    from soulscope.tui.actions import key_table

    keys = (ROOT / "docs" / "keys.md").read_text(encoding="utf-8")
    assert key_table(lambda key: App().get_key_display(Binding(key, ""))) in keys


async def test_world_counts_posts_and_comments_where_the_world_keeps_them(tmp_path: Path) -> None:
    import json

    from tests.support.worlds import ADA, BO

    root = write_world(tmp_path / "w", {"ada-01": ADA, "bo-02": BO})
    community = root / "community"
    community.mkdir()
    post = {"frame": 1, "date": "2026-03-01", "channel": "c", "title": "t", "body": "b"}
    posts = [{"id": i, "author": "bo-02", **post} for i in (1, 2)]
    comment = {"post": 1, "parent": None, "frame": 1, "date": "2026-03-01", "body": "x"}
    comments = [{"id": 1, "author": "ada-01", **comment}, {"id": 2, "author": "bo-02", **comment}]
    for name, rows in (("posts", posts), ("comments", comments)):
        (community / f"{name}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    app = SoulscopeApp(World.open(root))
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        await pilot.press("3")
        await settle(pilot)
        table = world_table(app)
        rows = {row.split()[0]: row for row in table.visible_rows()[1:] if row}
        assert "  2 / 1  " in rows["bo-02"] and "  0 / 1  " in rows["ada-01"]
        for _ in range(7):  # agent, frames, shifts, turns, drift, last, posts
            await pilot.press("s")
        assert table.visible_rows()[1].startswith(" bo-02 ")
        assert "Posts/comments▼" in table.visible_rows()[0]


async def test_reload_with_the_same_head_does_not_leave_history_reading(tmp_path: Path) -> None:
    from textual.widgets import Static

    world = World.open(history_world(tmp_path))
    app = SoulscopeApp(world)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("4")
        await settle(pilot)
        memory = world.memory_dir / "ada-01.md"
        memory.write_text(memory.read_text() + "- an uncommitted line\n")  # HEAD does not move
        await pilot.press("r")
        await settle(pilot)
        status = str(app.query_one("#history-status", Static).render())
        assert "reading" not in status and status.startswith("ada-01 · 4 commits")


async def test_the_footer_shows_the_focused_tabs_keys_and_a_click_runs_one(
    small_world: World,
) -> None:
    app = SoulscopeApp(small_world)
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        footer = app.query_one(KeyFooter)
        line = footer.render_line(0).text
        assert "] Next frame" in line and "^p palette" in line and "Why" not in line
        await pilot.press("2")
        await settle(pilot)
        line = footer.render_line(0).text
        assert " w Why " in line and "Shifts only" in line
        # A click on "Shifts only" does what its key does.
        await pilot.click(KeyFooter, offset=(line.index("Shifts only"), 0))
        await settle(pilot)
        assert app.query_one(BecomingPane).shifts_only
        await pilot.press("1")
        await settle(pilot)
        assert "Why" not in footer.render_line(0).text


def bottom_line(app: SoulscopeApp) -> str:
    """The footer line a user sees: the top screen's bottom row is a footer (never blank)."""
    widget, _ = app.screen.get_widget_at(0, app.size.height - 1)
    assert isinstance(widget, KeyFooter), f"the bottom line is {widget!r}, not a footer"
    line = widget.render_line(0).text
    assert line.strip(), "the footer shows no keys"
    return line


async def test_a_dialogs_footer_shows_the_dialogs_keys_not_the_dashboards(
    small_world: World,
) -> None:
    app = SoulscopeApp(small_world)
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        assert "] Next frame" in bottom_line(app) and "q Quit" in bottom_line(app)
        await pilot.press("question_mark")
        await settle(pilot)
        line = bottom_line(app)
        # The dialog's key, not the frame and tab keys (or "q Quit": q closes a dialog).
        assert "esc Close" in line
        assert not any(word in line for word in ("Next frame", "Quit", "Filter", "Go to frame"))
        await pilot.press("escape")
        await pilot.press("2")
        await settle(pilot)
        await pilot.press("w")  # the why panel: its own keys
        await settle(pilot)
        line = bottom_line(app)
        assert "Influencer's arc then" in line and "Previous statement" in line
        assert "Shifts only" not in line and "Next frame" not in line
        await pilot.press("escape")
        await settle(pilot)
        assert " w Why " in bottom_line(app)  # the Becoming tab's keys again
        # The command palette covers the dashboard: its footer shows none of its keys.
        await pilot.press("ctrl+p")
        await settle(pilot)
        assert "Quit" not in app.query_one(KeyFooter).render_line(0).text
        await pilot.press("escape")
        await settle(pilot)
        assert "q Quit" in bottom_line(app)
        # ... nor a dialog's, over a dialog.
        await pilot.press("question_mark")
        await settle(pilot)
        await pilot.press("ctrl+p")
        await settle(pilot)
        help_footer = app.screen_stack[-2].query_one(KeyFooter)
        assert "Close" not in help_footer.render_line(0).text


async def burst(pilot, *keys: str) -> None:
    """Keys as a fast typist (or tmux, or a paste) sends them: all of them queued before the
    first is handled, where ``pilot.press`` waits for each to be handled before the next."""
    characters = {"slash": "/", "escape": "\x1b", "enter": "\r"}
    for key in keys:
        pilot.app.post_message(events.Key(key, characters.get(key, key)))
    await settle(pilot)


async def test_a_key_typed_before_one_that_moves_the_focus_acts_where_it_was_typed(
    small_world: World,
) -> None:
    app = SoulscopeApp(small_world)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await burst(pilot, "2", "j", "3", "1", "G")
        # Each key went to the tab shown by the key before it.
        assert app.query_one("#arc", VirtualTable).cursor_row == 1
        last = (small_world.memory_dir / "ada-01.md").read_text().rstrip().splitlines()[-1]
        assert isinstance(app.focused, SoulText) and last in app.focused.visible_rows()
        focus_now(app.sidebar.list)
        assert app.agent_id == "ada-01"
        await burst(pilot, "j", "slash", "c", "y")  # the list's cursor, then the filter
        assert app.agent_id == "bo-02"
        assert app.focused is filter_box(app) and filter_box(app).value == "cy"


async def test_keys_typed_in_one_burst_into_and_out_of_the_filter_go_where_the_focus_went(
    small_world: World,
) -> None:
    app = SoulscopeApp(small_world)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await burst(pilot, "slash", "d", "e", "b")  # every letter in the filter
        assert filter_box(app).value == "deb" and app.sidebar.shown == ["bo-02"]
        await burst(pilot, "escape", "j", "k")  # back in the list: not typed
        assert isinstance(app.focused, VirtualList) and filter_box(app).value == "deb"
        await pilot.press("1")
        await settle(pilot)
        await burst(pilot, "slash", "c", "y")  # from a tab's content too
        assert filter_box(app).value == "cy"  # focusing the filter selects its text
        assert app.focused is filter_box(app)
        await burst(pilot, "escape")
        # Behind a dialog "/" does nothing: the dialog keeps the keys.
        await pilot.press("question_mark")
        await burst(pilot, "slash", "z")
        assert isinstance(app.screen, HelpScreen) and filter_box(app).value == "cy"


async def test_keys_typed_after_enter_go_to_the_agent_it_opened(small_world: World) -> None:
    app = SoulscopeApp(small_world)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        # Enter in the filter opens the match; the keys behind it scroll its soul file.
        # (Whether they scroll it depends on its text having arrived from the parsing worker
        # before them: here, that the filter and the list did not take them.)
        await burst(pilot, "slash", "b", "o", "enter", "j", "j")
        assert filter_box(app).value == "bo" and app.agent_id == "bo-02"
        assert isinstance(app.focused, SoulText)
        assert app.sidebar.list.highlighted == "bo-02"
        # Enter in the list too: the next key is the soul file's, not the list's.
        await pilot.press("slash", "backspace", "backspace", "escape")
        await settle(pilot)
        await burst(pilot, "g", "enter", "j")
        assert app.agent_id == "ada-01" and app.sidebar.list.highlighted == "ada-01"
        assert isinstance(app.focused, SoulText)


async def test_G_in_the_soul_text_shows_its_last_page_not_a_blank_one(small_world: World) -> None:
    app = SoulscopeApp(small_world)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("1")
        await settle(pilot)
        view = app.query_one(SoulText)
        lines = (small_world.memory_dir / "ada-01.md").read_text().splitlines()
        assert len(lines) < view.scrollable_content_region.height  # the file fits in one page
        await pilot.press("G")
        rows = view.visible_rows()
        # The whole file, from its first line: the text scrolls past its end only to put a
        # frame on top, never for G.
        assert rows[0] == lines[0] and lines[-1] in rows
        await pilot.press("g")
        assert view.visible_rows()[0] == lines[0]


async def test_keys_with_nothing_to_act_on_say_why(tmp_path: Path) -> None:
    quiet = "# Quiet\n\n## Frame 1 — 2026-03-01\n- Read the board.\n- Evolved nothing today.\n"
    world = World.open(write_world(tmp_path / "w", {"quiet-01": quiet}))
    app = SoulscopeApp(world)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        await pilot.press("2", "w", "m")  # an agent whose memory has no identity statement
        await settle(pilot)
        said = [n.message for n in app._notifications]
        assert said.count("quiet-01 has no identity statements to act on.") == 2, said
    empty = World.open(write_world(tmp_path / "empty", {}))
    app = SoulscopeApp(empty)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        app.clear_notifications()
        for key in ("right_square_bracket", "colon", "p", "c"):
            await pilot.press(key)
            await settle(pilot)
            said = [n.message for n in app._notifications]
            assert said and said[-1].startswith("No soul files in "), (key, said)
            app.clear_notifications()
