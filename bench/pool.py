"""Embedding through a pool of 3 loopback servers against 1, in the same run: each server answers a
request after a fixed latency (a model's time per batch, as a GPU server's), with ``concurrency``
requests in flight per server. Wall time for the same texts, nothing cached.

Run: .venv/bin/python bench/pool.py [--texts N] [--latency S] [--concurrency C]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from soulscope.recall.endpoint import EmbeddingEndpoint, EndpointEncoder  # noqa: E402
from soulscope.recall.semantic import EmbeddingCache, embed  # noqa: E402
from tests.support.embedding_server import EmbeddingServer, words  # noqa: E402


def timed(servers: list[EmbeddingServer], texts: list[str], concurrency: int) -> float:
    urls = [s.base_url for s in servers]
    encoder = EndpointEncoder(
        EmbeddingEndpoint(urls[0], "m", batch=32, concurrency=concurrency, pool=tuple(urls[1:]))
    )
    with tempfile.TemporaryDirectory() as folder:
        cache = EmbeddingCache(Path(folder) / "cache.sqlite3")
        start = time.perf_counter()
        embed(texts, encoder, cache)
        return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--texts", type=int, default=8192)
    parser.add_argument("--latency", type=float, default=0.1)
    parser.add_argument("--concurrency", type=int, default=2)
    args = parser.parse_args()
    texts = [f"frame {i}: a text of the world, number {i}" for i in range(args.texts)]
    with ExitStack() as stack:
        servers = [
            stack.enter_context(EmbeddingServer(words, model="m", latency=args.latency))
            for _ in range(3)
        ]
        one = timed(servers[:1], texts, args.concurrency)
        three = timed(servers, texts, args.concurrency)
    print(
        f"{args.texts} texts, batches of 32, {args.latency:g} s a batch, "
        f"{args.concurrency} in flight per server"
    )
    print(f"1 server (baseline): {one:6.2f} s")
    print(f"pool of 3 servers:   {three:6.2f} s  ({one / three:.1f}x faster)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
