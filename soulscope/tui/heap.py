"""The cyclic garbage collector's policy while the dashboard runs.

Python's full collections walk every object the process holds; with the dashboard's tables,
rendered diffs and parsed souls that took 15 to 75 ms, on the UI thread, in the middle of whichever
key was pressed (a collection on a worker's thread holds the interpreter lock just the same). While
the dashboard runs:

- after each full collection the objects that survived it are set aside (``gc.freeze``): what was
  garbage has just been collected, and the next full collections walk only what is newer. Objects
  set aside are still freed as soon as nothing refers to them; only cycles among them that become
  garbage later wait, until the dashboard lets go (``gc.unfreeze``, on another world opened and on
  quitting) or until the objects set aside have doubled since the last such rebase, when they are
  all walked again once.

The objects set aside are counted as they are set aside: the collector's own count of them
(``gc.get_freeze_count``) walks every one, 20 ms for a million and a half, and it was asked after
each full pass. That count includes objects set aside and freed since, so it only bounds the
real one: the collector's count is asked only when the bound says the set-aside objects doubled.

The young generations keep Python's thresholds: collected every 10,000 allocations instead of 700,
each pass of the middle one walked about 100,000 objects, 15 to 27 ms inside a key.
"""

from __future__ import annotations

import gc

OLDEST = 2  # the generation of full collections
FLOOR = 50_000  # objects set aside below which no rebase is due


class Heap:
    """Installed while the dashboard runs (``start``/``stop``); one per process at a time."""

    def __init__(self) -> None:
        self._started = False
        self._rebased: int | None = None  # objects set aside after the last rebase's pass
        # Objects set aside since everything was last walked, and some of those freed since.
        self._frozen = 0

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
        kept as long as the dashboard runs): later full passes skip them, and they count toward
        the rebase's baseline, so that they never trigger a pass over everything."""
        self._freeze()
        if self._rebased is not None:
            self._rebased = max(self._rebased, self._frozen)

    def rebase(self) -> None:
        """Let the next full collection walk every object again (another world opened)."""
        gc.unfreeze()
        self._frozen = 0
        self._rebased = None

    def _freeze(self) -> None:
        # What a freeze sets aside is what the collector tracks outside the objects set aside
        # already: the young generations and the survivors of the passes since.
        self._frozen += sum(len(gc.get_objects(generation)) for generation in range(OLDEST + 1))
        gc.freeze()

    def _collected(self, phase: str, info: dict) -> None:
        if phase != "stop" or info["generation"] != OLDEST:
            return
        if self._rebased is not None and self._frozen > 2 * max(self._rebased, FLOOR):
            self._frozen = gc.get_freeze_count()  # (freed ones are not in it)
            if self._frozen > 2 * max(self._rebased, FLOOR):
                # Cycles may have become garbage among the objects set aside: the next pass
                # finds them.
                self.rebase()
                return
        self._freeze()
        if self._rebased is None:
            self._rebased = self._frozen
