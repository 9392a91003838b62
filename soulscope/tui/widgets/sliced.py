"""Adding tens of thousands of rows to a table without freezing the dashboard.

A ``DataTable`` costs a fraction of a millisecond per row (and measures new rows when the app is
idle): a 20 MB soul's arc or a world of 10,000 agents would hold the UI for seconds. A
``SlicedFill`` adds the first rows at once (what a screen shows, and all of a usual table), then the
rest in slices of a few milliseconds with a pause between them, in which keys are answered.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from time import perf_counter
from typing import Generic, TypeVar

from textual.widget import Widget

T = TypeVar("T")

SLICE_S = 0.02  # the longest a slice adds rows
PAUSE_S = 0.01  # between slices: keys are answered, the table measures what was added
AT_ONCE = 300  # rows added at once when the fill starts


class SlicedFill(Generic[T]):
    """Feeds ``items`` to ``add`` on ``owner``'s thread: the first ``AT_ONCE`` at once, the rest in
    slices; ``done`` is called when every item is added. ``cancel`` stops a fill a newer one
    replaces."""

    def __init__(
        self,
        owner: Widget,
        items: Iterable[T],
        add: Callable[[T], None],
        done: Callable[[], None] | None = None,
    ) -> None:
        self._owner = owner
        self._items = list(items)
        self._add = add
        self._done = done
        self.added = 0
        self.cancelled = False
        self._queued = False
        self._step(AT_ONCE)

    @property
    def finished(self) -> bool:
        return self.added >= len(self._items)

    def extend(self, items: Iterable[T]) -> None:
        """More items, added after the ones waiting."""
        self._items.extend(items)
        if not self._queued:
            self._step(AT_ONCE)

    def until(self, index: int) -> None:
        """Add every item up to ``index`` now (before moving a cursor there)."""
        self._step(index + 1 - self.added, timed=False)

    def cancel(self) -> None:
        self.cancelled = True

    def _step(self, at_least: int = 0, timed: bool = True) -> None:
        if self.cancelled:
            return
        deadline = perf_counter() + SLICE_S
        first = self.added
        items = self._items
        while self.added < len(items) and (
            self.added - first < at_least or (timed and perf_counter() < deadline)
        ):
            self._add(items[self.added])
            self.added += 1
        if not timed:
            return
        if self.finished:
            self._queued = False
            if self._done is not None:
                self._done()
        else:
            self._queued = True
            self._owner.set_timer(PAUSE_S, self._step)
