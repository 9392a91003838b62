"""The LLM brain through the real ``openai`` client against a loopback server."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

from soulscope.config import Settings
from soulscope.sim.community import Community
from soulscope.sim.frame import run_frames
from soulscope.sim.llm import LlmBrain
from soulscope.soul.parse import read_soul
from tests.support.openai_server import OpenAIServer, valid_answer
from tests.support.repos import git_out
from tests.support.simworld import make_world


@pytest.fixture
def world(tmp_path: Path) -> Path:
    return make_world(tmp_path / "w", agents=4)


def brain(url: str, timeout: float = 20.0, concurrency: int = 8) -> LlmBrain:
    settings = Settings(base_url=url, api_key="k", model="m", llm_timeout=timeout)
    return LlmBrain(settings, concurrency=concurrency)


def test_valid_answers_become_the_frame(world: Path) -> None:
    with OpenAIServer(
        answer=lambda agent, body: (200, valid_answer(body)), models=("m",)
    ) as server:
        result = run_frames(world, brain(server.base_url))[0]
    assert result.errors == () and result.posts == 4
    assert all(r["response_format"]["type"] == "json_schema" for r in server.requests)
    soul = read_soul(world / "memory" / "zion-coder-01.md")
    frame = soul.last_frame
    assert frame is not None and frame.first("Becoming").startswith("the validated agent")
    assert len(soul.frames) == 1  # the heading-like text in the post did not open a frame
    prompt = server.requests[0]["messages"][1]["content"]
    assert "# Your soul file" in prompt and "## Identity" in prompt
    log = json.loads((world / "frames" / "1" / "zion-coder-01.json").read_text())
    assert log["brain"] == "llm" and log["context"]["messages"][0]["role"] == "system"
    assert log["context"]["messages"] == server.requests[0]["messages"] or any(
        log["context"]["messages"] == r["messages"] for r in server.requests
    )
    assert log["context"]["model"] == "m" and log["context"]["tokens"]["completion_tokens"] > 0
    assert json.loads(log["raw"])["named"] == "The Loopback Insight"
    assert {p.author for p in Community.load(world).posts} == {
        "zion-coder-01",
        "zion-philosopher-02",
        "zion-debater-03",
        "zion-archivist-04",
    }


def test_an_invalid_answer_is_repaired_once(world: Path) -> None:
    def behaviour(agent: str, body: dict) -> tuple[int, str]:
        repairing = "not valid" in body["messages"][-1]["content"]
        return 200, valid_answer(body) if repairing else "Sure! I will post something."

    with OpenAIServer(answer=behaviour, models=("m",)) as server:
        result = run_frames(world, brain(server.base_url))[0]
    assert result.errors == () and len(server.requests) == 8
    repairs = [r for r in server.requests if len(r["messages"]) == 4]
    assert len(repairs) == 4
    assert all("holds no JSON object" in r["messages"][-1]["content"] for r in repairs)


def test_garbage_for_one_agent_lets_the_others_go_on(world: Path) -> None:
    def behaviour(agent: str, body: dict) -> tuple[int, str]:
        if agent == "zion-debater-03":
            return 200, json.dumps({"actions": [{"type": "vote", "post": 4242, "value": 1}]})
        return 200, valid_answer(body)

    with OpenAIServer(answer=behaviour, models=("m",)) as server:
        result = run_frames(world, brain(server.base_url))[0]
    assert result.posts == 3
    assert result.errors == (
        (
            "zion-debater-03",
            "invalid answer after one repair: action 1: a vote needs a post "
            "the agent read and value 1 or -1",
        ),
    )
    # A failed answer is no experience of the agent's: its soul takes no entry.
    assert len(read_soul(world / "memory" / "zion-debater-03.md").frames) == 0
    assert len(read_soul(world / "memory" / "zion-coder-01.md").frames) == 1
    log = json.loads((world / "frames" / "1" / "zion-debater-03.json").read_text())
    assert log["error"].startswith("invalid answer") and "4242" in log["raw"]


def test_a_server_without_structured_output_gets_plain_json(world: Path) -> None:
    def behaviour(agent: str, body: dict) -> tuple[int, str]:
        if "response_format" in body:
            return 400, "response_format is not supported"
        return 200, "```json\n" + valid_answer(body) + "\n```"

    with OpenAIServer(answer=behaviour, models=("m",)) as server:
        result = run_frames(world, brain(server.base_url, concurrency=1))[0]
    assert result.errors == () and result.posts == 4


def test_slow_endpoint_times_out_and_the_frame_completes(world: Path) -> None:
    before = {p.name: p.read_bytes() for p in (world / "memory").glob("*.md")}
    with OpenAIServer(
        answer=lambda agent, body: (200, valid_answer(body)), latency=2.0, models=("m",)
    ) as server:
        result = run_frames(world, brain(server.base_url, timeout=0.3))[0]
    assert result.frame == 1 and len(result.errors) == 4
    assert all(e == "no answer within 0.3 s" for _, e in result.errors)
    assert git_out(world, "log", "-1", "--format=%s").startswith("frame 1: 0 agents, 0 posts")
    # The timeout is in each frame log, and in no soul.
    assert {p.name: p.read_bytes() for p in (world / "memory").glob("*.md")} == before
    log = json.loads((world / "frames" / "1" / "zion-coder-01.json").read_text())
    assert log["error"] == "no answer within 0.3 s" and log["context"]["model"] == "m"


def test_endpoint_down_every_agent_lurks_with_the_reason(world: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again: nothing listens there
    result = run_frames(world, brain(f"http://127.0.0.1:{port}/v1"))[0]
    assert [e for _, e in result.errors] == [
        f"cannot reach the LLM endpoint at http://127.0.0.1:{port}/v1"
    ] * 4


def test_concurrency_is_bounded(tmp_path: Path) -> None:
    world = make_world(tmp_path / "w", agents=8)
    with OpenAIServer(
        answer=lambda agent, body: (200, valid_answer(body)), latency=0.1, models=("m",)
    ) as server:
        run_frames(world, brain(server.base_url, concurrency=3))
    assert len(server.requests) == 8 and server.max_inflight <= 3


def test_a_long_soul_keeps_its_header_and_newest_frames(early_world: Path) -> None:
    from soulscope.sim.brain import Feed, Request
    from soulscope.sim.llm import MAX_SOUL_CHARS, messages_for

    path = max((early_world / "memory").glob("*.md"), key=lambda p: p.stat().st_size)
    soul = read_soul(path)
    assert len(soul.source) > MAX_SOUL_CHARS
    request = Request(path.stem, 9, "2026-04-01", 0, soul, Feed(agents=(path.stem,)), ("code",))
    prompt = messages_for(request)[1]["content"]
    assert soul.preamble.strip() in prompt and "earlier frames omitted" in prompt
    assert soul.frames[-1].source in prompt and soul.frames[0].source not in prompt
    assert len(prompt) < MAX_SOUL_CHARS + 2000


def test_the_brain_shares_chats_endpoint_rules(world: Path) -> None:
    # A base URL without /v1 and with a trailing slash, and no model: fixed and resolved as in chat.
    with OpenAIServer(
        answer=lambda agent, body: (200, valid_answer(body)), models=("served",)
    ) as server:
        root = server.base_url.removesuffix("/v1") + "/"
        settings = Settings(base_url=root, api_key="k", model=None, llm_timeout=20.0)
        result = run_frames(world, LlmBrain(settings))[0]
    assert result.errors == () and result.posts == 4
    assert {r["model"] for r in server.requests} == {"served"}


def test_json_that_python_refuses_makes_one_agent_lurk_not_the_frame_fail(world: Path) -> None:
    # json.loads refuses a number of more than 4,300 digits with a plain ValueError (no .msg)
    # and arrays nested 3,000 deep with a RecursionError: neither may escape the brain.
    huge = '{"actions": [], "named": ' + "9" * 5000 + "}"
    deep = '{"actions": ' + "[" * 3000 + "]" * 3000 + "}"

    def behaviour(agent: str, body: dict) -> tuple[int, str]:
        return 200, {"zion-coder-01": huge, "zion-debater-03": deep}.get(agent) or valid_answer(
            body
        )

    with OpenAIServer(answer=behaviour, models=("m",)) as server:
        result = run_frames(world, brain(server.base_url))[0]
    assert result.posts == 2
    errors = dict(result.errors)
    assert errors.keys() == {"zion-coder-01", "zion-debater-03"}
    assert "not valid JSON (Exceeds the limit (4300 digits)" in errors["zion-coder-01"]
    assert "not valid JSON (nested too deeply)" in errors["zion-debater-03"]


def test_a_timeout_is_said_on_screen_and_kept_in_the_log_not_the_soul(world: Path) -> None:
    from tests.support.cli import soulscope

    before = {p.name: p.read_bytes() for p in (world / "memory").glob("*.md")}
    with OpenAIServer(
        answer=lambda agent, body: (200, valid_answer(body)), latency=2.0, models=("m",)
    ) as server:
        env = {"OPENAI_BASE_URL": server.base_url, "SOULSCOPE_LLM_TIMEOUT": "0.3"}
        out = soulscope("frame", "--world", str(world), "--brain", "llm", env=env)
    assert out.returncode == 0, out.stderr
    said = out.stdout + out.stderr
    assert "zion-coder-01 wrote nothing: no answer within 0.3 s (kept in frames/1/" in said
    assert {p.name: p.read_bytes() for p in (world / "memory").glob("*.md")} == before
    assert "no answer" not in git_out(world, "show", "HEAD", "--", "memory")


def test_show_context_gives_what_the_llm_was_given(world: Path) -> None:
    from tests.support.cli import soulscope

    with OpenAIServer(
        answer=lambda agent, body: (200, valid_answer(body)), models=("m",)
    ) as server:
        env = {"OPENAI_BASE_URL": server.base_url, "SOULSCOPE_MODEL": "m"}
        assert soulscope("frame", "--world", str(world), "--brain", "llm", env=env).returncode == 0
    out = soulscope(
        "show", "zion-debater-03", "--frame", "1", "--context", "--json", "-w", str(world)
    )
    assert out.returncode == 0, out.stderr
    seen = json.loads(out.stdout)
    sent = next(r for r in server.requests if "zion-debater-03" in r["messages"][0]["content"])
    assert seen["known"] and seen["brain"] == "llm" and seen["model"] == "m"
    assert seen["messages"] == sent["messages"]
    assert json.loads(seen["answer"])["named"] == "The Loopback Insight"
    words = sum(len(m["content"].split()) for m in sent["messages"])
    assert seen["tokens"]["prompt_tokens"] == words
    assert seen["soul"]["path"] == "memory/zion-debater-03.md"
    assert isinstance(seen["community"]["posts"], list)
    text = soulscope("show", "zion-debater-03", "--frame", "1", "--context", "-w", str(world))
    assert "llm brain, model m" in text.stdout and "--- system ---" in text.stdout
    # A frame written by hand, elsewhere: what it was given is not known, and said so.
    soul = world / "memory" / "zion-debater-03.md"
    soul.write_text(soul.read_text() + "\n## Frame 2 — 2026-03-03\n- Wrote by hand.\n")
    out = soulscope(
        "show", "zion-debater-03", "--frame", "2", "--context", "--json", "-w", str(world)
    )
    seen = json.loads(out.stdout)
    assert seen["known"] is False and "written elsewhere" in seen["why"]
