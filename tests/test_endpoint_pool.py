"""A pool of embeddings servers: batches spread over them, a server that dies mid-run loses
nothing and embeds nothing twice, and a killed run resumes from the cache."""

from __future__ import annotations

import threading
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from soulscope.config import load_settings
from soulscope.recall.endpoint import EmbeddingEndpoint, EndpointEncoder
from soulscope.recall.semantic import EmbeddingCache, embed
from tests.support.embedding_server import EmbeddingServer, words

TEXTS = [
    f"Frame {i}: the Ledger of post #{i}, kept by coder-{i % 7} (draft {i % 3})" for i in range(600)
]


def unit(texts: list[str]) -> np.ndarray:
    v = words(texts)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def sent(*servers: EmbeddingServer) -> Counter[str]:
    return Counter(t for s in servers for r in s.requests for t in r)


def test_settings_name_a_pool_in_the_variable_or_the_file(tmp_path: Path):
    env = {"SOULSCOPE_EMBED_BASE_URL": "http://a:1/v1, http://b:2/v1 http://c:3/v1"}
    s = load_settings({**env, "SOULSCOPE_CONFIG": str(tmp_path / "none.toml")})
    assert s.embed_base_urls == ("http://a:1/v1", "http://b:2/v1", "http://c:3/v1")
    config = tmp_path / "config.toml"
    config.write_text('[embeddings]\nmodel = "m"\nbase_urls = ["http://a:1/v1", "http://b:2/v1"]\n')
    s = load_settings({"SOULSCOPE_CONFIG": str(config)})
    assert s.embed_base_urls == ("http://a:1/v1", "http://b:2/v1") and s.problem is None
    endpoint = EmbeddingEndpoint.from_settings(s)
    assert endpoint is not None and endpoint.urls == ("http://a:1/v1", "http://b:2/v1")
    config.write_text('[embeddings]\nmodel = "m"\nbase_urls = "http://a:1/v1"\n')
    assert "base_urls" in (load_settings({"SOULSCOPE_CONFIG": str(config)}).problem or "")


def test_a_server_that_dies_mid_run_loses_nothing_and_embeds_nothing_twice(tmp_path: Path):
    with (
        EmbeddingServer(words, latency=0.01) as a,
        EmbeddingServer(words, latency=0.01) as b,
        EmbeddingServer(words, latency=0.01) as c,
    ):
        endpoint = EmbeddingEndpoint(
            a.base_url, a.model, batch=8, concurrency=2, pool=(b.base_url, c.base_url)
        )
        encoder = EndpointEncoder(endpoint)
        died = threading.Event()

        def kill_b(done: int, total: int) -> None:
            if done >= 128 and not died.is_set():
                died.set()
                b.__exit__(None, None, None)  # b stops listening: its next batches go elsewhere

        cache = EmbeddingCache(tmp_path / "cache.sqlite3")
        vectors = embed(TEXTS, encoder, cache, progress=kill_b, batch=64)
        b_at_death = len(b.requests)
    np.testing.assert_allclose(vectors, unit(TEXTS), atol=1e-5)
    assert died.is_set()
    counts = sent(a, b, c)
    assert set(counts) == set(TEXTS)  # nothing lost
    assert max(counts.values()) == 1  # nothing embedded twice
    assert len(b.requests) == b_at_death  # nothing more asked of the dead server
    assert a.requests and b.requests and c.requests  # the batches were spread
    assert a.max_inflight <= 2 and c.max_inflight <= 2  # per-server concurrency
    assert len(a.requests) + len(c.requests) > len(b.requests)


def test_a_killed_run_resumes_where_it_stopped(tmp_path: Path):
    cache_path = tmp_path / "cache.sqlite3"
    with EmbeddingServer(words) as a, EmbeddingServer(words) as b:
        encoder = EndpointEncoder(
            EmbeddingEndpoint(a.base_url, a.model, batch=16, pool=(b.base_url,))
        )

        def stop(done: int, total: int) -> None:
            if done >= 192:
                raise KeyboardInterrupt

        with pytest.raises(KeyboardInterrupt):
            embed(TEXTS, encoder, EmbeddingCache(cache_path), progress=stop, batch=64)
        first = sent(a, b)
        a.requests.clear()
        b.requests.clear()
        again = EndpointEncoder(EmbeddingEndpoint(a.base_url, a.model, pool=(b.base_url,)))
        vectors = embed(TEXTS, again, EmbeddingCache(cache_path), batch=64)
        second = sent(a, b)
    np.testing.assert_allclose(vectors, unit(TEXTS), atol=1e-5)
    assert len(first) == 192
    assert set(first) | set(second) == set(TEXTS)
    # the rest, and one text the cache embeds again to check the server still serves its model
    assert len(set(first) & set(second)) == 1 and len(second) == len(TEXTS) - 192 + 1


def test_when_every_server_fails_the_error_is_one_sentence(tmp_path: Path):
    with (
        EmbeddingServer(words, failure="echo500") as a,
        EmbeddingServer(words, failure="garbage") as b,
    ):
        encoder = EndpointEncoder(EmbeddingEndpoint(a.base_url, a.model, pool=(b.base_url,)))
        from soulscope.recall.semantic import EncoderError

        with pytest.raises(EncoderError) as caught:
            encoder.encode(["one text"])
    assert "\n" not in str(caught.value) and "embeddings endpoint" in str(caught.value)
    assert len(a.requests) == 1 and len(b.requests) == 1


def test_every_server_of_a_pool_is_kept_busy(tmp_path: Path):
    # (embed's own batches hold as many requests as the whole pool takes, not one server's share)
    with (
        EmbeddingServer(words, latency=0.2) as a,
        EmbeddingServer(words, latency=0.2) as b,
        EmbeddingServer(words, latency=0.2) as c,
    ):
        encoder = EndpointEncoder(
            EmbeddingEndpoint(
                a.base_url, a.model, batch=8, concurrency=2, pool=(b.base_url, c.base_url)
            )
        )
        vectors = embed(TEXTS[:48], encoder, EmbeddingCache(tmp_path / "cache.sqlite3"))
    np.testing.assert_allclose(vectors, unit(TEXTS[:48]), atol=1e-5)
    assert len(a.requests) + len(b.requests) + len(c.requests) == 6
    assert max(s.max_inflight for s in (a, b, c)) == 2  # six at once: two on a server
