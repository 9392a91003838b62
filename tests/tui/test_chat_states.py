"""The Chat tab tells what it is doing: embedding k of n, waiting for the LLM (the seconds waited),
streaming, answered, cancelled, an error; and it distils only after an answer. Real loopback
servers play the LLM and the embeddings endpoint (cheap vectors of words: no model is loaded)."""

from __future__ import annotations

import asyncio
import re
import socket
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Input

from soulscope.tui.app import SoulscopeApp
from soulscope.tui.panes.chat import ChatPane
from soulscope.tui.widgets.streamed_markdown import StreamedMarkdown
from soulscope.world import World
from tests.support.embedding_server import EmbeddingServer, endpoint_config, words
from tests.support.openai_server import OpenAIServer
from tests.support.pilot import settle
from tests.support.worlds import ADA, BO, CY, write_world

SIZE = (110, 32)


@pytest.fixture
def world(tmp_path: Path) -> World:
    return World.open(write_world(tmp_path / "world", {"ada-01": ADA, "bo-02": BO, "cy-03": CY}))


@pytest.fixture
def embeddings(tmp_path: Path, monkeypatch):
    """The embeddings endpoint, one text per request."""
    with EmbeddingServer(words, model="words") as server:
        config = endpoint_config(server, tmp_path / "config.toml", batch=1, concurrency=1)
        monkeypatch.setenv("SOULSCOPE_CONFIG", str(config))
        monkeypatch.setenv("SOULSCOPE_USER", "ann")
        yield server


async def until(pilot: Pilot, ready, seconds: float = 20.0) -> None:
    for _ in range(int(seconds / 0.05)):
        if ready():
            return
        await pilot.pause(0.05)
    raise AssertionError("the state never came")


async def open_chat(pilot: Pilot) -> ChatPane:
    pilot.app.query_one("#filter", Input).cursor_blink = False
    await settle(pilot)
    await pilot.press("5")
    pane = pilot.app.query_one(ChatPane)
    pane.query_one("#chat-input", Input).cursor_blink = False
    return pane


def answers(pane: ChatPane) -> list[str]:
    return [m.source for m in pane.query(".chat-answer").results(StreamedMarkdown)]


def shown(pane: ChatPane, widget: str) -> str:
    return str(pane.query_one(widget).render())


async def test_embedding_k_of_n_shows_while_questions_are_answered_with_bm25(
    world: World, embeddings
) -> None:
    embeddings.latency = 0.2  # a text every 0.2 s
    app = SoulscopeApp(world)
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_chat(pilot)
        await until(pilot, lambda: "embedding 0 of " in pane.search_note)
        assert re.search(
            r"BM25, \d+ chunks · embedding 0 of \d+ for hybrid search", shown(pane, "#chat-status")
        )
        await pilot.press(*"the index guide", "enter")
        await until(pilot, lambda: pane.activity.startswith("answered"))
        assert pane.activity.startswith("answered with bm25 search")  # not waiting for vectors
        await until(pilot, lambda: pane.search_note.startswith("hybrid search"))
        await settle(pilot)


@pytest.fixture
def llm(monkeypatch):
    with OpenAIServer(reply=" ".join(f"w{i}" for i in range(40))) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("SOULSCOPE_MODEL", "tiny")
        yield server


@pytest.mark.serial  # times the dashboard's answer stream
async def test_waiting_then_streaming_then_answered(world: World, embeddings, llm) -> None:
    llm.latency = 2.5  # the LLM thinks before its first word
    llm.pace = 0.05
    app = SoulscopeApp(world)
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_chat(pilot)
        await settle(pilot)
        await pilot.press(*"the index guide", "enter")
        await until(pilot, lambda: pane.activity == "waiting for the LLM (0 s)")
        await until(pilot, lambda: pane.activity == "waiting for the LLM (1 s)")
        assert "waiting for the LLM (1 s)" in shown(pane, "#chat-activity")
        await until(pilot, lambda: pane.activity.startswith("streaming the answer ("))
        await until(pilot, lambda: pane.activity.startswith("answered"))
        assert pane.activity.startswith("answered with hybrid search (words), ")
        assert answers(pane)[0].endswith("w39")


@pytest.mark.serial  # times the dashboard's answer stream
async def test_a_cancelled_answer_says_cancelled(world: World, embeddings, llm) -> None:
    llm.pace = 0.2  # eight seconds to stream it all
    app = SoulscopeApp(world)
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_chat(pilot)
        await settle(pilot)
        await pilot.press(*"the index guide", "enter")
        await until(pilot, lambda: pane.activity.startswith("streaming"))
        await pilot.press("escape")
        await until(pilot, lambda: pane.activity == "cancelled")
        assert "cancelled" in shown(pane, "#chat-activity")
        assert answers(pane)[0].endswith("*(cancelled)*")
        llm.pace = 0  # quitting distils: let that answer come at once


async def test_an_error_says_what_went_wrong(world: World, embeddings, monkeypatch) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    monkeypatch.setenv("OPENAI_BASE_URL", f"http://127.0.0.1:{port}/v1")
    app = SoulscopeApp(world)
    async with app.run_test(size=SIZE) as pilot:
        app.notify = lambda *a, **kw: None  # type: ignore[method-assign]
        pane = await open_chat(pilot)
        await settle(pilot)
        await pilot.press(*"the index guide", "enter")
        await until(pilot, lambda: pane.activity.startswith("not answered"))
        assert f"cannot connect to the LLM at http://127.0.0.1:{port}/v1" in pane.activity


async def test_distillation_never_runs_ahead_of_an_answer(world: World, embeddings, llm) -> None:
    llm.reply = "Noted."
    app = SoulscopeApp(world)
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_chat(pilot)
        await settle(pilot)
        # The second is on another topic: its drift from the first calls for distillation.
        for question in ("I keep a ledger of every frame.", "Sundays mean hiking mountains."):
            await pilot.press(*question, "enter")
            await until(pilot, lambda: pane.activity.startswith("answered"))
            await settle(pilot)
        # The first exchange is distilled after the second answer, not between question and answer.
        kinds = [
            "distil" if r["messages"][0]["content"].startswith("Below is part") else "answer"
            for r in llm.requests
        ]
        assert kinds == ["answer", "answer", "distil"], kinds


def test_the_chat_tab_at_80x24_after_an_answer(snap_compare, world: World, embeddings) -> None:
    async def run_before(pilot: Pilot) -> None:
        pane = await open_chat(pilot)
        await settle(pilot)
        await pilot.press(*"the index guide", "enter")
        await until(pilot, lambda: pane.activity.startswith("answered"))
        await settle(pilot)
        await asyncio.sleep(0)

    assert snap_compare(SoulscopeApp(world), terminal_size=(80, 24), run_before=run_before)


async def test_at_80x24_the_answer_and_the_evidence_text_share_the_tab(
    world: World, embeddings
) -> None:
    app = SoulscopeApp(world)
    async with app.run_test(size=(80, 24)) as pilot:
        pane = await open_chat(pilot)
        await settle(pilot)
        await pilot.press(*"the index guide", "enter")
        await until(pilot, lambda: pane.activity.startswith("answered"))
        await settle(pilot)
        evidence = pane.query_one("#chat-citations")
        lines = [evidence.render_line(y).text for y in range(evidence.size.height)]
        shown = "\n".join(lines)
        # Passages, each with the line that found it, not only their tags.
        assert "[ada-01 · frame 3 · 2026-03-03]" in shown, shown
        assert "Wrote the index guide." in shown, shown
        assert sum("[ada-01 · " in line for line in lines) >= 3, shown
        # ... and the answer keeps room above them: its question and its first lines.
        assert pane.query_one("#chat-log").size.height >= 6
