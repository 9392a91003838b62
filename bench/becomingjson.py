"""`becoming --json` on a big soul (200,000+ frames, about 20 MB, generated) beside two baselines
of the same soul, in the same run: `show --json` (memory) and a naive split-and-dump (time).

- Memory: peak RSS of each command's process. Target: `becoming --json` within 2x the memory of
  `show --json`.
- Time: CPU seconds (user + system) of each process, the median of ``--runs``. The naive
  split-and-dump reads the file line by line, takes each ``Becoming:`` bullet with its frame's
  number, date, time and heading, and writes them with ``json.dumps(indent=2)``: what a script
  that knows nothing of soul files would do. Target: `becoming --json` within 4x of it.

With ``--before DIR`` (another checkout) its `becoming --json` is measured too.

Run: .venv/bin/python bench/becomingjson.py [--frames N] [--runs 3] [--before DIR]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.support.bigworld import BIG_SOUL_FRAMES, big_soul  # noqa: E402

CACHE = ROOT / ".soulscope-cache" / "bench"
NAIVE = r"""
import json, re, sys
HEADING = re.compile(r"## Frame (\d+)\S* — (\d{4}-\d{2}-\d{2})(?: \((\d{2}:\d{2}) UTC\))?")
out, frame = [], None
with open(sys.argv[1], encoding="utf-8", errors="replace") as f:
    for number, line in enumerate(f, 1):
        if line.startswith("## "):
            m = HEADING.match(line)
            frame = (int(m[1]), m[2], m[3], line[3:].strip()) if m else None
        elif line.startswith("- Becoming:") and frame:
            out.append({"frame": frame[0], "date": frame[1], "time": frame[2],
                        "heading": frame[3], "text": line[11:].strip(), "line": number})
sys.stdout.write(json.dumps(out, ensure_ascii=False, indent=2))
"""


def measure(code: Path, command: list[str]) -> tuple[float, float]:
    """CPU seconds and peak RSS (MiB) of ``command`` run with the checkout ``code`` first."""
    env = {**os.environ, "PYTHONPATH": str(code)}
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, env=env, cwd=code)
    _, status, usage = os.wait4(proc.pid, 0)
    if os.waitstatus_to_exitcode(status):
        raise SystemExit(f"{' '.join(command)} failed")
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def median(code: Path, command: list[str], runs: int) -> tuple[float, float]:
    found = [measure(code, command) for _ in range(runs)]
    return statistics.median(c for c, _ in found), max(m for _, m in found)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--frames", type=int, default=BIG_SOUL_FRAMES)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--before", type=Path)
    args = parser.parse_args()
    folder = CACHE / f"bigsoul-{args.frames}"
    path = big_soul(folder, args.frames)
    cli = [sys.executable, "-m", "soulscope"]
    world = ["--world", str(folder), "--json"]
    rows = [
        ("naive split-and-dump", median(ROOT, [sys.executable, "-c", NAIVE, str(path)], args.runs)),
        ("show --json", median(ROOT, [*cli, "show", "big-soul", *world], args.runs)),
    ]
    if args.before:
        before = [*cli, "becoming", "big-soul", *world]
        rows.append(("becoming --json, before", median(args.before.resolve(), before, args.runs)))
    rows.append(
        ("becoming --json", median(ROOT, [*cli, "becoming", "big-soul", *world], args.runs))
    )
    naive, show = rows[0][1][0], rows[1][1][1]
    print(f"{path.name}: {path.stat().st_size / 1e6:.1f} MB, {args.frames:,} frames")
    print(f"median CPU of {args.runs} runs, peak RSS of any")
    print(f"{'command':<26}{'CPU s':>8}{'x naive':>9}{'peak MiB':>10}{'x show':>8}")
    for name, (cpu, mib) in rows:
        print(f"{name:<26}{cpu:>8.2f}{cpu / naive:>9.2f}{mib:>10.0f}{mib / show:>8.2f}")
    cpu, mib = rows[-1][1]
    print(f"target: becoming --json within 4x naive CPU: {'ok' if cpu <= 4 * naive else 'MISSED'}")
    print(f"target: becoming --json within 2x show memory: {'ok' if mib <= 2 * show else 'MISSED'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
