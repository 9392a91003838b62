"""Typed messages the dashboard's workers post back to the app (from their threads)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from textual.message import Message

from soulscope.sim.frame import FrameResult
from soulscope.soul.model import Soul
from soulscope.soul.trajectory import ArcSummary
from soulscope.tui.widgets.soul_text import LongLines


@dataclass
class SoulLoaded(Message):
    """The selected agent's soul is parsed (or came from the cache)."""

    agent_id: str
    soul: Soul
    summary: ArcSummary
    seconds: float


@dataclass
class SoulTextRead(Message):
    """A big file of the selected agent is read, not yet parsed: its text, shown meanwhile, as
    the view's lines (its beginning, a list; then the whole file, ``FileLines``, its long lines
    found)."""

    agent_id: str
    lines: Sequence[str]
    long: LongLines | None = None


@dataclass
class SoulFailed(Message):
    """The selected agent's file could not be read; ``error`` is one sentence for the user."""

    agent_id: str
    error: str


@dataclass
class WorldProgress(Message):
    """A batch of agents of the whole world parsed: their summaries, and failures by agent id."""

    summaries: tuple[ArcSummary, ...]
    failures: tuple[tuple[str, str], ...]
    done: int
    total: int


@dataclass
class WorldParsed(Message):
    """Every agent of the world is parsed."""

    total: int
    failed: int
    seconds: float


@dataclass
class FrameProgress(Message):
    """Frame ``step`` of ``steps`` is ``what`` ("reading", "deciding", "writing"): ``done`` of ``total``."""

    step: int
    steps: int
    what: str
    done: int
    total: int


@dataclass
class FrameLanded(Message):
    """A frame is committed: the world on disk has changed."""

    result: FrameResult
    step: int
    steps: int
    brain: str


@dataclass
class FramesFinished(Message):
    """The frame worker stopped: ``done`` of ``steps`` frames ran; ``error`` says why it stopped early."""

    done: int
    steps: int
    error: str | None
