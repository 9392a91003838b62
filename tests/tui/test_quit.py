"""Quitting ends the process at once, whatever the dashboard's workers are still doing."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.support import embedding_server
from tests.support.embedding_server import EmbeddingServer, words
from tests.support.paths import ROOT
from tests.support.repos import git_out
from tests.support.simworld import make_world
from tests.support.worlds import ADA, write_world

# The app, in a process of its own as ``soulscope WORLD`` opens it (headless, keys from a pilot):
# semantic drift asks the embeddings endpoint, which does not answer, and q quits meanwhile.
DRIVE = textwrap.dedent(
    """
    import sys
    from soulscope.cli.dashboard import open_dashboard
    from soulscope.config import load_settings

    async def keys(pilot):
        app = pilot.app
        await pilot.press("2")
        while not any(w.group == "drift" for w in app.workers):
            await pilot.press("m")
            await pilot.pause(0.1)
        await pilot.pause(0.3)  # the request is on its way
        await pilot.press("q")

    open_dashboard(sys.argv[1], load_settings(), headless=True, size=(100, 30), auto_pilot=keys)
    """
)


def test_q_while_a_worker_waits_on_the_network_ends_the_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    world = write_world(tmp_path / "world", {"ada-01": ADA})
    monkeypatch.setattr(embedding_server, "SLOW_S", 300.0)  # an endpoint that never answers
    with EmbeddingServer(words, model="words", failure="slow") as server:
        env = {
            **os.environ,
            "PYTHONPATH": str(ROOT),
            "SOULSCOPE_CACHE": str(tmp_path / "cache"),
            "SOULSCOPE_EMBED_BASE_URL": server.base_url,
            "SOULSCOPE_EMBED_MODEL": "words",
        }
        # Before, the process waited for the worker: the endpoint's 60 s timeout, a blank terminal.
        done = subprocess.run(
            [sys.executable, "-c", DRIVE, str(world)],
            env=env,
            capture_output=True,
            text=True,
            timeout=40,
        )
        assert done.returncode == 0, done.stderr[-2000:]
        assert server.requests, "the drift never reached the endpoint"


# Frames run from the dashboard (N 50) and q while they run.
RUN_FRAMES = textwrap.dedent(
    """
    import sys
    from soulscope.cli.dashboard import open_dashboard
    from soulscope.config import load_settings
    from soulscope.tui.widgets.frame_bar import FrameBar

    async def keys(pilot):
        bar = pilot.app.query_one(FrameBar)
        await pilot.pause(0.3)
        await pilot.press("N", "5", "0", "enter")
        while not bar.running:
            await pilot.pause(0.01)
        await pilot.pause(0.5)
        await pilot.press("q")

    open_dashboard(sys.argv[1], load_settings(), headless=True, size=(100, 30), auto_pilot=keys)
    """
)


def test_q_while_frames_run_finishes_the_frame_being_written(tmp_path: Path) -> None:
    root = make_world(tmp_path / "w", agents=12)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "SOULSCOPE_CACHE": str(tmp_path / "cache")}
    done = subprocess.run(
        [sys.executable, "-c", RUN_FRAMES, str(root)],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    # Whatever ran landed whole: nothing staged or written outside a frame's commit.
    assert git_out(root, "status", "--porcelain") == ""
    subjects = git_out(root, "log", "--format=%s").splitlines()
    assert 1 <= sum(s.startswith("frame ") for s in subjects) < 50
