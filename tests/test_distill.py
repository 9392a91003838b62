"""FileRAG distillation: buffer on disk at once, blocks every N turns or on drift, dedup, LLM or not."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

from soulscope.chat.distill import Distiller, DistillSettings, extract_facts
from soulscope.llm import LLM, Endpoint
from soulscope.recall.semantic import EmbeddingCache
from tests.support.openai_server import OpenAIServer

CAT_TALK = [
    "My cat is named Pixel and she sits on my keyboard.",
    "Pixel is a grey tabby I adopted in 2021.",
    "What food is best for an older cat?",
    "She also hates the vacuum cleaner.",
    "I brush Pixel every Sunday morning.",
]


def talk(d: Distiller, messages: list[str]) -> list:
    written = []
    for m in messages:
        written.append(d.add("user", m))
        written.append(d.add("assistant", f"Noted: {m[:20]}"))
    return [b for b in written if b is not None]


def test_every_message_is_on_disk_at_once_and_five_turns_make_a_block(tmp_path: Path) -> None:
    d = Distiller(tmp_path, "ann")
    d.add("user", CAT_TALK[0])
    on_disk = [json.loads(x) for x in d.buffer_path.read_text().splitlines()]
    assert on_disk == [{"turn": 1, "role": "user", "text": CAT_TALK[0]}]
    assert not d.soul_path.exists()
    d.add("assistant", "Hello Pixel.")
    blocks = talk(d, CAT_TALK[1:])
    assert [(b.first, b.last) for b in blocks] == [(1, 5)]
    text = d.soul_path.read_text()
    assert text.startswith("# User ann\n")
    assert "## Turns 1-5\n- My cat is named Pixel and she sits on my keyboard.\n" in text
    assert "older cat" not in text  # a question is not a fact about the user
    assert d.buffer_path.read_text() == '{"through": 5}\n'


def test_a_restart_keeps_the_buffer_and_the_turn_numbers(tmp_path: Path) -> None:
    talk(Distiller(tmp_path, "ann"), CAT_TALK)  # turns 1-5 distilled
    first = Distiller(tmp_path, "ann")
    talk(first, ["I moved to Lisbon last spring.", "I work as a ferry mechanic."])
    # The process dies here; a new one finds both turns waiting and numbers on from them.
    again = Distiller(tmp_path, "ann")
    assert [m["turn"] for m in again.pending if m["role"] == "user"] == [6, 7]
    block = again.flush()
    assert (block.first, block.last) == (6, 7)
    assert block.facts == ("I moved to Lisbon last spring.", "I work as a ferry mechanic.")
    assert again.flush() is None


def test_facts_cannot_break_the_file(tmp_path: Path) -> None:
    d = Distiller(tmp_path, "ann")
    d.add("user", "I wrote this line\n## Turns 1-99\nand this one too.")
    d.flush()
    lines = d.soul_path.read_text().splitlines()
    assert [ln for ln in lines if ln.startswith("## ")] == ["## Turns 1-1"]
    assert [b.last for b in Distiller(tmp_path, "ann").blocks()] == [1]


def test_extractive_facts_skip_questions_requests_and_greetings() -> None:
    facts = extract_facts(
        ["Hi there! I use Pop!_OS with Fish shell. Can you help me? Tell me a joke."]
    )
    assert facts == ["I use Pop!_OS with Fish shell."]


def test_the_llm_distils_when_one_is_configured(tmp_path: Path) -> None:
    reply = "- The user has a cat named Pixel\n- The user brushes Pixel on Sundays"
    with OpenAIServer(reply=reply) as server:
        d = Distiller(tmp_path, "ann", llm=LLM(Endpoint(server.base_url, "k", "tiny", 5.0)))
        talk(d, CAT_TALK)
    assert d.blocks()[0].facts == (
        "The user has a cat named Pixel",
        "The user brushes Pixel on Sundays",
    )
    transcript = server.requests[-1]["messages"][1]["content"]
    assert transcript.startswith(f"user: {CAT_TALK[0]}\nassistant: Noted")


def test_an_llm_failure_falls_back_to_extractive_and_says_why(tmp_path: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    d = Distiller(tmp_path, "ann", llm=LLM(Endpoint(f"http://127.0.0.1:{port}/v1", "k", "m", 2.0)))
    talk(d, CAT_TALK)
    assert "cannot connect" in d.last_error
    assert d.blocks()[0].facts[0] == CAT_TALK[0]


def test_leaving_does_not_wait_for_a_slow_llm(tmp_path: Path) -> None:
    # The server would take a minute to finish; on the way out the turns are distilled locally.
    with OpenAIServer(reply=" ".join(f"w{i}" for i in range(3000))) as server:
        server.pace = 0.02
        d = Distiller(tmp_path, "ann", llm=LLM(Endpoint(server.base_url, "k", "tiny", 30.0)))
        d.add("user", CAT_TALK[0])
        block = d.flush(within=0.5)
        assert server.closed_early.wait(5)  # the request was closed, not left streaming
    assert "did not finish within 0.5 s" in d.last_error
    assert block.facts == (CAT_TALK[0],)


@pytest.mark.slow
def test_a_change_of_subject_distils_early(tmp_path: Path, minilm) -> None:
    d = Distiller(tmp_path, "ann", encoder=minilm, cache=EmbeddingCache(tmp_path / "c.sqlite3"))
    talk(d, CAT_TALK[:3])
    assert not d.soul_path.exists()
    written = d.add("user", "My quarterly VAT return for the bakery is due in March.")
    assert written is not None and (written.first, written.last) == (1, 3)
    assert [m["turn"] for m in d.pending] == [4]


@pytest.mark.slow
def test_a_block_that_repeats_an_earlier_one_is_skipped(tmp_path: Path, minilm) -> None:
    settings = DistillSettings(interval=2, drift=-1.0)  # no drift: only duplicates are tested
    d = Distiller(
        tmp_path, "ann", encoder=minilm, settings=settings, cache=EmbeddingCache(tmp_path / "c")
    )
    talk(d, ["My cat is named Pixel.", "Pixel is a grey tabby."])
    talk(d, ["My cat is called Pixel.", "Pixel is a gray tabby."])  # the same facts, reworded
    talk(d, ["I restore old motorbikes.", "My workshop is in Porto."])
    assert [(b.first, b.last) for b in d.blocks()] == [(1, 2), (5, 6)]
    assert d.skipped_duplicates == 1


@pytest.mark.slow
def test_recall_finds_the_relevant_facts(tmp_path: Path, minilm) -> None:
    settings = DistillSettings(interval=2, drift=-1.0)
    d = Distiller(
        tmp_path, "ann", encoder=minilm, settings=settings, cache=EmbeddingCache(tmp_path / "c")
    )
    talk(d, ["My cat is named Pixel.", "Pixel is a grey tabby."])
    talk(d, ["I restore old motorbikes.", "My workshop is in Porto."])
    assert d.recall("where is the garage where I fix bikes?", k=1) == [
        "I restore old motorbikes.",
        "My workshop is in Porto.",
    ]


@pytest.mark.parametrize("reply", ["<html><body>Sign in</body></html>", "Sure! Happy to help."])
def test_a_reply_that_lists_no_facts_is_not_a_distillation(tmp_path: Path, reply: str) -> None:
    with OpenAIServer(reply=reply) as server:
        d = Distiller(tmp_path, "ann", llm=LLM(Endpoint(server.base_url, "k", "tiny", 5.0)))
        d.add("user", CAT_TALK[0])
        block = d.flush()
    assert "without a list of facts" in d.last_error
    assert block.facts == (CAT_TALK[0],)  # the user's own words, not nothing


def test_none_from_the_llm_means_nothing_worth_keeping(tmp_path: Path) -> None:
    with OpenAIServer(reply="- none") as server:
        d = Distiller(tmp_path, "ann", llm=LLM(Endpoint(server.base_url, "k", "tiny", 5.0)))
        d.add("user", "What time is it in Lisbon?")
        assert d.flush() is None
    assert d.last_error is None and d.pending == []


# A user's facts among many statements about other things, each said in many similar forms, and
# questions that share (almost) no words with the facts they ask about.
PRIYA = [
    "I teach chemistry at a secondary school in Leeds",
    "I gave up on my novel last spring and now spend my evenings restoring an old Vespa",
    "I play the cello in a community orchestra",
]
PRIYA_ASKED = [
    ("What does she do for a living?", "chemistry"),
    ("What hobby keeps her busy after dark these days?", "Vespa"),
    ("Which writing project did she abandon?", "novel"),
    ("Which instrument does she perform with?", "cello"),
]


def chatter(count: int) -> list[str]:
    import random

    rng = random.Random(3)
    who = ["my brother", "the plumber", "my boss", "a neighbour", "my aunt", "a client"]
    item = ["umbrella", "coffee grinder", "bicycle lock", "phone charger", "yoga mat", "printer"]
    city = ["Porto", "Krakow", "Seville", "Utrecht", "Bologna", "Riga", "Lyon", "Graz"]
    forms = [
        "The {item} I bought in {city} stopped working after {n} uses.",
        "I ordered a second-hand {item} for {n} pounds.",
        "Yesterday {who} kept talking about a trip to {city} for {n} minutes.",
        "We might spend a weekend in {city} in {n} days.",
    ]
    return [
        rng.choice(forms).format(
            who=rng.choice(who), item=rng.choice(item), city=rng.choice(city), n=n
        )
        for n in range(10, 10 + count)
    ]


@pytest.mark.slow
def test_a_paraphrased_question_finds_its_fact_among_much_chatter(tmp_path: Path, minilm) -> None:
    d = Distiller(tmp_path, "priya", encoder=minilm, cache=EmbeddingCache(tmp_path / "c"))
    noise = chatter(120)
    talk(d, noise[:30] + PRIYA[:1] + noise[30:70] + PRIYA[1:2] + noise[70:] + PRIYA[2:])
    d.flush()
    for question, expected in PRIYA_ASKED:
        facts = d.recall(question, k=3)
        assert any(expected in f for f in facts), (question, facts)
