"""A pool of servers that serve the same API (several vLLM, llama.cpp or TEI servers of one model).

Requests take the servers in turn, each server at most ``concurrency`` requests at once, so a
slow server holds back only what it is asked. A request a server fails (it refuses, times out,
answers an error or a reply that is not one) is asked of another server that has not failed it;
a server that failed rests: it is asked again only when every other has failed the request too,
or, after ``REST_S``, by one request that tries it (a server restarted is used again), and is
healthy again as soon as it answers. A request fails only when every server of the pool failed
it. Both the thread-based callers (the embeddings, chat) and the asyncio ones (the LLM brain)
share one pool object per client.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import TypeVar

T = TypeVar("T")
REST_S = 30.0  # how long a server that failed is passed over before one request tries it again


class Pool:
    """The servers of a pool, which is free and which failed; ``served`` and ``failures`` count
    the requests each server answered and failed. ``clock`` tells the time in seconds."""

    def __init__(
        self,
        urls: Sequence[str],
        concurrency: int,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if not urls:
            raise ValueError("a pool needs at least one server")
        self.urls = tuple(dict.fromkeys(urls))
        self.concurrency = max(1, concurrency)
        self.served: dict[str, int] = dict.fromkeys(self.urls, 0)
        self.failures: dict[str, int] = dict.fromkeys(self.urls, 0)
        self._busy: dict[str, int] = dict.fromkeys(self.urls, 0)
        self._failed: dict[str, float] = {}  # a server that failed -> when it may be tried again
        self._clock = clock
        self._next = 0  # the index of the server whose turn it is
        self._changed = threading.Condition()
        self._waiting: list[asyncio.Future[None]] = []  # asyncio requests waiting for a slot

    def __len__(self) -> int:
        return len(self.urls)

    @property
    def failed(self) -> frozenset[str]:
        """The servers whose last request failed."""
        with self._changed:
            return frozenset(self._failed)

    def _pick(self, tried: Sequence[str]) -> str | None:
        """The server to ask next (taken: its slot is counted), or None while every server
        the request may go to is busy. Call with ``_changed`` held."""
        untried = [u for u in self.urls if u not in tried]
        if not untried:
            raise ValueError("every server of the pool was tried")
        now = self._clock()
        candidates = [u for u in untried if self._failed.get(u, now) <= now] or untried
        n = len(self.urls)
        for i in range(n):
            url = self.urls[(self._next + i) % n]
            if url in candidates and self._busy[url] < self.concurrency:
                self._busy[url] += 1
                self._next = (self.urls.index(url) + 1) % n
                if url in self._failed:  # (one request tries it; the others wait its answer)
                    self._failed[url] = now + REST_S
                return url
        return None

    def take(self, tried: Sequence[str] = ()) -> str:
        """The server a request goes to next, not one of ``tried``; waits for a free slot.
        Every ``take`` is followed by one ``give``."""
        with self._changed:
            while (url := self._pick(tried)) is None:
                self._changed.wait()
            return url

    def give(self, url: str, ok: bool | None) -> None:
        """A request of ``url`` ended: answered (``ok``), failed by the server (False), or
        stopped by its caller (None: says nothing of the server)."""
        with self._changed:
            self._busy[url] -= 1
            if ok:
                self._failed.pop(url, None)
                self.served[url] += 1
            elif ok is False:
                self._failed[url] = self._clock() + REST_S
                self.failures[url] += 1
            self._changed.notify_all()
            waiting, self._waiting = self._waiting, []
        for future in waiting:  # (each waiting request looks again)
            loop = future.get_loop()
            if not loop.is_closed():
                loop.call_soon_threadsafe(_wake, future)

    def call(self, ask: Callable[[str], T], failures: tuple[type[BaseException], ...]) -> T:
        """``ask(url)`` of the servers in turn until one answers; the last failure (one of
        ``failures``) when every server failed."""
        tried: list[str] = []
        while True:
            url = self.take(tried)
            try:
                value = ask(url)
            except failures:
                tried.append(url)
                self.give(url, False)
                if len(tried) == len(self.urls):
                    raise
                continue
            except BaseException:
                self.give(url, None)
                raise
            self.give(url, True)
            return value

    async def atake(self, tried: Sequence[str] = ()) -> str:
        """:meth:`take` for asyncio: waits without blocking the event loop."""
        loop = asyncio.get_running_loop()
        while True:
            with self._changed:
                url = self._pick(tried)
                if url is not None:
                    return url
                future = loop.create_future()
                self._waiting.append(future)
            await future

    async def acall(
        self, ask: Callable[[str], Awaitable[T]], failures: tuple[type[BaseException], ...]
    ) -> T:
        """:meth:`call` for asyncio."""
        tried: list[str] = []
        while True:
            url = await self.atake(tried)
            try:
                value = await ask(url)
            except failures:
                tried.append(url)
                self.give(url, False)
                if len(tried) == len(self.urls):
                    raise
                continue
            except BaseException:
                self.give(url, None)
                raise
            self.give(url, True)
            return value


def _wake(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)
