"""The History tab and the "why" panel, driven with keys on a world whose frames are real commits."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.text import Text
from textual.pilot import Pilot
from textual.widgets import Input, Static

from soulscope.history.timeline import WorldAt
from soulscope.tui.app import SoulscopeApp
from soulscope.tui.dialogs.why import WhyScreen
from soulscope.tui.panes.history import (
    DiffView,
    HistoryLoaded,
    HistoryPane,
    SoulAtScreen,
)
from soulscope.tui.widgets.virtual_table import VirtualTable
from soulscope.world import World
from tests.support.pilot import cells, settle
from tests.support.repos import commit, git, history_frame, history_world

SIZE = (120, 36)


async def ready(pilot: Pilot) -> None:
    pilot.app.query_one("#filter", Input).cursor_blink = False
    await settle(pilot)


async def open_history(pilot: Pilot) -> HistoryPane:
    """The History tab shown, its commit list focused."""
    await ready(pilot)
    await pilot.press("4")
    await settle(pilot)
    pane = pilot.app.query_one(HistoryPane)
    pane.table.focus()
    return pane


def row(pane: HistoryPane, number: int) -> dict[str, str]:
    """Row ``number`` of the commit list as shown (the list is not scrolled): column -> text."""
    table = pane.table
    return cells(table, table.visible_rows()[1 + number])


def diff_text(app: SoulscopeApp) -> str:
    log = app.query_one(DiffView)
    return "\n".join(strip.text for strip in log.lines)


def title(app: SoulscopeApp) -> str:
    return str(app.query_one("#history-title", Static).render())


@pytest.fixture
def world(tmp_path: Path) -> World:
    return World.open(history_world(tmp_path))


async def test_history_lists_commits_and_steps_through_diffs(world: World) -> None:
    messages: list[object] = []
    app = SoulscopeApp(world)
    # Wide enough for the commit list to show its messages beside the frame columns.
    async with app.run_test(size=(160, 36), message_hook=messages.append) as pilot:
        await ready(pilot)
        await pilot.press("4")
        await settle(pilot)
        pane = app.query_one(HistoryPane)
        loaded = [m for m in messages if isinstance(m, HistoryLoaded)]
        assert loaded and [c.commit.message[:7] for c in loaded[-1].changes] == ["frame 4"] + [
            "frame 3",
            "frame 2",
            "frame 1",
        ]
        table = pane.table
        assert table.row_count == 4
        newest = row(pane, 0)
        assert newest["mark"] == ""  # the mark of a marked commit
        assert newest["added"] == "+1" and newest["becoming"] == "»"
        assert newest["message"].startswith("frame 4")
        assert row(pane, 2)["becoming"] == ""  # frame 2 repeated the Becoming
        assert "1 frame added: Frame 4 — 2026-03-04" in title(app)
        assert "+## Frame 4 — 2026-03-04" in diff_text(app)
        # The diff colors frame headings apart from their bullets.
        body = app.query_one(DiffView).body
        assert isinstance(body, Text)
        heading = next(s for s in body.spans if "reverse" in str(s.style))
        assert body.plain[heading.start : heading.end].startswith("+## Frame 4")

        table.focus()
        await pilot.press("right_square_bracket")
        await settle(pilot)
        assert table.cursor_row == 1 and "+## Frame 3 — 2026-03-03" in diff_text(app)
        assert "Becoming:" in title(app) and "the indexer" in title(app)
        await pilot.press("left_square_bracket", "left_square_bracket")
        await settle(pilot)
        assert table.cursor_row == 0  # the bell at the newest commit, no wrap
        await pilot.press("j")  # the list's own cursor keys show the diff too
        await settle(pilot)
        assert table.cursor_row == 1 and "+## Frame 3 — 2026-03-03" in diff_text(app)


async def test_the_diff_follows_the_terminal_when_it_is_resized(world: World) -> None:
    """A diff on screen is rendered again at the new width (it used to stop with an error)."""
    app = SoulscopeApp(world)
    async with app.run_test(size=(160, 36)) as pilot:
        await ready(pilot)
        await pilot.press("4")
        await settle(pilot)
        assert "+## Frame 4 — 2026-03-04" in diff_text(app)
        wide = app.query_one(DiffView).line_width
        await pilot.resize_terminal(100, 30)
        await settle(pilot)
        assert app.query_one(DiffView).line_width < wide
        assert "+## Frame 4 — 2026-03-04" in diff_text(app)


async def test_a_new_frame_commit_shows_in_history_when_the_world_is_read_again(
    world: World,
) -> None:
    app = SoulscopeApp(world)
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_history(pilot)
        await pilot.press("right_square_bracket")
        await settle(pilot)
        chosen = pane.current.commit.sha
        memory = world.memory_dir / "ada-01.md"
        memory.write_text(
            memory.read_text() + history_frame(5, "Kept the ledger.", "the keeper.", "cy-03.", "")
        )
        commit(world.root.parent, "frame 5: 3 agents, 0 posts, 0 comments")
        app.reload_world()
        await settle(pilot)
        assert pane.table.row_count == 5 and pane.commits[0].commit.message.startswith("frame 5")
        assert pane.current.commit.sha == chosen  # the selection stays on its commit
        assert row(pane, 0)["added"] == "+1"


async def test_a_step_to_a_shorter_title_leaves_the_diff_in_place(world: World) -> None:
    app = SoulscopeApp(world)
    async with app.run_test(size=SIZE) as pilot:
        await open_history(pilot)
        await pilot.press("right_square_bracket")  # frame 3: its Becoming changed, in the title
        await settle(pilot)
        top = app.query_one(DiffView).region.y
        await pilot.press("right_square_bracket")  # frame 2: no Becoming line
        await settle(pilot)
        assert "Becoming:" not in title(app) and "+## Frame 2" in diff_text(app)
        assert app.query_one(DiffView).region.y == top


async def test_side_by_side_marking_and_memory_then(world: World) -> None:
    app = SoulscopeApp(world)
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_history(pilot)
        await pilot.press("t")
        await settle(pilot)
        assert pane.side_by_side
        text = diff_text(app)
        # Wrapped to the pane, never cut: every word of the new heading is there.
        assert "before" in text and "after" in text
        assert all(word in text for word in ("##", "Frame", "4", "2026-03-04"))
        await pilot.press("t", "m")  # back to unified; mark the newest commit
        await settle(pilot)
        assert pane.marked is pane.commits[0] and row(pane, 0)["mark"] == "●"
        await pilot.press("right_square_bracket", "right_square_bracket", "right_square_bracket")
        await settle(pilot)
        # The oldest commit against the marked newest: frames 2 to 4 added.
        assert "→" in title(app) and "frames: +3 ~0 -0" in title(app)
        assert "+## Frame 2" in diff_text(app) and "+## Frame 4" in diff_text(app)
        await pilot.press("v")
        await settle(pilot)
        assert isinstance(app.screen, SoulAtScreen)
        assert "1 frames" in app.screen.title_text and "## Frame 1" in app.screen.text
        assert "## Frame 2" not in app.screen.text
        await pilot.press("escape")
        assert not isinstance(app.screen, SoulAtScreen)


async def test_time_travel_opens_the_past_read_only_and_comes_back(world: World) -> None:
    app = SoulscopeApp(world)
    async with app.run_test(size=SIZE) as pilot:
        await open_history(pilot)
        await pilot.press("right_square_bracket", "right_square_bracket", "right_square_bracket")
        await pilot.press("o")
        await settle(pilot)
        assert isinstance(app.world, WorldAt) and app.world.read_only
        assert [a.id for a in app.world.agents()] == ["ada-01", "bo-02", "cy-03"]
        assert app.agent_id == "ada-01" and len(app.soul.frames) == 1
        assert "@" in app.sub_title
        status = str(app.query_one("#history-status", Static).render())
        assert "read-only" in status
        repo = app.world.live.root.parent
        await pilot.press("n")  # running a frame in the past is refused, in one sentence
        await settle(pilot)
        assert len(app.soul.frames) == 1
        assert git(repo, "rev-list", "--count", "HEAD").strip() == "4"
        assert any("read-only" in n.message for n in app._notifications)
        await pilot.press("o")
        await settle(pilot)
        assert app.world is world and len(app.soul.frames) == 4


async def test_history_without_a_repository_says_so(small_world: World) -> None:
    app = SoulscopeApp(small_world)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("4")
        await settle(pilot)
        status = str(app.query_one("#history-status", Static).render())
        assert status.endswith("is not in a git repository, so it has no history.")
        await pilot.press("1")
        assert app.soul is not None  # everything else keeps working


async def test_why_panel_explains_and_follows_the_trail(world: World) -> None:
    app = SoulscopeApp(world)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("2")
        await settle(pilot)
        arc = app.query_one("#arc", VirtualTable)
        arc.focus()
        await pilot.press("j", "j", "w")  # the third statement: the shift to "the indexer"
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, WhyScreen) and screen.why is not None
        why = screen.why
        assert why.statement.text.startswith("the indexer") and why.previous is not None
        assert why.influencers == ("bo-02",) and why.threads == (15,)
        assert why.commit is not None and why.commit.message.startswith("frame 3")
        body = str(screen.query_one("#why-body", Static).render())
        assert "introduced by commit" in body and "Influenced by: bo-02's rebuttal" in body
        await pilot.press("c")
        await settle(pilot)
        assert app.query_one("#tabs").active == "history"
        pane = app.query_one(HistoryPane)
        assert pane.current is not None and pane.current.commit.sha == why.commit.sha

        await pilot.press("2")
        arc.focus()
        await pilot.press("w")
        await settle(pilot)
        await pilot.press("a")  # the one influencer: its arc at the influence's date
        await settle(pilot)
        assert app.agent_id == "bo-02" and app.query_one("#tabs").active == "becoming"


def test_why_view(snap_compare, tmp_path: Path) -> None:
    world = World.open(history_world(tmp_path))

    async def run_before(pilot: Pilot) -> None:
        await ready(pilot)
        await pilot.press("2")
        await settle(pilot)
        pilot.app.query_one("#arc", VirtualTable).focus()
        await pilot.press("j", "j", "w")
        await settle(pilot)

    assert snap_compare(SoulscopeApp(world), terminal_size=SIZE, run_before=run_before)


def twin_headings_world(tmp_path: Path) -> tuple[World, list[int]]:
    """A soul whose second commit adds two frames of one heading (as real files have them) and
    whose third changes the second of them; with the heading lines of the two."""
    from tests.support.repos import init

    repo = init(tmp_path / "twins")
    memory = repo / "memory" / "ada-01.md"
    memory.parent.mkdir()
    head = "# Ada\n\n## Identity\n- **ID:** ada-01\n\n"
    one = "## Frame 11 — 2026-03-01\n- Read the Archive.\n- Becoming: a reader.\n\n"
    twin = "## Frame 12 — 2026-03-02\n- {0}\n- Becoming: a [bold red]writer[/].\n\n"
    memory.write_text(head + one)
    commit(repo, "frame 11", date="2026-03-01T12:00:00Z")
    memory.write_text(
        head + one + twin.format("Posted the FIRST draft.") + twin.format("Fixed it.")
    )
    commit(repo, "frame 12, written twice", date="2026-03-02T12:00:00Z")
    memory.write_text(
        head + one + twin.format("Posted the FIRST draft.") + twin.format("Fixed it, again.")
    )
    commit(repo, "frame 12 corrected", date="2026-03-03T12:00:00Z")
    lines = [
        n for n, text in enumerate(memory.read_text().splitlines(), 1) if text.startswith("## Fr")
    ]
    return World.open(repo), lines[1:]


async def click_entry(pilot: Pilot, line: int) -> list[str]:
    """Click the entry "(LN)" of the diff's title; the memory it opens, from its top row."""
    widget = pilot.app.query_one("#history-title", Static)
    rows = [widget.render_line(y).text for y in range(widget.size.height)]
    y = next(y for y, text in enumerate(rows) if f"(L{line})" in text)
    await pilot.click(widget, offset=(rows[y].index(f"(L{line})"), y))
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, SoulAtScreen), f"no memory opened by a click on line {line}"
    view = screen.query_one("#soul-at-text")
    assert view.top_line == line
    shown = view.visible_rows()
    await pilot.press("escape")
    await settle(pilot)
    return shown


async def test_two_frames_of_one_heading_are_two_entries_each_opening_its_own(
    tmp_path: Path,
) -> None:
    world, (first, second) = twin_headings_world(tmp_path)
    app = SoulscopeApp(world)
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_history(pilot)
        # The newest commit changed the second of them: the title names that one, by its line.
        assert f"1 frame changed: Frame 12 — 2026-03-02 (L{second})" in title(app)
        await pilot.press("right_square_bracket")
        await settle(pilot)
        assert pane.table.cursor_row == 1
        text = " ".join(title(app).split())
        assert (
            f"2 frames added: Frame 12 — 2026-03-02 (L{first}); Frame 12 — 2026-03-02 (L{second})"
        ) in text
        shown = await click_entry(pilot, first)
        assert shown[0].startswith("## Frame 12") and "Posted the FIRST draft." in shown[1]
        # Text from the file is shown as written, never as markup.
        assert "[bold red]writer[/]" in shown[2]
        shown = await click_entry(pilot, second)
        assert shown[0].startswith("## Frame 12") and shown[1] == "- Fixed it."
