"""The collector's policy while the dashboard runs: survivors of a full pass set aside, undone on stop."""

import gc

from soulscope.tui.heap import FLOOR, Heap


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


def test_objects_set_aside_by_passes_doubling_let_the_next_pass_walk_everything():
    heap = Heap()
    heap.start()
    try:
        gc.collect()
        heap.check()  # the baseline: what the pass set aside
        gc.disable()
        kept = [Node() for _ in range(2 * max(gc.get_freeze_count(), FLOOR) + 1000)]
        gc.enable()
        gc.collect()  # sets them aside too: more than twice the baseline now
        assert gc.get_freeze_count() >= len(kept)
        heap.check()
        assert gc.get_freeze_count() == 0
        gc.collect()
        heap.check()  # walked once, set aside again: the new baseline
        assert gc.get_freeze_count() >= len(kept)
        heap.check()
        assert gc.get_freeze_count() >= len(kept)  # no pass since: nothing to count
    finally:
        heap.stop()
