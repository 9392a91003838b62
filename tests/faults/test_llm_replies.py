"""Every way an LLM endpoint fails, against ``ask``, ``chat`` and ``frame --brain llm``.

Each failure is one sentence and a non-zero exit where an answer was asked for; no message is lost
(the chat's turns are distilled from the user's own words instead); a frame goes on, the agents
lurk with the reason, and what is stored of an answer is bounded.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from soulscope.chat.session import MAX_ANSWER_CHARS
from soulscope.sim.llm import MAX_RAW_CHARS
from tests.faults.conftest import DISTILLED, Run
from tests.support.openai_server import FAILURES, OpenAIServer
from tests.support.users import users_folder

FAILING = [m for m in FAILURES if m not in ("ok", "huge")]
# What the one sentence says, for each way of failing.
SAID = {
    "500": "answered 500",
    "401": "refused the API key (401)",
    "hang": "did not answer within 0.5 s",
    "stall": "did not answer within 0.5 s",
    "html": "answered with an HTML page",
    "garbage": "sent a malformed reply",
    "shape": "sent an empty answer",
    "cut": "closed the answer before it was finished",
}
AGENT = "zion-coder-01"
TOLD = ["I keep bees on a roof in Porto.", "My sister Rui sails a small boat."]


def one_sentence(err: str) -> str:
    lines = err.strip().splitlines()
    assert "Traceback" not in err
    assert all(line.startswith("soulscope: ") for line in lines), err
    return err


@pytest.mark.parametrize("mode", FAILING)
def test_ask_says_what_failed_and_exits_non_zero(
    mode: str, world: Path, server: OpenAIServer, soulscope: Run
) -> None:
    server.failure = mode
    code, out, err = soulscope(
        "ask", AGENT, "what do you keep?", "--mode", "bm25", "-w", str(world)
    )
    assert code != 0
    assert SAID[mode] in one_sentence(err)
    assert len(err.strip().splitlines()) == 1


def test_ask_cuts_an_answer_that_never_ends(
    world: Path, server: OpenAIServer, soulscope: Run
) -> None:
    server.failure = "huge"
    code, out, _ = soulscope("ask", AGENT, "what do you keep?", "--mode", "bm25", "-w", str(world))
    assert code == 0
    assert f"[answer cut at {MAX_ANSWER_CHARS:,} characters]" in out
    assert len(out) < MAX_ANSWER_CHARS + 2000


def test_a_good_answer_is_still_an_answer(
    world: Path, server: OpenAIServer, soulscope: Run
) -> None:
    code, out, err = soulscope(
        "ask", AGENT, "what do you keep?", "--mode", "bm25", "-w", str(world)
    )
    assert code == 0, err
    assert out.startswith("I keep the ledger of every frame")


@pytest.mark.parametrize("mode", FAILING)
def test_chat_keeps_every_message_when_the_llm_fails(
    mode: str, world: Path, server: OpenAIServer, soulscope: Run
) -> None:
    server.failure = mode
    code, _, err = soulscope(
        "chat", "--user", "ann", "--mode", "bm25", "-w", str(world), stdin="\n".join(TOLD) + "\n"
    )
    assert code == 1  # answers were asked for and not given
    assert err.count("your message was kept") == len(TOLD)
    assert f"distilled without the LLM: the LLM at {server.base_url} {SAID[mode]}" in one_sentence(
        err
    )
    soul = (users_folder(world) / "ann.txt").read_text()
    assert all(f"- {told}\n" in soul for told in TOLD)  # the user's own words, extracted
    assert (users_folder(world) / "ann.buffer.jsonl").read_text() == '{"through": 2}\n'


def test_chat_distils_through_a_working_llm(
    world: Path, server: OpenAIServer, soulscope: Run
) -> None:
    code, _, err = soulscope(
        "chat", "--user", "ann", "--mode", "bm25", "-w", str(world), stdin="\n".join(TOLD) + "\n"
    )
    assert code == 0, err
    assert (users_folder(world) / "ann.txt").read_text().endswith(f"## Turns 1-2\n{DISTILLED}\n\n")


def frame_logs(world: Path) -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted((world / "frames" / "1").glob("*.json"))]


@pytest.mark.parametrize("mode", [*FAILING, "huge"])
def test_a_frame_goes_on_and_the_reason_is_logged_not_remembered(
    mode: str, world: Path, server: OpenAIServer, soulscope: Run
) -> None:
    server.failure = mode
    code, out, err = soulscope("frame", "--brain", "llm", "-w", str(world), "--json")
    assert code == 0 and "Traceback" not in err, err
    assert json.loads(out)[0]["frame"] == 1
    logs = frame_logs(world)
    assert len(logs) == 2 and all(log["error"] for log in logs)
    for agent in (log["agent"] for log in logs):  # the endpoint's failure is not the agent's
        soul = (world / "memory" / f"{agent}.md").read_text()
        assert "## Frame 1" not in soul and "Lurked" not in soul
    stored = sum(p.stat().st_size for p in (world / "frames").rglob("*.json"))
    assert stored < 8 * MAX_RAW_CHARS  # a 2 MB answer is not kept whole
    if mode == "huge":
        assert all("[cut by soulscope: the answer was" in log["raw"] for log in logs)


def test_frame_reasons_say_what_was_wrong(
    world: Path, server: OpenAIServer, soulscope: Run
) -> None:
    reasons = {}
    for mode in ("401", "html", "garbage", "shape", "hang"):
        server.failure = mode
        assert soulscope("frame", "--brain", "llm", "-w", str(world))[0] == 0
        frame = max(int(p.name) for p in (world / "frames").iterdir() if p.name.isdigit())
        reasons[mode] = {
            json.loads(p.read_text())["error"] for p in (world / "frames" / str(frame)).iterdir()
        }
    assert reasons == {
        "401": {"the LLM endpoint answered HTTP 401"},
        "html": {"the endpoint answered with an HTML page, not a chat completion"},
        "garbage": {"the endpoint's reply is unreadable (JSONDecodeError)"},
        "shape": {"the endpoint's reply is not a chat completion (no 'choices')"},
        "hang": {"no answer within 0.5 s"},
    }
