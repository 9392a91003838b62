"""``spread`` and ``graph`` on a generated world of 10,000 agents that cite each other, against
``agents --json`` with its index warm, in the same run (each a fresh process, as a user runs
them; the files are in the page cache for every command).

Each question is timed twice: asked first (nothing kept: the kept answers are removed before the
run, as after any change to the world) and asked again of the same files (the answer kept by
the first, ``soulscope.memo``). Every figure is wall time, with the CPU time of the process beside
it. Target: spread and graph within 3x of warm ``agents --json``.

Run: .venv/bin/python bench/spread.py [--agents N] [--frames F] [--runs R]
The world is generated once into .soulscope-cache/bench/ and reused.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.support.bigworld import SPREAD_TERM, influence_world  # noqa: E402

CACHE = ROOT / ".soulscope-cache" / "bench"


def run(*args: str) -> tuple[float, float]:
    """Wall and CPU seconds of ``soulscope ARGS`` in a new process."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "soulscope", *args], stdout=subprocess.DEVNULL, env=env, check=True
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--agents", type=int, default=10_000)
    parser.add_argument("--frames", type=int, default=50)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    folder = influence_world(
        CACHE / f"influence-{args.agents}x{args.frames}", args.agents, args.frames
    )
    cache = Path(tempfile.mkdtemp(prefix="soulscope-bench-"))
    os.environ["SOULSCOPE_CACHE"] = str(cache)
    w = ["--world", str(folder)]
    run("agents", *w, "--json")  # builds the index: every later run is warm
    baseline = ["agents", *w, "--json"]
    questions = {
        f"spread '{SPREAD_TERM}' --json": ["spread", SPREAD_TERM, *w, "--json"],
        "spread 'parsers' --json (every agent)": ["spread", "parsers", *w, "--json"],
        "graph --json": ["graph", *w, "--json"],
        "graph --since --until --json (a week)": [
            "graph",
            *w,
            "--since",
            "2026-01-05",
            "--until",
            "2026-01-11",
            "--json",
        ],
    }
    base: list[tuple[float, float]] = []
    first: dict[str, list[tuple[float, float]]] = {k: [] for k in questions}
    again: dict[str, list[tuple[float, float]]] = {k: [] for k in questions}
    for _ in range(args.runs):  # interleaved, so that load moves every command alike
        base.append(run(*baseline))
        for name, argv in questions.items():
            shutil.rmtree(cache / "memo", ignore_errors=True)
            first[name].append(run(*argv))
            again[name].append(run(*argv))
    size = sum(p.stat().st_size for p in (folder / "memory").glob("*.md"))
    print(
        f"World: {args.agents:,} agents x {args.frames} frames, {size / 1e6:.0f} MB; "
        f"median of {args.runs} runs, load average {os.getloadavg()[0]:.1f}"
    )
    base_wall = statistics.median(x for x, _ in base)
    base_cpu = statistics.median(c for _, c in base)
    print(
        f"{'command':<40}{'first s':>9}{'x base':>8}{'cpu s':>8}"
        f"{'again s':>9}{'x base':>8}{'cpu s':>8}"
    )
    print(f"{'agents --json (warm, baseline)':<40}{base_wall:>9.2f}{1:>8.2f}{base_cpu:>8.2f}")
    ok = True
    for name in questions:
        row = f"{name:<40}"
        for got in (first[name], again[name]):
            wall = statistics.median(x for x, _ in got)
            cpu = statistics.median(c for _, c in got)
            row += f"{wall:>9.2f}{wall / base_wall:>8.2f}{cpu:>8.2f}"
        print(row)
        ok &= statistics.median(x for x, _ in again[name]) <= 3 * base_wall
    print(
        "target: spread and graph within 3x of warm agents --json (asked again): "
        f"{'met' if ok else 'MISSED'}"
    )
    first_ok = all(statistics.median(x for x, _ in got) <= 3 * base_wall for got in first.values())
    print(f"asked first (nothing kept), within 3x too: {'yes' if first_ok else 'no'}")
    shutil.rmtree(cache, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
