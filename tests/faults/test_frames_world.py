"""The frame runner against a user's repository as it really is: removed agents, links out of the
world, FIFOs, hand edits, a git still running, broken world files, other encodings."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import pytest

from soulscope.sim.frame import run_frames
from soulscope.sim.journal import git_pidfile
from soulscope.sim.offline import OfflineBrain
from soulscope.soul.parse import parse
from soulscope.world import World
from tests.support.cli import one_sentence
from tests.support.repos import git_out
from tests.support.simworld import frame_process, make_world, run_frame, run_frame_process


@pytest.fixture
def world(tmp_path: Path) -> Path:
    return make_world(tmp_path / "w", agents=4)


def test_a_removed_agent_is_never_related_to_and_frames_go_on(world: Path) -> None:
    run_frames(world, OfflineBrain(), steps=3)
    gone = "zion-coder-01"
    git_out(world, "rm", "-q", f"memory/{gone}.md")
    for _ in range(4):
        done = run_frame(world)
        assert done.returncode == 0, done.stderr
    for path in (world / "memory").glob("*.md"):
        for f in parse(path.read_bytes()).frames[3:]:
            assert gone not in " ".join(f.get("Relationships")), path.name
            assert all(gone not in a for a in f.actions if a.startswith("Followed")), path.name
    assert git_out(world, "status", "--porcelain") == f"D  memory/{gone}.md\n"  # still the user's


def test_a_link_out_of_the_world_is_listed_and_never_followed(world: Path, tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("password=hunter2\n")
    link = world / "memory" / "leak.md"
    link.symlink_to(secret)
    git_out(world, "add", "memory/leak.md")
    git_out(world, "commit", "-qm", "a link")
    junk = {a.id: a.problem for a in World.open(world).junk()}
    assert "leak" in junk and "outside the world" in (junk["leak"] or "")
    assert "leak" not in {a.id for a in World.open(world).agents()}
    done = run_frame(world)
    assert done.returncode == 0, done.stderr
    assert link.is_symlink() and secret.read_text() == "password=hunter2\n"
    assert "hunter2" not in git_out(world, "log", "-p", "--all")


def test_a_link_inside_the_world_sits_the_frame_out(world: Path) -> None:
    alias = world / "memory" / "alias.md"
    alias.symlink_to("zion-coder-01.md")
    git_out(world, "add", "memory/alias.md")
    git_out(world, "commit", "-qm", "an alias")
    done = run_frame(world, "--json")
    assert done.returncode == 0, done.stderr
    [row] = json.loads(done.stdout)
    assert row["skipped"] == [
        {
            "agent": "alias",
            "error": "memory/alias.md is a link; soulscope appends only to regular files",
        }
    ]
    assert alias.is_symlink()
    frames = [f.number for f in parse((world / "memory" / "zion-coder-01.md").read_bytes()).frames]
    assert frames == [1]  # once, not twice through the alias


def test_a_fifo_soul_file_is_junk_not_a_hang(world: Path) -> None:
    os.mkfifo(world / "memory" / "pipe.md")
    done = run_frame_process(world)
    assert done.returncode == 0, done.stderr
    assert "pipe" in {a.id for a in World.open(world).junk()}


def test_uncommitted_edits_are_refused_or_committed_as_their_own(world: Path) -> None:
    soul = world / "memory" / "zion-debater-03.md"
    soul.write_text(soul.read_text() + "\nA note of my own.\n")
    head = git_out(world, "rev-parse", "HEAD")
    said = one_sentence(run_frame(world))
    assert "memory/zion-debater-03.md" in said and "--commit-edits" in said
    assert git_out(world, "rev-parse", "HEAD") == head
    done = run_frame(world, "--commit-edits")
    assert done.returncode == 0, done.stderr
    log = git_out(world, "log", "-2", "--format=%s|%an").splitlines()
    assert log[0].startswith("frame 1:") and log[0].endswith("|soulscope")
    assert "zion-debater-03" in log[1] and not log[1].endswith("|soulscope")
    changed = git_out(world, "show", "--name-only", "--format=", "HEAD~1").split()
    assert changed == ["memory/zion-debater-03.md"]
    assert "A note of my own." in soul.read_text()


def test_an_untracked_soul_file_is_an_uncommitted_edit(world: Path) -> None:
    new = world / "memory" / "zion-new-09.md"
    new.write_text("# New\n\n## Identity\n\n- **ID:** zion-new-09\n")
    said = one_sentence(run_frame(world))
    assert "memory/zion-new-09.md" in said


def slow_git(tmp_path: Path) -> tuple[dict[str, str], Path]:
    """A PATH whose git, when it moves HEAD to a new commit (``commit``, or ``update-ref`` in
    plumbing), announces itself, then takes 3 s before running the real git."""
    real = subprocess.run(["which", "git"], capture_output=True, text=True).stdout.strip()
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    started = tmp_path / "git-started"
    script = bin_dir / "git"
    script.write_text(
        "#!/bin/sh\n"
        'for a in "$@"; do case "$a" in commit|update-ref) '
        f"touch {started}; sleep 3; break;; esac; done\n"
        f'exec {real} "$@"\n'
    )
    script.chmod(0o755)
    return {"PATH": f"{bin_dir}:{os.environ['PATH']}"}, started


def test_a_killed_runners_git_is_waited_for_not_raced(world: Path, tmp_path: Path) -> None:
    env, started = slow_git(tmp_path)
    proc = frame_process(world, fault={"do": "none"}, env=env)
    deadline = time.monotonic() + 60
    # killed while it waits for its git: once the git started and the runner wrote its pid
    # (under load the runner writes it a moment after the git starts)
    while not (started.exists() and git_pidfile(world).exists()):
        assert time.monotonic() < deadline and proc.poll() is None
        time.sleep(0.02)
    proc.kill()  # the runner only; its git goes on
    proc.communicate()
    done = run_frame(world)
    assert done.returncode == 0, done.stderr
    assert "frame 1 had been committed" in done.stderr
    time.sleep(3.5)  # had the git been raced, its commit would land now
    log = git_out(world, "log", "--format=%s").splitlines()
    commits = [s for s in log if s.startswith("frame")]
    assert [c.split(":")[0] for c in commits] == ["frame 2", "frame 1"]
    assert git_out(world, "status", "--porcelain") == ""


def test_a_users_own_git_commit_keeps_its_index_lock(world: Path, tmp_path: Path) -> None:
    proc = frame_process(world, fault={"do": "kill", "label": "before commit", "at": 1})
    proc.communicate(timeout=60)
    (world / "notes.txt").write_text("mine\n")
    git_out(world, "add", "notes.txt")
    editor = tmp_path / "editor"
    editor.write_text('#!/bin/sh\nsleep 4\necho "my notes" > "$1"\n')
    editor.chmod(0o755)
    user = subprocess.Popen(
        ["git", "-C", str(world), "commit", "-q", "notes.txt"],  # holds the lock until it is done
        env={**os.environ, "GIT_EDITOR": str(editor)},
    )
    lock = world / ".git" / "index.lock"
    deadline = time.monotonic() + 30
    while not lock.exists():
        assert time.monotonic() < deadline
        time.sleep(0.02)
    said = one_sentence(run_frame(world))
    assert "index.lock" in said and str(user.pid) in said
    assert lock.exists()
    assert user.wait(timeout=30) == 0  # the user's commit went through
    assert git_out(world, "log", "-1", "--format=%s") == "my notes\n"
    done = run_frame(world)
    assert done.returncode == 0 and "completed frame 1" in done.stderr, done.stderr


BAD_WORLD_FILES = {
    "not JSON": b"{",
    "deeply nested": b"[" * 100_000 + b"]" * 100_000,
    "a list": b"[1, 2]",
    "frame -5": b'{"frame": -5, "date": "2026-03-01"}',
    "year 9999": b'{"frame": 1, "date": "9999-12-31"}',
    "1e400": b'{"frame": 1e400, "date": "2026-03-01"}',
    "seed 1e400": b'{"frame": 1, "date": "2026-03-01", "seed": 1e400}',
    "a fraction": b'{"frame": 1.5, "date": "2026-03-01"}',
    "huge number": b'{"frame": 1' + b"0" * 5000 + b', "date": "2026-03-01"}',
    "not UTF-8": b'{"frame": 1, "date": "2026-03-01", "name": "\xff"}',
}


@pytest.mark.parametrize("what", list(BAD_WORLD_FILES))
def test_a_bad_world_json_is_one_sentence(world: Path, what: str) -> None:
    (world / "world.json").write_bytes(BAD_WORLD_FILES[what])
    said = one_sentence(run_frame(world))
    assert "world.json" in said


BAD_REGISTRIES = {
    "not JSON": b'{"agents": ',
    "deeply nested": b'{"agents": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
    "agents a list": b'{"agents": [1, 2]}',
    "a string": b'"agents"',
    "1e400": b'{"agents": {"zion-coder-01": {"status": 1e400}}}',
}


@pytest.mark.parametrize("what", list(BAD_REGISTRIES))
def test_a_bad_agents_json_is_one_sentence(world: Path, what: str) -> None:
    (world / "agents.json").write_bytes(BAD_REGISTRIES[what])
    said = one_sentence(run_frame(world))
    assert "agents.json" in said


@pytest.mark.parametrize("name", ["world.json", "agents.json"])
def test_a_fifo_for_a_world_file_is_one_sentence_not_a_hang(world: Path, name: str) -> None:
    (world / name).unlink()
    os.mkfifo(world / name)
    said = one_sentence(run_frame_process(world))
    assert name in said and "not a regular file" in said


def test_a_crlf_soul_keeps_its_line_ending(world: Path) -> None:
    soul = world / "memory" / "zion-archivist-04.md"
    soul.write_bytes(soul.read_bytes().replace(b"\n", b"\r\n"))
    git_out(world, "commit", "-qam", "CRLF")
    done = run_frame(world)
    assert done.returncode == 0, done.stderr
    data = soul.read_bytes()
    assert data.count(b"\n") == data.count(b"\r\n")
    assert [f.number for f in parse(data).frames] == [1]


def test_a_utf16_soul_is_not_appended_to_and_says_so(world: Path) -> None:
    soul = world / "memory" / "zion-archivist-04.md"
    soul.write_bytes(soul.read_text().encode("utf-16"))
    git_out(world, "commit", "-qam", "UTF-16")
    before = soul.read_bytes()
    done = run_frame(world)
    assert done.returncode == 0, done.stderr
    assert soul.read_bytes() == before
    assert "zion-archivist-04" in done.stdout and "not UTF-8" in done.stdout
    other = parse((world / "memory" / "zion-coder-01.md").read_bytes())
    assert [f.number for f in other.frames] == [1]


def cells(line: str, bar: str) -> list[str]:
    return [c.strip() for c in line.strip().strip(bar).split(bar)]


def test_the_frame_table_has_one_heading_per_value(world: Path) -> None:
    done = run_frame(world, "--steps", "2")  # 80 columns, as in a pipe
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    [header] = [ln for ln in lines if "┃" in ln]
    rows = [cells(ln, "│") for ln in lines if "│" in ln]
    headings = cells(header, "┃")
    assert headings == [
        "frame",
        "date",
        "agents",
        "posts",
        "comments",
        "votes",
        "follows",
        "commit",
    ]
    assert len(rows) == 2 and all(len(r) == len(headings) for r in rows)
    data = json.loads(run_frame(world, "--json").stdout)
    assert rows[1][headings.index("date")] == "2026-03-03" != data[0]["date"]
    assert all(len(r[headings.index("commit")]) == 8 and "…" not in "".join(r) for r in rows)
    assert max(map(len, lines)) <= 80
