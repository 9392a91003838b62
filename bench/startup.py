"""Start-up: the CPU of `soulscope --version` and of a short reading command beside a bare
interpreter (`python -c pass`), in the same run. A command imports only what it needs: the target
is `--version` within 4x the bare interpreter.

CPU time (user + system, of the child processes), the median of several runs: on a shared machine
the wall time moves with the load, the CPU time much less.

Run: .venv/bin/python bench/startup.py [--runs 15]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WORLD = ROOT / "state"  # the built-in demo world: small, so the start-up is what is measured


def children_cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def median_cpu(argv: list[str], runs: int) -> float:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    spent = []
    for _ in range(runs):
        before = children_cpu()
        subprocess.run(argv, stdout=subprocess.DEVNULL, env=env, cwd=ROOT, check=True)
        spent.append(children_cpu() - before)
    return statistics.median(spent)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    py = sys.executable
    rows = [
        ("python -c pass", [py, "-c", "pass"]),
        ("soulscope --version", [py, "-m", "soulscope", "--version"]),
        ("soulscope --help", [py, "-m", "soulscope", "--help"]),
        ("soulscope agents --json", [py, "-m", "soulscope", "agents", "-w", str(WORLD), "--json"]),
    ]
    measured = [(name, median_cpu(argv, args.runs)) for name, argv in rows]
    bare = measured[0][1]
    print(f"median CPU of {args.runs} runs each")
    print(f"{'command':<26}{'CPU ms':>9}{'x bare':>9}")
    for name, spent in measured:
        print(f"{name:<26}{spent * 1e3:>9.1f}{spent / bare:>9.2f}")
    version = measured[1][1]
    print(f"target: --version within 4x bare: {'ok' if version <= 4 * bare else 'MISSED'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
