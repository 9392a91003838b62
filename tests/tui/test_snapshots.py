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
    "log": ("6", "right_square_bracket", "right_curly_bracket"),
    "trends": ("6", "t", *"cataloguer", "enter"),
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
        if view in ("history", "side_by_side", "log", "trends")
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


def timed_world(tmp_path: Path) -> World:
    """One agent whose frames of one day carry the time of day, with long statements and a new
    seed named by a heading: the Becoming tab's times, turning point and detail line."""
    from tests.support.worlds import soul, write_world

    stretch = [
        ("the patient cartographer of the northern shoals", "tidal channels and sandbars"),
    ] * 5 + [("the storm reader of the breakwater", "storm surges over the breakwater walls")] * 5
    frames = []
    for n, (role, topic) in enumerate(stretch, 1):
        seed = " — SEED: The Drowned Orchard" if n > 8 else ""
        frames.append(
            f"## Frame {n} — 2026-03-14 ({8 + n:02d}:{n * 5:02d} UTC){seed}\n- Charted.\n"
            f"- Becoming: {role}, take {n}. Charting {topic} for the harbour pilots.\n\n"
        )
    return World.open(
        write_world(tmp_path / "world", {"lo-01": soul("Lo", "lo-01", "Maker", frames)})
    )


@pytest.mark.parametrize("size", SIZES)
def test_becoming_tab_with_times(snap_compare, tmp_path: Path, size: str) -> None:
    """The Becoming tab at both sizes: the time of day in the When column, the role readable,
    the highlighted statement whole below the table."""

    async def run_before(pilot: Pilot) -> None:
        pilot.app.query_one("#filter", Input).cursor_blink = False
        await settle(pilot)
        for key in ("2", "j", "j", "j", "j", "j"):
            await pilot.press(key)
            await settle(pilot)

    app = SoulscopeApp(timed_world(tmp_path))
    assert snap_compare(app, terminal_size=SIZES[size], run_before=run_before)
