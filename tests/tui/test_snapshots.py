"""Snapshots of the Soul, Becoming and World views on a small world written by the test."""

from __future__ import annotations

from pathlib import Path

from textual.pilot import Pilot
from textual.widgets import Input

from soulscope.tui.app import SoulscopeApp
from soulscope.world import World
from tests.tui.conftest import ADA, BO, CY, settle, write_world

SIZE = (110, 32)


def app_on(tmp_path: Path) -> SoulscopeApp:
    # The world's folder name shows in the title: the same on every machine.
    root = write_world(
        tmp_path / "world",
        {"ada-01": ADA, "bo-02": BO, "cy-03": CY},
        {"ada-01": "Ada Ledger", "bo-02": "Bo Debater", "cy-03": "Cy [bold red]Markup[/]"},
    )
    return SoulscopeApp(World.open(root))


async def ready(pilot: Pilot) -> None:
    pilot.app.query_one("#filter", Input).cursor_blink = False
    await settle(pilot)


def test_soul_view(snap_compare, tmp_path: Path) -> None:
    async def run_before(pilot: Pilot) -> None:
        await ready(pilot)
        await pilot.press("right_square_bracket", "right_square_bracket")
        await settle(pilot)

    assert snap_compare(app_on(tmp_path), terminal_size=SIZE, run_before=run_before)


def test_becoming_view(snap_compare, tmp_path: Path) -> None:
    async def run_before(pilot: Pilot) -> None:
        await ready(pilot)
        await pilot.press("2", "tab", "tab", "j", "j")
        await settle(pilot)

    assert snap_compare(app_on(tmp_path), terminal_size=SIZE, run_before=run_before)


def test_world_view(snap_compare, tmp_path: Path) -> None:
    async def run_before(pilot: Pilot) -> None:
        await ready(pilot)
        await pilot.press("3")
        await settle(pilot)

    assert snap_compare(app_on(tmp_path), terminal_size=SIZE, run_before=run_before)
