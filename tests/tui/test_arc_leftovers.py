"""Small defects of the arc views that a user met, each driven as the user meets it: the History
tab's count of statement changes, ``#-1`` in the frame prompt, a burst of ``j`` in the why panel,
and the why dossier's "frames before"."""

from __future__ import annotations

from pathlib import Path

from textual import events
from textual.widgets import Input, Static

from soulscope.history.render import why_text
from soulscope.history.why import explain
from soulscope.soul.lookup import find_frame
from soulscope.soul.parse import parse
from soulscope.tui.app import SoulscopeApp
from soulscope.tui.panes.history import HistoryPane
from soulscope.world import World
from tests.support.pilot import settle
from tests.support.repos import commit, init
from tests.support.worlds import soul, write_world
from tests.tui.test_why_panel import open_why, why_world


def position_frame(n: int, position: str) -> str:
    return (
        f"## Frame {n} — 2026-03-0{n} (0{n}:15 UTC)\n- Argued on #{n}.\n"
        f"- Evolving position: {position}\n\n"
    )


POSITIONS = [
    "Bayesian priors price every claim on the board.",
    "Bayesian priors price every claim, now with explicit odds.",
    "Priors matter less than the evidence each thread brings.",
    "Evidence first; the priors are only a starting bet.",
]


def position_history(tmp_path: Path) -> World:
    """An early-era soul (Evolving position) whose statement is reworded in three of its four
    commits, by refinement, never by a change of role."""
    repo = init(tmp_path / "early")
    root = repo / "state"
    write_world(root, {})
    for n in range(1, 5):
        frames = [position_frame(k, POSITIONS[k - 1]) for k in range(1, n + 1)]
        text = soul("Eve Bettor", "eve-01", "Debater", frames)
        (root / "memory" / "eve-01.md").write_text(text)
        commit(repo, f"frame {n}", date=f"2026-03-0{n}T12:00:00Z")
    return World.open(root)


async def test_history_counts_every_commit_that_changed_the_statement(tmp_path: Path) -> None:
    app = SoulscopeApp(position_history(tmp_path))
    async with app.run_test(size=(120, 36)) as pilot:
        app.query_one("#filter", Input).cursor_blink = False
        await settle(pilot)
        await pilot.press("4")
        await settle(pilot)
        status = str(app.query_one(HistoryPane).query_one("#history-status", Static).render())
        # Commits 2, 3 and 4 each reworded the position; the first only wrote it.
        assert "Evolving position changed in 3" in status, status


def test_a_negative_position_counts_from_the_last_frame() -> None:
    text = soul("Eve", "eve-01", "Debater", [position_frame(k, "x.") for k in range(1, 5)])
    s = parse(text.encode(), "eve-01")
    last = find_frame(s, "#-1")
    assert last.frame == s.frames[-1] and last.problem is None
    assert find_frame(s, "#-4").frame == s.frames[0]
    beyond = find_frame(s, "#-9")
    assert beyond.frame is None and beyond.nearest == s.frames[0]
    assert beyond.problem and "#-9" in beyond.problem


async def test_a_burst_of_j_scrolls_the_why_panel_a_line_per_key(tmp_path: Path) -> None:
    app = SoulscopeApp(why_world(tmp_path))
    async with app.run_test(size=(100, 24)) as pilot:
        screen = await open_why(pilot, 3)
        scroll = screen.query_one("#why-scroll")
        assert scroll.max_scroll_y >= 10
        # Keys typed faster than the screen is drawn arrive together, between two frames.
        for _ in range(10):
            app.post_message(events.Key("j", "j"))
        await settle(pilot)
        assert scroll.scroll_y == 10
        for _ in range(4):
            app.post_message(events.Key("k", "k"))
        await settle(pilot)
        assert scroll.scroll_y == 6


def test_the_dossier_says_one_frame_before_not_one_frames(tmp_path: Path) -> None:
    frames = [
        "## Frame 1 — 2026-03-01\n- Catalogued the commons.\n- Becoming: the cataloguer.\n\n",
        "## Frame 2 — 2026-03-02\n- Read a cartographer manual.\n"
        "- Becoming: the cataloguer, still.\n\n",
        "## Frame 3 — 2026-03-03\n- Mapped the bank.\n"
        "- Becoming: the cartographer. From cataloguer to cartographer.\n\n",
    ]
    root = write_world(tmp_path / "w", {"ada-01": soul("Ada", "ada-01", "Archivist", frames)})
    text = why_text(explain(World.open(root), "ada-01", index=3)).plain
    assert '"cartographer" first in its own memory' in text
    assert "1 frame there held it before the statement" in text, text
    assert "1 frames" not in text
