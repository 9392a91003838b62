"""The dashboard on the real corpus, headless: first paint, whole world parsed, switching agents.

Run: .venv/bin/python bench/dashboard.py [WORLD]
Prints one table; each figure comes with its baseline measured in the same run:
- first paint against an empty Textual app's first paint (the floor of any Textual app here);
- the whole world parsed in the app (a worker, while the UI runs) against parsing it alone;
- switching to the largest agent (cached, and with a cold cache) against parsing its file alone.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from textual.app import App, ComposeResult  # noqa: E402
from textual.widgets import Static  # noqa: E402

from soulscope.soul.parse import parse  # noqa: E402
from soulscope.soul.trajectory import summarize  # noqa: E402
from soulscope.tui.app import SoulscopeApp  # noqa: E402
from soulscope.tui.cache import SoulCache  # noqa: E402
from soulscope.tui.messages import WorldParsed  # noqa: E402
from soulscope.tui.panes.soul import SoulPane  # noqa: E402
from soulscope.world import World  # noqa: E402

DEFAULT = ROOT.parent / "shared" / "corpus" / "rappterbook"
SIZE = (160, 48)
REPEAT = 7
FIRST_PAINT_TARGET_S = 1.0
SWITCH_TARGET_S = 0.1


class EmptyApp(App[None]):
    def compose(self) -> ComposeResult:
        yield Static("empty")


def median(samples: list[float]) -> float:
    return statistics.median(samples)


async def first_paint(make_app) -> float:
    """Seconds from starting the app until its first screen is composed, laid out and painted."""
    app = make_app()
    started = time.perf_counter()
    async with app.run_test(size=SIZE) as pilot:
        painted = time.perf_counter() - started
        await pilot.pause()
        app.exit()
    return painted


async def app_run(world: World, largest: str, other: str) -> dict[str, float]:
    """One run of the dashboard: first paint, world parsed, then timed switches."""
    parsed_at: list[float] = []

    def hook(message: object) -> None:
        if isinstance(message, WorldParsed):
            parsed_at.append(time.perf_counter())

    app = SoulscopeApp(world)
    started = time.perf_counter()
    async with app.run_test(size=SIZE, message_hook=hook) as pilot:
        painted = time.perf_counter() - started
        while not parsed_at:
            await asyncio.sleep(0.005)
        parsed = parsed_at[0] - started
        await app.workers.wait_for_complete()
        await pilot.pause()

        async def switch(to: str) -> float:
            """From the selection to the screen painted with the new soul in every pane."""
            t = time.perf_counter()
            app.select_agent(to)
            while app.soul is None or app.soul.agent_id != to:
                await asyncio.sleep(0.001)
            painted = asyncio.Event()
            app.call_after_refresh(painted.set)
            await painted.wait()
            elapsed = time.perf_counter() - t
            assert app.query_one(SoulPane).soul is app.soul
            await pilot.pause()
            return elapsed

        warm, cold = [], []
        for _ in range(REPEAT):
            await switch(other)
            warm.append(await switch(largest))
        for _ in range(REPEAT):
            await switch(other)
            app.cache = SoulCache(world, app.arc_label)  # forget every parsed soul
            cold.append(await switch(largest))
    return {
        "paint": painted,
        "parsed": parsed,
        "warm": median(warm),
        "cold": median(cold),
    }


def main() -> int:
    where = Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT
    if not where.exists():
        print(f"bench/dashboard.py: the corpus is not here ({where}); nothing measured")
        return 0
    world = World.open(where)
    agents = world.agents()
    largest = max(agents, key=lambda a: a.size)
    other = next(a for a in agents if a.id != largest.id)
    data = largest.path.read_bytes()

    def parse_alone() -> float:
        t = time.perf_counter()
        summarize(largest.id, parse(largest.path.read_bytes()))
        return time.perf_counter() - t

    def world_alone() -> float:
        t = time.perf_counter()
        cache = SoulCache(World.open(where))
        for a in agents:
            cache.load(a.id)
        return time.perf_counter() - t

    parse_alone()  # warm-up: imports and regex compilation are not the file's cost
    largest_parse = median([parse_alone() for _ in range(REPEAT)])
    whole_alone = median([world_alone() for _ in range(3)])
    empty_paint = median([asyncio.run(first_paint(EmptyApp)) for _ in range(3)])
    runs = [asyncio.run(app_run(World.open(where), largest.id, other.id)) for _ in range(3)]
    got = {k: median([r[k] for r in runs]) for k in runs[0]}

    print(
        f"World: {where} — {len(agents)} soul files; largest {largest.id} "
        f"({len(data) / 1e3:.0f} KB); terminal {SIZE[0]}x{SIZE[1]}, headless; medians"
    )
    rows = [
        (
            "first paint",
            got["paint"],
            "empty Textual app's first paint",
            empty_paint,
            FIRST_PAINT_TARGET_S,
        ),
        (
            "whole world parsed (worker)",
            got["parsed"],
            "parse + summarize all, no UI",
            whole_alone,
            None,
        ),
        (
            "switch to largest (cached)",
            got["warm"],
            "parse that file alone",
            largest_parse,
            SWITCH_TARGET_S,
        ),
        (
            "switch to largest (cold)",
            got["cold"],
            "parse that file alone",
            largest_parse,
            SWITCH_TARGET_S,
        ),
    ]
    print(f"{'measure':<30} {'seconds':>8}  {'baseline':<32} {'seconds':>8}  {'target':>8}")
    for name, seconds, base_name, base, target in rows:
        verdict = (
            "" if target is None else f"< {target:g} s {'ok' if seconds < target else 'MISSED'}"
        )
        print(f"{name:<30} {seconds:>8.3f}  {base_name:<32} {base:>8.4f}  {verdict:>8}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
