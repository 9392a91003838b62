"""The Becoming tab's table: it draws only what is on screen, so its columns are sized from the ends
of the arc and widen when a wider value is drawn, each by what it shows; the drift plot of a long
arc keeps its peaks."""

from __future__ import annotations

from datetime import date, timedelta
from pathlib import Path

from textual.pilot import Pilot
from textual.widgets import Static

from soulscope.tui.app import SoulscopeApp
from soulscope.tui.panes.becoming import DRIFT_POINTS, FIT_ROWS, plotted
from soulscope.tui.widgets.virtual_table import VirtualTable
from soulscope.world import World
from tests.support.pilot import settle, table_rows
from tests.support.worlds import soul, write_world

SIZE = (120, 40)


def long_arc(frames: int, dated: range) -> str:
    """An arc of one statement per frame; only the frames in ``dated`` give a date, a day
    after the frame before (the file in time order)."""
    entries = []
    for n in range(1, frames + 1):
        when = f" — {date(2026, 1, 1) + timedelta(days=n)}" if n in dated else ""
        entries.append(f"## Frame {n}{when}\n- Acted.\n- Becoming: the maker, take {n}.\n\n")
    return soul("Lo Ng", "lo-01", "Maker", entries)


def one_agent(tmp_path: Path, text: str) -> World:
    return World.open(write_world(tmp_path / "w", {"lo-01": text}))


async def arc_table(pilot: Pilot) -> VirtualTable:
    """The Becoming tab's table, shown with the agent's arc in it."""
    await settle(pilot)
    await pilot.press("2")
    await settle(pilot)
    return pilot.app.query_one("#arc", VirtualTable)


async def test_a_wider_value_in_the_middle_of_a_long_arc_is_shown_whole(tmp_path: Path) -> None:
    frames = 3 * FIT_ROWS
    middle = range(FIT_ROWS + 1, 2 * FIT_ROWS + 1)  # no date at either end of the arc
    app = SoulscopeApp(one_agent(tmp_path, long_arc(frames, middle)))
    async with app.run_test(size=SIZE) as pilot:
        table = await arc_table(pilot)
        assert table.row_count == frames
        assert {row["date"] for row in table_rows(table)} == {"—"}
        table.move_cursor(frames // 2)
        await pilot.pause()
        await pilot.pause()
        rows = table_rows(table)
        assert str(frames // 2 + 1) in [row["index"] for row in rows]
        dates = {row["date"] for row in rows}
        assert dates and all(len(d) == len("2026-03-01") and "…" not in d for d in dates)


def test_the_drift_plot_of_a_long_arc_keeps_its_largest_shifts() -> None:
    values = [0.1] * 72_000
    values[54_321] = 0.9
    values[7] = 0.5
    points = plotted(values)
    assert len(points) == DRIFT_POINTS
    assert points.count(0.9) == 1 and points.count(0.5) == 1
    assert points.index(0.5) < points.index(0.9)
    short = [0.2, 0.4]
    assert plotted(short) == short


async def test_unnumbered_frames_leave_the_frame_column_as_narrow_as_its_title(
    tmp_path: Path,
) -> None:
    # Frames named by their date and time alone: the frame column shows "—", the When column
    # the date and time of day (the frame's label is its date; it is not given the frame
    # column's width).
    entries = [
        f"## Frame 2026-03-{day:02d} (1{day}:00 UTC)\n- Acted.\n- Becoming: the maker, take {day}.\n\n"
        for day in range(1, 6)
    ]
    app = SoulscopeApp(one_agent(tmp_path, soul("Lo", "lo-01", "Maker", entries)))
    async with app.run_test(size=SIZE) as pilot:
        table = await arc_table(pilot)
        rows = table_rows(table)
        assert [row["frame"] for row in rows] == ["—"] * 5
        assert [row["date"] for row in rows] == [f"2026-03-0{day} 1{day}:00" for day in range(1, 6)]
        frame_width = table.column_widths(table.scrollable_content_region.width)[1]
        assert frame_width == len("Frame")


async def test_at_80_columns_the_role_keeps_its_room_and_the_chapter_gives_way(
    tmp_path: Path,
) -> None:
    # One day's frames at different times, long roles and long chapter titles.
    entries = [
        f"## Frame {n} — 2026-03-14 ({8 + n}:{n * 5:02d} UTC)\n- Acted.\n"
        f"- Becoming: the {kind} cartographer of the northern shoals, take {n}. "
        f"Charting {topic} for the harbour pilots.\n\n"
        for n, (kind, topic) in enumerate(
            [("patient", "tidal channels and sandbars")] * 6
            + [("restless", "storm surges over the breakwater walls")] * 6,
            1,
        )
    ]
    app = SoulscopeApp(one_agent(tmp_path, soul("Lo", "lo-01", "Maker", entries)))
    async with app.run_test(size=(80, 24)) as pilot:
        table = await arc_table(pilot)
        rows = table_rows(table)
        # The time of day tells the frames of one day apart.
        assert [row["date"] for row in rows[:2]] == ["2026-03-14 09:05", "2026-03-14 10:10"]
        widths = dict(
            zip(
                [c.key for c in table.columns],
                table.column_widths(table.scrollable_content_region.width),
                strict=True,
            )
        )
        assert widths["role"] >= 18, widths
        assert rows[0]["role"].startswith("patient cartograp")
        # The highlighted statement is shown whole below the table, wrapped to its width.
        detail = str(app.query_one("#arc-detail", Static).render())
        assert "Charting tidal channels and sandbars for the harbour pilots." in " ".join(
            detail.split()
        )
