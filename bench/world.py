"""A generated world of 10,000 agents (50 frames each), cold and warm: the CLI's `agents --json` and
`overview --json`, and the dashboard (first paint, World tab full, the last batch of summaries from
its arrival to the screen, a filter keystroke, sorting), against reading every file
(`find memory -name '*.md' | xargs cat > /dev/null`) and parsing every file, in the same run.

Every figure is wall time, with the CPU time it took beside it (the process and its children: on a
shared machine the wall time moves with the load, the CPU time much less).

Run: .venv/bin/python bench/world.py [--agents N] [--frames F]
The world is generated once into .soulscope-cache/bench/ and reused. Cold: the world index is
removed first (every file parsed); warm: the index is current. Targets: warm, the World tab full
< 1 s and a filter keystroke < 50 ms; cold, within 2x of parsing every file.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from soulscope.index import index_path  # noqa: E402
from soulscope.soul.parse import parse  # noqa: E402
from soulscope.soul.trajectory import summarize  # noqa: E402
from soulscope.world import World  # noqa: E402
from tests.support.bigworld import write_soul  # noqa: E402

CACHE = ROOT / ".soulscope-cache" / "bench"
SIZE = (160, 48)


def generated(agents: int, frames: int) -> Path:
    folder = CACHE / f"world-{agents}x{frames}"
    done = folder / ".complete"
    if not done.exists():
        shutil.rmtree(folder, ignore_errors=True)
        for i in range(agents):
            write_soul(folder / "memory" / f"agent-{i:05d}.md", frames, seed=i, i=i)
        done.touch()
    return folder


def cpu() -> float:
    """CPU seconds of this process and of its finished children."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


class Clock:
    """Wall and CPU seconds since it was made (or since ``restart``)."""

    def __init__(self) -> None:
        self.restart()

    def restart(self) -> None:
        self._wall, self._cpu = time.perf_counter(), cpu()

    def read(self) -> tuple[float, float]:
        return time.perf_counter() - self._wall, cpu() - self._cpu


def seconds(fn) -> tuple[float, float]:
    clock = Clock()
    fn()
    return clock.read()


def cli(*args: str) -> tuple[float, float]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return seconds(
        lambda: subprocess.run(
            [sys.executable, "-m", "soulscope", *args],
            stdout=subprocess.DEVNULL,
            env=env,
            check=True,
        )
    )


async def painted(app) -> None:
    done = asyncio.Event()
    app.call_after_refresh(done.set)
    await done.wait()


async def dashboard(folder: Path, total: int) -> dict[str, tuple[float, float]]:
    from soulscope.tui.app import SoulscopeApp
    from soulscope.tui.messages import WorldProgress
    from soulscope.tui.panes.world import WorldPane

    app = SoulscopeApp(World.open(folder))
    batch = Clock()  # restarted as each batch of the world's summaries is handled

    def on_message(message: object) -> None:
        if isinstance(message, WorldProgress):
            batch.restart()

    started = Clock()
    async with app.run_test(size=SIZE, message_hook=on_message) as pilot:
        paint = started.read()
        app.show_tab("world")
        pane = app.query_one(WorldPane)
        while len(pane.rows) < total:
            await asyncio.sleep(0.01)
        await painted(app)
        full = started.read()
        last_batch = batch.read()
        await app.workers.wait_for_complete()
        await pilot.pause()

        sidebar = app.sidebar
        filter_box = app.query_one("#filter")
        sidebar.focus_filter()
        await pilot.pause()
        clock = Clock()
        keystrokes = []
        for ch in "7", "3", "1":
            before = sidebar.shown
            clock.restart()
            filter_box.insert_text_at_cursor(ch)
            while sidebar.shown == before:
                await asyncio.sleep(0)
            await painted(app)
            keystrokes.append(clock.read())
        filter_box.value = ""
        await pilot.pause()

        sorts = []
        for _ in range(3):
            clock.restart()
            pane.action_sort_next()
            await painted(app)
            sorts.append(clock.read())
        clock.restart()
        app.action_cycle_sort()
        await painted(app)
        list_sort = clock.read()
    return {
        "paint": paint,
        "full": full,
        "batch": last_batch,
        "key": max(keystrokes),
        "sort": max(sorts),
        "list sort": list_sort,
    }


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--agents", type=int, default=10_000)
    parser.add_argument("--frames", type=int, default=50)
    args = parser.parse_args()
    folder = generated(args.agents, args.frames)
    memory = folder / "memory"
    world = World.open(folder)
    files = world.agents()
    size = sum(f.size for f in files)

    cat = seconds(
        lambda: subprocess.run(
            f"find {memory} -name '*.md' | xargs cat > /dev/null", shell=True, check=True
        )
    )

    def parse_all() -> None:
        for f in files:
            summarize(f.id, parse(f.path.read_bytes(), f.id))

    parse_every = seconds(parse_all)

    # The index lives in the cache folder: a throwaway one, so that cold means cold.
    os.environ["SOULSCOPE_CACHE"] = tempfile.mkdtemp(prefix="soulscope-bench-")
    index = index_path(world)
    rows: list[tuple[str, tuple[float, float], tuple[float, float]]] = []
    for command in ("agents", "overview"):
        index.unlink(missing_ok=True)
        cold = cli(command, "--world", str(folder), "--json")
        warm = cli(command, "--world", str(folder), "--json")
        rows.append((f"{command} --json", cold, warm))
    index.unlink(missing_ok=True)
    ui_cold = asyncio.run(dashboard(folder, len(files)))
    ui_warm = asyncio.run(dashboard(folder, len(files)))
    shutil.rmtree(os.environ["SOULSCOPE_CACHE"], ignore_errors=True)

    print(
        f"World: {len(files):,} agents x {args.frames} frames, {size / 1e6:.0f} MB; "
        f"terminal {SIZE[0]}x{SIZE[1]}, headless"
    )
    print(
        f"baselines: cat every file {cat[0]:.2f} s; parse + summarize every file "
        f"{parse_every[0]:.2f} s (CPU {parse_every[1]:.2f} s)"
    )
    for key, name in (
        ("paint", "dashboard first paint"),
        ("full", "World tab full"),
        ("batch", "last batch to screen"),
        ("key", "filter keystroke"),
        ("sort", "World tab sort"),
        ("list sort", "agent list sort"),
    ):
        rows.append((name, ui_cold[key], ui_warm[key]))
    header = ("measure", "cold s", "x parse", "warm s", "cold cpu", "x parse", "warm cpu")
    print(f"{header[0]:<24}" + "".join(f"{h:>9}" for h in header[1:]))
    for name, (cold, cold_cpu), (warm, warm_cpu) in rows:
        print(
            f"{name:<24}{cold:>9.3f}{cold / parse_every[0]:>9.2f}{warm:>9.3f}"
            f"{cold_cpu:>9.3f}{cold_cpu / parse_every[1]:>9.2f}{warm_cpu:>9.3f}"
        )
    targets = [
        ("warm World tab full < 1 s", ui_warm["full"][0] < 1),
        ("warm filter keystroke < 50 ms", ui_warm["key"][0] < 0.05),
        ("cold agents --json within 2x of parsing", rows[0][1][0] < 2 * parse_every[0]),
        ("cold World tab full within 2x of parsing", ui_cold["full"][0] < 2 * parse_every[0]),
    ]
    for name, ok in targets:
        print(f"target: {name}: {'ok' if ok else 'MISSED'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
