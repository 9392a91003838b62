"""``soulscope serve`` in a real headless Chromium, driven over the DevTools protocol: the demo
world's dashboard drawn in the page, ``3`` shows the World tab and ``S`` moves its rows (each
screenshot differs from the one before). Skipped where no Chromium is installed."""

from __future__ import annotations

import asyncio
import base64
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.test_serve import free_port, served  # noqa: F401 (the fixture)

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="no Chromium installed (Debian: apt-get install chromium)"
)
aiohttp = pytest.importorskip("aiohttp", reason="textual-serve brings aiohttp")


class Page:
    """One page of the browser, over its DevTools websocket."""

    def __init__(self, ws) -> None:  # noqa: ANN001
        self.ws, self.n = ws, 0

    async def call(self, method: str, **params: object) -> dict:
        self.n += 1
        await self.ws.send_json({"id": self.n, "method": method, "params": params})
        while True:
            m = await self.ws.receive_json(timeout=60)
            if m.get("id") == self.n:
                return m.get("result") or {}

    async def shot(self, path: Path) -> bytes:
        data = base64.b64decode((await self.call("Page.captureScreenshot", format="png"))["data"])
        path.write_bytes(data)
        return data

    async def key(self, text: str, code: str, vk: int, shift: bool = False) -> None:
        mods = 8 if shift else 0
        await self.call(
            "Input.dispatchKeyEvent", type="keyDown", key=text, text=text, code=code,
            windowsVirtualKeyCode=vk, modifiers=mods,
        )  # fmt: skip
        await self.call(
            "Input.dispatchKeyEvent", type="keyUp", key=text, code=code,
            windowsVirtualKeyCode=vk, modifiers=mods,
        )  # fmt: skip


async def settled(page: Page, path: Path, before: bytes | None, seconds: float = 90) -> bytes:
    """A screenshot once the page has drawn something new (and stopped changing)."""
    last, same = before, 0
    for _ in range(int(seconds)):
        await asyncio.sleep(1)
        now = await page.shot(path)
        same = same + 1 if now == last else 0
        if now != before and same >= 2:  # changed, then still for two seconds
            return now
        last = now
    raise AssertionError(f"the page did not change: {path}")


async def test_the_world_tab_in_headless_chromium(served: str, tmp_path: Path):  # noqa: F811
    port = free_port()
    browser = subprocess.Popen(
        [
            str(CHROMIUM), "--headless=new", "--no-sandbox", "--disable-gpu",
            "--disable-dev-shm-usage", f"--remote-debugging-port={port}",
            "--window-size=1400,900", f"--user-data-dir={tmp_path / 'profile'}", "about:blank",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        async with aiohttp.ClientSession() as http:
            for _ in range(100):
                try:
                    async with http.get(f"http://127.0.0.1:{port}/json/list") as r:
                        targets = await r.json()
                    break
                except (OSError, aiohttp.ClientError):
                    await asyncio.sleep(0.3)
            url = next(t for t in targets if t["type"] == "page")["webSocketDebuggerUrl"]
            async with http.ws_connect(url, max_msg_size=0) as ws:
                page = Page(ws)
                blank = await page.shot(tmp_path / "blank.png")
                await page.call("Page.navigate", url=f"http://{served}/")
                start = await settled(page, tmp_path / "dashboard.png", blank)
                for kind in ("mousePressed", "mouseReleased"):  # the terminal takes the keys
                    await page.call(
                        "Input.dispatchMouseEvent", type=kind, x=700, y=450, button="left",
                        clickCount=1,
                    )  # fmt: skip
                start = await page.shot(tmp_path / "dashboard.png")
                await page.key("3", "Digit3", 51)
                world = await settled(page, tmp_path / "world-tab.png", start)
                await page.key("S", "KeyS", 83, shift=True)
                await settled(page, tmp_path / "world-reversed.png", world)
    finally:
        browser.terminate()
        browser.wait(timeout=30)
