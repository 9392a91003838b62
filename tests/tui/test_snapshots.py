"""Snapshots of every tab at the smallest usual terminal (80x24) and a large one (160x45).

At 80 columns the agent list folds away and every tab has the whole width; at 160 it is beside
them. Text wraps to each pane's width: no word is cut at an edge.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Input

from soulscope.tui.app import SoulscopeApp
from soulscope.world import World
from tests.support.pilot import settle
from tests.support.repos import history_world
from tests.support.worlds import write_small_world

SIZES = {"80x24": (80, 24), "160x45": (160, 45)}

# The keys that bring each view up, from the first paint.
VIEWS = {
    "soul": ("right_square_bracket", "right_square_bracket"),
    "becoming": ("2", "j", "j"),
    "world": ("3",),
    "history": ("4", "right_square_bracket"),
    "side_by_side": ("4", "t"),
    "help": ("question_mark",),
}


def small_world(tmp_path: Path) -> World:
    # The world's folder name shows in the title: the same on every machine.
    return World.open(write_small_world(tmp_path / "world"))


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("view", VIEWS)
def test_view(snap_compare, tmp_path: Path, view: str, size: str) -> None:
    # The History views need commits: the world whose frames are real commits.
    world = (
        World.open(history_world(tmp_path))
        if view in ("history", "side_by_side")
        else (small_world(tmp_path))
    )

    async def run_before(pilot: Pilot) -> None:
        pilot.app.query_one("#filter", Input).cursor_blink = False
        await settle(pilot)
        for key in VIEWS[view]:
            await pilot.press(key)
            await settle(pilot)

    assert snap_compare(SoulscopeApp(world), terminal_size=SIZES[size], run_before=run_before)


def test_compare_view(snap_compare, tmp_path: Path) -> None:
    """Two arcs side by side in the Becoming tab (``c``, enter on the first other agent), in the
    smallest usual terminal: both roles and the statements stay readable."""

    async def run_before(pilot: Pilot) -> None:
        pilot.app.query_one("#filter", Input).cursor_blink = False
        await settle(pilot)
        for key in ("c", "enter"):
            await pilot.press(key)
            await settle(pilot)

    app = SoulscopeApp(small_world(tmp_path))
    assert snap_compare(app, terminal_size=SIZES["80x24"], run_before=run_before)
