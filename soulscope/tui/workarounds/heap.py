"""The cyclic garbage collector's policy while the dashboard runs.

Python's full collections walk every object the process holds; with the dashboard's tables,
rendered diffs and parsed souls that took 15 to 75 ms, on the UI thread, in the middle of whichever
key was pressed (a collection on a worker's thread holds the interpreter lock just the same). While
the dashboard runs:

- after each full collection the objects that survived it are set aside (``gc.freeze``): what was
  garbage has just been collected, and the next full collections walk only what is newer. Objects
  set aside are still freed as soon as nothing refers to them; only cycles among them that become
  garbage later wait, until the dashboard lets go (``gc.unfreeze``, on another world opened and on
  quitting) or until the heap has doubled since the last such rebase, when everything is walked
  again once.

The heap's size is the interpreter's count of its allocated blocks (``sys.getallocatedblocks``:
half a millisecond for 4.5 million blocks). Counting the objects set aside costs what a pass does:
the collector's own count (``gc.get_freeze_count``) walks every one of them, 20 ms for a million
and a half, and listing those a freeze is about to set aside, 45 ms. Either one, asked after each
full pass, landed inside whichever key was pressed.

The young generations keep Python's thresholds: collected every 10,000 allocations instead of 700,
each pass of the middle one walked about 100,000 objects, 15 to 27 ms inside a key.
"""

from __future__ import annotations

import gc
import sys

OLDEST = 2  # the generation of full collections
FLOOR = 100_000  # allocated blocks below which no rebase is due


class Heap:
    """Installed while the dashboard runs (``start``/``stop``); one per process at a time."""

    def __init__(self) -> None:
        self._started = False
        self._rebased: int | None = None  # the heap's size after the last rebase's pass

    def start(self) -> None:
        if self._started:
            return
        self._started = True
        self._rebased = None
        gc.callbacks.append(self._collected)

    def stop(self) -> None:
        if not self._started:
            return
        gc.callbacks.remove(self._collected)
        self._started = False
        self.rebase()

    def set_aside(self) -> None:
        """Set aside every object alive now (a world's summaries, a big soul's arc, just made and
        kept as long as the dashboard runs): later full passes skip them, and the heap's size
        with them becomes the rebase's baseline, so that they never trigger a pass over
        everything."""
        gc.freeze()
        if self._rebased is not None:
            self._rebased = max(self._rebased, sys.getallocatedblocks())

    def rebase(self) -> None:
        """Let the next full collection walk every object again (another world opened)."""
        gc.unfreeze()
        self._rebased = None

    def _collected(self, phase: str, info: dict) -> None:
        if phase != "stop" or info["generation"] != OLDEST:
            return
        size = sys.getallocatedblocks()
        if self._rebased is not None and size > 2 * max(self._rebased, FLOOR):
            # Cycles may have become garbage among the objects set aside: the next pass finds them.
            self.rebase()
            return
        gc.freeze()
        if self._rebased is None:
            self._rebased = size
