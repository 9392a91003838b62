"""The dashboard's chat while it shows the world at a past commit: a snapshot is read-only and
disposable, so what the user says goes to the live world's users/ folder, never into it."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Input

from soulscope.config import load_settings
from soulscope.history.timeline import world_at
from soulscope.sim.frame import run_frames
from soulscope.sim.offline import OfflineBrain
from soulscope.tui.app import SoulscopeApp
from soulscope.world import World
from tests.support.embedding_server import EmbeddingServer
from tests.support.pilot import settle
from tests.support.simworld import make_world
from tests.support.users import users_folder


async def test_a_message_typed_in_the_past_is_kept_in_the_live_world(
    tmp_path: Path, embedding_endpoint: EmbeddingServer
) -> None:
    root = make_world(tmp_path / "w", agents=2)
    run_frames(root, OfflineBrain(), steps=2)
    past = world_at(World.open(root), "HEAD~1")
    assert past.read_only
    app = SoulscopeApp(past, settings=load_settings())  # embeddings from the endpoint: no model
    async with app.run_test(size=(110, 32)) as pilot:
        await settle(pilot)
        await pilot.press("5")
        await settle(pilot)
        app.query_one("#chat-input", Input).cursor_blink = False
        await pilot.press(*"I keep bees on the roof", "enter")
        await settle(pilot)
    # (distilled when the dashboard quit)
    kept = "".join(p.read_text() for p in users_folder(root).glob("tester.*"))
    assert "I keep bees on the roof" in kept
    assert not (past.root / "users").exists()
