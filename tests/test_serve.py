"""``soulscope serve``: the dashboard served by the real textual-serve, driven over HTTP and its
websocket as a browser drives it (the page, a terminal size, key presses), the demo world's World
tab on screen. (No browser runs here: the page's script is what the websocket test stands in for.)"""

from __future__ import annotations

import re
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support.cli import process_env, soulscope
from tests.support.paths import ROOT

pytest.importorskip("textual_serve", reason="soulscope serve needs textual-serve")
aiohttp = pytest.importorskip("aiohttp", reason="textual-serve brings aiohttp")

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07|\x1b[()][A-Z0-9]")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def served(tmp_path: Path):
    port = free_port()
    env = process_env({"SOULSCOPE_CACHE": str(tmp_path / "cache"), "SOULSCOPE_WORLD": ""})
    proc = subprocess.Popen(
        [sys.executable, "-m", "soulscope", "serve", "--port", str(port), "--host", "127.0.0.1"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            time.sleep(0.2)
    yield f"127.0.0.1:{port}"
    proc.terminate()
    proc.wait(timeout=30)


async def screen_until(ws, wanted: str, seconds: float = 120) -> str:  # noqa: ANN001
    """The terminal text the app sends, read until ``wanted`` is in it."""
    seen = ""
    deadline = time.monotonic() + seconds
    while wanted not in seen:
        left = deadline - time.monotonic()
        assert left > 0, f"{wanted!r} never shown; last: {seen[-400:]!r}"
        msg = await ws.receive(timeout=left)
        if msg.type == aiohttp.WSMsgType.BINARY:  # the terminal's bytes
            seen += ANSI.sub("", msg.data.decode("utf-8", "replace"))
        elif msg.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED):
            raise AssertionError(f"the app closed; last: {seen[-400:]!r}")
    return seen


async def test_the_world_tab_of_the_demo_world_in_a_browser_session(served: str):
    async with aiohttp.ClientSession() as http:
        async with http.get(f"http://{served}/") as page:
            assert page.status == 200
            html = await page.text()
        assert f"ws://{served}/ws" in html and "soulscope" in html
        async with http.ws_connect(f"http://{served}/ws?width=160&height=45") as ws:
            await ws.send_json(["resize", {"width": 160, "height": 45}])
            await screen_until(ws, "welcomer-pell")  # the demo world's agents are listed
            await ws.send_json(["stdin", "3"])  # the World tab
            shown = await screen_until(ws, "Latest Becoming")
            assert "Posts/comments" in shown
            await ws.send_json(["stdin", "S"])  # reverse the table: the rows move
            moved = await screen_until(ws, "archivist-hale")
            assert moved


def test_a_port_that_is_none_is_one_sentence():
    done = soulscope("serve", "--port", "70000")
    assert done.returncode == 2 and "70000" in done.stderr


def test_serve_waits_for_nothing_when_the_world_is_missing(tmp_path: Path):
    done = soulscope("serve", "--world", str(tmp_path / "missing"))
    assert done.returncode == 2 and "missing" in done.stderr
