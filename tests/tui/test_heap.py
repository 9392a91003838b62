"""The collector's policy while the dashboard runs: survivors of a full pass set aside, undone on stop."""

import gc
import sys
import weakref

from soulscope.tui.workarounds.heap import FLOOR, Heap


class Node:
    def __init__(self) -> None:
        self.me = self  # a cycle: only the cyclic collector frees it


def test_a_full_collection_sets_its_survivors_aside_and_stop_undoes_it():
    heap = Heap()
    heap.start()
    try:
        kept = [Node() for _ in range(100)]
        gc.collect()
        assert gc.get_freeze_count() >= len(kept)
        # Garbage made after the pass is still found by the next one.
        Node()
        assert gc.collect() > 0
    finally:
        heap.stop()
    assert gc.get_freeze_count() == 0


def test_rebase_lets_the_next_pass_walk_everything():
    heap = Heap()
    heap.start()
    try:
        gc.collect()
        heap.rebase()
        assert gc.get_freeze_count() == 0
        gc.collect()
        assert gc.get_freeze_count() > 0
    finally:
        heap.stop()


def test_objects_set_aside_on_purpose_never_trigger_a_pass_over_everything():
    heap = Heap()
    heap.start()
    try:
        gc.collect()  # the baseline: what is alive now, set aside
        # A world's summaries, say, alive from now on: more than the baseline again.
        gc.disable()  # (no pass of its own while they are made)
        kept = [Node() for _ in range(2 * gc.get_freeze_count() + 100_000)]
        gc.enable()
        heap.set_aside()
        gc.collect()
        # Still set aside: the pass after did not let everything be walked again.
        assert gc.get_freeze_count() >= len(kept)
    finally:
        heap.stop()


def test_cycles_set_aside_that_become_garbage_are_freed_once_the_heap_doubled():
    heap = Heap()
    heap.start()
    try:
        gc.collect()  # the baseline, set aside
        nodes = [Node() for _ in range(1000)]
        gc.collect()  # they survive it: set aside
        assert gc.get_freeze_count() >= len(nodes)
        refs = [weakref.ref(node) for node in nodes[:100]]
        del nodes  # garbage now, but set aside: a pass that skips them cannot find them
        gc.collect()
        assert all(ref() is not None for ref in refs)
        # The heap doubles (a world's worth of new objects): everything is walked again.
        grown = [[i] for i in range(max(sys.getallocatedblocks(), FLOOR))]
        gc.collect()
        gc.collect()
        assert all(ref() is None for ref in refs)
        del grown
    finally:
        heap.stop()
