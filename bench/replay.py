"""The world log: the CLI's ``log`` on the real corpus, and the Log tab's frame cursor.

Run: .venv/bin/python bench/replay.py [WORLD]
Prints one table; each figure comes with its baseline measured in the same run:
- ``log --json``'s work (the world log read, the world index warm) against listing the agents
  (``agents``: the world index alone);
- keypress to paint (p50/p95) for ``]`` (next frame of the world) and ``}`` (next day) in the Log
  tab, against an empty Textual app's keypress to paint (``bench/dashboard.py``'s floor).
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from dashboard import (  # noqa: E402
    SIZE,
    Painted,
    Sample,
    dashboard_ready,
    empty_keys,
    p95,
    press_to_paint,
)

from soulscope.index import world_entries  # noqa: E402
from soulscope.runs.log import world_log  # noqa: E402
from soulscope.tui.app import SoulscopeApp  # noqa: E402
from soulscope.tui.panes.log import LogPane  # noqa: E402
from soulscope.world import World  # noqa: E402

DEFAULT = ROOT.parent / "shared" / "corpus" / "rappterbook"
PRESSES = 100
TARGET_P95_S = 0.05


def timed(fn) -> float:
    best = float("inf")
    for _ in range(5):
        started = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - started)
    return best


async def log_keys(world: World) -> dict[str, list[Sample]]:
    app = SoulscopeApp(world)
    out: dict[str, list[Sample]] = {"]": [], "}": []}
    async with app.run_test(size=SIZE) as pilot:
        await dashboard_ready(app)
        await pilot.press("6")
        pane = app.query_one(LogPane)
        while not pane.entries:
            await asyncio.sleep(0.01)
        await pilot.pause()
        pane.table.focus()
        await pilot.pause()
        painted = Painted(app)
        for key, char, name in (
            ("right_square_bracket", "]", "]"),
            ("right_curly_bracket", "}", "}"),
        ):
            pane.table.move_cursor(0)
            await pilot.pause()
            for _ in range(PRESSES):
                at = pane.cursor
                if at >= len(pane.entries) - 1 or (
                    name == "}" and pane._days[at] == pane._days[-1]
                ):
                    pane.table.move_cursor(0)
                    await pilot.pause()
                    at = pane.cursor
                out[name].append(
                    await press_to_paint(app, painted, key, char, lambda a=at: pane.cursor != a)
                )
                await pilot.pause()
    return out


def main() -> None:
    world = World.open(sys.argv[1] if len(sys.argv) > 1 else DEFAULT)
    world_entries(world)  # the index warm, as after any first run
    log_s = timed(lambda: world_log(world))
    agents_s = timed(lambda: world_entries(world))
    frames = len(world_log(world).entries)
    floor = [w for w, _ in asyncio.run(empty_keys())]
    keys = asyncio.run(log_keys(world))
    print(f"world: {world.root} ({len(world.agents())} agents, {frames} frames)")
    print(f"{'measure':44} {'value':>10} {'baseline':>10}  baseline is")
    print(
        f"{'world log read (log --json work)':44} {log_s * 1000:8.1f}ms {agents_s * 1000:8.1f}ms  agents listed from the index"
    )
    base = f"{statistics.median(floor) * 1000:.1f}/{p95(floor) * 1000:.1f}ms"
    for name, samples in keys.items():
        walls = [w for w, _ in samples]
        cpu = statistics.median([c for _, c in samples]) * 1000
        value = f"{statistics.median(walls) * 1000:.1f}/{p95(walls) * 1000:.1f}ms"
        ok = "ok" if p95(walls) < TARGET_P95_S else "OVER"
        print(
            f"{'Log tab ' + name + ' keypress to paint p50/p95':44} {value:>10} {base:>10}  "
            f"empty Textual app ({ok}: p95 < 50 ms; CPU p50 {cpu:.1f} ms)"
        )


if __name__ == "__main__":
    main()
