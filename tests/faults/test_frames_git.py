"""Frames against the git states and files a user really leaves: a detached HEAD, a rebase or a
merge stopped half way, edits made while the brain decides, links among the paths a frame writes,
a hand edit far above a killed frame's entry."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from soulscope.sim.frame import run_frames
from soulscope.sim.offline import OfflineBrain
from tests.support.cli import one_sentence, soulscope_process
from tests.support.repos import git_out
from tests.support.simworld import (
    frame_process,
    make_world,
    run_frame,
    run_frame_process,
    tree_bytes,
)


@pytest.fixture
def world(tmp_path: Path) -> Path:
    root = make_world(tmp_path / "w", agents=3)
    run_frames(root, OfflineBrain(), steps=2)
    return root


def refs(world: Path) -> str:
    return git_out(world, "for-each-ref") + git_out(world, "rev-parse", "HEAD")


def assert_refused(world: Path, said: str) -> None:
    before, files = refs(world), tree_bytes(world)
    line = one_sentence(run_frame(world))
    assert said in line, line
    assert refs(world) == before and tree_bytes(world) == files


def test_a_detached_head_is_refused_in_one_sentence(world: Path) -> None:
    git_out(world, "checkout", "-q", "--detach", "HEAD~1")
    assert_refused(world, "HEAD is detached")


def test_a_detached_worktree_is_refused(world: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    git_out(world, "worktree", "add", "-q", "--detach", str(other), "HEAD")
    assert_refused(other, "HEAD is detached")


def test_a_rebase_stopped_half_way_is_refused(world: Path) -> None:
    main = git_out(world, "branch", "--show-current").strip()
    git_out(world, "checkout", "-q", "-b", "side", "HEAD~1")
    (world / "notes.txt").write_text("side\n")
    git_out(world, "add", "notes.txt")
    git_out(world, "commit", "-qm", "side")
    subprocess.run(
        ["git", "-C", str(world), "rebase", "-q", "--exec", "false", main], capture_output=True
    )
    assert (world / ".git" / "rebase-merge").exists()
    assert_refused(world, "rebase is in progress")


def test_a_merge_with_conflicts_is_refused(world: Path) -> None:
    main = git_out(world, "branch", "--show-current").strip()
    git_out(world, "checkout", "-q", "-b", "side", "HEAD~1")
    (world / "notes.txt").write_text("side\n")
    git_out(world, "add", "notes.txt")
    git_out(world, "commit", "-qm", "side")
    git_out(world, "checkout", "-q", main)
    (world / "notes.txt").write_text("main\n")
    git_out(world, "add", "notes.txt")
    git_out(world, "commit", "-qm", "main")
    subprocess.run(["git", "-C", str(world), "merge", "-q", "side"], capture_output=True)
    assert (world / ".git" / "MERGE_HEAD").exists()
    assert_refused(world, "merge is in progress")


class Meddling:
    """The offline brain, with a user editing the world while it decides."""

    name = "offline"

    def __init__(self, edit: Callable[[], None]) -> None:
        self.brain, self.edit = OfflineBrain(), edit

    def decide(self, requests: Sequence, progress=None):  # noqa: ANN001, ANN201
        self.edit()
        return self.brain.decide(requests, progress)


def edit_world_json(world: Path) -> Callable[[], None]:
    def edit() -> None:
        path = world / "world.json"
        data = json.loads(path.read_text())
        path.write_text(json.dumps({**data, "note": "the user's"}, indent=2) + "\n")

    return edit


def append_post(world: Path) -> Callable[[], None]:
    def edit() -> None:
        with open(world / "community" / "posts.jsonl", "a") as f:
            f.write(json.dumps({"id": 900, "note": "a line the user appended"}) + "\n")

    return edit


def same_size_edit(world: Path) -> Callable[[], None]:
    def edit() -> None:
        path = world / "community" / "posts.jsonl"
        st = os.stat(path)
        data = bytearray(path.read_bytes())
        data[2:4] = b"ID"  # '"id"' becomes '"ID"': the same size, the same mtime
        path.write_bytes(bytes(data))
        os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))

    return edit


@pytest.mark.parametrize("edit", [edit_world_json, append_post, same_size_edit])
def test_an_edit_made_while_the_brain_decides_is_neither_lost_nor_committed(
    world: Path, edit: Callable[[Path], Callable[[], None]]
) -> None:
    head = refs(world)
    with pytest.raises(Exception, match="changed while frame 3 was being decided") as caught:
        run_frames(world, Meddling(edit(world)), steps=1)
    assert "Traceback" not in str(caught.value)
    assert refs(world) == head  # nothing committed
    changed = git_out(world, "status", "--porcelain").split()
    assert len(changed) == 2 and changed[0] == "M"  # the user's edit, still there, only it


@pytest.mark.parametrize("name", ["world.json", "community", "frames", "memory"])
def test_a_link_out_of_the_world_is_never_written_through(
    world: Path, tmp_path: Path, name: str
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    path = world / name
    moved = outside / name
    path.rename(moved)
    path.symlink_to(moved)
    git_out(world, "add", "-A")
    git_out(world, "commit", "-qm", f"{name} moved out, a link left")
    before = tree_bytes(outside)
    done = run_frame(world)
    assert tree_bytes(outside) == before
    assert path.is_symlink()
    assert "Traceback" not in done.stderr
    assert f"{name} is a link" in one_sentence(done)
    assert git_out(world, "status", "--porcelain") == ""


def test_a_hand_edit_far_above_a_killed_frames_entry_is_never_committed(
    tmp_path: Path,
) -> None:
    root = make_world(tmp_path / "big", agents=2)
    soul = root / "memory" / "zion-coder-01.md"
    with open(soul, "a") as f:
        f.write("\n## Notes\n" + "".join(f"- note {i:06d} kept by hand\n" for i in range(8000)))
    git_out(root, "commit", "-qam", "a big soul file")
    assert soul.stat().st_size > 3 * 65536
    proc = frame_process(root, fault={"do": "pause", "label": "before commit", "at": 1})
    assert proc.stderr is not None and "paused" in proc.stderr.readline()
    proc.kill()
    proc.communicate(timeout=60)
    data = bytearray(soul.read_bytes())
    at = data.index(b"note 000010")
    data[at : at + 11] = b"NOTE 000010"  # a same-size hand edit, 100 KB above the entry
    soul.write_bytes(bytes(data))
    head = git_out(root, "rev-parse", "HEAD")
    line = one_sentence(run_frame(root))
    assert "memory/zion-coder-01.md" in line and "changed by hand" in line
    assert git_out(root, "rev-parse", "HEAD") == head
    assert b"NOTE 000010" in soul.read_bytes()


def fifo(path: Path) -> None:
    path.unlink()
    os.mkfifo(path)


def folder(path: Path) -> None:
    if path.is_dir():
        return
    path.unlink()
    path.mkdir()


def plain_file(path: Path) -> None:
    import shutil

    shutil.rmtree(path)
    path.write_text("not a folder\n")


@pytest.mark.parametrize(
    ("name", "make", "said"),
    [
        ("community/posts.jsonl", fifo, "community/posts.jsonl is not a regular file"),
        ("community/votes.jsonl", folder, "community/votes.jsonl is not a regular file"),
        ("frames", plain_file, "frames is not a folder"),
    ],
    ids=["posts a FIFO", "votes a folder", "frames a file"],
)
def test_a_path_a_frame_writes_that_is_not_what_it_should_be_is_one_sentence(
    world: Path, name: str, make: Callable[[Path], None], said: str
) -> None:
    path = world / name
    if not path.exists():
        path.write_text("")
    make(path)
    line = one_sentence(run_frame_process(world))
    assert said in line
    done = soulscope_process(
        "why", "zion-coder-01", "--shift", "-1", "-w", str(world), "--offline", timeout=30
    )  # a child process: a FIFO could block it
    assert "Traceback" not in done.stderr
