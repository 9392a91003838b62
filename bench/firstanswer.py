"""The first cited answer of `soulscope chat` and `ask` with an empty cache folder, beside
`agents --json` (empty cache too), in the same run: nothing may wait for the embeddings.

Each command runs offline (no LLM: the answer is the cited evidence, so the LLM's own time is left
out), from a fresh cache folder; the time is from start to the first cited answer on stdout (wall)
and the process's CPU. ``--hybrid`` also runs `chat --mode hybrid`, which waits for every text to be
embedded first as every chat did before (minutes on a large world: use it on a small one).

Target: the first cited answer of `chat` within 10x `agents --json`.

Run: .venv/bin/python bench/firstanswer.py [--world DIR] [--runs 3] [--hybrid]
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
REAL_WORLD = ROOT.parent / "shared" / "corpus" / "rappterbook"
QUESTION = "who argued about governance?"


def children_cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def first_answer(args: list[str], stdin: str = "") -> tuple[float, float]:
    """Wall seconds to the first line with a citation on stdout, and the process's CPU seconds."""
    cache = tempfile.mkdtemp(prefix="soulscope-bench-")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "SOULSCOPE_CACHE": cache}
    env.pop("OPENAI_BASE_URL", None)
    env["SOULSCOPE_BACKGROUND"] = "0"  # the measured process only
    before = children_cpu()
    started = time.perf_counter()
    with subprocess.Popen(
        [sys.executable, "-m", "soulscope", *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
        cwd=ROOT,
        text=True,
    ) as proc:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(stdin)
        proc.stdin.close()
        answered = None
        for line in proc.stdout:
            if answered is None and "[" in line and "·" in line:
                answered = time.perf_counter() - started
        proc.wait()
    shutil.rmtree(cache, ignore_errors=True)
    return (answered if answered is not None else float("nan")), children_cpu() - before


def median(rows: list[tuple[float, float]]) -> tuple[float, float]:
    return statistics.median(r[0] for r in rows), statistics.median(r[1] for r in rows)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--world", type=Path, default=REAL_WORLD)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--hybrid", action="store_true", help="also chat --mode hybrid (waits)")
    args = parser.parse_args()
    world = str(args.world)
    agents = ["agents", "-w", world, "--json"]
    chat = ["chat", "--user", "bench", "-w", world]
    sys.path.insert(0, str(ROOT))
    from soulscope.world import World

    first = World.open(world).agents()[0].id
    ask = ["ask", "--json", "-w", world, "--", first, QUESTION]
    measures = [
        ("agents --json (baseline)", agents, ""),
        ("chat, first answer", chat, QUESTION + "\n"),
        ("ask --json", ask, ""),
    ]
    if args.hybrid:
        measures.append(("chat --mode hybrid", [*chat, "--mode", "hybrid"], QUESTION + "\n"))
    results = []
    for name, command, stdin in measures:
        if not name.startswith("chat"):  # printed at the end (agents, ask --json): the whole run
            rows = []
            for _ in range(args.runs):
                started = time.perf_counter()
                _, spent = first_answer(command)
                rows.append((time.perf_counter() - started, spent))
        else:
            rows = [first_answer(command, stdin) for _ in range(args.runs)]
        results.append((name, median(rows)))
    base_wall, base_cpu = results[0][1]
    print(f"world {args.world}, empty cache folder each run, median of {args.runs}")
    print(f"{'command':<28}{'wall s':>9}{'x agents':>10}{'cpu s':>9}{'x agents':>10}")
    for name, (wall, spent) in results:
        print(
            f"{name:<28}{wall:>9.2f}{wall / base_wall:>10.2f}{spent:>9.2f}{spent / base_cpu:>10.2f}"
        )
    chat_wall = results[1][1][0]
    print(
        f"target: chat's first answer within 10x agents: {'ok' if chat_wall <= 10 * base_wall else 'MISSED'}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
