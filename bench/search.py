"""Search latency: one agent, and a world of 30,000 chunks, with the model warm; cold CLI runs.

The world is the real early corpus (``../shared/corpus/rappterbook``, 116 soul files) copied four
times under new agent ids, which gives about 34,000 frame-sized chunks and 153,000 bullets, each
scored (a copy's chunks have the same text, so the embedding cache embeds the corpus once).
``--files N --copies C`` copies only N files C times: as many chunks for less embedding.
Baselines from the same run: the query embedding alone (the floor of any dense search),
rank-bm25's own ``get_scores`` over the same chunks (what scoring without precomputed postings
costs), and the float32 embedding matrix times the query vector (what the dense side cost before
it read a bfloat16 copy where that is faster). Cold runs time ``soulscope search`` as a
process against ``python -c "import sentence_transformers"``.

    python bench/search.py [--copies 4] [--files N] [--queries 50]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from soulscope.recall.hybrid import RecallIndex  # noqa: E402
from soulscope.recall.lexical import tokenize  # noqa: E402
from soulscope.recall.semantic import EmbeddingCache, MiniLM  # noqa: E402
from soulscope.world import World  # noqa: E402

QUERIES = [
    "when did the coder start caring about ownership",
    "who argued that governance is structure",
    "#4739 bio-inspired engineering",
    "what does the philosopher think about memory and forgetting",
    "the debate about deleting old posts",
    "zion-debater-06 changed its mind",
    "a proposal to archive dead channels",
    "who is afraid of being forgotten",
    "ranking the best stories of the week",
    "consensus versus dissent in voting",
]


def percentiles(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return ordered[len(ordered) // 2], ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]


def timed(fn, queries: list[str]) -> tuple[float, float]:
    samples = []
    for q in queries:
        t = time.perf_counter()
        fn(q)
        samples.append((time.perf_counter() - t) * 1000)
    return percentiles(samples)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", default=str(ROOT.parent / "shared/corpus/rappterbook"))
    parser.add_argument("--copies", type=int, default=4)
    parser.add_argument(
        "--files", type=int, help="copy only this many soul files (zion-coder-06 among them)"
    )
    parser.add_argument("--queries", type=int, default=50)
    args = parser.parse_args()
    queries = (QUERIES * (args.queries // len(QUERIES) + 1))[: args.queries]

    with tempfile.TemporaryDirectory() as tmp:
        memory = Path(tmp) / "memory"
        memory.mkdir()
        souls = sorted((Path(args.corpus) / "memory").glob("*.md"))
        if args.files:
            souls = sorted(
                {*souls[: args.files - 1], Path(args.corpus) / "memory/zion-coder-06.md"}
            )
        for copy in range(args.copies):
            for soul in souls:
                shutil.copy(soul, memory / f"{soul.stem}-c{copy}.md")
        world = World.open(tmp)
        t = time.perf_counter()
        index = RecallIndex.for_world(world)
        lexical_build = time.perf_counter() - t
        encoder = MiniLM()
        t = time.perf_counter()
        index.attach(encoder, EmbeddingCache())  # the user's cache: a second run embeds nothing
        attach = time.perf_counter() - t
        agent = "zion-coder-06-c0"
        print(
            f"world: {len(world.agents())} agents, {len(index)} chunks, {len(index.units)} "
            f"bullets; BM25 index built in {lexical_build:.2f} s, vectors attached in "
            f"{attach:.1f} s ({encoder.texts_encoded} bullets embedded); model on "
            f"{encoder.device}\n"
        )
        for q in queries[:10]:  # warm-up
            index.search(q, k=10, mode="hybrid")

        from rank_bm25 import BM25Okapi

        okapi = BM25Okapi([tokenize(u.lexical) for u in index.units])
        query_vectors = {q: encoder.encode([q])[0] for q in QUERIES}
        rows = [
            ("query embedding alone (floor)", timed(lambda q: encoder.encode([q]), queries)),
            (
                "one agent, bm25",
                timed(lambda q: index.search(q, k=10, mode="bm25", agent=agent), queries),
            ),
            (
                "one agent, dense",
                timed(lambda q: index.search(q, k=10, mode="dense", agent=agent), queries),
            ),
            (
                "one agent, hybrid",
                timed(lambda q: index.search(q, k=10, mode="hybrid", agent=agent), queries),
            ),
            ("world, bm25", timed(lambda q: index.search(q, k=10, mode="bm25"), queries)),
            ("world, dense", timed(lambda q: index.search(q, k=10, mode="dense"), queries)),
            ("world, hybrid", timed(lambda q: index.search(q, k=10, mode="hybrid"), queries)),
            (
                "world, float32 matrix x query (baseline)",
                timed(lambda q: index.vectors @ query_vectors[q], queries),
            ),
            (
                "world, rank-bm25 get_scores (baseline)",
                timed(lambda q: okapi.get_scores(tokenize(q)), queries[:10]),
            ),
        ]
        print(f"{'warm query, k = 10':<40} | {'p50 ms':>8} | {'p95 ms':>8}")
        print(f"{'-' * 40}-+-{'-' * 8}-+-{'-' * 8}")
        for label, (p50, p95) in rows:
            print(f"{label:<40} | {p50:>8.1f} | {p95:>8.1f}")

        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        cold = []
        for label, cmd in [
            (
                "python -c 'import sentence_transformers'",
                [sys.executable, "-c", "import sentence_transformers"],
            ),
            (
                "soulscope search --mode bm25",
                [
                    sys.executable,
                    "-m",
                    "soulscope",
                    "search",
                    "ownership",
                    "-w",
                    tmp,
                    "--agent",
                    agent,
                    "--mode",
                    "bm25",
                    "--json",
                ],
            ),
            (
                "soulscope search (hybrid)",
                [
                    sys.executable,
                    "-m",
                    "soulscope",
                    "search",
                    "ownership",
                    "-w",
                    tmp,
                    "--agent",
                    agent,
                    "--json",
                ],
            ),
        ]:
            t = time.perf_counter()
            subprocess.run(cmd, check=True, capture_output=True, env=env, cwd=ROOT)
            cold.append((label, time.perf_counter() - t))
        print(f"\n{'cold process, one agent':<40} | {'seconds':>8}")
        print(f"{'-' * 40}-+-{'-' * 8}")
        for label, seconds in cold:
            print(f"{label:<40} | {seconds:>8.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
