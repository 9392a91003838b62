"""Small worlds written into tmp for dashboard tests, and helpers to drive the app."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from textual.app import App
from textual.pilot import Pilot

from soulscope.tui.widgets.agent_list import SELECT_DELAY
from soulscope.tui.widgets.virtual_table import VirtualTable
from soulscope.world import World


def frame(number: int, date: str, action: str, becoming: str, extra: str = "") -> str:
    return (
        f"## Frame {number} — {date}\n"
        f"- {action}\n"
        f"- Influenced by: the frame before.\n"
        f"{extra}"
        f"- Becoming: {becoming}\n\n"
    )


def soul(name: str, agent_id: str, archetype: str, frames: list[str]) -> str:
    return (
        f"# {name}\n\n## Identity\n- **ID:** {agent_id}\n- **Archetype:** {archetype}\n"
        f"- **Voice:** plain\n\n## Convictions\n- Memory is a ledger.\n\n" + "".join(frames)
    )


ADA = soul(
    "Ada Ledger",
    "ada-01",
    "Archivist",
    [
        frame(
            1, "2026-03-01", "Catalogued the commons.", "the cataloguer. From reader to cataloguer."
        ),
        frame(
            2, "2026-03-02", "Indexed #12 and #15.", "the cataloguer. From reader to cataloguer."
        ),
        frame(
            3, "2026-03-03", "Wrote the index guide.", "the indexer. From cataloguer to indexer."
        ),
        frame(4, "2026-03-04", "Argued with bo-02.", "the archivist. From indexer to archivist."),
    ],
)
BO = soul(
    "Bo Debater",
    "bo-02",
    "Debater",
    [
        frame(2, "2026-03-02", "Challenged ada-01.", "the contrarian."),
        frame(4, "2026-03-04", "Conceded a point.", "the listener. From contrarian to listener."),
    ],
)
# Markup-looking text must be shown as written, never interpreted.
CY = soul(
    "Cy [bold red]Markup[/]",
    "cy-03",
    "Coder",
    [
        frame(
            1,
            "2026-03-01",
            "Posted [bold red]x[/] and [link=https://example.com]y[/link].",
            "the [i]escaper[/i]. From [b]raw[/b] to escaped.",
        ),
    ],
)


def write_world(
    root: Path, souls: dict[str, str | bytes], names: dict[str, str] | None = None
) -> Path:
    """A world folder with these soul files (and an ``agents.json`` when names are given)."""
    memory = root / "memory"
    memory.mkdir(parents=True)
    for agent_id, text in souls.items():
        data = text.encode("utf-8") if isinstance(text, str) else text
        (memory / f"{agent_id}.md").write_bytes(data)
    if names is not None:
        registry = {
            "agents": {k: {"name": v} for k, v in names.items()},
            "_meta": {"count": len(names)},
        }
        (root / "agents.json").write_text(json.dumps(registry), encoding="utf-8")
    return root


@pytest.fixture
def small_world(tmp_path: Path) -> World:
    """Three agents: a four-frame arc with a repeat and shifts, a short one, one with markup."""
    root = write_world(
        tmp_path / "world",
        {"ada-01": ADA, "bo-02": BO, "cy-03": CY},
        {"ada-01": "Ada Ledger", "bo-02": "Bo Debater", "cy-03": "Cy [bold red]Markup[/]"},
    )
    return World.open(root)


async def settle(pilot: Pilot) -> None:
    """Wait until a cursor move has selected its agent, the workers are done and their messages handled."""
    await pilot.pause(SELECT_DELAY + 0.05)
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


def world_table(app: App) -> VirtualTable:
    """The World tab's table (its ``visible_rows()`` are the lines on screen, header first)."""
    return app.query_one("#world-table", VirtualTable)


def cells(table: VirtualTable, row: str) -> dict[str, str]:
    """A line of the table cut at its columns: column key -> text shown."""
    out, x = {}, 0
    for column, w in zip(
        table.columns, table.column_widths(table.scrollable_content_region.width), strict=True
    ):
        out[column.key] = row[x + 1 : x + 1 + w].strip()
        x += w + 2
    return out
