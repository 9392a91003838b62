"""Arcs read on from where they stopped: a soul that grew by appended frames gives the statements
a whole reading gives, and the offline brain that reads that way decides as one that reads all."""

from __future__ import annotations

from pathlib import Path

from soulscope.sim.frame import FrameRunner
from soulscope.sim.offline import OfflineBrain
from soulscope.soul.parse import parse
from soulscope.soul.trajectory import ArcReading, iter_arc
from tests.support.bigworld import frame_entries, soul_header
from tests.support.simworld import make_world, tree_bytes


def test_reading_on_gives_the_statements_of_a_whole_reading() -> None:
    text = soul_header("grower", 1) + "".join(frame_entries(40, seed=3))
    reading = ArcReading()
    first = list(iter_arc(parse(text.encode()), None, reading))
    assert reading.frames == 40 and first
    more = "".join(frame_entries(60, start=41, seed=3))
    grown = parse((text + more).encode())
    later = list(iter_arc(grown, None, reading))
    assert later and reading.frames == 100
    assert first + later == list(iter_arc(grown))  # same kinds, roles, indices, magnitudes


class FreshBrain(OfflineBrain):
    """An offline brain that forgets every arc between frames (reads each soul whole)."""

    def decide(self, requests, progress=None):  # noqa: ANN001, ANN201
        self.__init__()
        return super().decide(requests, progress)


def test_the_offline_brain_decides_as_one_that_reads_every_arc_whole(tmp_path: Path) -> None:
    worlds = [make_world(tmp_path / name, agents=5) for name in ("kept", "fresh")]
    for world, brain in zip(worlds, (OfflineBrain(), FreshBrain()), strict=True):
        with FrameRunner(world, brain) as runner:
            for _ in range(12):
                runner.step()
    kept, fresh = (tree_bytes(w) for w in worlds)
    souls = [k for k in kept if k.startswith("memory/")]
    assert souls and all(kept[k] == fresh[k] for k in souls)
