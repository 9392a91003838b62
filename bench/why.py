"""`why` over every identity statement of the largest real soul file, against parsing it once.

Run: .venv/bin/python bench/why.py [WORLD]   (default: the early-era corpus, 116 files)
The world is read as files (no repository): the dossier's cost is the mention index, the
influencer states, the precursors and the narrative. Cold is the first call (it builds the
world's index); warm are the calls after it. Target: p95 per statement under 100 ms warm.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from soulscope.history.why import explain  # noqa: E402
from soulscope.soul.parse import parse  # noqa: E402
from soulscope.soul.trajectory import arc  # noqa: E402
from soulscope.world import World  # noqa: E402

DEFAULT = ROOT.parent / "shared" / "corpus" / "rappterbook"
TARGET_P95_MS = 100.0
PARSE_REPEAT = 7


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main() -> int:
    where = Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT
    if not where.exists():
        print(f"bench/why.py: the corpus is not here ({where}); nothing measured")
        return 0
    world = World.open(where)
    largest = max(world.agents(), key=lambda a: a.size)
    data = largest.path.read_bytes()
    samples = []
    for _ in range(PARSE_REPEAT):
        t = time.perf_counter()
        soul = parse(data, agent_id=largest.id)
        samples.append(time.perf_counter() - t)
    parse_ms = statistics.median(samples) * 1000
    statements = arc(soul)

    t = time.perf_counter()
    explain(world, largest.id, index=1)
    cold_ms = (time.perf_counter() - t) * 1000
    warm = []
    for i in range(1, len(statements) + 1):
        t = time.perf_counter()
        explain(world, largest.id, index=i)
        warm.append((time.perf_counter() - t) * 1000)

    print(
        f"World: {where} — {len(world.agents())} soul files; largest {largest.id} "
        f"({largest.size / 1e3:.0f} KB, {len(soul.frames)} frames, {len(statements)} statements)"
    )
    print(f"{'measure':<44} {'ms':>9} {'x parse':>8}")
    rows = [
        ("baseline: parse the largest file once", parse_ms),
        ("why, first call (builds the world index)", cold_ms),
        ("why per statement, warm p50", statistics.median(warm)),
        ("why per statement, warm p95", percentile(warm, 0.95)),
        ("why per statement, warm max", max(warm)),
    ]
    for name, ms in rows:
        print(f"{name:<44} {ms:>9.1f} {ms / parse_ms:>8.1f}")
    p95 = rows[3][1]
    verdict = "meets" if p95 < TARGET_P95_MS else "MISSES"
    print(f"target: warm p95 under {TARGET_P95_MS:.0f} ms -> {p95:.1f} ms ({verdict})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
