"""Driving the dashboard in tests: waiting for it to settle, and reading its tables as shown."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from textual.app import App
from textual.pilot import Pilot

from soulscope.tui.widgets.agent_list import SELECT_DELAY
from soulscope.tui.widgets.virtual_table import VirtualTable


async def settle(pilot: Pilot) -> None:
    """Wait until a cursor move has selected its agent, the workers are done and their messages handled."""
    await pilot.pause(SELECT_DELAY + 0.05)
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


async def until(pilot: Pilot, check: Callable[[], bool], timeout: float = 60.0) -> None:
    """Let the app run until ``check()`` holds (failing after ``timeout`` seconds): on a busy
    machine a timer or a worker may end after ``settle`` returned, so a test that needs a state
    waits for that state, not for a time."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not check():
        assert loop.time() < end, f"still not so after {timeout} s: {check.__doc__ or check}"
        await pilot.pause(0.05)


def cells(table: VirtualTable, row: str) -> dict[str, str]:
    """A line of the table cut at its columns: column key -> text shown."""
    out, x = {}, 0
    for column, w in zip(
        table.columns, table.column_widths(table.scrollable_content_region.width), strict=True
    ):
        out[column.key] = row[x + 1 : x + 1 + w].strip()
        x += w + 2
    return out


def table_rows(table: VirtualTable) -> list[dict[str, str]]:
    """The rows of the table on screen, each cut at its columns (column key -> text shown)."""
    return [cells(table, line) for line in table.visible_rows()[1:] if line.strip()]


def world_table(app: App) -> VirtualTable:
    """The World tab's table (its ``visible_rows()`` are the lines on screen, header first)."""
    return app.query_one("#world-table", VirtualTable)
