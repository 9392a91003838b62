"""A pool of 3 loopback servers against 1, in the same run, for the embeddings and for the LLM
brain: each server answers a request after a fixed latency (a model's time, as a GPU server's),
with ``concurrency`` requests in flight per server.

- embeddings: wall time for the same texts, nothing cached;
- llm: one frame of ``--agents`` agents advanced with the LLM brain (the time its agents'
  decisions take, and the whole frame), on two copies of one world.

Run: .venv/bin/python bench/pool.py [--only embeddings|llm] [--texts N] [--latency S]
     [--concurrency C] [--agents N] [--llm-latency S] [--llm-concurrency C]
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from soulscope.config import Settings  # noqa: E402
from soulscope.recall.endpoint import EmbeddingEndpoint, EndpointEncoder  # noqa: E402
from soulscope.recall.semantic import EmbeddingCache, embed  # noqa: E402
from soulscope.sim.frame import run_frames  # noqa: E402
from soulscope.sim.llm import LlmBrain  # noqa: E402
from tests.support.embedding_server import EmbeddingServer, words  # noqa: E402
from tests.support.openai_server import OpenAIServer, valid_answer  # noqa: E402
from tests.support.simworld import make_world  # noqa: E402


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


def framed(servers: list[OpenAIServer], world: Path, concurrency: int) -> tuple[float, float]:
    """One frame of every agent with the LLM brain on ``servers``: (deciding s, whole frame s)."""
    urls = tuple(s.base_url for s in servers)
    settings = Settings(base_url=urls[0], base_urls=urls, model="m", llm_timeout=60.0)
    start = time.perf_counter()
    result = run_frames(world, LlmBrain(settings, concurrency=concurrency))[0]
    whole = time.perf_counter() - start
    if result.errors:
        raise SystemExit(f"the frame failed: {result.errors[:3]}")
    return result.timings["decide"], whole


def embeddings(args: argparse.Namespace) -> None:
    texts = [f"frame {i}: a text of the world, number {i}" for i in range(args.texts)]
    with ExitStack() as stack:
        servers = [
            stack.enter_context(EmbeddingServer(words, model="m", latency=args.latency))
            for _ in range(3)
        ]
        one = timed(servers[:1], texts, args.concurrency)
        three = timed(servers, texts, args.concurrency)
    print(
        f"embeddings: {args.texts} texts, batches of 32, {args.latency:g} s a batch, "
        f"{args.concurrency} in flight per server"
    )
    print(f"1 server (baseline): {one:6.2f} s")
    print(f"pool of 3 servers:   {three:6.2f} s  ({one / three:.1f}x faster)")


def llm(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as folder, ExitStack() as stack:
        world = make_world(Path(folder) / "one", agents=args.agents)
        again = Path(shutil.copytree(world, Path(folder) / "three", symlinks=True))
        servers = [
            stack.enter_context(
                OpenAIServer(
                    answer=lambda agent, body: (200, valid_answer(body)),
                    models=("m",),
                    latency=args.llm_latency,
                )
            )
            for _ in range(3)
        ]
        one = framed(servers[:1], world, args.llm_concurrency)
        three = framed(servers, again, args.llm_concurrency)
    print(
        f"llm brain: a frame of {args.agents} agents, {args.llm_latency:g} s an answer, "
        f"{args.llm_concurrency} in flight per server"
    )
    print(f"1 server (baseline): {one[0]:6.2f} s deciding, {one[1]:6.2f} s the frame")
    print(
        f"pool of 3 servers:   {three[0]:6.2f} s deciding, {three[1]:6.2f} s the frame  "
        f"({one[0] / three[0]:.1f}x faster deciding, {one[1] / three[1]:.1f}x the frame)"
    )


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--only", choices=("embeddings", "llm"))
    parser.add_argument("--texts", type=int, default=8192)
    parser.add_argument("--latency", type=float, default=0.1)
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--agents", type=int, default=96)
    parser.add_argument("--llm-latency", type=float, default=0.5)
    parser.add_argument("--llm-concurrency", type=int, default=4)
    args = parser.parse_args()
    if args.only != "llm":
        embeddings(args)
    if args.only != "embeddings":
        llm(args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
