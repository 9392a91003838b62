"""What turning points and chapters cost: an arc's outline against building the arc's shift
classes, in the same run, on the big soul (218,000 frames, generated) and the real corpus.

Run: .venv/bin/python bench/chapters.py [--frames N]
Baselines: the arc's statements classed (``iter_arc`` into an ``Arc``, no outline), and a streamed
summary's loop without the words the outline needs. Target: the outline costs less than the
classes it sits on (O(n log n), numpy), and a streamed summary less than twice its baseline.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from soulscope.soul.chapters import Words, outline  # noqa: E402
from soulscope.soul.parse import parse  # noqa: E402
from soulscope.soul.trajectory import Arc, iter_arc, summarize  # noqa: E402
from tests.support.bigworld import BIG_SOUL_FRAMES, write_soul  # noqa: E402

CACHE = ROOT / ".soulscope-cache" / "bench"
CORPUS = ROOT.parent / "shared" / "corpus"


def best(fn, repeat: int = 3) -> float:
    """The fastest of ``repeat`` runs, seconds."""
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def classes_only(soul) -> Arc:
    statements = Arc(soul.frames.columns)
    for s in iter_arc(soul):
        statements.append(s)
    return statements


def streamed_baseline(soul) -> None:
    """The streamed summary's loop as it was before outlines: counts and magnitudes only."""
    shifted = 0
    drifts = []
    for s in iter_arc(soul):
        shifted += s.shift
        drifts.append(s.magnitude)


def measure(name: str, souls: list) -> list[str]:
    statements = sum(len(classes_only(s)) for s in souls)
    base = best(lambda: [classes_only(s) for s in souls])
    arcs = [classes_only(s) for s in souls]
    lexical = best(lambda: [outline(a.texts) for a in arcs])
    untitled = best(lambda: [outline(_words(a.texts), titled=False) for a in arcs])
    stream_base = best(lambda: [streamed_baseline(s) for s in souls])
    stream = best(lambda: [summarize("a", s) for s in souls])
    return [
        name,
        f"{statements:,}",
        f"{base:.3f}",
        f"{lexical:.3f} ({lexical / base:.2f}x)",
        f"{untitled:.3f}",
        f"{stream_base:.3f}",
        f"{stream:.3f} ({stream / stream_base:.2f}x)",
    ]


def _words(texts: list[str]) -> Words:
    words = Words(phrases=False)
    for text in texts:
        words.add(text)
    return words


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=BIG_SOUL_FRAMES)
    args = parser.parse_args()
    CACHE.mkdir(parents=True, exist_ok=True)
    path = CACHE / f"bigsoul-{args.frames}.md"
    if not path.exists():
        write_soul(path, args.frames)
    rows = [measure(f"big soul ({args.frames:,} frames)", [parse(path.read_bytes(), "big")])]
    for world in ("rappterbook", "rappterbook-later"):
        memory = CORPUS / world / "memory"
        if memory.is_dir():
            souls = [parse(p.read_bytes(), p.stem) for p in sorted(memory.glob("*.md"))]
            rows.append(measure(f"{world} ({len(souls)} files)", souls))
    header = [
        "arcs",
        "statements",
        "classes s (baseline)",
        "outline s",
        "untitled s",
        "stream s (baseline)",
        "streamed summary s",
    ]
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    for row in [header, *rows]:
        print("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
