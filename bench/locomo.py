"""LoCoMo retrieval: recall@k and hit@k of the evidence turns for bm25, dense and hybrid, and latency.

Each LoCoMo conversation (``../shared/corpus/locomo/locomo-dev.json``) becomes a soul file: one
frame per session (dated by the session's date), one bullet per turn (``Speaker: text``; a shared
photo is written as its caption). Retrieval runs at turn level (``max_chars=0``: every bullet is
its own chunk, still citing its frame), so recall@k is the usual share of a question's evidence
turns among the top k retrieved, and hit@k whether any of them is. Session level ("sess@10"): the
share of a question's evidence sessions among the first 10 distinct frames of 50 hits. Every
search asks for 50 hits and reads its first k, which is only fair to an order that does not
depend on k (tests/test_recall.py checks that it does not).
Adversarial questions (category 5) have no evidence and are left out. Latency is per query with
the model warm, including the query's embedding.

The baseline row is reciprocal rank fusion (k=60) of the same two lists read to depth 10, as
soulscope 1.0 fused them. The per-conversation table shows that no one conversation carries the
result. Embeddings go to the user's embedding cache, so a second run embeds nothing.

The static model (``recall.static``), the first stage of dense search while MiniLM's vectors are
made, is measured in the same run (dense and hybrid), distilled into the cache folder first when
it is not there (the time is printed).

    python bench/locomo.py [--corpus PATH] [--limit N] [--int8] [--hubness 0.5] [--coverage]
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from soulscope.recall.hybrid import MODES, Hit, RecallIndex  # noqa: E402
from soulscope.recall.semantic import EmbeddingCache, MiniLM  # noqa: E402
from soulscope.recall.static import distilled, load_static  # noqa: E402
from soulscope.world import World  # noqa: E402

KS = (1, 5, 10)
DEPTH = 50
_DIA = re.compile(r"D:?(\d+):(\d+)")


def session_date(text: str) -> str:
    """'1:56 pm on 8 May, 2023' -> '2023-05-08'."""
    day = text.split(" on ", 1)[-1].strip()
    return datetime.strptime(day, "%d %B, %Y").date().isoformat()


def sessions(sample: dict) -> list[tuple[int, list[dict]]]:
    conv = sample["conversation"]
    return sorted(
        (int(k.split("_")[1]), v)
        for k, v in conv.items()
        if k.startswith("session_") and not k.endswith("date_time") and isinstance(v, list)
    )


def soul_file(sample: dict) -> str:
    conv = sample["conversation"]
    a, b = conv["speaker_a"], conv["speaker_b"]
    lines = [
        f"# {a} and {b}",
        "",
        "## Identity",
        f"- **ID:** {sample['sample_id']}",
        f"- **Personality:** a long conversation between {a} and {b}.",
        "",
    ]
    for n, turns in sessions(sample):
        lines.append(f"## Frame {n} — {session_date(conv[f'session_{n}_date_time'])}")
        for t in turns:
            text = " ".join(t["text"].split())
            if t.get("blip_caption"):
                text += f" [shares a photo: {t['blip_caption']}]"
            lines.append(f"- {t['speaker']}: {text}")
        lines.append("")
    return "\n".join(lines) + "\n"


def turn_ids(sample: dict) -> dict[tuple[int, int], str]:
    """(frame number, bullet position) -> the turn's normalised dia_id."""
    return {
        (n, i): f"D{s}:{t}"
        for n, turns in sessions(sample)
        for i, turn in enumerate(turns)
        for s, t in _DIA.findall(turn["dia_id"])
    }


def evidence(ids: list[str]) -> set[str]:
    """Normalised evidence ids: 'D8:6; D9:17' -> {D8:6, D9:17}, 'D:11:26' -> {D11:26}."""
    return {f"D{s}:{t}" for raw in ids for s, t in _DIA.findall(raw)}


def rrf(index: RecallIndex, query: str, agent: str, depth: int = 10) -> list[Hit]:
    """soulscope 1.0's fusion: 1 / (60 + rank) summed over both lists read to ``depth``."""
    score: dict[str, float] = {}
    chunk = {}
    first: dict[str, tuple[int, int]] = {}
    for side, mode in enumerate(("bm25", "dense")):
        for rank, h in enumerate(index.search(query, k=depth, mode=mode, agent=agent), 1):
            score[h.chunk.id] = score.get(h.chunk.id, 0.0) + 1 / (60 + rank)
            chunk[h.chunk.id] = h.chunk
            pair = first.get(h.chunk.id, (10**9, 10**9))
            first[h.chunk.id] = (rank, pair[1]) if side == 0 else (pair[0], rank)
    order = sorted(score, key=lambda c: (-score[c], *first[c]))
    return [Hit(chunk[c], score[c]) for c in order]


def measure(name, search, questions, ids) -> tuple[list[str], dict[str, list[float]]]:
    """One row of the table, and the per-question recall@10 and sess@10 keyed by conversation."""
    recall = {k: [] for k in KS}
    hit = {k: [] for k in KS}
    session: list[float] = []
    latency = []
    per: dict[str, list[tuple[float, float]]] = {}
    for agent, q in questions:
        gold = evidence(q["evidence"])
        t = time.perf_counter()
        hits = search(q["question"], agent)
        latency.append((time.perf_counter() - t) * 1000)
        ranked = [ids[agent].get((h.chunk.number, h.chunk.part)) for h in hits]
        for k in KS:
            found = gold & set(ranked[:k])
            recall[k].append(len(found) / len(gold))
            hit[k].append(1.0 if found else 0.0)
        frames = list(dict.fromkeys(h.chunk.number for h in hits))[:10]
        gold_sessions = {int(g[1:].split(":")[0]) for g in gold}
        session.append(len(gold_sessions & set(frames)) / len(gold_sessions))
        per.setdefault(agent, []).append((recall[10][-1], session[-1]))
    latency.sort()
    row = (
        [name]
        + [f"{statistics.mean(recall[k]):.3f}" for k in KS]
        + [f"{statistics.mean(hit[k]):.3f}" for k in KS]
        + [f"{statistics.mean(session):.3f}"]
        + [f"{latency[len(latency) // 2]:.1f}", f"{latency[int(len(latency) * 0.95)]:.1f}"]
    )
    return row, {a: np.mean(v, axis=0).tolist() for a, v in per.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--corpus", default=str(ROOT.parent / "shared/corpus/locomo/locomo-dev.json")
    )
    parser.add_argument("--limit", type=int, help="questions per conversation (for a quick run)")
    parser.add_argument("--int8", action="store_true", help="the model with int8 linear layers")
    parser.add_argument(
        "--hubness", type=float, default=0.0, help="dense hubness correction (as chat recall)"
    )
    parser.add_argument(
        "--coverage", action="store_true", help="BM25 side scaled by query coverage (as chat)"
    )
    args = parser.parse_args()
    data = json.loads(Path(args.corpus).read_text(encoding="utf-8"))
    encoder = MiniLM(int8=args.int8)
    print(f"LoCoMo: {len(data)} conversations, {encoder.name} on {encoder.device}")
    ids = {sample["sample_id"]: turn_ids(sample) for sample in data}
    with tempfile.TemporaryDirectory() as tmp:
        memory = Path(tmp) / "memory"
        memory.mkdir()
        for sample in data:
            (memory / f"{sample['sample_id']}.md").write_text(soul_file(sample), encoding="utf-8")
        world = World.open(tmp)
        t0 = time.perf_counter()
        index = RecallIndex.for_world(world, max_chars=0)
        if args.hubness or args.coverage:
            index = RecallIndex(index.chunks, hubness=args.hubness, coverage=args.coverage)
        index.attach(encoder, EmbeddingCache())
        build = time.perf_counter() - t0
        fresh = not distilled()
        t0 = time.perf_counter()
        static = load_static()
        made = time.perf_counter() - t0
        t0 = time.perf_counter()
        first = index.dense_copy(static, EmbeddingCache())
        early = time.perf_counter() - t0
    print(f"index: {len(index)} turn chunks, built and embedded in {build:.1f} s")
    made_how = f"distilled in {made:.1f} s" if fresh else f"loaded in {made:.2f} s"
    print(f"static model ({static.name}): {made_how}; the turns embedded in {early:.2f} s\n")

    questions = []
    for sample in data:
        qa = [q for q in sample["qa"] if q.get("category") != 5 and evidence(q.get("evidence", []))]
        questions += [(sample["sample_id"], q) for q in qa[: args.limit]]
    for agent, q in questions[:20]:  # warm the model and the caches
        index.search(q["question"], k=DEPTH, mode="hybrid", agent=agent)

    rows, per = [], {}
    row, per["rrf (1.0)"] = measure(
        "hybrid, rank fusion (1.0)", lambda q, a: rrf(index, q, a), questions, ids
    )
    rows.append(row)
    for mode in MODES[::-1]:
        row, per[mode] = measure(
            {"dense": "dense (MiniLM)", "hybrid": "hybrid (MiniLM, final stage)"}.get(mode, mode),
            lambda q, a, mode=mode: index.search(q, k=DEPTH, mode=mode, agent=a),
            questions,
            ids,
        )
        rows.append(row)
    for mode in ("dense", "hybrid"):
        row, per[f"static {mode}"] = measure(
            f"static model (first stage): {mode}",
            lambda q, a, mode=mode: first.search(q, k=DEPTH, mode=mode, agent=a),
            questions,
            ids,
        )
        rows.append(row)
    header = (
        ["method"]
        + [f"recall@{k}" for k in KS]
        + [f"hit@{k}" for k in KS]
        + ["sess@10", "p50 ms", "p95 ms"]
    )
    print(f"{len(questions)} non-adversarial questions\n")
    print_table(header, rows)
    print("\nper conversation: recall@10 / sess@10\n")
    agents = list(ids)
    print_table(
        ["method", *agents],
        [
            [name] + [f"{per[name][a][0]:.3f} / {per[name][a][1]:.3f}" for a in agents]
            for name in per
        ],
    )
    return 0


def print_table(header: list[str], rows: list[list[str]]) -> None:
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    line = " | ".join(h.ljust(w) for h, w in zip(header, widths, strict=True))
    print(line)
    print("-+-".join("-" * w for w in widths))
    for r in rows:
        print(" | ".join(str(c).ljust(w) for c, w in zip(r, widths, strict=True)))


if __name__ == "__main__":
    raise SystemExit(main())
