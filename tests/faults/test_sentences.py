"""A sentence where a traceback was: an embeddings endpoint gone with the cache warm, an LLM
answer nested past Python's recursion limit, junk in the settings, a read-only world."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from tests.embedding_server import EmbeddingServer
from tests.faults.conftest import Run
from tests.openai_server import DEEP, OpenAIServer


def vectors(texts: Sequence[str]) -> np.ndarray:
    """Distinct, repeatable vectors: one per text, from its words."""
    out = np.zeros((len(texts), 32))
    for i, t in enumerate(texts):
        for w in t.lower().split():
            out[i, hash(w) % 32] += 1
    return out + 0.01


def test_an_embeddings_endpoint_gone_with_the_cache_warm_answers_by_bm25(
    world: Path, soulscope: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    with EmbeddingServer(vectors) as server:
        monkeypatch.setenv("SOULSCOPE_EMBED_BASE_URL", server.base_url)
        monkeypatch.setenv("SOULSCOPE_EMBED_MODEL", "words")
        code, warm, err = soulscope("search", "parsers", "-w", str(world))
        assert code == 0, err
    # The server is gone; every unit's vector is cached, the question's cannot be made.
    code, out, err = soulscope("search", "parsers", "-w", str(world))
    assert code == 0 and "Traceback" not in err, err
    assert "cannot connect to the embeddings endpoint" in err and "BM25 only" in err
    assert "parsers" in out
    code, out, err = soulscope("search", "parsers", "-w", str(world), "--mode", "dense")
    assert code == 2 and err.count("\n") == 1 and "embeddings endpoint" in err, err
    code, out, err = soulscope("ask", "zion-coder-01", "what are your interests?", "-w", str(world))
    assert code == 0 and "Traceback" not in err and "BM25 only" in err, err
    said = "My sister runs a ferry between Porto and Gaia.\nI keep bees on the roof.\n"
    code, out, err = soulscope("chat", "--user", "u", "-w", str(world), stdin=said)
    assert code == 0 and "Traceback" not in err, err
    assert err.count("BM25 only") == 1
    kept = (world / "users" / "u.txt").read_text()
    assert "ferry between Porto and Gaia" in kept and "bees on the roof" in kept


# -- an LLM answer nested past the recursion limit -------------------------------------------------


def deep_answer(agent: str, body: dict) -> tuple[int, str]:
    return 200, '{"actions": ' + DEEP + "}"


@pytest.mark.parametrize("where", ["answer", "envelope"])
def test_a_deeply_nested_llm_answer_makes_one_agent_lurk_not_the_frame_fail(
    world: Path, soulscope: Run, server: OpenAIServer, where: str
) -> None:
    if where == "answer":
        server.answer = deep_answer
    else:
        server.failure = "deep"
    code, out, err = soulscope("frame", "--brain", "llm", "-w", str(world))
    assert code == 0 and "Traceback" not in err, err
    assert "nested too deep" in (world / "memory" / "zion-coder-01.md").read_text()
    code, out, err = soulscope("ask", "zion-coder-01", "what do you test?", "-w", str(world), "--mode", "bm25")
    assert "Traceback" not in err and "RecursionError" not in err, err
    if where == "envelope":
        assert code == 2 and "nested too deep" in err and err.count("\n") == 1, err
