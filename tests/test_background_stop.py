"""Background embedding stops when what started it ends: between two batches, what it cached kept.

A ``chat`` told to stop (SIGTERM) while its embedding runs exits with 143 and its facts written,
never an abort; quitting the dashboard while the Chat tab embeds stops the embedding instead of
waiting for it. Real parts: a loopback embeddings server (one text a request, slowed down), the
real MiniLM in a real child process.
"""

from __future__ import annotations

import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from textual.widgets import Input

from soulscope.config import load_settings
from soulscope.recall.background import Background, Stopped
from soulscope.recall.catchup import catch_up
from soulscope.recall.hybrid import RecallIndex
from soulscope.recall.semantic import EmbeddingCache
from soulscope.tui.app import SoulscopeApp
from soulscope.tui.panes.chat import ChatPane
from soulscope.world import World
from tests.support.cli import process_env
from tests.support.embedding_server import EmbeddingServer, endpoint_config, words
from tests.support.paths import ROOT
from tests.support.pilot import settle, until
from tests.support.users import users_folder
from tests.support.worlds import ADA, BO, CY, write_world


@pytest.fixture
def world(tmp_path: Path) -> World:
    return World.open(write_world(tmp_path / "world", {"ada-01": ADA, "bo-02": BO, "cy-03": CY}))


@pytest.fixture
def slow_embeddings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """The embeddings endpoint, one text a request, a tenth of a second each."""
    with EmbeddingServer(words, model="words", latency=0.1) as server:
        config = endpoint_config(server, tmp_path / "config.toml", batch=1, concurrency=1)
        monkeypatch.setenv("SOULSCOPE_CONFIG", str(config))
        monkeypatch.setenv("SOULSCOPE_USER", "ann")
        yield server


def _rows(model: str) -> int:
    """Vectors of ``model`` in the embeddings cache."""
    path = EmbeddingCache().path
    with sqlite3.connect(path) as db:
        return db.execute("SELECT count(*) FROM vectors WHERE model = ?", (model,)).fetchone()[0]


def test_a_stopped_catch_up_ends_between_batches_and_keeps_them(
    world: World, slow_embeddings: EmbeddingServer
) -> None:
    settings = load_settings()
    index = RecallIndex.for_world(world)
    total = len(set(index.dense_texts))
    stop = threading.Event()
    seen: list[int] = []

    def progress(stage: str, done: int, _total: int) -> None:
        seen.append(done)
        if done >= 3:
            stop.set()  # as quitting does, from another thread

    with pytest.raises(Stopped):
        catch_up(index, settings, EmbeddingCache(), None, progress, stop)
    assert total > 10 and max(seen) == 3
    assert len(slow_embeddings.requests) <= 4  # (a first one tells the vectors' size)
    assert 3 <= _rows(f"endpoint:{slow_embeddings.model}") <= 4  # what was made is kept


def test_background_wait_returns_when_asked_to_stop() -> None:
    started, release = threading.Event(), threading.Event()

    def work(stop: threading.Event) -> None:
        started.set()
        release.wait(10)  # a batch in flight: it cannot see the stop until it ends

    job = Background(work, "test-background")
    started.wait(5)
    waiter = threading.Thread(target=job.wait)
    waiter.start()
    job.stop()
    waiter.join(2)
    assert not waiter.is_alive() and job.alive  # the waiter is free; the batch goes on
    release.set()
    assert job.join(5)


async def test_quitting_while_the_chat_tab_embeds_stops_the_embedding(
    world: World, slow_embeddings: EmbeddingServer
) -> None:
    index = RecallIndex.for_world(world)
    total = len(set(index.dense_texts))
    app = SoulscopeApp(world)
    async with app.run_test(size=(80, 24)) as pilot:
        pilot.app.query_one("#filter", Input).cursor_blink = False
        await settle(pilot)
        await pilot.press("5")
        pane = app.query_one(ChatPane)
        await until(
            pilot, lambda: re.search(r"embedding [1-9]\d* of", pane.search_note) is not None
        )
        embedding = pane._embedding
        assert embedding is not None
    # The app is gone; its embedding stops at the end of the request in flight.
    assert embedding.join(5)
    asked = len(slow_embeddings.requests)
    time.sleep(0.5)
    assert len(slow_embeddings.requests) == asked < total  # nothing more was asked for
    assert _rows(f"endpoint:{slow_embeddings.model}") >= asked - 1  # and what came back is kept


def copy_world(source: Path, tmp_path: Path) -> Path:
    shutil.copytree(source, tmp_path / "w")
    return tmp_path / "w"


@pytest.mark.slow  # loads MiniLM in a child process, three times
def test_sigterm_to_chat_while_it_embeds_exits_cleanly_and_keeps_the_facts(
    later_world: Path, tmp_path: Path
) -> None:
    """SIGTERM while the background embedding is inside MiniLM: exit status 143, the facts
    written, no abort ("terminate called without an active exception", status 134)."""
    world = copy_world(later_world, tmp_path)
    for run in range(3):
        user = f"user{run}"
        proc = subprocess.Popen(
            [sys.executable, "-m", "soulscope", "chat", "--user", user, "-w", str(world)],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            cwd=ROOT,
            env=process_env(),
        )
        try:
            lines = _embedding_under_way(proc, f"My heron number {run} nests on the roof.\n")
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=60)
        finally:
            proc.kill()
        err = "".join(lines)
        assert proc.returncode == 128 + signal.SIGTERM, err[-800:]
        assert "terminate called" not in err and "Traceback" not in err, err[-800:]
        facts = (users_folder(world) / f"{user}.txt").read_text(encoding="utf-8")
        assert f"- My heron number {run} nests on the roof.\n" in facts


def _embedding_under_way(proc: subprocess.Popen[str], statement: str) -> list[str]:
    """Say ``statement``, then ask until chat says its embedding has made a batch and is on
    to the next ("embedding 64 of 484 with MiniLM in the background")."""
    assert proc.stdin is not None and proc.stderr is not None
    proc.stdin.write(statement)
    proc.stdin.flush()
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(iter(proc.stderr.readline, "")))
    reader.daemon = True
    reader.start()
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        if any(re.search(r"embedding [1-9][\d,]* of", line) for line in lines):
            return lines  # (read on to the end by the reader)
        proc.stdin.write("what is new?\n")
        proc.stdin.flush()
        time.sleep(0.5)
    raise AssertionError("the embedding never got under way: " + "".join(lines[-5:]))
