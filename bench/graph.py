"""The first ``graph`` (its table, then ``--json``) on generated worlds of 5,000 and 10,000 agents,
against a warm ``agents --json`` in the same run, each a fresh process: after the listing (which
keeps each file's link tallies: no answer kept, no soul file read), and with nothing kept (a cache
where the listing keeps no links: every file read); the cold listing, with and without keeping
the links; then, in this process, where a first graph's time goes: the arcs from the kept
tallies, the measures, the JSON text. Wall time and CPU time (a command's worker processes
included); on a loaded machine the CPU time is the figure. Target: the first graph within 5x of
warm ``agents --json``.

The worlds' soul files are as large and as dense in names as the real corpus's
(``tests.support.bigworld.corpus_world``: about 40 KB, 50 frames and 200 named agents a file,
a registry with display names); ``--light`` takes the older, lighter worlds of 7 KB files that
name about 60 agents each (``influence_world``).

Run: .venv/bin/python bench/graph.py [--agents 5000 10000] [--frames F] [--light] [--runs N]
The worlds are generated once into .soulscope-cache/bench/ and reused.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
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


def _median(times: list[tuple[float, float]]) -> tuple[float, float]:
    """The median wall and the median CPU time of runs."""
    return statistics.median(t[0] for t in times), statistics.median(t[1] for t in times)


def one(agents: int, frames: int, light: bool, runs: int) -> None:
    if light:
        folder = influence_world(CACHE / f"influence-{agents}x{frames}", agents, frames)
    else:
        folder = corpus_world(CACHE / f"corpus-{agents}x{frames}", agents, frames)
    w = ["--world", str(folder)]
    # A cache where the listing keeps the links (as it does by default) ...
    kept = Path(tempfile.mkdtemp(prefix="soulscope-bench-"))
    os.environ["SOULSCOPE_CACHE"] = str(kept)
    cold = run("agents", *w, "--json")
    bases, tables, firsts = [], [], []
    for _ in range(runs):  # interleaved: a busy moment weighs on all three alike
        # The baseline: the index warm, and not even the check of whether the links are kept
        # (a few hundredths of a second more in a listing that keeps them).
        os.environ["SOULSCOPE_KEEP_LINKS"] = "0"
        bases.append(run("agents", *w, "--json"))
        del os.environ["SOULSCOPE_KEEP_LINKS"]
        tables.append(run("graph", *w))  # the table: nothing kept of it but each file's links
        firsts.append(run("graph", *w, "--json"))  # the whole answer, made (and kept)
        shutil.rmtree(kept / "memo", ignore_errors=True)  # (the next is a first one again)
    base, table, first = (_median(x) for x in (bases, tables, firsts))
    # ... and one where it keeps none: the listing as it was, and a graph that reads every file
    plain = Path(tempfile.mkdtemp(prefix="soulscope-bench-"))
    os.environ["SOULSCOPE_CACHE"] = str(plain)
    os.environ["SOULSCOPE_KEEP_LINKS"] = "0"
    cold_plain = run("agents", *w, "--json")
    read_all = run("graph", *w, "--json")
    del os.environ["SOULSCOPE_KEEP_LINKS"]
    shutil.rmtree(plain, ignore_errors=True)
    os.environ["SOULSCOPE_CACHE"] = str(kept)
    world = World.open(folder)
    present = {a.id for a in world.agents()}
    found: list[graph.Influence] = []
    read = cpu(lambda: found.append(graph.influence(world, measures=False)))
    shutil.rmtree(kept, ignore_errors=True)
    g = found[0]
    with collector.paused():  # as ``influence`` measures (a full collection costs 0.1 s)
        measures = cpu(lambda: graph._measure(g, present))
    text = cpu(lambda: graph.graph_text(g))
    size = sum(p.stat().st_size for p in (folder / "memory").iterdir()) / 1e6
    print(
        f"{agents:,} agents x {frames} frames ({size:.0f} MB of soul files, {len(g.arcs):,} arcs), "
        f"load average {os.getloadavg()[0]:.1f}, {graph.cores()} processors; "
        f"warm listing and first graphs: median of {runs}"
    )
    print(f"  agents --json (warm, no check)  wall {base[0]:6.2f} s  cpu {base[1]:6.2f} s")
    for label, (wall, used) in (
        ("graph (first)", table),
        ("graph --json (first)", first),
        ("graph --json (nothing kept)", read_all),
    ):
        print(
            f"  {label:<30}  wall {wall:6.2f} s  cpu {used:6.2f} s  "
            f"= {wall / base[0]:.1f}x wall, {used / base[1]:.1f}x cpu"
        )
    print(
        f"  agents --json (cold)            wall {cold[0]:6.2f} s  cpu {cold[1]:6.2f} s  "
        f"(keeping no links: wall {cold_plain[0]:.2f} s, cpu {cold_plain[1]:.2f} s)"
    )
    print(
        f"  in process, cpu: arcs from the kept tallies {read:.2f} s; measures {measures:.2f} s; "
        f"text {text:.2f} s"
    )


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--agents", type=int, nargs="+", default=[5_000, 10_000])
    parser.add_argument("--frames", type=int, default=50)
    parser.add_argument("--light", action="store_true", help="the older worlds of 7 KB files")
    parser.add_argument("--runs", type=int, default=3, help="runs of the warm listing and graphs")
    args = parser.parse_args()
    for n in args.agents:
        one(n, args.frames, args.light, args.runs)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
