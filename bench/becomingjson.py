"""`becoming --json` on a big soul (218,000 frames, about 20 MB, generated) beside `show --json` of
the same soul, in the same run: peak memory (RSS) and wall time of each command's process. Target:
`becoming --json` within 2x the memory of `show --json`. With ``--before DIR`` (another checkout)
its `becoming --json` is measured too.

Run: .venv/bin/python bench/becomingjson.py [--frames N] [--before DIR]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.support.bigworld import BIG_SOUL_FRAMES, big_soul  # noqa: E402

CACHE = ROOT / ".soulscope-cache" / "bench"


def peak(code: Path, args: list[str]) -> tuple[float, float]:
    """Wall seconds and peak RSS (MiB) of ``soulscope ARGS`` run from the checkout ``code``."""
    env = {**os.environ, "PYTHONPATH": str(code)}
    started = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "soulscope", *args], stdout=subprocess.DEVNULL, env=env, cwd=code
    )
    _, status, usage = os.wait4(proc.pid, 0)
    if os.waitstatus_to_exitcode(status):
        raise SystemExit(f"soulscope {' '.join(args)} failed")
    return time.perf_counter() - started, usage.ru_maxrss / 1024


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--frames", type=int, default=BIG_SOUL_FRAMES)
    parser.add_argument("--before", type=Path)
    args = parser.parse_args()
    folder = CACHE / f"bigsoul-{args.frames}"
    path = big_soul(folder, args.frames)
    world = ["--world", str(folder), "--json"]
    rows = [("show --json (baseline)", peak(ROOT, ["show", "big-soul", *world]))]
    if args.before:
        rows.append(
            (
                "becoming --json, before",
                peak(args.before.resolve(), ["becoming", "big-soul", *world]),
            )
        )
    rows.append(("becoming --json", peak(ROOT, ["becoming", "big-soul", *world])))
    base = rows[0][1][1]
    print(f"{path.name}: {path.stat().st_size / 1e6:.1f} MB, {args.frames:,} frames")
    print(f"{'command':<26}{'wall s':>8}{'peak MiB':>10}{'x show':>8}")
    for name, (wall, mib) in rows:
        print(f"{name:<26}{wall:>8.2f}{mib:>10.0f}{mib / base:>8.2f}")
    ok = rows[-1][1][1] <= 2 * base
    print(f"target: becoming --json within 2x show --json memory: {'ok' if ok else 'MISSED'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
