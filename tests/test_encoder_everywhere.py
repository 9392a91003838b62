"""``[embeddings] base_url`` reaches every face that embeds: the CLI's search, ask, chat and
``becoming --semantic``, the Chat tab, the Becoming tab's semantic drift and distillation. A loopback
server serves cheap vectors (the ``embedding_endpoint`` fixture); any face that loads the local model
instead fails the test."""

from __future__ import annotations

import json
from pathlib import Path

from soulscope.config import load_settings
from soulscope.recall.encoders import load_encoder
from tests.support.cli import soulscope
from tests.support.embedding_server import EmbeddingServer
from tests.support.worlds import ADA, BO, write_world


def test_one_encoder_per_configuration_is_shared(embedding_endpoint: EmbeddingServer) -> None:
    settings = load_settings()
    assert load_encoder(settings) is load_encoder(load_settings())
    assert load_encoder(settings).name == "endpoint:words"


def test_becoming_semantic_asks_the_endpoint(
    embedding_endpoint: EmbeddingServer, later_world: Path
) -> None:
    out = soulscope("becoming", "zion-coder-06", "--semantic", "-w", str(later_world), "--json")
    assert out.returncode == 0, out.stderr
    assert embedding_endpoint.requests, "becoming --semantic did not ask the endpoint"
    statements = [s["text"] for s in json.loads(out.stdout)]
    assert set(statements) <= embedding_endpoint.texts_sent()


def test_search_and_chat_ask_the_endpoint(
    embedding_endpoint: EmbeddingServer, tmp_path: Path
) -> None:
    world = write_world(tmp_path / "world", {"ada-01": ADA, "bo-02": BO})
    out = soulscope("search", "the index guide", "-w", str(world), "--mode", "dense", "--json")
    assert out.returncode == 0, out.stderr
    assert any("index guide" in t for t in embedding_endpoint.texts_sent())
    asked = len(embedding_endpoint.requests)
    out = soulscope(
        "chat", "--user", "ann", "-w", str(world), "--mode", "hybrid",
        stdin="I keep a ledger of every frame.\n",
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert len(embedding_endpoint.requests) > asked  # the chat's question, embedded by the endpoint
