"""Servers that echo the request back in their errors: the API key, the base URL's user-info and
its query values never reach the terminal or the world, in any form (as sent, URL-encoded,
JSON-escaped, or the base64 of basic auth's ``user:password``)."""

from __future__ import annotations

import base64
from pathlib import Path
from urllib.parse import quote, quote_plus

import numpy as np
import pytest

from soulscope.llm import Endpoint
from tests.faults.conftest import Run
from tests.support.embedding_server import EmbeddingServer
from tests.support.openai_server import OpenAIServer, valid_answer
from tests.support.repos import everything_written

USER = "ann"
PASSWORD = "pa/ss+w0rd:x"
QUERY_KEY = "qk 9/8&z"
API_KEY = "sk-never-shown-42"


def with_credentials(base_url: str) -> str:
    return (
        base_url.replace("http://", f"http://{USER}:{quote(PASSWORD, safe='')}@")
        + f"?api_key={quote(QUERY_KEY, safe='')}&v=2"
    )


def forms() -> list[str]:
    """Every form of the secrets a leak would take."""
    basic = base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()
    out = [API_KEY, PASSWORD, QUERY_KEY, basic, basic.rstrip("=")]
    for s in (PASSWORD, QUERY_KEY):
        out += [quote(s, safe=""), quote(s, safe="/"), quote_plus(s), quote_plus(s, safe="/")]
    return out


PIECES = ["9%2F8", "9/8%26z", "9/8&z", "ss+w0rd", "ss%2Bw0rd", "never-shown"]  # cut short


def leaked(text: str, pieces: bool = True) -> list[str]:
    return [f for f in forms() + (PIECES if pieces else []) if f in text]


def test_redact_hides_every_form_of_the_secrets() -> None:
    endpoint = Endpoint(with_credentials("http://h/v1"), API_KEY, "m", 1.0)
    text = " | ".join(forms()) + " | Bearer " + API_KEY + " | Basic " + forms()[3]
    assert leaked(endpoint.redact(text), pieces=False) == []


@pytest.mark.parametrize("failure", ["echo401", "echo500"])
def test_an_embeddings_endpoint_echoing_the_request_shows_no_secret(
    world: Path, soulscope: Run, monkeypatch: pytest.MonkeyPatch, failure: str
) -> None:
    with EmbeddingServer(lambda texts: np.ones((len(texts), 4)), failure=failure) as server:
        monkeypatch.setenv("SOULSCOPE_EMBED_BASE_URL", with_credentials(server.base_url))
        monkeypatch.setenv("SOULSCOPE_EMBED_MODEL", "minilm")
        monkeypatch.setenv("SOULSCOPE_EMBED_API_KEY", API_KEY)
        code, out, err = soulscope("search", "tests", "-w", str(world), "--mode", "hybrid")
    assert "Traceback" not in err
    assert "embeddings endpoint" in err and str(failure[4:]) in err, err
    assert leaked(out + err) == []


@pytest.mark.parametrize("failure", ["echo401", "echo500"])
def test_a_chat_endpoint_echoing_the_request_shows_and_writes_no_secret(
    world: Path, soulscope: Run, monkeypatch: pytest.MonkeyPatch, failure: str
) -> None:
    with OpenAIServer() as server:
        server.failure = failure
        monkeypatch.setenv("OPENAI_BASE_URL", with_credentials(server.base_url))
        monkeypatch.setenv("OPENAI_API_KEY", API_KEY)
        monkeypatch.setenv("SOULSCOPE_MODEL", "tiny")
        said = []
        for args in (
            ("ask", "zion-coder-01", "what do you test?", "--mode", "bm25"),
            ("frame", "--brain", "llm"),
            ("why", "zion-coder-01", "--shift", "-1"),
        ):
            code, out, err = soulscope(*args, "-w", str(world))
            assert "Traceback" not in err, err
            said.append(out + err)
        code, out, err = soulscope(
            "chat",
            "--agent",
            "zion-coder-01",
            "--user",
            "u",
            "-w",
            str(world),
            "--mode",
            "bm25",
            stdin="hello\n",
        )
        said.append(out + err)
    assert server.authorizations and server.authorizations[0].startswith("Basic ")
    assert any(failure[4:] in s for s in said), said
    assert leaked("\n".join(said)) == []
    assert leaked(everything_written(world)) == []


def echoing(agent: str, body: dict) -> tuple[int, str]:
    """A model that repeats what it was sent, as a proxy that echoes headers into the text does."""
    basic = base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()
    said = f"Authorization: Basic {basic} Bearer {API_KEY} api_key={quote(QUERY_KEY, safe='')}"
    if "agent id" in body["messages"][0]["content"]:
        return 200, valid_answer(body).replace("the validated agent.", f"the agent who saw {said}.")
    return 200, f"I saw your request. {said} and {PASSWORD} and {QUERY_KEY}."


def test_an_answer_that_echoes_the_secrets_never_shows_or_writes_them(
    world: Path, soulscope: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    with OpenAIServer(answer=echoing) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", with_credentials(server.base_url))
        monkeypatch.setenv("OPENAI_API_KEY", API_KEY)
        monkeypatch.setenv("SOULSCOPE_MODEL", "tiny")
        said = []
        for args in (
            ("ask", "zion-coder-01", "what do you test?", "--mode", "bm25"),
            ("frame", "--brain", "llm"),
        ):
            code, out, err = soulscope(*args, "-w", str(world))
            assert code == 0 and "Traceback" not in err, err
            said.append(out + err)
        code, out, err = soulscope(
            "chat",
            "--user",
            "u",
            "-w",
            str(world),
            "--mode",
            "bm25",
            stdin="I keep bees.\nMy cat is Pixel.\n",
        )
        said.append(out + err)
    assert "I saw your request." in said[0] and "***" in said[0]
    assert leaked("\n".join(said)) == []
    assert leaked(everything_written(world)) == []


def test_secrets_cut_across_streamed_pieces_are_hidden_whole() -> None:
    from soulscope.llm import _Hiding

    endpoint = Endpoint(with_credentials("http://h/v1"), API_KEY, "m", 1.0)
    text = f"before {API_KEY} middle {quote(PASSWORD, safe='')} after"
    for cut in range(1, len(text)):
        for step in (1, 3, 7):
            hiding = _Hiding(endpoint)
            pieces = [text[:cut]] + [text[i : i + step] for i in range(cut, len(text), step)]
            shown = "".join(hiding.take(p) for p in pieces) + hiding.rest()
            assert shown == "before *** middle *** after"
