"""LoCoMo retrieval: recall@k and hit@k of the evidence turns for bm25, dense and hybrid, and latency.

Each LoCoMo conversation (``../shared/corpus/locomo/locomo-dev.json``) becomes a soul file: one
frame per session (dated by the session's date), one bullet per turn tagged with its ``dia_id``
(a shared photo is written as its caption). Retrieval runs at turn level (``max_chars=0``: every
bullet is its own chunk, still citing its frame), so recall@k is the usual share of a question's
evidence turns among the top k retrieved, and hit@k whether any of them is. Adversarial questions
(category 5) have no evidence and are left out. Latency is per query with the model warm,
including the query's embedding.

    python bench/locomo.py [--corpus PATH] [--limit N]
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

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from soulscope.recall.hybrid import MODES, RecallIndex  # noqa: E402
from soulscope.recall.semantic import EmbeddingCache, MiniLM  # noqa: E402
from soulscope.world import World  # noqa: E402

KS = (1, 5, 10)
_DIA = re.compile(r"D:?(\d+):(\d+)")
_TAG = re.compile(r"\[(D\d+:\d+)\]")


def session_date(text: str) -> str:
    """'1:56 pm on 8 May, 2023' -> '2023-05-08'."""
    day = text.split(" on ", 1)[-1].strip()
    return datetime.strptime(day, "%d %B, %Y").date().isoformat()


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
    sessions = sorted(
        (int(k.split("_")[1]), v)
        for k, v in conv.items()
        if k.startswith("session_") and not k.endswith("date_time") and isinstance(v, list)
    )
    for n, turns in sessions:
        lines.append(f"## Frame {n} — {session_date(conv[f'session_{n}_date_time'])}")
        for t in turns:
            text = " ".join(t["text"].split())
            if t.get("blip_caption"):
                text += f" [shares a photo: {t['blip_caption']}]"
            lines.append(f"- [{t['dia_id']}] {t['speaker']}: {text}")
        lines.append("")
    return "\n".join(lines) + "\n"


def evidence(ids: list[str]) -> set[str]:
    """Normalised evidence ids: 'D8:6; D9:17' -> {D8:6, D9:17}, 'D:11:26' -> {D11:26}."""
    return {f"D{s}:{t}" for raw in ids for s, t in _DIA.findall(raw)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--corpus", default=str(ROOT.parent / "shared/corpus/locomo/locomo-dev.json")
    )
    parser.add_argument("--limit", type=int, help="questions per conversation (for a quick run)")
    args = parser.parse_args()
    data = json.loads(Path(args.corpus).read_text(encoding="utf-8"))
    encoder = MiniLM()
    print(f"LoCoMo: {len(data)} conversations, all-MiniLM-L6-v2 on {encoder.device}")
    with tempfile.TemporaryDirectory() as tmp:
        memory = Path(tmp) / "memory"
        memory.mkdir()
        for sample in data:
            (memory / f"{sample['sample_id']}.md").write_text(soul_file(sample), encoding="utf-8")
        world = World.open(tmp)
        t0 = time.perf_counter()
        index = RecallIndex.for_world(world, max_chars=0)
        index.attach(encoder, EmbeddingCache(Path(tmp) / "cache.sqlite3"))
        build = time.perf_counter() - t0
        print(f"index: {len(index)} turn chunks, built and embedded in {build:.1f} s\n")

        questions = []
        for sample in data:
            qa = [
                q
                for q in sample["qa"]
                if q.get("category") != 5 and evidence(q.get("evidence", []))
            ]
            questions += [(sample["sample_id"], q) for q in qa[: args.limit]]
        for agent, q in questions[:20]:  # warm the model and the caches
            index.search(q["question"], k=10, mode="hybrid", agent=agent)

        rows = []
        for mode in MODES[::-1]:
            recall = {k: [] for k in KS}
            hit = {k: [] for k in KS}
            latency = []
            for agent, q in questions:
                gold = evidence(q["evidence"])
                t = time.perf_counter()
                hits = index.search(q["question"], k=max(KS), mode=mode, agent=agent)
                latency.append((time.perf_counter() - t) * 1000)
                ranked = [_turn(h) for h in hits]
                for k in KS:
                    found = gold & set(ranked[:k])
                    recall[k].append(len(found) / len(gold))
                    hit[k].append(1.0 if found else 0.0)
            latency.sort()
            rows.append(
                [mode]
                + [f"{statistics.mean(recall[k]):.3f}" for k in KS]
                + [f"{statistics.mean(hit[k]):.3f}" for k in KS]
                + [f"{latency[len(latency) // 2]:.1f}", f"{latency[int(len(latency) * 0.95)]:.1f}"]
            )
    header = (
        ["mode"] + [f"recall@{k}" for k in KS] + [f"hit@{k}" for k in KS] + ["p50 ms", "p95 ms"]
    )
    print(f"{len(questions)} non-adversarial questions\n")
    print_table(header, rows)
    return 0


def _turn(hit) -> str | None:
    m = _TAG.search(hit.chunk.text)
    return m.group(1) if m else None


def print_table(header: list[str], rows: list[list[str]]) -> None:
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    line = " | ".join(h.ljust(w) for h, w in zip(header, widths, strict=True))
    print(line)
    print("-+-".join("-" * w for w in widths))
    for r in rows:
        print(" | ".join(str(c).ljust(w) for c, w in zip(r, widths, strict=True)))


if __name__ == "__main__":
    raise SystemExit(main())
