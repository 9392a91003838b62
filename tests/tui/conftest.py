"""The dashboard tests' world; the worlds themselves are ``tests.support.worlds``, and driving the
app is ``tests.support.pilot``."""

from __future__ import annotations

from pathlib import Path

import pytest

from soulscope.world import World
from tests.support.worlds import write_small_world


@pytest.fixture
def small_world(tmp_path: Path) -> World:
    """Three agents: a four-frame arc with a repeat and shifts, a short one, one with markup."""
    return World.open(write_small_world(tmp_path / "world"))
