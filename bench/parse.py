"""Parse the whole real corpus: soulscope's parser against the floor of only reading and decoding.

Run: .venv/bin/python bench/parse.py [CORPUS_MEMORY_DIR]
Prints one table; the floor and the target are measured/stated in the same run.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from soulscope.soul.parse import parse  # noqa: E402
from soulscope.soul.trajectory import arc  # noqa: E402
from soulscope.world import World  # noqa: E402

DEFAULT = ROOT.parent / "shared" / "corpus" / "rappterbook"
REPEAT = 7
TARGET_S = 0.3


def timed(fn, repeat: int = REPEAT) -> float:
    """Median wall time of ``fn()`` over ``repeat`` runs (after one warm-up)."""
    fn()
    samples = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - t)
    return statistics.median(samples)


def main() -> int:
    where = Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT
    if not where.exists():
        print(f"bench/parse.py: the corpus is not here ({where}); nothing measured")
        return 0
    world = World.open(where)
    paths = [a.path for a in world.agents()]
    total = sum(p.stat().st_size for p in paths)
    blobs = [p.read_bytes() for p in paths]

    def read_decode() -> None:
        for p in paths:
            p.read_bytes().decode("utf-8", "surrogateescape")

    def read_parse() -> None:
        for p in paths:
            parse(p.read_bytes())

    def parse_only() -> None:
        for b in blobs:
            parse(b)

    def parse_arcs() -> None:
        for b in blobs:
            arc(parse(b))

    def list_world() -> None:
        World.open(where).agents()

    rows = [
        ("floor: read + decode only", timed(read_decode)),
        ("list the world (no parsing)", timed(list_world)),
        ("parse (bytes in memory)", timed(parse_only)),
        ("read + parse (whole corpus)", timed(read_parse)),
        # frames are built when asked for: this is what a reader of every frame pays
        (
            "read + parse + every frame",
            timed(lambda: [list(parse(p.read_bytes()).frames) for p in paths]),
        ),
        (
            "read + parse + Becoming arcs",
            timed(lambda: [arc(parse(p.read_bytes())) for p in paths]),
        ),
    ]
    mb = total / 1e6
    print(f"Corpus: {where} — {len(paths)} soul files, {mb:.2f} MB; median of {REPEAT} runs")
    print(f"{'operation':<32} {'seconds':>9} {'MB/s':>8} {'x floor':>8}")
    floor = rows[0][1]
    for name, s in rows:
        print(f"{name:<32} {s:>9.4f} {mb / s:>8.1f} {s / floor:>8.1f}")
    whole = rows[3][1]
    verdict = "meets" if whole < TARGET_S else "MISSES"
    print(f"target: whole corpus parsed under {TARGET_S} s -> {whole:.3f} s ({verdict})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
