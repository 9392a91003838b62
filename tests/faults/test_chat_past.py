"""The dashboard's chat while it shows the world at a past commit: a snapshot is read-only and
disposable, so what the user says goes to the live world's users/ folder, never into it."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Input

from soulscope.config import load_settings
from soulscope.history.timeline import world_at
from soulscope.sim.frame import run_frames
from soulscope.sim.offline import OfflineBrain
from soulscope.tui.app import SoulscopeApp
from soulscope.world import World
from tests.embedding_server import EmbeddingServer
from tests.faults.test_caches import words
from tests.simworld import make_world
from tests.tui.conftest import settle


async def test_a_message_typed_in_the_past_is_kept_in_the_live_world(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_world(tmp_path / "w", agents=2)
    run_frames(root, OfflineBrain(), steps=2)
    past = world_at(World.open(root), "HEAD~1")
    assert past.read_only
    with EmbeddingServer(words) as server:  # (no model to load)
        monkeypatch.setenv("SOULSCOPE_EMBED_BASE_URL", server.base_url)
        monkeypatch.setenv("SOULSCOPE_EMBED_MODEL", "words")
        app = SoulscopeApp(past, settings=load_settings())
        async with app.run_test(size=(110, 32)) as pilot:
            await settle(pilot)
            await pilot.press("5")
            await settle(pilot)
            app.query_one("#chat-input", Input).cursor_blink = False
            await pilot.press(*"I keep bees on the roof", "enter")
            await settle(pilot)
    # (distilled when the dashboard quit)
    kept = "".join(p.read_text() for p in (root / "users").glob("tester.*"))
    assert "I keep bees on the roof" in kept
    assert not (past.root / "users").exists()
