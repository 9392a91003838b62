"""The dashboard's Chat and Soul tabs against a failing endpoint and hostile text (Pilot)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from textual.widgets import Input

from soulscope.chat.session import MAX_ANSWER_CHARS
from soulscope.tui.app import SoulscopeApp
from soulscope.tui.panes.chat import ChatPane
from soulscope.tui.widgets.soul_text import SoulText
from soulscope.tui.widgets.streamed_markdown import StreamedMarkdown
from soulscope.world import World
from tests.faults.conftest import CLEAR, OBEYED, TITLE
from tests.support.openai_server import OpenAIServer
from tests.support.pilot import settle
from tests.support.users import users_folder
from tests.support.worlds import ADA, BO, frame, soul, write_world

pytestmark = pytest.mark.slow  # the Chat tab loads the embedding model when it is first shown
SIZE = (110, 32)
ESCAPER = soul(
    "Esc Aper",
    "esc-04",
    "Coder",
    [frame(1, "2026-03-01", f"Cleared{CLEAR} the screen{TITLE}.", f"the clearer{CLEAR}.")],
)
SAID = {
    "500": "answered 500",
    "html": "answered with an HTML page",
    "garbage": "sent a malformed reply",
    "shape": "sent an empty answer",
    "cut": "closed the answer before it was finished",
    "stall": "did not answer within 0.5 s",
}


def world_in(tmp_path: Path) -> World:
    return World.open(
        write_world(tmp_path / "world", {"ada-01": ADA, "bo-02": BO, "esc-04": ESCAPER})
    )


async def test_every_failure_is_one_sentence_and_no_message_is_lost(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    statements = [
        "I keep bees on the roof of my house in Porto.",
        "My sister Rui sails a small boat every summer.",
        "I work nights as a ferry mechanic.",
        "Our dog Bolo is afraid of thunder.",
        "I am learning to play the cello.",
        "We are moving to Lisbon in the spring.",
    ]
    told = dict(zip(SAID, statements, strict=True))
    with OpenAIServer(reply=f"I{CLEAR} retitle{TITLE} you.") as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("SOULSCOPE_MODEL", "tiny")
        monkeypatch.setenv("SOULSCOPE_LLM_TIMEOUT", "0.5")
        monkeypatch.setenv("SOULSCOPE_USER", "ann")
        world = world_in(tmp_path)
        app = SoulscopeApp(world)
        notes: list[str] = []
        async with app.run_test(size=SIZE) as pilot:
            app.notify = lambda text, **kw: notes.append(text)  # type: ignore[method-assign]
            await settle(pilot)
            await pilot.press("5")
            await settle(pilot)
            pane = app.query_one(ChatPane)
            entry = pane.query_one("#chat-input", Input)
            for mode, question in told.items():
                server.failure = mode
                entry.value = ""
                await pilot.press(*question, "enter")
                await settle(pilot)
                answer = list(pane.query(".chat-answer").results(StreamedMarkdown))[-1].source
                assert answer.startswith("*Not answered: the LLM at") and SAID[mode] in answer
                assert entry.value == question  # back in the input, to be sent again
                assert SAID[mode] in notes[-1] and "\n" not in notes[-1]
            server.failure = "ok"
            entry.value = ""
            await pilot.press(*"who are you?", "enter")
            await settle(pilot)
            answer = list(pane.query(".chat-answer").results(StreamedMarkdown))[-1].source
            assert answer == "I␛[2J retitle␛]0;pwned␇ you."
            server.failure = "huge"
            entry.value = ""
            await pilot.press(*"and then?", "enter")
            await settle(pilot)
            answer = list(pane.query(".chat-answer").results(StreamedMarkdown))[-1].source
            assert answer.endswith(f"[answer cut at {MAX_ANSWER_CHARS:,} characters]")
            assert len(answer) < MAX_ANSWER_CHARS + 100
            server.failure = "hang"  # quitting distils; the LLM does not answer in time
    users = users_folder(world)
    kept = (users / "ann.txt").read_text() + (users / "ann.buffer.jsonl").read_text()
    assert [q for q in told.values() if q not in kept] == [], kept
    assert not [json.loads(x) for x in (users / "ann.buffer.jsonl").read_text().splitlines()][1:]


async def test_the_soul_tab_shows_escapes_instead_of_obeying_them(tmp_path: Path) -> None:
    app = SoulscopeApp(world_in(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.select_agent("esc-04")
        await settle(pilot)
        rows = "\n".join(app.query_one("#soul-text", SoulText).visible_rows())
    assert "Cleared␛[2J the screen␛]0;pwned␇." in rows
    assert not OBEYED.search(rows)
