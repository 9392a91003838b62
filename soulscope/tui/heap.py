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
  all walked again once. Counting them walks every one (15 ms for 200,000 objects): it is done
  between keys (``check``, on the app's timer), not inside the pass, which runs in whichever key's
  work set it off.

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
        self._count_due = False  # a full pass set objects aside since the last ``check``

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
        gc.unfreeze()

    def set_aside(self) -> None:
        """Set aside every object alive now (a world's summaries, a big soul's arc, just made and
        kept as long as the dashboard runs): later full passes skip them, and they count toward
        the rebase's baseline, so that they never trigger a pass over everything."""
        gc.freeze()
        if self._rebased is not None:
            self._rebased = max(self._rebased, gc.get_freeze_count())

    def rebase(self) -> None:
        """Let the next full collection walk every object again (another world opened)."""
        gc.unfreeze()
        self._rebased = None

    def check(self) -> None:
        """After full passes: the baseline after a rebase, or a rebase when the objects set aside
        doubled since (cycles may have become garbage among them: the next pass finds them)."""
        if not self._count_due:
            return
        self._count_due = False
        frozen = gc.get_freeze_count()
        if self._rebased is None:
            self._rebased = frozen
        elif frozen > 2 * max(self._rebased, FLOOR):
            self.rebase()

    def _collected(self, phase: str, info: dict) -> None:
        if phase != "stop" or info["generation"] != OLDEST:
            return
        gc.freeze()  # (a move of the whole list, however long)
        self._count_due = True
