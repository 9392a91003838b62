"""The real openai client over HTTP to a loopback server: streaming, and failures in one sentence."""

from __future__ import annotations

import asyncio
import socket
import threading

import pytest

from soulscope.config import load_settings
from soulscope.llm import LLM, Endpoint, LLMError, normalize_base_url
from tests.support.openai_server import OpenAIServer

MESSAGES = [{"role": "user", "content": "When did you start caring about ownership?"}]


def endpoint(
    url: str, model: str | None = "tiny", key: str = "k", timeout: float = 5.0
) -> Endpoint:
    fixed, note = normalize_base_url(url)
    return Endpoint(fixed, key, model, timeout, note)


def test_streams_the_reply_skipping_empty_deltas() -> None:
    with OpenAIServer(reply="one two three") as server:
        pieces = list(LLM(endpoint(server.base_url)).stream(MESSAGES))
    assert pieces == ["one", " two", " three"]  # the role-only and None deltas never show up
    assert server.requests[0]["stream"] is True
    assert server.requests[0]["messages"] == MESSAGES


async def test_async_stream_matches_the_sync_one() -> None:
    with OpenAIServer(reply="one two three") as server:
        pieces = [p async for p in LLM(endpoint(server.base_url)).astream(MESSAGES)]
    assert pieces == ["one", " two", " three"]


@pytest.mark.parametrize(
    ("given", "fixed", "said"),
    [
        ("http://127.0.0.1:8080", "http://127.0.0.1:8080/v1", "added /v1"),
        ("http://127.0.0.1:8080/", "http://127.0.0.1:8080/v1", "added /v1"),
        ("http://127.0.0.1:8080/v1/", "http://127.0.0.1:8080/v1", "trailing slash"),
        ("127.0.0.1:8080/v1", "http://127.0.0.1:8080/v1", "added http://"),
        ("http://h:1/v1/chat/completions", "http://h:1/v1", "removed /chat/completions"),
        ("https://api.example.org/openai/v1", "https://api.example.org/openai/v1", None),
    ],
)
def test_base_url_is_fixed_and_the_fix_is_said(given: str, fixed: str, said: str | None) -> None:
    url, note = normalize_base_url(given)
    assert url == fixed
    assert (note is None) if said is None else (said in note)


def test_a_base_url_without_v1_still_reaches_the_server() -> None:
    with OpenAIServer(reply="fine") as server:
        bare = server.base_url.removesuffix("/v1") + "/"
        llm = LLM(endpoint(bare))
        assert "".join(llm.stream(MESSAGES)) == "fine"
        assert "added /v1" in llm.endpoint.note


def test_no_model_configured_uses_the_first_one_listed() -> None:
    with OpenAIServer(reply="ok", models=("first", "second")) as server:
        llm = LLM(endpoint(server.base_url, model=None))
        assert "".join(llm.stream(MESSAGES)) == "ok"
    assert server.requests[0]["model"] == "first"


def one_sentence(exc: BaseException) -> str:
    text = str(exc)
    assert "\n" not in text and "Traceback" not in text
    return text


def test_connection_refused() -> None:
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(LLMError) as err:
        list(LLM(endpoint(f"http://127.0.0.1:{port}/v1")).stream(MESSAGES))
    assert "cannot connect" in one_sentence(err.value) and str(port) in str(err.value)


def test_wrong_key_is_401() -> None:
    with OpenAIServer(api_key="right") as server, pytest.raises(LLMError) as err:
        list(LLM(endpoint(server.base_url, key="wrong")).stream(MESSAGES))
    assert "refused the API key (401)" in one_sentence(err.value)
    assert "OPENAI_API_KEY" in str(err.value)


def test_unknown_model_names_the_ones_served() -> None:
    with OpenAIServer(models=("tiny", "small")) as server, pytest.raises(LLMError) as err:
        list(LLM(endpoint(server.base_url, model="huge")).stream(MESSAGES))
    text = one_sentence(err.value)
    assert "no model 'huge'" in text and "tiny, small" in text


def test_wrong_path_says_where_the_api_usually_is() -> None:
    with OpenAIServer() as server, pytest.raises(LLMError) as err:
        url = server.base_url.removesuffix("/v1") + "/api"  # not fixed: it has a path
        list(LLM(endpoint(url)).stream(MESSAGES))
    assert "/v1" in one_sentence(err.value) and "404" in str(err.value)


def test_timeout() -> None:
    with OpenAIServer() as server:
        server.failure = "hang"
        with pytest.raises(LLMError) as err:
            list(LLM(endpoint(server.base_url, timeout=0.5)).stream(MESSAGES))
    assert "did not answer within 0.5 s" in one_sentence(err.value)


def test_stall_mid_stream_is_a_timeout_after_the_first_words() -> None:
    with OpenAIServer(reply="a b c d") as server:
        server.failure = "stall"
        got: list[str] = []
        with pytest.raises(LLMError) as err:
            for piece in LLM(endpoint(server.base_url, timeout=0.5)).stream(MESSAGES):
                got.append(piece)
    assert got == ["a", " b"]
    assert "did not answer" in one_sentence(err.value)


def test_malformed_stream() -> None:
    with OpenAIServer(reply="a b c") as server:
        server.failure = "garbage"
        with pytest.raises(LLMError) as err:
            list(LLM(endpoint(server.base_url)).stream(MESSAGES))
    assert "malformed" in one_sentence(err.value)


def test_cancel_stops_the_stream_and_hangs_up() -> None:
    with OpenAIServer(reply=" ".join(f"w{i}" for i in range(200))) as server:
        server.pace = 0.01
        cancel = threading.Event()
        got = []
        for piece in LLM(endpoint(server.base_url)).stream(MESSAGES, cancel=cancel):
            got.append(piece)
            if len(got) == 3:
                cancel.set()
        assert server.closed_early.wait(5)
    assert len(got) == 3


def test_check_connection_says_what_is_there() -> None:
    with OpenAIServer(models=("tiny",)) as server:
        assert LLM(endpoint(server.base_url)).check() == (
            f"connected to {server.base_url}; model 'tiny' is ready"
        )
        assert "but not 'other'" in LLM(endpoint(server.base_url, model="other")).check()


def test_no_endpoint_means_offline() -> None:
    assert Endpoint.from_settings(load_settings({})) is None
    ep = Endpoint.from_settings(load_settings({"OPENAI_BASE_URL": "http://127.0.0.1:9/"}))
    assert ep is not None and ep.base_url == "http://127.0.0.1:9/v1" and ep.note


async def test_a_cancel_as_words_arrive_is_never_lost() -> None:
    """Esc cancels the answer's task while the next words are already in: each cancel ends the
    stream (``asyncio.wait_for`` on Python 3.11 returns the ready word and drops the cancel)."""

    async def read(llm: LLM, delay: int) -> str:
        task = asyncio.current_task()
        assert task is not None
        loop = asyncio.get_running_loop()

        def cancel(steps: int) -> None:  # after ``steps`` turns of the loop
            loop.call_soon(cancel, steps - 1) if steps else task.cancel()

        n = 0
        try:
            async for _ in llm.astream(MESSAGES):
                n += 1
                await asyncio.sleep(0)  # as the dashboard draws between words
                if n == 3:
                    cancel(delay)
                if n > 50:
                    return "read on"
        except asyncio.CancelledError:
            return "cancelled"
        return "ended"

    with OpenAIServer(reply=" ".join(f"w{i}" for i in range(200))) as server:
        llm = LLM(endpoint(server.base_url))
        assert [await read(llm, delay) for delay in range(8)] == ["cancelled"] * 8
