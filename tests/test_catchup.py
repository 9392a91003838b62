"""Nothing waits for embeddings: search, ask and chat answer with what is ready and say so, and the
embedding catches up elsewhere (a process of its own, or chat's thread), cached as it goes."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from soulscope.config import load_settings
from soulscope.recall.catchup import Catchup
from soulscope.recall.encoders import encoder_name, load_encoder
from soulscope.world import World
from tests.support.cli import soulscope
from tests.support.embedding_server import EmbeddingServer, endpoint_config, words
from tests.support.openai_server import OpenAIServer
from tests.support.worlds import ADA, BO, CY, write_world


@pytest.fixture
def world(tmp_path: Path) -> Path:
    return write_world(tmp_path / "world", {"ada-01": ADA, "bo-02": BO, "cy-03": CY})


@pytest.fixture
def embeddings(tmp_path: Path):
    """A loopback embeddings server, configured with one text per request."""
    with EmbeddingServer(words, model="words") as server:
        config = endpoint_config(server, tmp_path / "config.toml", batch=1, concurrency=1)
        yield server, {"SOULSCOPE_CONFIG": str(config)}


def test_search_answers_with_bm25_at_once_then_hybrid_once_embedded(
    world: Path, embeddings
) -> None:
    server, env = embeddings
    cold = soulscope("search", "the index guide", "-w", str(world), "--json", env=env)
    assert cold.returncode == 0, cold.stderr
    assert json.loads(cold.stdout)[0]["agent"] == "ada-01"
    assert "answered with BM25" in cold.stderr and "0 of " in cold.stderr
    assert "'soulscope embed'" in cold.stderr  # no background process in tests unless asked
    assert server.requests == []  # nothing was embedded before answering
    made = soulscope("embed", "-w", str(world), env=env)
    assert made.returncode == 0, made.stderr
    assert "dense search is ready" in made.stderr
    embedded = len(server.requests)
    warm = soulscope("search", "the index guide", "-w", str(world), "--json", env=env)
    assert warm.returncode == 0, warm.stderr
    assert "BM25" not in warm.stderr
    # Only the query, and one cached text embedded again to check the endpoint still serves
    # the model its vectors were cached under: hybrid, with nothing else embedded.
    asked = server.requests[embedded:]
    assert asked[-1] == ["the index guide"] and len(asked) <= 2


def test_a_cold_search_starts_the_embedding_in_the_background(world: Path, embeddings) -> None:
    server, env = embeddings
    env = {**env, "SOULSCOPE_BACKGROUND": "1"}
    cold = soulscope("search", "the index guide", "-w", str(world), "--json", env=env)
    assert cold.returncode == 0, cold.stderr
    assert "embedding the rest in the background" in cold.stderr
    catchup = Catchup(World.open(world), "endpoint:words")
    for _ in range(600):  # the background process, on its own
        status = catchup.status()
        if status is not None and status.finished:
            break
        time.sleep(0.1)
    assert status is not None and status.finished and status.error is None, status
    assert status.done == status.total > 0
    while catchup.running():  # it lets go of the lock as it exits
        time.sleep(0.05)
    warm = soulscope("search", "the index guide", "-w", str(world), "--json", env=env)
    assert "BM25" not in warm.stderr, warm.stderr


def test_ask_json_says_what_answered_cites_and_times(world: Path, embeddings) -> None:
    _, env = embeddings
    with OpenAIServer(reply="I wrote it [ada-01 · frame 3 · 2026-03-03].") as llm:
        env = {**env, "OPENAI_BASE_URL": llm.base_url, "SOULSCOPE_MODEL": "tiny"}
        out = soulscope(
            "ask", "ada-01", "tell me about the index guide", "-w", str(world), "--json", env=env
        )
    assert out.returncode == 0, out.stderr
    answer = json.loads(out.stdout)
    assert answer["answer"] == "I wrote it [ada-01 · frame 3 · 2026-03-03]."
    assert answer["mode"] == "bm25" and answer["llm"] is True
    assert answer["dense"] == {"embedded": 0, "total": answer["dense"]["total"]}
    sources = answer["sources"]
    assert sources[0]["number"] == 1 and all(s["agent"] == "ada-01" for s in sources)
    assert "[ada-01 · frame 3 · 2026-03-03]" in {s["citation"] for s in sources}
    assert set(answer["timings"]) == {"index_s", "retrieve_s", "answer_s", "total_s"}
    offline = soulscope("ask", "ada-01", "tell me about the index guide", "-w", str(world), "--json",
                  "--mode", "bm25", env={})  # fmt: skip
    assert json.loads(offline.stdout)["answer"].startswith("Offline mode")
    assert json.loads(offline.stdout)["dense"] is None


def test_chat_answers_each_message_at_once_while_embedding_goes_on(
    world: Path, embeddings, tmp_path: Path
) -> None:
    server, env = embeddings
    server.latency = 2.0  # a text every two seconds: a minute for the world
    with OpenAIServer(reply="Noted.") as llm:
        env = {**env, "OPENAI_BASE_URL": llm.base_url, "SOULSCOPE_MODEL": "tiny"}
        out = soulscope("chat", "--user", "ann", "-w", str(world), env=env,
                  stdin="who wrote the index guide?\nand who argued?\n")  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert out.stdout.count("Noted.") == 2
    said = [line for line in out.stderr.splitlines() if "answered with" in line]
    assert len(said) == 2 and all("answered with bm25; " in line for line in said), out.stderr
    assert len(server.requests) < 10  # the world was far from embedded when both were answered


def test_the_cache_name_is_known_without_loading_the_model(embeddings, monkeypatch) -> None:
    _, env = embeddings
    monkeypatch.setenv("SOULSCOPE_CONFIG", env["SOULSCOPE_CONFIG"])
    assert encoder_name(load_settings()) == load_encoder(load_settings()).name
