"""init, register, frame and demo as a user runs them."""

from __future__ import annotations

import json
from pathlib import Path

from soulscope.sim.lock import WorldLock
from soulscope.soul.parse import read_soul
from tests.support.cli import soulscope
from tests.support.repos import git_out
from tests.support.simworld import make_world, tree_bytes


def test_init_register_frame(tmp_path: Path) -> None:
    world = tmp_path / "w"
    out = soulscope("init", str(world), "--date", "2026-05-01", "--seed", "3")
    assert out.returncode == 0, out.stderr
    for agent, channel in (("ada", "c/code"), ("bo", "code")):
        out = soulscope(
            "register",
            str(world),
            "--id",
            agent,
            "--name",
            agent.title(),
            "--archetype",
            "Coder",
            "--voice",
            "terse",
            "--conviction",
            "Tests first",
            "--interest",
            "git",
            "--channel",
            channel,
        )
        assert out.returncode == 0, out.stderr
    again = soulscope(
        "register", str(world), "--id", "ada", "--name", "X", "--archetype", "Y", "--voice", "z"
    )
    assert again.returncode == 2 and "already exists" in again.stderr
    bad = soulscope(
        "register", str(world), "--id", "a b", "--name", "X", "--archetype", "Y", "--voice", "z"
    )
    assert bad.returncode == 2 and "not a valid agent id" in bad.stderr
    out = soulscope("frame", "--world", str(world), "--steps", "3", "--json")
    assert out.returncode == 0, out.stderr
    rows = json.loads(out.stdout)
    assert [(r["frame"], r["date"], r["agents"]) for r in rows] == [
        (1, "2026-05-02", 2),
        (2, "2026-05-03", 2),
        (3, "2026-05-04", 2),
    ]
    assert rows[-1]["commit"] == git_out(world, "rev-parse", "HEAD").strip()
    table = soulscope("frame", "--world", str(world))
    assert table.returncode == 0 and "frame" in table.stdout and "2026-05-05" in table.stdout
    assert [f.number for f in read_soul(world / "memory" / "bo.md").frames] == [1, 2, 3, 4]


def test_frame_errors_are_one_sentence(tmp_path: Path) -> None:
    world = make_world(tmp_path / "w", agents=2)
    with WorldLock(world):
        out = soulscope("frame", "--world", str(world))
    assert out.returncode == 2 and "another frame runner" in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1
    out = soulscope("frame", "--world", str(world), "--brain", "llm")
    assert out.returncode == 2 and "no LLM endpoint is configured" in out.stderr
    out = soulscope("init", str(world), "--date", "2026-01-01")
    assert out.returncode == 2 and "is a world" in out.stderr


def test_demo_is_reproducible_and_reused(tmp_path: Path) -> None:
    source = make_world(tmp_path / "source", agents=5)
    args = ("--from", str(source), "--frames", "6", "--seed", "5")
    one = soulscope("demo", str(tmp_path / "one"), *args)
    assert one.returncode == 0, one.stderr
    assert "6 frames" in one.stdout
    two = soulscope("demo", str(tmp_path / "two"), *args)
    assert tree_bytes(tmp_path / "one") == tree_bytes(tmp_path / "two")
    log = git_out(tmp_path / "one", "log", "--format=%s").splitlines()
    assert len(log) == 7 and log[0].startswith("frame 6: 5 agents")
    again = soulscope("demo", str(tmp_path / "one"), *args)
    assert again.returncode == 0 and "reusing it" in again.stdout
    assert len(git_out(tmp_path / "one", "log", "--format=%s").splitlines()) == 7
    assert two.returncode == 0
    # The source world was copied, never written to.
    assert len(git_out(source, "log", "--format=%s").splitlines()) == 6
