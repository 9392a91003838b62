"""The Chat tab with a real OpenAI-compatible server on loopback, and offline."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Input, OptionList

from soulscope.recall.semantic import LOCAL_NAME
from soulscope.recall.static import STATIC_NAME
from soulscope.tui.app import SoulscopeApp
from soulscope.tui.panes.chat import ChatPane, IndexReady
from soulscope.tui.panes.soul import SoulPane
from soulscope.tui.widgets.streamed_markdown import StreamedMarkdown
from soulscope.tui.widgets.tabbed_panes import TabbedPanes
from soulscope.world import World
from tests.support.openai_server import OpenAIServer
from tests.support.pilot import settle, until
from tests.support.users import users_folder
from tests.support.worlds import write_small_world

pytestmark = pytest.mark.slow  # the tab loads the embedding model when it is first shown
SIZE = (110, 32)


def world_in(tmp_path: Path) -> World:
    return World.open(write_small_world(tmp_path / "world"))


async def open_chat(pilot: Pilot) -> ChatPane:
    pilot.app.query_one("#filter", Input).cursor_blink = False
    await settle(pilot)
    await pilot.press("5")
    await settle(pilot)
    pane = pilot.app.query_one(ChatPane)
    pane.query_one("#chat-input", Input).cursor_blink = False
    return pane


async def ask(pilot: Pilot, question: str) -> None:
    await pilot.press(*question, "enter")  # typing lands in the chat input, focused by the tab
    await settle(pilot)


def answers(pane: ChatPane) -> list[str]:
    return [m.source for m in pane.query(".chat-answer").results(StreamedMarkdown)]


async def test_offline_answer_lists_citations_and_enter_opens_the_frame(tmp_path: Path) -> None:
    app = SoulscopeApp(world_in(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_chat(pilot)
        assert "offline" in str(pane.query_one("#chat-status").render())
        assert pane.search_note.startswith("hybrid search")  # the model loaded in its worker
        await ask(pilot, "the index guide")
        [answer] = answers(pane)
        assert answer.startswith("Offline mode")
        assert pane.citations[0].tag == "[ada-01 · frame 3 · 2026-03-03]"
        citations = pane.query_one("#chat-citations", OptionList)
        assert citations.option_count == len(pane.citations)
        citations.focus()
        citations.highlighted = 0
        await pilot.pause()
        assert app.focused is citations, app.focused
        await pilot.press("enter")
        await settle(pilot)
        assert app.query_one(TabbedPanes).active == SoulPane.TAB_ID
        assert app.query_one(SoulPane).current_frame().number == 3


async def test_streams_from_the_endpoint_in_the_agents_voice(tmp_path: Path, monkeypatch) -> None:
    with OpenAIServer(
        reply="I wrote the **index guide** [ada-01 · frame 3 · 2026-03-03]."
    ) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("SOULSCOPE_MODEL", "tiny")
        app = SoulscopeApp(world_in(tmp_path))
        async with app.run_test(size=SIZE) as pilot:
            pane = await open_chat(pilot)
            await ask(pilot, "what did you write?")
            assert answers(pane) == ["I wrote the **index guide** [ada-01 · frame 3 · 2026-03-03]."]
            await pilot.press("ctrl+t")  # now about the world
            await ask(pilot, "who argued?")
    prompts = [r["messages"][0]["content"] for r in server.requests]
    first, second = (p for p in prompts if not p.startswith("Below is part of a conversation"))
    assert first.startswith("You are Ada Ledger (ada-01)")
    assert second.startswith("You are an analyst")
    # The change of subject and then quitting each distilled the buffer through the LLM, each
    # after the answers (distillation never runs ahead of an answer).
    assert [p.startswith("Below is part") for p in prompts] == [False, False, True, True]


@pytest.mark.serial  # times the dashboard's answer stream
async def test_esc_cancels_and_a_new_question_replaces_the_old(tmp_path: Path, monkeypatch) -> None:
    # Paragraphs of ten words, as answers come; forty seconds to stream it all: both answers are
    # cancelled long before, even where the machine is so busy that keys arrive slowly (and
    # where they arrive too late, the failure costs forty seconds, not two minutes).
    words = [f"w{i}" for i in range(2000)]
    reply = "\n\n".join(" ".join(words[i : i + 10]) for i in range(0, len(words), 10))
    with OpenAIServer(reply=reply) as server:
        server.pace = 0.02
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("SOULSCOPE_MODEL", "tiny")
        app = SoulscopeApp(world_in(tmp_path))
        async with app.run_test(size=SIZE) as pilot:
            pane = await open_chat(pilot)

            async def streaming(n: int) -> None:
                def began() -> bool:
                    """the answer began streaming"""
                    return len(answers(pane)) >= n and "w3" in answers(pane)[n - 1]

                await until(pilot, began, timeout=30)  # (a failure costs seconds, not minutes)

            try:
                await pilot.press(*"first", "enter")
                await streaming(1)
                pane.query_one("#chat-input", Input).value = "second"
                await pilot.press("enter")  # cancels "first"
                await streaming(2)
                await pilot.press("escape")  # cancels "second"
                await settle(pilot)
                first, second = answers(pane)
                assert first.startswith("w0 w1") and first.endswith("*(cancelled)*")
                assert second.startswith("w0 w1") and second.endswith("*(cancelled)*")
                assert "w1999" not in first + second
                assert server.closed_early.wait(5)
            finally:
                server.pace = 0  # quitting distils the questions: let that answer come at once


async def test_a_failure_is_one_sentence_and_the_question_goes_back(
    tmp_path: Path, monkeypatch
) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    monkeypatch.setenv("OPENAI_BASE_URL", f"http://127.0.0.1:{port}/v1")
    app = SoulscopeApp(world_in(tmp_path))
    notes: list[str] = []
    async with app.run_test(size=SIZE) as pilot:
        app.notify = lambda text, **kw: notes.append(text)  # type: ignore[method-assign]
        pane = await open_chat(pilot)
        await ask(pilot, "anyone there?")
        assert pane.query_one("#chat-input", Input).value == "anyone there?"
        assert any(f"cannot connect to the LLM at http://127.0.0.1:{port}/v1" in n for n in notes)
        pane.test_connection()
        await settle(pilot)
        assert sum("cannot connect" in n.lower() for n in notes) == 2


async def test_quitting_distils_the_conversation(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("SOULSCOPE_USER", "ann")
    world = world_in(tmp_path)
    app = SoulscopeApp(world)
    async with app.run_test(size=SIZE) as pilot:
        await open_chat(pilot)
        await ask(pilot, "I keep a ledger of every frame.")
        assert (users_folder(world) / "ann.buffer.jsonl").is_file()
    soul = (users_folder(world) / "ann.txt").read_text()
    assert "## Turns 1-1\n- I keep a ledger of every frame.\n" in soul


def test_chat_snapshot(snap_compare, tmp_path: Path) -> None:
    async def run_before(pilot: Pilot) -> None:
        pane = await open_chat(pilot)
        await ask(pilot, "the index guide")
        # Where the log rests depends on when the answer's blocks were laid out: pin it to the top.
        await pilot.pause(0.2)
        pane.query_one("#chat-log").scroll_home(animate=False)
        await pilot.pause()

    assert snap_compare(SoulscopeApp(world_in(tmp_path)), terminal_size=SIZE, run_before=run_before)


async def test_a_frame_run_meanwhile_is_found_after_a_reload(tmp_path: Path) -> None:
    world = world_in(tmp_path)
    app = SoulscopeApp(world)
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_chat(pilot)
        await pilot.press("ctrl+t")  # about the whole world
        await ask(pilot, "lighthouse")
        assert all(c.chunk.number != 5 for c in pane.citations)
        with world.soul_path("bo-02").open("a") as f:
            f.write("## Frame 5 — 2026-03-05\n- Climbed the lighthouse to watch the commons.\n\n")
        app.reload_world()
        await settle(pilot)
        await ask(pilot, "lighthouse")
        assert pane.citations[0].tag == "[bo-02 · frame 5 · 2026-03-05]"
        assert pane.index.dense_ready  # the new index kept the loaded model


async def test_the_static_model_answers_first_and_the_status_says_which(
    tmp_path: Path, static_model, monkeypatch
) -> None:
    said: list[tuple[str | None, str]] = []  # (the model each stage brought, the status then)
    shown = ChatPane.on_index_ready

    def seen(pane: ChatPane, message: IndexReady) -> None:
        shown(pane, message)
        said.append((message.model, pane.search_note))

    monkeypatch.setattr(ChatPane, "on_index_ready", seen)
    app = SoulscopeApp(world_in(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_chat(pilot)
        await ask(pilot, "the index guide")
        assert pane.activity.startswith("answered with hybrid search (MiniLM), ")
    models = [model for model, _ in said]
    assert models == [None, STATIC_NAME, LOCAL_NAME], said
    assert said[1][1].startswith("hybrid search (static model), ")
    assert said[2][1].startswith("hybrid search (MiniLM), ")
