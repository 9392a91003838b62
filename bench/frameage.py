"""An offline frame's CPU as the world ages: the same generated world advanced frame after frame,
CPU of a frame around frame 5 and around frame 50 (and of its brain's deciding alone), with this
checkout and, with ``--before DIR``, another one, in the same run. Target: flat (within 1.2x)
from frame 5 to frame 50. Both runs must leave the same soul files (the digest is printed).

Run: .venv/bin/python bench/frameage.py [--agents 300] [--frames 50] [--before DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Run inside the checkout measured: it builds the world, advances it, prints JSON.
_RUN = """
import hashlib, json, sys, tempfile, time
from pathlib import Path
from bench.frames import build_world
from soulscope.sim.frame import FrameRunner
from soulscope.sim.offline import OfflineBrain
agents, frames = int(sys.argv[1]), int(sys.argv[2])
world = build_world(Path(tempfile.mkdtemp(prefix="soulscope-bench-")) / "w", agents)
cpu, decide = [], []
with FrameRunner(world, OfflineBrain()) as runner:
    for _ in range(frames):
        t = time.process_time()
        result = runner.step()
        cpu.append(time.process_time() - t)
        decide.append(result.timings["decide"])
h = hashlib.sha256()
for p in sorted((world / "memory").glob("*.md")):
    h.update(p.read_bytes())
print(json.dumps({"cpu": cpu, "decide": decide, "digest": h.hexdigest()[:16]}))
"""


def measure(code: Path, agents: int, frames: int) -> dict:
    env = {**os.environ, "PYTHONPATH": f"{code}{os.pathsep}{ROOT}"}
    out = subprocess.run(
        [sys.executable, "-c", _RUN, str(agents), str(frames)],
        capture_output=True,
        text=True,
        env=env,
        cwd=code,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def around(values: list[float], frame: int) -> float:
    """The median of the three frames around ``frame`` (1-based)."""
    window = sorted(values[max(0, frame - 2) : frame + 1])
    return window[len(window) // 2]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--agents", type=int, default=300)
    parser.add_argument("--frames", type=int, default=50)
    parser.add_argument("--before", type=Path)
    args = parser.parse_args()
    late = args.frames - 1
    runs = []
    if args.before:
        runs.append(("before", measure(args.before.resolve(), args.agents, args.frames)))
    runs.append(("after", measure(ROOT, args.agents, args.frames)))
    print(f"{args.agents} agents, offline brain, CPU s of one frame (median of 3 around it)")
    print(
        f"{'code':<8}{'frame 5':>9}{f'frame {late}':>10}{'x':>7}{'decide 5':>10}"
        f"{f'decide {late}':>11}{'x':>7}  digest"
    )
    for name, r in runs:
        a, b = around(r["cpu"], 5), around(r["cpu"], late)
        c, d = around(r["decide"], 5), around(r["decide"], late)
        print(
            f"{name:<8}{a:>9.3f}{b:>10.3f}{b / a:>7.2f}{c:>10.3f}{d:>11.3f}{d / c:>7.2f}"
            f"  {r['digest']}"
        )
    r = runs[-1][1]
    growth = around(r["cpu"], late) / around(r["cpu"], 5)
    print(
        f"target: frame CPU flat (within 1.2x) from 5 to {late}: "
        f"{'ok' if growth <= 1.2 else 'MISSED'} ({growth:.2f}x)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
