"""Chat sessions: prompts that carry cited evidence, offline answers, streaming through the client."""

from __future__ import annotations

from pathlib import Path

from soulscope.chat.session import OFFLINE_NOTE, ChatSession
from soulscope.llm import LLM, Endpoint
from soulscope.recall.hybrid import RecallIndex
from soulscope.world import World
from tests.support.openai_server import OpenAIServer


def session(
    later_world: Path, llm: LLM | None = None, agent: str | None = "zion-coder-06"
) -> ChatSession:
    world = World.open(later_world)
    return ChatSession(world, RecallIndex.for_world(world), llm, agent=agent, k=4)


def test_offline_answer_is_the_ranked_cited_evidence(later_world: Path) -> None:
    chat = session(later_world)
    prompt = chat.prepare("what did you propose for types.py ownership?")
    assert prompt.search_mode == "bm25"  # the model is not loaded: lexical only, and said so
    assert chat.offline
    answer = "".join(chat.answer(prompt))
    assert answer.startswith(OFFLINE_NOTE)
    positions = [answer.index(f"{c.number}. **{c.tag}**") for c in prompt.citations]
    assert positions == sorted(positions) and len(positions) == 4
    assert all(c.chunk.agent == "zion-coder-06" for c in prompt.citations)
    assert "[zion-coder-06 · frame 220 · 2026-03-22]" in answer
    # Evidence is quoted line by line, so a soul file's heading cannot become one in the answer.
    assert not any(line.startswith("#") for line in answer.splitlines())


def test_talking_to_an_agent_puts_its_identity_and_evidence_in_the_prompt(
    later_world: Path,
) -> None:
    with OpenAIServer(
        reply="I started with types.py [zion-coder-06 · frame 220 · 2026-03-22]."
    ) as server:
        llm = LLM(Endpoint(server.base_url, "k", "tiny", 5.0))
        chat = session(later_world, llm)
        prompt = chat.prepare("what did you propose for types.py ownership?")
        answer = "".join(chat.answer(prompt))
        chat.remember(prompt.question, answer)
        chat.answer(chat.prepare("and then?")).__next__()
    assert answer == "I started with types.py [zion-coder-06 · frame 220 · 2026-03-22]."
    system = server.requests[0]["messages"][0]["content"]
    assert system.startswith("You are Rustacean (zion-coder-06)")
    assert "Archetype: Coder" in system and "Voice: terse" in system
    for c in prompt.citations:
        assert f"{c.tag}\n{c.chunk.text}" in system
    follow_up = server.requests[1]["messages"]
    assert [m["role"] for m in follow_up] == ["system", "user", "assistant", "user"]
    assert follow_up[2]["content"] == answer


def test_talking_about_the_world_is_an_analyst_over_every_agent(later_world: Path) -> None:
    chat = session(later_world, agent=None)
    prompt = chat.prepare("who reviewed governance_diff.rs?")
    assert prompt.messages[0]["content"].startswith("You are an analyst")
    assert prompt.citations[0].chunk.agent == "zion-reviewer-01"  # the only one who names it
    spread = chat.prepare("who argued about the stdlib-only rule?")
    assert len({c.chunk.agent for c in spread.citations}) > 1


def test_remembered_user_facts_go_into_the_prompt(later_world: Path) -> None:
    prompt = session(later_world).prepare("hello", remembered=["The user is called Ann."])
    assert "- The user is called Ann." in prompt.messages[0]["content"]


def test_each_citation_is_shown_by_the_bullet_that_holds_the_asked_words(tmp_path: Path) -> None:
    from tests.support.worlds import write_world

    soul = (
        "# Fen\n\n## Frame 25 — 2026-03-25\n"
        "- Walked the whole east bank twice, counting posts, stalls, boats and the old signs\n"
        "  that nobody has repainted since the flood, and wrote every count down.\n"
        "- Slept.\n"
        "- Lit the Lanterns on the bridge.\n"
        "- Connected: #45\n"
    )
    world = World.open(write_world(tmp_path / "w", {"fen-01": soul}))
    chat = ChatSession(world, RecallIndex.for_world(world), None, agent="fen-01", k=4)
    for question in ("lanterns", "lantern", "who lit the LANTERN?"):  # as written, by stem
        citations = chat.prepare(question).citations
        assert citations and citations[0].found_by == "- Lit the Lanterns on the bridge."
