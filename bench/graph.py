"""The first ``graph`` (nothing kept) on generated worlds of 5,000 and 10,000 agents, against a
warm ``agents --json`` in the same run, each a fresh process; then, in this process, where a first
graph's time goes: reading the arcs, the measures, the JSON text. Wall time and CPU time; on a
loaded machine the CPU time is the figure. Target: the first graph within 5x of warm
``agents --json``.

The worlds' soul files are as large and as dense in names as the real corpus's
(``tests.support.bigworld.corpus_world``: about 40 KB, 50 frames and 200 named agents a file,
a registry with display names); ``--light`` takes the older, lighter worlds of 7 KB files that
name about 60 agents each (``influence_world``).

Run: .venv/bin/python bench/graph.py [--agents 5000 10000] [--frames F] [--light]
The worlds are generated once into .soulscope-cache/bench/ and reused.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.spread import run  # noqa: E402
from soulscope import collector  # noqa: E402
from soulscope.history import graph  # noqa: E402
from soulscope.world import World  # noqa: E402
from tests.support.bigworld import corpus_world, influence_world  # noqa: E402

CACHE = ROOT / ".soulscope-cache" / "bench"


def cpu(fn) -> float:  # noqa: ANN001
    start = time.process_time()
    fn()
    return time.process_time() - start


def one(agents: int, frames: int, light: bool) -> None:
    if light:
        folder = influence_world(CACHE / f"influence-{agents}x{frames}", agents, frames)
    else:
        folder = corpus_world(CACHE / f"corpus-{agents}x{frames}", agents, frames)
    cache = Path(tempfile.mkdtemp(prefix="soulscope-bench-"))
    os.environ["SOULSCOPE_CACHE"] = str(cache)
    w = ["--world", str(folder)]
    run("agents", *w, "--json")  # the index: the baseline is warm
    base = run("agents", *w, "--json")
    shutil.rmtree(cache / "memo", ignore_errors=True)
    first = run("graph", *w, "--json")
    shutil.rmtree(cache, ignore_errors=True)
    world = World.open(folder)
    present = {a.id for a in world.agents()}
    found: list[graph.Influence] = []
    read = cpu(lambda: found.append(graph.influence(world, measures=False)))
    g = found[0]
    with collector.paused():  # as ``influence`` measures (a full collection costs 0.1 s)
        measures = cpu(lambda: graph._measure(g, present))
    text = cpu(lambda: graph.graph_text(g))
    size = sum(p.stat().st_size for p in (folder / "memory").iterdir()) / 1e6
    print(
        f"{agents:,} agents x {frames} frames ({size:.0f} MB of soul files, {len(g.arcs):,} arcs), "
        f"load average {os.getloadavg()[0]:.1f}"
    )
    print(f"  agents --json (warm)   wall {base[0]:6.2f} s  cpu {base[1]:6.2f} s")
    print(
        f"  graph --json (first)   wall {first[0]:6.2f} s  cpu {first[1]:6.2f} s  "
        f"= {first[0] / base[0]:.1f}x wall, {first[1] / base[1]:.1f}x cpu"
    )
    print(
        f"  in process, cpu: arcs read {read:.2f} s; measures {measures:.2f} s; text {text:.2f} s"
    )


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--agents", type=int, nargs="+", default=[5_000, 10_000])
    parser.add_argument("--frames", type=int, default=50)
    parser.add_argument("--light", action="store_true", help="the older worlds of 7 KB files")
    args = parser.parse_args()
    for n in args.agents:
        one(n, args.frames, args.light)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
