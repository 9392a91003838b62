"""``[embeddings] base_url`` reaches every face that embeds: the CLI's search, ask, chat and
``becoming --semantic``, the Chat tab, the Becoming tab's semantic drift and distillation. A loopback
server serves cheap vectors; any face that loads the local model instead fails the test."""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np
import pytest

from soulscope.config import load_settings
from soulscope.recall import semantic
from soulscope.recall.encoders import load_encoder
from tests.conftest import ROOT
from tests.embedding_server import EmbeddingServer

DIMS = 64


def hashed(texts: Sequence[str]) -> np.ndarray:
    """Bag-of-words vectors by hashing: instant, deterministic, and close for texts sharing words."""
    out = np.zeros((len(texts), DIMS), dtype=np.float32)
    for row, text in enumerate(texts):
        for word in re.findall(r"\w+", text.lower()):
            out[row, hashlib.blake2b(word.encode(), digest_size=2).digest()[0] % DIMS] += 1.0
        out[row, 0] += 1e-3  # never the zero vector
    return out


class NoLocalModel:
    def __init__(self, *args: object, **kw: object) -> None:
        raise AssertionError("the local model was loaded although an endpoint is configured")


@pytest.fixture
def server(monkeypatch) -> Iterator[EmbeddingServer]:
    with EmbeddingServer(hashed, model="hashed") as served:
        monkeypatch.setenv("SOULSCOPE_EMBED_BASE_URL", served.base_url)
        monkeypatch.setenv("SOULSCOPE_EMBED_MODEL", served.model)
        monkeypatch.setattr(semantic, "MiniLM", NoLocalModel)
        yield served


def texts_sent(server: EmbeddingServer) -> set[str]:
    return {t for request in server.requests for t in request}


def cli(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    """The CLI in a subprocess (where the monkeypatch does not reach: the server's log tells)."""
    return subprocess.run(
        [sys.executable, "-m", "soulscope", *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=120,
    )


def test_one_encoder_per_configuration_is_shared(server: EmbeddingServer) -> None:
    settings = load_settings()
    assert load_encoder(settings) is load_encoder(load_settings())
    assert load_encoder(settings).name == "endpoint:hashed"


def test_becoming_semantic_asks_the_endpoint(server: EmbeddingServer, later_world: Path) -> None:
    out = cli("becoming", "zion-coder-06", "--semantic", "-w", str(later_world), "--json")
    assert out.returncode == 0, out.stderr
    assert server.requests, "becoming --semantic did not ask the endpoint"
    statements = [s["text"] for s in json.loads(out.stdout)]
    assert set(statements) <= texts_sent(server)


def test_search_and_chat_ask_the_endpoint(server: EmbeddingServer, tmp_path: Path) -> None:
    from tests.tui.conftest import ADA, BO, write_world

    world = write_world(tmp_path / "world", {"ada-01": ADA, "bo-02": BO})
    out = cli("search", "the index guide", "-w", str(world), "--mode", "dense", "--json")
    assert out.returncode == 0, out.stderr
    assert any("index guide" in t for t in texts_sent(server))
    asked = len(server.requests)
    out = cli(
        "chat", "--user", "ann", "-w", str(world), "--mode", "hybrid",
        stdin="I keep a ledger of every frame.\n",
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert len(server.requests) > asked  # the chat's question, embedded by the endpoint
