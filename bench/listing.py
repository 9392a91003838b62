"""Cold world listing as the world grows: the CPU that `soulscope agents --json` spends per agent
with an empty world index, at two sizes of generated world, beside reading every file
(`find memory -name '*.md' | xargs cat > /dev/null`) in the same run.

Each size runs twice: with the code as it is, and with the agent lookup of old (``World.agent``
scanning the list of agents for each id it is asked for), patched in, so that before and after are
measured in the same run. Per-agent CPU should stay flat as the world grows.

Run: .venv/bin/python bench/listing.py [--sizes 2000 20000] [--frames 10]
Worlds are generated once into .soulscope-cache/bench/ and reused.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.world import cpu, generated  # noqa: E402

# The lookup as it was: a scan of the agent list per id (what made a cold listing quadratic).
_OLD_LOOKUP = """
import soulscope.world as w
def agent(self, agent_id):
    w.check_id(agent_id)
    for a in self.agents():
        if a.id == agent_id:
            return a
    raise w.WorldError(f"no agent '{agent_id}' in {self.memory_dir}")
w.World.agent = agent
"""


def cold_agents(folder: Path, old: bool) -> float:
    """CPU seconds of one `agents --json` with an empty cache folder."""
    cache = tempfile.mkdtemp(prefix="soulscope-bench-")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "SOULSCOPE_CACHE": cache}
    code = (_OLD_LOOKUP if old else "") + (
        "\nfrom soulscope.cli import main\n"
        f"raise SystemExit(main(['agents', '--world', {str(folder)!r}, '--json']))\n"
    )
    before = cpu()
    subprocess.run(
        [sys.executable, "-c", code], stdout=subprocess.DEVNULL, env=env, cwd=ROOT, check=True
    )
    spent = cpu() - before
    shutil.rmtree(cache, ignore_errors=True)
    return spent


def cat(folder: Path) -> float:
    before = cpu()
    subprocess.run(
        f"find {folder / 'memory'} -name '*.md' | xargs cat > /dev/null", shell=True, check=True
    )
    return cpu() - before


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[2_000, 20_000])
    parser.add_argument("--frames", type=int, default=10)
    args = parser.parse_args()
    rows = []
    for n in args.sizes:
        folder = generated(n, args.frames)
        rows.append((n, cat(folder), cold_agents(folder, old=True), cold_agents(folder, old=False)))
    print(
        f"Cold `agents --json` (empty world index), generated worlds of {args.frames} frames/agent"
    )
    print(f"{'agents':>8}{'cat ms/agent':>14}{'old ms/agent':>14}{'new ms/agent':>14}")
    for n, c, old, new in rows:
        print(f"{n:>8,}{c / n * 1e3:>14.3f}{old / n * 1e3:>14.3f}{new / n * 1e3:>14.3f}")
    (small, *_, old_s, new_s), (big, *_, old_b, new_b) = rows[0], rows[-1]
    old_growth = (old_b / big) / (old_s / small)
    new_growth = (new_b / big) / (new_s / small)
    print(
        f"per-agent CPU growth {small:,} -> {big:,}: old {old_growth:.2f}x, new {new_growth:.2f}x"
    )
    print(f"target: new within 1.2x: {'ok' if new_growth <= 1.2 else 'MISSED'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
