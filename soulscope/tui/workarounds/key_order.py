"""Keys handled in the order they were typed, each by whatever has the focus once the keys before
it are done.

Textual hands a key to the widget focused when the key arrives, into that widget's queue, and
handles the app's priority bindings at once. Keys typed in one burst (a fast typist, a paste,
tmux's send-keys, a busy moment) all arrive before the first is handled, so a key that moves the
focus changed nothing for the keys behind it: ``/deb`` lost its letters to the agent list, and a
priority key overtook the keys typed before it (``j/`` lost the ``j``: by the time the list handled
it, the focus was in the filter, where ``j`` means nothing).

The app gives each key here (``arrived``); it is handed on only when the key before it has been
handled: a marker follows that key through the same queues (the focused widget, its ancestors, the
app) and comes back to the app behind it. A key arriving while none is in flight is handed on at
once, so a single key waits for nothing.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Awaitable, Callable

from textual import events
from textual.app import App
from textual.message import Message
from textual.timer import Timer

# How long a key waits for the one before it at most (a widget removed with the key in its queue
# never hands it back).
LONGEST_WAIT_S = 0.5


class KeyHandled(Message):
    """Follows key number ``serial`` from the widget it was given to back up to the app."""

    def __init__(self, serial: int) -> None:
        super().__init__()
        self.serial = serial


class KeyOrder:
    """The app's keys, handed on one at a time (``hand_on`` is Textual's own handling of one)."""

    def __init__(self, app: App, hand_on: Callable[[events.Key], Awaitable[None]]) -> None:
        self._app = app
        self._hand_on = hand_on
        self._waiting: deque[events.Key] = deque()
        self._in_flight: int | None = None  # the serial of the key handed on and not yet back
        self._serial = 0
        self._timer: Timer | None = None

    async def arrived(self, key: events.Key) -> None:
        self._waiting.append(key)
        if self._in_flight is None:
            await self._next()
        elif self._timer is None:
            self._timer = self._app.set_timer(LONGEST_WAIT_S, self._gave_up)

    async def handled(self, message: KeyHandled) -> None:
        """The marker came back: the key before it has been handled."""
        if message.serial == self._in_flight:
            await self._done()

    async def _gave_up(self) -> None:
        self._timer = None
        if self._in_flight is not None:
            await self._done()

    async def _done(self) -> None:
        self._in_flight = None
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        await self._next()

    async def _next(self) -> None:
        while self._waiting and self._in_flight is None:
            key = self._waiting.popleft()
            app = self._app
            target = app.focused or app.screen
            await self._hand_on(key)
            self._serial += 1
            # Behind the key in the queue it was put in (or at once, when a priority binding took
            # it or the target is gone): handled in turn, then passed up to the app.
            if target.post_message(KeyHandled(self._serial)):
                self._in_flight = self._serial
        if self._waiting and self._timer is None:
            self._timer = self._app.set_timer(LONGEST_WAIT_S, self._gave_up)
