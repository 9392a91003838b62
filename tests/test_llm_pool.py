"""A pool of LLM servers: a frame's agents are spread over them, a server that dies mid-run
(refuses, answers 500, hangs past the timeout) passes its calls to another and loses no agent's
answer, and chat falls over to the next server; through the real ``openai`` client over HTTP."""

from __future__ import annotations

import json
import socket
import threading
from collections import Counter
from pathlib import Path

import pytest

from soulscope.config import Settings, load_settings
from soulscope.llm import LLM, Endpoint, LLMError
from soulscope.pool import REST_S, Pool
from soulscope.sim.frame import run_frames
from soulscope.sim.llm import LlmBrain
from soulscope.soul.parse import read_soul
from tests.support.cli import soulscope
from tests.support.openai_server import OpenAIServer, agent_of, valid_answer
from tests.support.simworld import make_world

MESSAGES = [{"role": "user", "content": "hi"}]


def closed_port_url() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again: nothing listens there
    return f"http://127.0.0.1:{port}/v1"


def answering(agent: str, body: dict) -> tuple[int, str]:
    return 200, valid_answer(body)


def pool_brain(urls: list[str], timeout: float = 20.0, concurrency: int = 2) -> LlmBrain:
    settings = Settings(
        base_url=urls[0], base_urls=tuple(urls), api_key="k", model="m", llm_timeout=timeout
    )
    return LlmBrain(settings, concurrency=concurrency)


@pytest.fixture(scope="module")
def twelve(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A world of twelve agents, never advanced (each test copies it)."""
    return make_world(tmp_path_factory.mktemp("pool") / "w", agents=12)


def copy_of(world: Path, tmp_path: Path) -> Path:
    import shutil

    return Path(shutil.copytree(world, tmp_path / "w", symlinks=True))


def test_settings_name_a_pool_in_the_variable_or_the_file(tmp_path: Path) -> None:
    none = str(tmp_path / "none.toml")
    env = {"OPENAI_BASE_URL": "http://a:1/v1, http://b:2/v1 http://c:3", "SOULSCOPE_CONFIG": none}
    s = load_settings(env)
    assert s.base_urls == ("http://a:1/v1", "http://b:2/v1", "http://c:3")
    endpoint = Endpoint.from_settings(s)
    assert endpoint is not None and endpoint.urls == (
        "http://a:1/v1",
        "http://b:2/v1",
        "http://c:3/v1",  # each server's URL fixed as a lone one is
    )
    config = tmp_path / "config.toml"
    config.write_text(
        '[llm]\nbase_url = "http://a:1/v1"\nbase_urls = ["http://B.example:2/v1", '
        '"http://a:1/v1"]\nconcurrency = 3\n'
    )
    s = load_settings({"SOULSCOPE_CONFIG": str(config)})
    assert s.base_urls == ("http://a:1/v1", "http://B.example:2/v1") and s.problem is None
    assert s.llm_concurrency == 3
    config.write_text('[llm]\nbase_urls = "http://a:1/v1"\nconcurrency = 0\n')
    problem = load_settings({"SOULSCOPE_CONFIG": str(config)}).problem or ""
    assert "[llm] base_urls should be a list" in problem and "[llm] concurrency" in problem


def test_a_pool_hides_every_servers_secrets() -> None:
    settings = Settings(
        base_url="http://a:1/v1",
        base_urls=("http://a:1/v1", "http://ann:S3cret-pw@b:2/v1?api_key=Q-k3y-9"),
        api_key="sk-the-key",
    )
    endpoint = Endpoint.from_settings(settings)
    assert endpoint is not None
    assert "S3cret-pw" not in endpoint.shown and "Q-k3y-9" not in endpoint.shown
    assert endpoint.shown == "http://a:1/v1, http://***@b:2/v1?api_key=***"
    echoed = "401: you sent S3cret-pw and Q-k3y-9 and sk-the-key"
    assert endpoint.redact(echoed) == "401: you sent *** and *** and ***"


def test_a_server_that_dies_mid_frame_loses_no_agent(twelve: Path, tmp_path: Path) -> None:
    world = copy_of(twelve, tmp_path)
    answered_by_b: list[str] = []
    lock = threading.Lock()

    with (
        OpenAIServer(answer=answering, models=("m",), latency=0.02) as a,
        OpenAIServer(models=("m",), latency=0.02) as b,
        OpenAIServer(answer=answering, models=("m",), latency=0.02) as c,
    ):

        def b_answers_twice_then_dies(agent: str, body: dict) -> tuple[int, str]:
            with lock:
                if len(answered_by_b) < 2:
                    answered_by_b.append(agent)
                    return 200, valid_answer(body)
            # Dying: this call is answered 500 and the server stops listening.
            threading.Thread(target=b.__exit__, args=(None, None, None)).start()
            return 500, "the server is going down"

        b.answer = b_answers_twice_then_dies
        result = run_frames(world, pool_brain([a.base_url, b.base_url, c.base_url]))[0]

    assert result.errors == () and result.posts == 12
    agents = [p.stem for p in (world / "memory").glob("*.md")]
    # Nothing lost, nothing twice: each agent's soul took one entry, from one answer.
    assert all(len(read_soul(world / "memory" / f"{x}.md").frames) == 1 for x in agents)
    answers = Counter(agent_of(r) for s in (a, c) for r in s.requests) + Counter(answered_by_b)
    assert answers == Counter(agents)
    assert len(answered_by_b) == 2 and len(b.requests) > 2  # b died mid-frame
    assert a.requests and c.requests  # the pool was used
    assert a.max_inflight <= 2 and c.max_inflight <= 2  # per-server concurrency
    logs = {x: json.loads((world / "frames" / "1" / f"{x}.json").read_text()) for x in agents}
    assert {x for x, log in logs.items() if log["context"]["endpoint"] == b.base_url} == set(
        answered_by_b
    )
    assert all(log["error"] is None for log in logs.values())
    # what happened to the pool is said, though no agent lost its answer
    failed = len(b.requests) - 2
    calls = "a call" if failed == 1 else f"{failed} calls"
    assert result.notes == (
        f"the LLM server {b.base_url} failed {calls} (the LLM endpoint answered HTTP 500); "
        "the other servers were asked instead",
    )


def test_a_hanging_server_passes_its_calls_on_after_the_timeout(
    twelve: Path, tmp_path: Path
) -> None:
    world = copy_of(twelve, tmp_path)
    with (
        OpenAIServer(answer=answering, models=("m",)) as hung,
        OpenAIServer(answer=answering, models=("m",)) as ok,
    ):
        hung.failure = "hang"
        result = run_frames(
            world, pool_brain([hung.base_url, ok.base_url], timeout=0.3), agents=None
        )[0]
    assert result.errors == () and result.posts == 12
    # the hung server took its first calls (one slot each), then nothing more
    assert 1 <= len(hung.requests) <= 2
    assert Counter(agent_of(r) for r in ok.requests) == Counter(
        p.stem for p in (world / "memory").glob("*.md")
    )


def test_when_every_server_fails_the_agents_lurk_and_it_is_said(
    twelve: Path, tmp_path: Path
) -> None:
    world = copy_of(twelve, tmp_path)
    before = {p.name: p.read_bytes() for p in (world / "memory").glob("*.md")}
    with OpenAIServer(answer=answering, models=("m",)) as broken:
        broken.failure = "500"
        env = {
            "OPENAI_BASE_URL": f"{closed_port_url()},{broken.base_url}",
            "SOULSCOPE_MODEL": "m",
        }
        out = soulscope(
            "frame", "--world", str(world), "--brain", "llm", "--agents", "zion-coder-01", env=env
        )
    said = out.stdout + out.stderr
    assert out.returncode == 0, said
    assert "zion-coder-01 wrote nothing: " in said and "of the pool too" in said
    assert {p.name: p.read_bytes() for p in (world / "memory").glob("*.md")} == before
    log = json.loads((world / "frames" / "1" / "zion-coder-01.json").read_text())
    assert log["error"].endswith("(the other server of the pool too)")
    assert f"the LLM server {broken.base_url} failed a call" in said
    assert len(broken.requests) == 1  # asked once, and once only


@pytest.mark.parametrize("failure", ["500", "html", "refused"])
def test_chat_falls_over_to_the_next_server(failure: str) -> None:
    with (
        OpenAIServer("fine", models=("tiny",)) as first,
        OpenAIServer("fine from the second", models=("tiny",)) as second,
    ):
        first.failure = failure
        url = closed_port_url() if failure == "refused" else first.base_url
        llm = LLM(Endpoint(url, "k", "tiny", 5.0, pool=(second.base_url,)))
        assert "".join(llm.stream(MESSAGES)) == "fine from the second"
        assert "".join(llm.stream(MESSAGES)) == "fine from the second"
    # the failed server is not asked again while another answers
    assert len(first.requests) == (0 if failure == "refused" else 1)
    assert len(second.requests) == 2 and llm.pool.failed == {url}


def test_chat_says_every_server_failed_in_one_sentence() -> None:
    with OpenAIServer(models=("tiny",)) as broken:
        broken.failure = "500"
        dead = closed_port_url()
        with pytest.raises(LLMError) as caught:
            "".join(LLM(Endpoint(dead, "k", "tiny", 5.0, pool=(broken.base_url,))).stream(MESSAGES))
    said = str(caught.value)
    assert "\n" not in said and said.startswith(f"the LLM at {broken.base_url} answered 500")
    assert said.endswith("(the other server of the pool failed too)")


def test_a_server_that_failed_is_tried_again_after_its_rest() -> None:
    now = [0.0]
    with (
        OpenAIServer("from the first", models=("tiny",)) as first,
        OpenAIServer("from the second", models=("tiny",)) as second,
    ):
        llm = LLM(Endpoint(first.base_url, "k", "tiny", 5.0, pool=(second.base_url,)))
        llm.pool = Pool(llm.endpoint.urls, 8, clock=lambda: now[0])
        first.failure = "500"
        said = ["".join(llm.stream(MESSAGES)) for _ in range(3)]
        assert said == ["from the second"] * 3 and len(first.requests) == 1
        first.failure = "ok"  # restarted
        now[0] += REST_S
        said = ["".join(llm.stream(MESSAGES)) for _ in range(4)]
    assert said == ["from the first", "from the second", "from the first", "from the second"]
    assert llm.pool.served == {first.base_url: 2, second.base_url: 5}
    assert llm.pool.failures == {first.base_url: 1, second.base_url: 0}


def test_a_whole_answer_cut_short_is_asked_again_of_the_next_server() -> None:
    # (distillation: nothing of the answer was shown, so a server failing mid-answer loses nothing)
    with (
        OpenAIServer("a fact about ann that is long enough", models=("tiny",)) as first,
        OpenAIServer("the whole fact from the second", models=("tiny",)) as second,
    ):
        first.failure = "cut"
        llm = LLM(Endpoint(first.base_url, "k", "tiny", 5.0, pool=(second.base_url,)))
        assert llm.complete(MESSAGES, within=5.0) == "the whole fact from the second"
    assert len(first.requests) == 1 and llm.pool.failed == {first.base_url}
