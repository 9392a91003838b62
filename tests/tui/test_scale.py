"""The dashboard at scale: a world listed from its index, a big soul shown before it is parsed."""

from __future__ import annotations

from pathlib import Path

from soulscope.soul.parse import parse
from soulscope.soul.trajectory import arc
from soulscope.tui.app import SoulscopeApp
from soulscope.tui.messages import SoulLoaded, SoulTextRead, WorldParsed, WorldProgress
from soulscope.tui.soul_loading import EARLY_TEXT_BYTES
from soulscope.tui.widgets.soul_text import SoulText
from soulscope.tui.widgets.virtual_table import VirtualTable
from soulscope.world import World
from tests.support.bigworld import frame_entries, write_soul
from tests.support.pilot import settle, table_rows

SIZE = (120, 36)


async def open_and_collect(root: Path) -> tuple[list, SoulscopeApp]:
    messages: list = []
    app = SoulscopeApp(World.open(root))
    async with app.run_test(size=SIZE, message_hook=messages.append) as pilot:
        while not any(isinstance(m, WorldParsed) for m in messages):
            await pilot.pause(0.05)
        await settle(pilot)
        summaries = dict(app.sidebar.summaries)
    return messages, summaries


async def test_a_second_opening_lists_unchanged_agents_from_the_index(
    tmp_path: Path, monkeypatch
) -> None:
    import soulscope.keep.fresh

    # Files written a moment ago are checked by their bytes before their rows are used (a "racy"
    # row); these were written long enough ago, as a world opened a second time usually is.
    monkeypatch.setattr(soulscope.keep.fresh, "RACY_NS", 0)
    for i in range(12):
        write_soul(tmp_path / "w" / "memory" / f"agent-{i:02d}.md", 5 + i, seed=i, i=i)
    await open_and_collect(tmp_path / "w")
    grown = tmp_path / "w" / "memory" / "agent-04.md"
    with open(grown, "a", encoding="utf-8") as f:
        f.write(next(frame_entries(1, start=500)))
    messages, summaries = await open_and_collect(tmp_path / "w")
    progress = [m for m in messages if isinstance(m, WorldProgress)]
    # Eleven rows reused in the first report, before anything is parsed; then the one that grew.
    assert progress[0].done == 11 and progress[0].total == 12
    assert "agent-04" not in {s.agent_id for s in progress[0].summaries}
    assert [s.agent_id for s in progress[-1].summaries] == ["agent-04"]
    assert summaries["agent-04"].frames == len(parse(grown.read_bytes()).frames) == 10


async def test_a_big_soul_shows_its_text_before_it_is_parsed_and_its_whole_arc(
    tmp_path: Path,
) -> None:
    write_soul(tmp_path / "w" / "memory" / "a-small.md", 3)
    big = write_soul(tmp_path / "w" / "memory" / "big.md", 13_000)
    assert big.stat().st_size >= EARLY_TEXT_BYTES
    messages: list = []
    app = SoulscopeApp(World.open(tmp_path / "w"))
    async with app.run_test(size=SIZE, message_hook=messages.append) as pilot:
        await settle(pilot)
        app.select_agent("big")
        await settle(pilot)
        kinds = [type(m) for m in messages if isinstance(m, SoulTextRead | SoulLoaded)]
        assert kinds[-2:] == [SoulTextRead, SoulLoaded]
        text = app.query_one(SoulText)
        assert text.line_count == big.read_text(encoding="utf-8").count("\n")
        app.show_tab("becoming")
        statements = arc(parse(big.read_bytes()))
        table = app.query_one("#arc", VirtualTable)
        await pilot.pause()
        assert table.row_count == len(statements) > 4000
        await pilot.press("G")
        await pilot.pause()
        assert table_rows(table)[-1]["index"] == str(len(statements))


async def test_a_big_soul_chosen_from_another_tab_shows_its_beginning_then_all_of_it(
    tmp_path: Path,
) -> None:
    write_soul(tmp_path / "w" / "memory" / "a-small.md", 3)
    big = write_soul(tmp_path / "w" / "memory" / "big.md", 13_000)
    lines = big.read_text(encoding="utf-8").splitlines()
    messages: list = []
    app = SoulscopeApp(World.open(tmp_path / "w"))
    async with app.run_test(size=SIZE, message_hook=messages.append) as pilot:
        await settle(pilot)
        app.show_tab("becoming")
        app.select_agent("big")
        await settle(pilot)
        early = [m for m in messages if isinstance(m, SoulTextRead)]
        # The first megabyte at once, then the whole file.
        assert len(early) == 2 and len(early[0].lines) < len(early[1].lines) == len(lines)
        app.show_tab("soul")
        await pilot.pause()
        view = app.query_one(SoulText)
        assert view.line_count == len(lines)
        assert view.visible_rows()[:3] == [line.rstrip() for line in lines[:3]]
        view.scroll_to_line(len(lines) - 1)
        await pilot.pause()
        assert view.visible_rows()[0] == lines[-2].rstrip()
