"""Work the dashboard's process finishes before it ends, when the user quits while it runs.

Quitting leaves every other worker behind at once (``soulscope.cli.dashboard``); a frame being
written is finished instead (the frame runner stops after it, as ``x`` does): a frame is never cut
in half, whatever ends the dashboard.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

# The longest the process waits for them in all: a frame's journal makes a frame cut later whole
# or undone by the next run (``soulscope.sim.journal``).
LONGEST_WAIT_S = 10.0

_lock = threading.Lock()
_finishing: set[threading.Thread] = set()


@contextmanager
def finished_before_exit() -> Iterator[None]:
    """The work inside is waited for when the process ends."""
    thread = threading.current_thread()
    with _lock:
        _finishing.add(thread)
    try:
        yield
    finally:
        with _lock:
            _finishing.discard(thread)


def wait_for_finishing() -> None:
    """Until every work marked ``finished_before_exit`` has ended (``LONGEST_WAIT_S`` at most)."""
    with _lock:
        threads = list(_finishing)
    deadline = time.monotonic() + LONGEST_WAIT_S
    for thread in threads:
        thread.join(max(0.0, deadline - time.monotonic()))
