"""A frame runner killed at any point leaves the world without the frame or with all of it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from soulscope.soul.parse import read_soul
from tests.conftest import ROOT
from tests.simworld import git_out, make_world, tree_bytes


def frame_cmd(world: Path, pause: str | None = None) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("SOULSCOPE_FRAME_PAUSE", None)
    if pause:
        env["SOULSCOPE_FRAME_PAUSE"] = pause
    return subprocess.Popen(
        [sys.executable, "-m", "soulscope", "frame", "--world", str(world)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env=env,
    )


def stop_at(world: Path, pause: str, sig: int) -> subprocess.Popen[str]:
    proc = frame_cmd(world, pause)
    assert proc.stderr is not None
    line = proc.stderr.readline()  # the runner says where it waits, then waits
    assert f"paused at {pause}" in line, line + proc.stderr.read()
    proc.send_signal(sig)
    proc.wait(timeout=60)
    return proc


def finish(world: Path) -> subprocess.CompletedProcess[str]:
    proc = frame_cmd(world)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def frame_numbers(world: Path) -> set[tuple[int | None, ...]]:
    return {tuple(f.number for f in read_soul(p).frames) for p in (world / "memory").glob("*.md")}


@pytest.fixture
def world(tmp_path: Path) -> Path:
    return make_world(tmp_path / "w", agents=6)


def test_killed_while_writing_is_rolled_back(world: Path) -> None:
    before = tree_bytes(world)
    stop_at(world, "writing", signal.SIGKILL)
    assert frame_numbers(world) == {(), (1,)}  # half the agents had their entry: not a frame
    after = finish(world)
    assert "rolled back frame 1" in after.stderr
    # The frame was run again from a clean world: each agent has frame 1 exactly once.
    assert frame_numbers(world) == {(1,)}
    assert git_out(world, "log", "-1", "--format=%s").startswith("frame 1: 6 agents")
    assert git_out(world, "status", "--porcelain") == ""
    assert tree_bytes(world) != before


def test_killed_after_writing_is_completed(world: Path) -> None:
    stop_at(world, "written", signal.SIGKILL)
    assert git_out(world, "log", "-1", "--format=%s").startswith("register")
    after = finish(world)
    assert "completed frame 1" in after.stderr
    log = git_out(world, "log", "--format=%s").splitlines()
    assert log[0].startswith("frame 2:") and log[1].startswith("frame 1: 6 agents")
    assert frame_numbers(world) == {(1, 2)}
    assert git_out(world, "status", "--porcelain") == ""


def test_killed_after_the_commit_is_complete(world: Path) -> None:
    stop_at(world, "committed", signal.SIGKILL)
    after = finish(world)
    assert "frame 1 had been committed" in after.stderr
    assert frame_numbers(world) == {(1, 2)}
    assert git_out(world, "status", "--porcelain") == ""


def test_ctrl_c_mid_frame_rolls_back_at_once(world: Path) -> None:
    before = tree_bytes(world)
    proc = stop_at(world, "writing", signal.SIGINT)
    assert proc.returncode == 130
    assert proc.stderr is not None and "rolled back frame 1" in proc.stderr.read()
    assert tree_bytes(world) == before
    assert git_out(world, "status", "--porcelain") == ""
