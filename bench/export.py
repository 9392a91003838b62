"""``export`` on a generated world of 50,000 agents that cite each other, against ``agents --json``
with its index warm, in the same run: wall time, CPU time and peak memory (the largest resident
set of the process), each command a fresh process as a user runs it.

The export is streamed: its peak memory stays near what one soul file and a batch of rows per
table need, whatever the number of agents (``--agents`` smaller shows it does not grow).

Run: .venv/bin/python bench/export.py [--agents N] [--frames F] [--format parquet|csv|jsonl]
The world is generated once into .soulscope-cache/bench/ and reused.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.support.bigworld import influence_world  # noqa: E402

CACHE = ROOT / ".soulscope-cache" / "bench"


def run(*args: str) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds and peak resident MB of ``soulscope ARGS`` in a new process."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    start = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "soulscope", *args], stdout=subprocess.DEVNULL, env=env
    )
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status):
        raise SystemExit(f"soulscope {' '.join(args)} failed")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--agents", type=int, default=50_000)
    parser.add_argument("--frames", type=int, default=20)
    parser.add_argument("--format", default="parquet")
    args = parser.parse_args()
    folder = influence_world(
        CACHE / f"influence-{args.agents}x{args.frames}", args.agents, args.frames
    )
    cache = Path(tempfile.mkdtemp(prefix="soulscope-bench-"))
    out = Path(tempfile.mkdtemp(prefix="soulscope-export-"))
    os.environ["SOULSCOPE_CACHE"] = str(cache)
    try:
        w = ["--world", str(folder)]
        run("agents", *w, "--json")  # builds the index: the baseline is warm
        base = run("agents", *w, "--json")
        done = run("export", str(out), "--format", args.format, *w)
        size = sum(p.stat().st_size for p in out.iterdir()) / 1e6
    finally:
        shutil.rmtree(cache, ignore_errors=True)
        shutil.rmtree(out, ignore_errors=True)
    print(f"world: {args.agents} agents x {args.frames} frames ({folder})")
    print(f"{'command':<34} {'wall s':>8} {'cpu s':>8} {'peak MB':>8}")
    print(f"{'agents --json (warm, baseline)':<34} {base[0]:8.1f} {base[1]:8.1f} {base[2]:8.0f}")
    name = f"export --format {args.format}"
    print(f"{name:<34} {done[0]:8.1f} {done[1]:8.1f} {done[2]:8.0f}")
    print(f"export: {size:.0f} MB of files; {done[0] / base[0]:.1f}x the baseline's wall time")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
