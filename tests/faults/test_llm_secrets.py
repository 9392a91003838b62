"""Credentials in the base URL are used for requests and never printed, logged or committed."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from soulscope.config import load_settings
from soulscope.llm import LLM, Endpoint, normalize_base_url, redact
from tests.faults.conftest import Run
from tests.support.openai_server import OpenAIServer
from tests.support.repos import everything_written

PASSWORD = "s3cret-pw"
QUERY_KEY = "qk-123456"
API_KEY = "sk-never-shown-42"
SECRETS = (PASSWORD, QUERY_KEY, API_KEY)


def with_credentials(base_url: str) -> str:
    return base_url.replace("http://", f"http://ann:{PASSWORD}@") + f"?api_key={QUERY_KEY}"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_redact_hides_user_info_and_query_values() -> None:
    assert redact("at http://ann:pw@h:8/v1?api_key=k&v=2: down") == (
        "at http://***@h:8/v1?api_key=***&v=***: down"
    )
    assert redact("no URL here ?api_key=k") == "no URL here ?api_key=k"
    endpoint = Endpoint(with_credentials("http://h/v1"), API_KEY, None, 1.0)
    assert not any(s in repr(endpoint) for s in SECRETS)
    assert endpoint.redact(f"{API_KEY} {PASSWORD} {QUERY_KEY}") == "*** *** ***"


def test_the_credentials_are_used_for_requests() -> None:
    with OpenAIServer(reply="fine") as server:
        url, _ = normalize_base_url(with_credentials(server.base_url))
        llm = LLM(Endpoint(url, API_KEY, "tiny", 5.0))
        assert "".join(llm.stream([{"role": "user", "content": "hi"}])) == "fine"
    assert server.queries == [{"api_key": QUERY_KEY}]  # the query string was not dropped
    assert server.authorizations[0].startswith("Basic ")  # user-info becomes basic auth


def test_a_frame_that_cannot_reach_the_llm_writes_no_secret(
    world: Path, soulscope: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", with_credentials(f"http://127.0.0.1:{free_port()}/v1"))
    monkeypatch.setenv("OPENAI_API_KEY", API_KEY)
    monkeypatch.setenv("SOULSCOPE_MODEL", "tiny")
    code, out, err = soulscope("frame", "--brain", "llm", "-w", str(world))
    assert code == 0, err
    # The reason is said and kept in the frame log (never in the soul), with no secret.
    log = (world / "frames" / "1" / "zion-coder-01.json").read_text()
    assert "cannot reach the LLM endpoint at http://***@127.0.0.1:" in log
    assert "/v1?api_key=***" in log and "/v1?api_key=***" in out + err
    assert "cannot reach" not in (world / "memory" / "zion-coder-01.md").read_text()
    assert not any(s in out + err + everything_written(world) for s in SECRETS)


@pytest.mark.parametrize("failure", ["refused", "401", "500", "html"])
def test_no_error_prints_a_secret(
    failure: str, world: Path, soulscope: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    with OpenAIServer(api_key="another-key" if failure == "401" else None) as server:
        if failure in ("500", "html"):
            server.failure = failure
        base = server.base_url if failure != "refused" else f"http://127.0.0.1:{free_port()}/v1"
        # Without /v1: the note saying what was fixed is printed too.
        monkeypatch.setenv("OPENAI_BASE_URL", with_credentials(base.removesuffix("/v1")))
        monkeypatch.setenv("OPENAI_API_KEY", API_KEY)
        monkeypatch.setenv("SOULSCOPE_MODEL", "tiny")
        ask = soulscope("ask", "zion-coder-01", "hi?", "--mode", "bm25", "-w", str(world))
        chat = soulscope("chat", "--user", "ann", "--mode", "bm25", "-w", str(world), stdin="hi\n")
    for code, out, err in (ask, chat):
        assert code != 0
        assert "added /v1" in err and "http://***@127.0.0.1:" in err
        assert not any(s in out + err for s in SECRETS)
    assert not any(s in everything_written(world) for s in SECRETS)


def test_the_api_key_alone_is_never_printed(world: Path, soulscope: Run, monkeypatch) -> None:
    with OpenAIServer(api_key="the-right-one") as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", API_KEY)
        monkeypatch.setenv("SOULSCOPE_MODEL", "tiny")
        code, out, err = soulscope(
            "ask", "zion-coder-01", "hi?", "--mode", "bm25", "-w", str(world)
        )
        assert "refused the API key (401)" in err
        assert API_KEY not in out + err
        llm = LLM(Endpoint.from_settings(load_settings()))
        assert API_KEY not in repr(llm.endpoint)
