"""A sentence where a traceback was: an embeddings endpoint gone with the cache warm, an LLM
answer nested past Python's recursion limit, junk in the settings, a read-only world."""

from __future__ import annotations

import io
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.faults.conftest import Run
from tests.support.embedding_server import EmbeddingServer, words
from tests.support.openai_server import DEEP, OpenAIServer
from tests.support.users import users_folder


def test_an_embeddings_endpoint_gone_with_the_cache_warm_answers_by_bm25(
    world: Path, soulscope: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    with EmbeddingServer(words) as server:
        monkeypatch.setenv("SOULSCOPE_EMBED_BASE_URL", server.base_url)
        monkeypatch.setenv("SOULSCOPE_EMBED_MODEL", "words")
        code, warm, err = soulscope("search", "parsers", "-w", str(world), "--mode", "hybrid")
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
    kept = (users_folder(world) / "u.txt").read_text()
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
    assert "nested too deep" in (world / "frames" / "1" / "zion-coder-01.json").read_text()
    assert "nested too deep" not in (world / "memory" / "zion-coder-01.md").read_text()
    code, out, err = soulscope(
        "ask", "zion-coder-01", "what do you test?", "-w", str(world), "--mode", "bm25"
    )
    assert "Traceback" not in err and "RecursionError" not in err, err
    if where == "envelope":
        assert code == 2 and "nested too deep" in err and err.count("\n") == 1, err


# -- junk in the settings ---------------------------------------------------------------------------

JUNK_ENV = [
    ({"OPENAI_BASE_URL": "http://[::1/v1"}, "LLM base URL is not a URL"),
    ({"OPENAI_BASE_URL": "http://127.0.0.1:notaport/v1"}, "LLM base URL is not a URL"),
    (
        {"SOULSCOPE_EMBED_BASE_URL": "http://[::1/v1", "SOULSCOPE_EMBED_MODEL": "m"},
        "embeddings base URL",
    ),
    ({"OPENAI_BASE_URL": "http://127.0.0.1:9/v1", "SOULSCOPE_LLM_TIMEOUT": "inf"}, "LLM timeout"),
    ({"OPENAI_BASE_URL": "http://127.0.0.1:9/v1", "SOULSCOPE_LLM_TIMEOUT": "nan"}, "LLM timeout"),
    ({"OPENAI_BASE_URL": "http://127.0.0.1:9/v1", "SOULSCOPE_LLM_TIMEOUT": "-3"}, "LLM timeout"),
    ({"SOULSCOPE_CONFIG": "/tmp/" + "x" * 300 + "/config.toml"}, "cannot be read"),
]


@pytest.mark.parametrize(("env", "said"), JUNK_ENV)
def test_junk_in_the_environment_is_one_sentence(
    world: Path, soulscope: Run, monkeypatch: pytest.MonkeyPatch, env: dict, said: str
) -> None:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    code, out, err = soulscope(
        "ask", "zion-coder-01", "what do you test?", "-w", str(world), "--mode", "bm25"
    )
    assert "Traceback" not in err and code in (0, 2), err
    assert said in err.splitlines()[0], err


@pytest.mark.parametrize(
    "toml",
    [
        "[llm]\ntimeout = inf\nbase_url = 'http://127.0.0.1:9/v1'\n",
        "[embeddings]\nbatch = inf\nconcurrency = nan\ntimeout = -inf\n",
        "[chat]\ninterval = 1e300\ndedup = nan\n",
        "[llm\n",
        "x = " + "[" * 5000 + "]" * 5000 + "\n",
    ],
    ids=["timeout inf", "embeddings inf nan", "chat 1e300 nan", "torn table", "nested"],
)
def test_junk_in_the_config_file_is_one_sentence(
    world: Path, soulscope: Run, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, toml: str
) -> None:
    config = tmp_path / "config.toml"
    config.write_text(toml)
    monkeypatch.setenv("SOULSCOPE_CONFIG", str(config))
    code, out, err = soulscope(
        "ask", "zion-coder-01", "what do you test?", "-w", str(world), "--mode", "bm25"
    )
    assert "Traceback" not in err and code in (0, 2), err
    assert err.startswith("soulscope: ") and ("is not a number" in err or "cannot be read" in err)


def test_a_config_path_that_is_a_folder_is_said(
    world: Path, soulscope: Run, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("SOULSCOPE_CONFIG", str(tmp_path))
    code, out, err = soulscope("agents", "-w", str(world))
    assert code == 0 and "is not a file" in err


def test_a_cache_folder_that_is_a_file_still_answers(
    world: Path, soulscope: Run, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder\n")
    monkeypatch.setenv("SOULSCOPE_CACHE", str(blocker))
    for args in (("agents",), ("search", "parsers", "--mode", "bm25", "--at", "HEAD")):
        code, out, err = soulscope(*args, "-w", str(world))
        assert code == 0 and "Traceback" not in err, err
        assert "zion-coder-01" in out
    assert blocker.read_text() == "not a folder\n"


# -- chat where nothing can be kept ------------------------------------------------------------------


def test_chat_in_a_world_it_cannot_write_refuses_before_reading_a_message(
    world: Path, soulscope: Run
) -> None:
    (world / "users").write_text("a file where the folder of users would be\n")
    stdin = io.StringIO("I keep bees on the roof.\n")
    code, out, err = soulscope(
        "chat", "--user", "u", "-w", str(world), "--mode", "bm25", "--into-world", stdin=stdin
    )
    assert code == 2 and "Traceback" not in err, err
    assert "cannot keep what you say" in err and err.count("\n") == 1
    assert stdin.read() == "I keep bees on the roof.\n"  # still the user's, unread


def test_chat_says_which_message_it_could_not_keep(
    world: Path, soulscope: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    from soulscope.chat import distill

    def full(*args: object, **kwargs: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(distill, "append_durable", full)
    code, out, err = soulscope(
        "chat",
        "--user",
        "u",
        "-w",
        str(world),
        "--mode",
        "bm25",
        stdin="I keep bees on the roof.\n",
    )
    assert "Traceback" not in err, err
    assert "not kept (No space left on device): I keep bees on the roof." in err


# -- keep-alives and never a word -------------------------------------------------------------------


def test_a_stream_of_keep_alives_without_words_times_out(
    world: Path, soulscope: Run, server: OpenAIServer
) -> None:
    server.failure = "keepalive"
    code, out, err = soulscope(
        "ask", "zion-coder-01", "what do you test?", "-w", str(world), "--mode", "bm25"
    )
    assert code == 2 and "sent no words for 1 s" in err and err.count("\n") == 1, err


async def test_the_dashboards_stream_of_keep_alives_times_out(server: OpenAIServer) -> None:
    from soulscope.llm import LLM, Endpoint, LLMError

    server.failure = "keepalive"
    llm = LLM(Endpoint(server.base_url, "k", "tiny", 0.5))
    with pytest.raises(LLMError, match="sent no words for 1 s"):
        async for _ in llm.astream([{"role": "user", "content": "hi"}]):
            pass


@pytest.mark.parametrize("linked", ["users", "users/u.txt", "users/u.buffer.jsonl"])
def test_chat_never_writes_through_a_link(
    world: Path, soulscope: Run, tmp_path: Path, linked: str
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (world / "users").mkdir(exist_ok=True)
    target = outside / Path(linked).name
    if linked == "users":
        (world / "users").rmdir()
    else:
        target.write_text("")
    (world / linked).symlink_to(target if linked != "users" else outside)
    code, out, err = soulscope(
        "chat",
        "--user",
        "u",
        "-w",
        str(world),
        "--mode",
        "bm25",
        "--into-world",
        stdin="I keep bees.\n",
    )
    assert code == 2 and "is a link" in err and err.count("\n") == 1, err
    assert all(p.stat().st_size == 0 for p in outside.iterdir())


# -- a server that sends a byte now and then -------------------------------------------------------


class Trickle:
    """A loopback server that answers every request with a header line sent a byte at a time,
    one every 0.1 s, for ``seconds``: each byte resets a client's timeout between bytes."""

    def __init__(self, seconds: float = 20.0) -> None:
        self.seconds = seconds
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.stop = threading.Event()
        threading.Thread(target=self._serve, daemon=True).start()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.sock.getsockname()[1]}/v1"

    def _serve(self) -> None:
        while not self.stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._trickle, args=(conn,), daemon=True).start()

    def _trickle(self, conn: socket.socket) -> None:
        with conn:
            try:
                conn.recv(65536)
                conn.sendall(b"HTTP/1.1 200 OK\r\nX-Slow: ")
                deadline = time.monotonic() + self.seconds
                while time.monotonic() < deadline and not self.stop.is_set():
                    conn.sendall(b"z")
                    time.sleep(0.1)
            except OSError:
                pass

    def close(self) -> None:
        self.stop.set()
        self.sock.close()


@pytest.fixture
def trickle() -> Iterator[Trickle]:
    server = Trickle()
    yield server
    server.close()


def test_a_chat_server_that_sends_a_byte_now_and_then_times_out(
    world: Path, soulscope: Run, monkeypatch: pytest.MonkeyPatch, trickle: Trickle
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", trickle.base_url)
    monkeypatch.setenv("SOULSCOPE_LLM_TIMEOUT", "0.5")
    for model in ("tiny", ""):  # ("": the first model the server lists, asked first)
        monkeypatch.setenv("SOULSCOPE_MODEL", model)
        started = time.monotonic()
        code, out, err = soulscope(
            "ask", "zion-coder-01", "what do you test?", "-w", str(world), "--mode", "bm25"
        )
        assert code == 2 and "did not answer within" in err and err.count("\n") == 1, err
        assert time.monotonic() - started < 10


def test_an_embeddings_server_that_sends_a_byte_now_and_then_times_out(
    world: Path, soulscope: Run, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, trickle: Trickle
) -> None:
    config = tmp_path / "config.toml"
    config.write_text(
        f'[embeddings]\nbase_url = "{trickle.base_url}"\nmodel = "m"\ntimeout = 0.5\n'
    )
    monkeypatch.setenv("SOULSCOPE_CONFIG", str(config))
    started = time.monotonic()
    code, out, err = soulscope("search", "parsers", "-w", str(world), "--mode", "hybrid")
    assert code == 2 and "did not answer within 0.5 s" in err, err
    assert time.monotonic() - started < 10


async def test_the_dashboards_chat_with_a_server_that_sends_a_byte_now_and_then_times_out(
    trickle: Trickle,
) -> None:
    from soulscope.llm import LLM, Endpoint, LLMError

    llm = LLM(Endpoint(trickle.base_url, "k", "tiny", 0.5))
    started = time.monotonic()
    with pytest.raises(LLMError, match="did not answer within"):
        async for _ in llm.astream([{"role": "user", "content": "hi"}]):
            pass
    assert time.monotonic() - started < 10
