"""An answer streamed into Markdown, redrawn a few times a second rather than per word.

Each append lays the answer out again, so appending every word costs far more than the word, and a
UI that redraws without pause never idles. ``PacedStream`` gathers what arrives and appends it at
most every ``interval`` seconds, through the view's public ``append`` only: the text shows the
same, at the same moments give or take ``interval``.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable
from typing import Protocol


class Appendable(Protocol):
    """A Markdown view that text is added to (``Markdown``, ``StreamedMarkdown``)."""

    def append(self, markdown: str, /) -> Awaitable[object]: ...


class PacedStream:
    """Append fragments to ``view``, joined, at most once per ``interval`` seconds."""

    def __init__(self, view: Appendable, interval: float = 0.1) -> None:
        self.view = view
        self.interval = interval
        self._pending: list[str] = []
        self._arrived = asyncio.Event()
        self._stopping = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    async def write(self, fragment: str) -> None:
        if not fragment:
            return
        self._pending.append(fragment)
        self._arrived.set()
        if self._task is None:
            self._task = asyncio.create_task(self._run())
        await asyncio.sleep(0)  # let the drawing task run

    async def _run(self) -> None:
        # Never cancelled: an append cut short would lose its text (``stop`` asks it to end).
        while not self._stopping.is_set():
            await self._arrived.wait()
            await self._flush()
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self._stopping.wait(), self.interval)

    async def _flush(self) -> None:
        self._arrived.clear()
        if self._pending:
            text = "".join(self._pending)
            self._pending.clear()
            await self.view.append(text)

    async def stop(self) -> None:
        """Stop drawing once what arrived is shown."""
        self._stopping.set()
        self._arrived.set()
        if self._task is not None:
            await self._task
            self._task = None
        await self._flush()
