"""A frame run killed at any point leaves a world that the next run completes or rolls back.

The runner runs in a child process; the faults are injected from outside (``tests.support.simworld.drive``
wraps its write and commit steps): SIGKILL before or after each step, a torn append, SIGKILL at a
random moment, Ctrl-C. After each fault the world is checked: committed frames are unchanged,
every soul file parses to whole frames, and the next run says what it did and leaves a clean,
consistent repository.
"""

from __future__ import annotations

import random
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

from soulscope.soul.parse import parse
from tests.support.cli import one_sentence
from tests.support.repos import git_out
from tests.support.simworld import finished, frame_process, make_world, run_frame

SEED = 8
EVENT_KILLS = 14  # kills at wrapped steps, chosen from all of them with the seed
TORN = 3  # appends cut in half, then SIGKILL
TIMED_KILLS = 8  # SIGKILL after a random delay
SAID = ("rolled back frame", "completed frame", "had been committed")


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    world = make_world(tmp_path_factory.mktemp("template") / "w", agents=4)
    done = finish(world)  # frame 1 is committed before every fault: it must survive them all
    assert "frame 1" in git_out(world, "log", "-1", "--format=%s"), done.stderr
    return world


def copy(template: Path, dest: Path) -> Path:
    shutil.copytree(template, dest, symlinks=True)
    return dest


def finish(world: Path) -> subprocess.CompletedProcess[str]:
    done = finished(frame_process(world, fault={"do": "count"}), timeout=120)
    assert done.returncode == 0, done.stderr
    return done


def committed(world: Path) -> dict[str, bytes]:
    """The soul files as HEAD holds them."""
    names = git_out(world, "ls-tree", "--name-only", "HEAD", "memory/").split()
    return {
        n: subprocess.run(
            ["git", "-C", str(world), "show", f"HEAD:{n}"], capture_output=True, check=True
        ).stdout
        for n in names
        if n.endswith(".md")
    }


def frame_commits(world: Path) -> list[str]:
    return [s for s in git_out(world, "log", "--format=%s").splitlines() if s.startswith("frame ")]


def whole_frames(world: Path) -> dict[str, list[int | None]]:
    out = {}
    for path in sorted((world / "memory").glob("*.md")):
        soul = parse(path.read_bytes())
        for f in soul.frames:
            # A torn entry would end mid-line or miss its observations.
            assert f.get("Reinforced"), f"{path.name}: frame {f.number} is not whole"
        out[path.name] = [f.number for f in soul.frames]
    return out


def check_after_fault(world: Path, before: dict[str, bytes]) -> None:
    """Right after the kill: what was committed is still there, byte for byte."""
    for name, data in before.items():
        now = (world / name).read_bytes()
        assert now.startswith(data), f"{name}: committed bytes changed"


def check_after_rerun(world: Path, rerun: subprocess.CompletedProcess[str], journal: bool) -> None:
    if journal:
        assert any(s in rerun.stderr for s in SAID), rerun.stderr
    assert git_out(world, "status", "--porcelain") == ""
    commits = frame_commits(world)
    numbers = [int(s.split()[1].rstrip(":")) for s in commits]
    assert numbers == sorted(set(numbers), reverse=True), commits  # no frame twice
    assert numbers[-1] == 1 and numbers == list(range(numbers[0], 0, -1))
    frames = whole_frames(world)
    assert set(map(tuple, frames.values())) == {tuple(range(1, numbers[0] + 1))}, frames
    assert f'"frame": {numbers[0]}' in (world / "world.json").read_text()


def events(template: Path, tmp_path: Path) -> int:
    world = copy(template, tmp_path / "count")
    done = finish(world)
    return int(done.stderr.rsplit("events: ", 1)[1].split()[0])


def run_fault(world: Path, fault: dict, delay: float | None = None) -> None:
    before = committed(world)
    proc = frame_process(world, fault=fault)
    if delay is not None:
        time.sleep(delay)
        proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=120)
    check_after_fault(world, {f"memory/{k.split('/')[-1]}": v for k, v in before.items()})
    journal = (world / ".soulscope" / "frame.json").exists()
    rerun = finish(world)
    check_after_rerun(world, rerun, journal)


def test_sigkill_at_every_kind_of_step(template: Path, tmp_path: Path) -> None:
    total = events(template, tmp_path)
    rng = random.Random(SEED)
    points = sorted(rng.sample(range(1, total + 1), min(EVENT_KILLS, total)))
    for n in points:
        run_fault(copy(template, tmp_path / f"kill{n}"), {"do": "kill", "at": n})


def test_torn_appends_are_cut_back(template: Path, tmp_path: Path) -> None:
    rng = random.Random(SEED + 1)
    for n in sorted(rng.sample(range(1, 5), TORN)):
        world = copy(template, tmp_path / f"torn{n}")
        run_fault(world, {"do": "torn", "label": "before append_", "at": n})


def test_sigkill_at_random_moments(template: Path, tmp_path: Path) -> None:
    world = copy(template, tmp_path / "time")
    t = time.perf_counter()
    finish(world)
    span = time.perf_counter() - t
    rng = random.Random(SEED + 2)
    for i in range(TIMED_KILLS):
        run_fault(copy(template, tmp_path / f"time{i}"), {"do": "none"}, delay=rng.uniform(0, span))


def pause(world: Path, label: str) -> subprocess.Popen[str]:
    proc = frame_process(world, fault={"do": "pause", "label": label, "at": 1})
    assert proc.stderr is not None
    line = proc.stderr.readline()
    assert f"paused at {label}" in line, line + proc.stderr.read()
    return proc


def test_ctrl_c_mid_frame_rolls_back_at_once(template: Path, tmp_path: Path) -> None:
    world = copy(template, tmp_path / "int")
    before = {p: p.read_bytes() for p in (world / "memory").glob("*.md")}
    proc = pause(world, "after append_")
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and "rolled back frame 2" in err
    assert {p: p.read_bytes() for p in before} == before
    assert git_out(world, "status", "--porcelain") == ""


@pytest.mark.parametrize(
    ("label", "said"),
    [
        ("after append_", "rolled back frame 2"),
        ("before commit", "completed frame 2"),
        ("after commit", "frame 2 had been committed"),
    ],
)
def test_killed_runs_say_what_the_next_run_did(
    template: Path, tmp_path: Path, label: str, said: str
) -> None:
    world = copy(template, tmp_path / "w")
    proc = pause(world, label)
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=60)
    rerun = finish(world)
    assert said in rerun.stderr
    check_after_rerun(world, rerun, True)


def test_a_rollback_never_cuts_a_file_edited_after_the_kill(template: Path, tmp_path: Path) -> None:
    world = copy(template, tmp_path / "edit")
    proc = pause(world, "after append_")  # the first soul file has its frame 2 entry
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=60)
    first = sorted((world / "memory").glob("*.md"))[0]
    lines = first.read_bytes().splitlines(keepends=True)
    edited = b"".join([lines[0], b"A line the user added by hand.\n", *lines[1:]])
    first.write_bytes(edited)
    head = git_out(world, "rev-parse", "HEAD")
    assert f"memory/{first.name}" in one_sentence(run_frame(world))
    assert first.read_bytes() == edited  # touched nothing
    assert git_out(world, "rev-parse", "HEAD") == head
    assert (world / ".soulscope" / "frame.json").exists()  # kept for when the user decides


def test_a_clock_write_cut_before_its_rename_leaves_no_temp_file(
    template: Path, tmp_path: Path
) -> None:
    world = copy(template, tmp_path / "clock")
    proc = pause(world, "before write_clock")
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=60)
    (world / ".world.json.k1ll3d.tmp").write_text('{"frame": 2')  # what a cut write_atomic leaves
    rerun = finish(world)
    check_after_rerun(world, rerun, True)
