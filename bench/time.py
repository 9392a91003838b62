"""What answering by the frames' own time costs: ``first`` and time-ordered search on the early
real world committed at once (116 files, one commit, as a world imported into git is).

Baselines in the same run: the git command that finds the same commits (``git log -S`` for an
exact term, ``git log -G -i`` for a word), and the same search without a time order (the question
without "first"). Terms are sampled from the corpus (words of 8+ letters used in 3 to 40 files).
Run: ``python bench/time.py [--terms 25]``.
"""

from __future__ import annotations

import argparse
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from soulscope.history.timeline import Timeline  # noqa: E402
from soulscope.recall.hybrid import RecallIndex  # noqa: E402
from soulscope.soul.terms import Term  # noqa: E402
from soulscope.world import World  # noqa: E402

MEMORY = ROOT.parent / "shared" / "corpus" / "rappterbook" / "memory"
_WORD = re.compile(r"[A-Za-z][a-z]{7,}")


def terms(n: int) -> list[str]:
    counts: dict[str, int] = {}
    for path in sorted(MEMORY.glob("*.md")):
        for w in set(_WORD.findall(path.read_text("utf-8", "replace"))):
            counts[w.lower()] = counts.get(w.lower(), 0) + 1
    common = sorted(w for w, c in counts.items() if 3 <= c <= 40)
    return random.Random(7).sample(common, min(n, len(common)))


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, capture_output=True, check=True)


def median_ms(fn: Callable[[str], object], items: list[str]) -> float:
    samples = []
    for item in items:
        start = time.perf_counter()
        fn(item)
        samples.append((time.perf_counter() - start) * 1000)
    return statistics.median(samples)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--terms", type=int, default=25)
    args = parser.parse_args()
    if not MEMORY.exists():
        print(f"the shared corpus is not here ({MEMORY})")
        return 1
    sample = terms(args.terms)
    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp) / "world"
        shutil.copytree(MEMORY, repo / "memory")
        git(repo, "init", "-q")
        git(repo, "add", "-A")
        git(repo, "-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qm", "import")
        world = World.open(repo)
        timeline = Timeline.open(world)
        timeline.first_mention(Term(sample[0]))  # warm git's processes and the blob cache

        rows = [
            (
                "first, as a word",
                median_ms(lambda t: timeline.first_mention(Term(t)), sample),
                "git log -G TERM -i",
                median_ms(lambda t: git(repo, "log", f"-G{t}", "-i", "--format=%H"), sample),
            ),
            (
                "first, exact",
                median_ms(lambda t: timeline.first_mention(Term(t, "exact")), sample),
                "git log -S TERM",
                median_ms(lambda t: git(repo, "log", f"-S{t}", "--format=%H"), sample),
            ),
        ]
        index = RecallIndex.for_world(World.open(repo))
        rows.append(
            (
                "search, earliest first (bm25)",
                median_ms(lambda t: index.find(f"when did {t} first come up?", 10, "bm25"), sample),
                "the same search, by relevance",
                median_ms(lambda t: index.find(f"what about {t}?", 10, "bm25"), sample),
            )
        )
    print(f"{len(sample)} terms sampled from the corpus; medians, ms")
    print(f"{'measure':34} {'soulscope':>10}   {'baseline':34} {'ms':>8} {'ratio':>7}")
    for what, ours, base, theirs in rows:
        print(f"{what:34} {ours:10.1f}   {base:34} {theirs:8.1f} {ours / theirs:6.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
