"""Embedding behind a command or the dashboard, in a thread that stops when they end.

A background embedding (``catchup.catch_up``) runs in a daemon thread of its own and looks, between
two batches, whether it was asked to stop: then it leaves (``Stopped``), and every batch it made
is already cached. When the process ends, :func:`stop_all` asks each one to stop and waits a
moment. One still inside its model cannot be waited for (a batch takes seconds on a CPU), and an
interpreter that shuts down under a thread running torch's native code aborts ("terminate called
without an active exception"): the process then leaves at once, without shutting the interpreter
down (:func:`leave`), after what it had to keep (the conversation's facts) was written.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import time
from collections.abc import Callable

GRACE = 0.25  # seconds an ending process waits for its background work to reach a batch end

_running: set[Background] = set()
_running_lock = threading.Lock()


class Stopped(Exception):  # noqa: N818 (not an error: the work was asked to stop)
    """Background work was asked to stop, and did, between two batches."""


def check(stop: threading.Event | None) -> None:
    """Raise ``Stopped`` when ``stop`` is set (between two batches of background work)."""
    if stop is not None and stop.is_set():
        raise Stopped


class Background:
    """``work(stop)`` in a daemon thread; ``work`` calls ``check(stop)`` between its batches."""

    def __init__(self, work: Callable[[threading.Event], object], name: str) -> None:
        self.stop_event = threading.Event()
        self._work = work
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        with _running_lock:
            _running.add(self)
        self._thread.start()

    def _run(self) -> None:
        try:
            self._work(self.stop_event)
        except Stopped:
            pass
        finally:
            with _running_lock:
                _running.discard(self)

    @property
    def alive(self) -> bool:
        return self._thread.is_alive()

    def stop(self) -> None:
        """Ask the work to stop at its next batch's end (it goes on to that end)."""
        self.stop_event.set()

    def wait(self, poll: float = 0.1) -> None:
        """Until the work ends, or until it is asked to stop (then at once)."""
        while self._thread.is_alive() and not self.stop_event.is_set():
            self._thread.join(poll)

    def join(self, timeout: float | None = None) -> bool:
        """Wait for the work to end (at most ``timeout`` seconds); whether it did."""
        self._thread.join(timeout)
        return not self._thread.is_alive()


def stop_all(grace: float = GRACE) -> bool:
    """Ask every background work to stop, and wait up to ``grace`` seconds in all for them to
    end; whether none is still running."""
    with _running_lock:
        running = list(_running)
    for work in running:
        work.stop()
    deadline = time.monotonic() + grace
    return all(work.join(max(0.0, deadline - time.monotonic())) for work in running)


def leave(code: int) -> None:
    """End background work before the process exits with ``code``; when some is still inside
    its model after ``GRACE``, exit now, the interpreter left as it is (what a batch in flight
    made is lost; what was cached is kept)."""
    if stop_all():
        return
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(code)
