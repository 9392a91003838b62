"""The dashboard's faces that embed (the Chat tab, the Becoming tab's semantic drift, the chat's
distillation) use the ``[embeddings]`` endpoint when one is configured, never the local model."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Input

from soulscope.tui.app import SoulscopeApp
from soulscope.tui.panes.becoming import BecomingPane
from soulscope.tui.panes.chat import ChatPane
from soulscope.world import World
from tests.support.embedding_server import EmbeddingServer
from tests.support.pilot import settle
from tests.support.worlds import ADA, BO, write_world

SIZE = (110, 32)


def world_in(tmp_path: Path) -> World:
    return World.open(write_world(tmp_path / "world", {"ada-01": ADA, "bo-02": BO}))


async def test_the_chat_tab_searches_and_distils_through_the_endpoint(
    embedding_endpoint: EmbeddingServer,
    tmp_path: Path,
) -> None:
    app = SoulscopeApp(world_in(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        app.query_one("#filter", Input).cursor_blink = False
        await settle(pilot)
        await pilot.press("5")
        await settle(pilot)
        pane = app.query_one(ChatPane)
        assert pane.search_note.startswith("hybrid search"), pane.search_note
        assert any("index guide" in t for t in embedding_endpoint.texts_sent())
        assert pane.index is not None and pane.index.encoder.name == "endpoint:words"
        await pilot.press(*"who wrote the guide?", "enter")
        await settle(pilot)
        assert (
            "who wrote the guide?" in embedding_endpoint.texts_sent()
        )  # the query, embedded there too
        assert pane.distiller is not None and pane.distiller.encoder is pane.index.encoder


async def test_semantic_drift_in_the_becoming_tab_asks_the_endpoint(
    embedding_endpoint: EmbeddingServer,
    tmp_path: Path,
) -> None:
    app = SoulscopeApp(world_in(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        app.query_one("#filter", Input).cursor_blink = False
        await settle(pilot)
        await pilot.press("2")
        await settle(pilot)
        pane = app.query_one(BecomingPane)
        assert pane.statements
        pane.action_semantic_drift()
        await settle(pilot)
        assert {s.text for s in pane.statements} <= embedding_endpoint.texts_sent()
