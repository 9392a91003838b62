"""Python's cycle collector paused while a world's worth of small objects is made.

Reading 10,000 index rows or half a million influence arcs makes millions of objects and no
cycles; every pass of the collector over the oldest generation walks them all (half the time
of those reads). Reference counting still frees what is dropped.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def paused() -> Iterator[None]:
    """The cycle collector off within the block (as it was after it)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
