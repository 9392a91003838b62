"""Embedding throughput: chunks embedded per second, on the device this machine offers.

The chunks are the real soul files of ``../shared/corpus/rappterbook`` (frame-sized, as the index
cuts them). Reported per batch size, with the cache out of the way (the model sees every chunk),
and the cached path (every vector read back from SQLite) as the baseline it is measured against.

    python bench/embed.py [--device cpu|cuda|mps] [--chunks N]
"""

from __future__ import annotations

import argparse
import platform
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from soulscope.recall.hybrid import RecallIndex  # noqa: E402
from soulscope.recall.semantic import EmbeddingCache, MiniLM, embed  # noqa: E402
from soulscope.world import World  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", help="cuda, mps or cpu (default: the best available)")
    parser.add_argument("--chunks", type=int, default=1024, help="how many chunks to embed")
    parser.add_argument("--world", default=str(ROOT.parent / "shared/corpus/rappterbook"))
    args = parser.parse_args()

    texts = [c.text for c in RecallIndex.for_world(World.open(args.world)).chunks][: args.chunks]
    t0 = time.perf_counter()
    encoder = MiniLM(device=args.device)
    load = time.perf_counter() - t0
    import torch

    name = (
        torch.cuda.get_device_name(0)
        if encoder.device.startswith("cuda")
        else platform.processor() or "cpu"
    )
    print(
        f"device: {encoder.device} ({name}); torch {torch.__version__}, {torch.get_num_threads()} threads"
    )
    print(
        f"import and model load: {load:.2f} s; {len(texts)} chunks, mean {sum(map(len, texts)) / len(texts):.0f} chars\n"
    )
    encoder.encode(texts[:32])  # warm-up: first call pays for kernels and allocations

    rows = []
    for batch in (1, 16, 64, 256):
        # One at a time is slow: the first 256 chunks tell its rate.
        sample = texts[:256] if batch == 1 else texts
        encoder.batch_size = batch
        t = time.perf_counter()
        if batch == 1:
            for text in sample:
                encoder.encode([text])
        else:
            encoder.encode(sample)
        seconds = time.perf_counter() - t
        rows.append((f"model, batch {batch}", len(sample), seconds))

    with tempfile.TemporaryDirectory() as tmp:
        cache = EmbeddingCache(Path(tmp) / "cache.sqlite3")
        encoder.batch_size = 64
        embed(texts, encoder, cache)
        t = time.perf_counter()
        before = encoder.texts_encoded
        embed(texts, encoder, cache)
        seconds = time.perf_counter() - t
        assert encoder.texts_encoded == before, "the cached pass must not call the model"
        rows.append(("cache hit (baseline)", len(texts), seconds))

    print(f"{'path':<22} | {'chunks':>6} | {'seconds':>8} | {'chunks/s':>9}")
    print(f"{'-' * 22}-+-{'-' * 6}-+-{'-' * 8}-+-{'-' * 9}")
    for label, n, seconds in rows:
        print(f"{label:<22} | {n:>6} | {seconds:>8.2f} | {n / seconds:>9.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
