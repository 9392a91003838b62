"""A BM25 search from the CLI against reading the world: `soulscope search --mode bm25 --json`
beside `soulscope agents --json`, on the same world, in the same run, with an empty cache folder
(cold: the first call) and with the cache the previous call left (warm: the next call).

Targets: a cold search within 4x a cold `agents --json`, a warm one within 2x; both ratios are
printed against the cold and the warm `agents --json`. With ``--before DIR`` (another checkout of
soulscope, e.g. ``git worktree add /tmp/before main``) the search of that code is measured too, in
the same run.

CPU time (user + system of the child process), the median of ``--runs`` runs: on a shared machine
the wall time moves with the load, the CPU time much less.

Run: .venv/bin/python bench/lexical.py [--world /path/to/world] [--runs 5] [--before DIR]
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
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REAL_WORLD = ROOT.parent / "shared" / "corpus" / "rappterbook"
QUERIES = ["who argued about governance", "#5585", "first post about karma"]


def children_cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def run(code: Path, args: list[str], cache: Path) -> float:
    """CPU seconds of one CLI command run from the checkout ``code`` with cache folder ``cache``."""
    env = {**os.environ, "PYTHONPATH": str(code), "SOULSCOPE_CACHE": str(cache)}
    before = children_cpu()
    subprocess.run(
        [sys.executable, "-m", "soulscope", *args],
        stdout=subprocess.DEVNULL,
        env=env,
        cwd=code,
        check=True,
    )
    return children_cpu() - before


def cold_and_warm(code: Path, args: list[str], runs: int) -> tuple[float, float]:
    """Median CPU of the first call with an empty cache folder, and of the call after it."""
    cold, warm = [], []
    for _ in range(runs):
        cache = Path(tempfile.mkdtemp(prefix="soulscope-bench-"))
        try:
            cold.append(run(code, args, cache))
            warm.append(run(code, args, cache))
        finally:
            shutil.rmtree(cache, ignore_errors=True)
    return statistics.median(cold), statistics.median(warm)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--world", type=Path, default=REAL_WORLD)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--before", type=Path, help="another checkout to measure beside this one")
    args = parser.parse_args()
    world = str(args.world)
    agents = cold_and_warm(ROOT, ["agents", "-w", world, "--json"], args.runs)
    rows = [("agents --json", agents)]
    search = ["search", QUERIES[0], "-w", world, "--mode", "bm25", "--json"]
    if args.before:
        rows.append(("search (before)", cold_and_warm(args.before.resolve(), search, args.runs)))
    rows.append(("search", cold_and_warm(ROOT, search, args.runs)))
    print(f"world {args.world}, median CPU of {args.runs} runs; cold: empty cache folder")
    print(
        f"{'command':<18}{'cold s':>8}{'warm s':>8}"
        f"{'cold/ag cold':>14}{'warm/ag cold':>14}{'warm/ag warm':>14}"
    )
    for name, (cold, warm) in rows:
        print(
            f"{name:<18}{cold:>8.3f}{warm:>8.3f}{cold / agents[0]:>14.2f}"
            f"{warm / agents[0]:>14.2f}{warm / agents[1]:>14.2f}"
        )
    cold, warm = rows[-1][1]
    print(
        f"target: cold search within 4x cold agents: {'ok' if cold <= 4 * agents[0] else 'MISSED'}"
    )
    print(
        f"target: warm search within 2x cold agents: {'ok' if warm <= 2 * agents[0] else 'MISSED'}"
    )
    print(
        f"target: warm search within 2x warm agents: {'ok' if warm <= 2 * agents[1] else 'MISSED'}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
