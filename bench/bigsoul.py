"""One big soul (218,000 frames, about 20 MB, generated): the CLI and the dashboard against the
floor of parsing the file once, in the same run.

Run: .venv/bin/python bench/bigsoul.py [--frames N] [--dashboard] (the floor and the dashboard
alone, without the commands)
The soul is generated once into .soulscope-cache/bench/ and reused. Targets: `agents --json` and
`show --json` within 3x of one parse; the dashboard paints that soul < 1 s after it is selected and
answers every key < 100 ms while the rest loads; memory (peak RSS over the process's own start)
< 5x the file size. The dashboard's memory is its growth while that soul loads; a process that
parses it for the dashboard (if any) is reported apart, its own peak RSS, and with the dashboard:
the most the two held at once (the dashboard's growth and that process's whole RSS, sampled).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from soulscope.soul.parse import parse  # noqa: E402
from soulscope.world import World  # noqa: E402
from tests.support.bigworld import BIG_SOUL_FRAMES, big_soul, write_soul  # noqa: E402

CACHE = ROOT / ".soulscope-cache" / "bench"
SIZE = (160, 48)
KEYS = ["2", "j", "j", "k", "1", "right_square_bracket", "right_square_bracket", "j", "G", "g"]


def run_cli(*args: str) -> tuple[float, int]:
    """Wall seconds and peak RSS (bytes) of ``soulscope ARGS`` in its own process."""
    t = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "soulscope", *args],
        stdout=subprocess.DEVNULL,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    _, status, usage = os.wait4(proc.pid, 0)
    assert status == 0, f"soulscope {' '.join(args)} failed"
    return time.perf_counter() - t, usage.ru_maxrss * 1024


def children_memory() -> tuple[int, int]:
    """Of this process's running children (a loading process): the largest peak RSS, and their
    RSS now, together (bytes)."""
    peak = now = 0
    for children in Path("/proc/self/task").glob("*/children"):
        for pid in children.read_text().split():
            try:
                status = Path(f"/proc/{pid}/status").read_text()
            except OSError:
                continue  # it ended meanwhile
            for line in status.splitlines():
                if line.startswith("VmHWM:"):
                    peak = max(peak, int(line.split()[1]) * 1024)
                elif line.startswith("VmRSS:"):
                    now += int(line.split()[1]) * 1024
    return peak, now


def rss_now() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


async def dashboard(world: World, big: str) -> dict[str, float]:
    """First paint of ``big`` after its selection; then keys pressed while the rest loads, and the
    longest the UI was busy between two of its turns (what a key waits, at worst)."""
    from soulscope.tui.app import SoulscopeApp

    app = SoulscopeApp(world)
    async with app.run_test(size=SIZE) as pilot:
        while app.soul is None:  # the small agent, first in the list, is shown
            await asyncio.sleep(0.01)
        await app.workers.wait_for_complete()
        before = rss_now()
        gaps: list[float] = []
        beating = True
        child = together = 0

        async def heartbeat() -> None:
            nonlocal child, together
            last = time.perf_counter()
            while beating:
                await asyncio.sleep(0.002)
                now = time.perf_counter()
                gaps.append(now - last)
                last = now
                if len(gaps) % 20 == 0:  # (the sampling is not counted in the gaps)
                    peak, now = children_memory()
                    child = max(child, peak)
                    together = max(together, rss_now() - before + now)
                    last = time.perf_counter()

        beat = asyncio.create_task(heartbeat())
        t = time.perf_counter()
        app.select_agent(big)
        while app.query_one("SoulText").line_count < 1000:  # its text is on screen
            await asyncio.sleep(0.002)
        painted = asyncio.Event()
        app.call_after_refresh(painted.set)
        await painted.wait()
        paint = time.perf_counter() - t
        for key in KEYS:  # while the rest loads: parsed soul, Becoming rows
            app.simulate_key(key)
            await asyncio.sleep(0.05)
        while app.soul is None or app.soul.agent_id != big:
            await asyncio.sleep(0.01)
        await app.workers.wait_for_complete()
        await pilot.pause(0.5)
        settled = time.perf_counter() - t
        busy = max(gaps)
        grown = rss_now() - before
        # Then tab keys, a third of a second apart, once the loading is done: the Becoming tab
        # shows the arc's 72,000 statements (a DataTable took them in slices for half a minute).
        gaps.clear()
        for key in ["2", "1"] * 10:
            app.simulate_key(key)
            await asyncio.sleep(0.3)
        beating = False
        await beat
    return {
        "paint": paint,
        "busy": busy,
        "after": max(gaps),
        "settled": settled,
        "grown": grown,
        "child": child,
        "together": together,
    }


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--frames", type=int, default=BIG_SOUL_FRAMES)
    parser.add_argument("--dashboard", action="store_true", help="skip the commands")
    args = parser.parse_args()
    folder = CACHE / f"bigsoul-{args.frames}"
    path = big_soul(folder, args.frames)
    small = folder / "memory" / "a-small.md"
    if not small.exists():
        write_soul(small, 20)
    size = path.stat().st_size
    # The commands first: a child started by a process that holds the parsed soul would report
    # that process's memory as its own peak.
    os.environ["SOULSCOPE_CACHE"] = tempfile.mkdtemp(prefix="soulscope-bench-")  # a cold index
    _, rss_empty = run_cli("--version")
    if not args.dashboard:
        agents, agents_rss = run_cli("agents", "--world", str(folder), "--json")
        show, show_rss = run_cli("show", "big-soul", "--world", str(folder), "--json")

    parse(path.read_bytes()[:100_000])  # warm-up: imports and regex compilation
    # The floor: the file parsed once, every frame built once (``parse`` alone builds frames only
    # when they are asked for, so it is timed apart).
    parses, scans = [], []
    for _ in range(2):
        t = time.perf_counter()
        soul = parse(path.read_bytes())
        scans.append(time.perf_counter() - t)
        for _frame in soul.frames:
            pass
        parses.append(time.perf_counter() - t)
        del soul
    floor = min(parses)
    ui = asyncio.run(dashboard(World.open(folder), "big-soul"))
    shutil.rmtree(os.environ["SOULSCOPE_CACHE"], ignore_errors=True)

    mb = size / 1e6
    print(f"Soul: {path.name}, {args.frames:,} frames, {mb:.1f} MB; terminal {SIZE[0]}x{SIZE[1]}")
    print(
        f"baseline: parse the file once, every frame built {floor:.2f} s (`parse` alone "
        f"{min(scans):.2f} s); `soulscope --version` peak RSS {rss_empty / 1e6:.0f} MB"
    )
    rows = []
    if not args.dashboard:
        rows += [
            (
                "agents --json",
                f"{agents:.2f} s",
                f"{agents / floor:.1f}x parse",
                agents / floor < 3,
            ),
            ("show --json", f"{show:.2f} s", f"{show / floor:.1f}x parse", show / floor < 3),
            (
                "agents memory",
                f"{(agents_rss - rss_empty) / 1e6:.0f} MB",
                f"{(agents_rss - rss_empty) / size:.1f}x file",
                agents_rss - rss_empty < 5 * size,
            ),
            (
                "show memory",
                f"{(show_rss - rss_empty) / 1e6:.0f} MB",
                f"{(show_rss - rss_empty) / size:.1f}x file",
                show_rss - rss_empty < 5 * size,
            ),
        ]
    rows += [
        ("dashboard first paint", f"{ui['paint']:.3f} s", "after selection", ui["paint"] < 1),
        (
            "dashboard longest busy",
            f"{ui['busy'] * 1e3:.0f} ms",
            "a key waits at most",
            ui["busy"] < 0.1,
        ),
        (
            "then tab keys, longest",
            f"{ui['after'] * 1e3:.0f} ms",
            "busy, 72,000-row arc",
            ui["after"] < 0.1,
        ),
        (
            "dashboard all loaded",
            f"{ui['settled']:.2f} s",
            f"{ui['settled'] / floor:.1f}x parse",
            None,
        ),
        (
            "dashboard memory",
            f"{ui['grown'] / 1e6:.0f} MB",
            f"{ui['grown'] / size:.1f}x file",
            ui["grown"] < 5 * size,
        ),
    ]
    if ui["child"]:
        rows.append(
            (
                "loading process peak",
                f"{ui['child'] / 1e6:.0f} MB",
                f"{ui['child'] / size:.1f}x file",
                None,
            )
        )
        rows.append(
            (
                "both at once, at most",
                f"{ui['together'] / 1e6:.0f} MB",
                f"{ui['together'] / size:.1f}x file",
                None,
            )
        )
    print(f"{'measure':<24} {'value':>10}  {'against':<18} target")
    for name, value, against, ok in rows:
        verdict = "" if ok is None else ("ok" if ok else "MISSED")
        print(f"{name:<24} {value:>10}  {against:<18} {verdict}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
