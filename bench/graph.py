"""The first ``graph`` (nothing kept) on generated worlds of 5,000 and 10,000 agents, against a
warm ``agents --json`` in the same run, each a fresh process; then, in this process, where a first
graph's time goes: reading the arcs, and the measures (PageRank, betweenness, groups) as they
are and with Louvain groups at every size (the measures before label propagation took over
above 2,000 agents). Wall time and CPU time; on a loaded machine the CPU time is the figure.
Target: the first graph within 5x of warm ``agents --json``.

Run: .venv/bin/python bench/graph.py [--agents 5000 10000] [--frames F]
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
from soulscope.history import graph  # noqa: E402
from soulscope.world import World  # noqa: E402
from tests.support.bigworld import influence_world  # noqa: E402

CACHE = ROOT / ".soulscope-cache" / "bench"


def cpu(fn) -> float:  # noqa: ANN001
    start = time.process_time()
    fn()
    return time.process_time() - start


def louvain_measures(g: graph.Influence, present: set[str]) -> None:
    """The measures with Louvain groups at every size (as before)."""
    threshold = graph.SAMPLED_BETWEENNESS
    graph.SAMPLED_BETWEENNESS = 10**9  # groups by Louvain; betweenness then exact: set k below
    try:
        import networkx as nx

        real = nx.betweenness_centrality

        def sampled(d, k=None, seed=None):  # noqa: ANN001, ANN202
            n = d.number_of_nodes()
            return real(d, k=min(n, graph.SAMPLES) if n > threshold else None, seed=graph.SEED)

        nx.betweenness_centrality = sampled
        graph._measure(g, present)
    finally:
        nx.betweenness_centrality = real
        graph.SAMPLED_BETWEENNESS = threshold


def one(agents: int, frames: int) -> None:
    folder = influence_world(CACHE / f"influence-{agents}x{frames}", agents, frames)
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
    graph._measure(found[0], present)  # networkx and scipy imported: not counted below
    before = cpu(lambda: louvain_measures(found[0], present))
    now = cpu(lambda: graph._measure(found[0], present))
    print(f"{agents:,} agents x {frames} frames, load average {os.getloadavg()[0]:.1f}")
    print(f"  agents --json (warm)   wall {base[0]:6.2f} s  cpu {base[1]:6.2f} s")
    print(
        f"  graph --json (first)   wall {first[0]:6.2f} s  cpu {first[1]:6.2f} s  "
        f"= {first[0] / base[0]:.1f}x wall, {first[1] / base[1]:.1f}x cpu"
    )
    print(
        f"  in process, cpu: arcs read {read:.2f} s; measures {now:.2f} s (Louvain: {before:.2f} s)"
    )


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--agents", type=int, nargs="+", default=[5_000, 10_000])
    parser.add_argument("--frames", type=int, default=50)
    args = parser.parse_args()
    for n in args.agents:
        one(n, args.frames)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
