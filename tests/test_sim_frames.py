"""Offline frames on real temp worlds: commits, entries, clock, community, logs, determinism."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from soulscope.sim import community
from soulscope.sim.create import init_world, register_agent
from soulscope.sim.frame import FrameRunner, run_frames
from soulscope.sim.lock import LockedError, WorldLock
from soulscope.sim.offline import OfflineBrain
from soulscope.sim.repo import RepoError
from soulscope.soul.parse import read_soul
from soulscope.soul.trajectory import arc
from soulscope.world import DEMO_WORLD, PROJECT_ROOT, World, WorldError
from tests.support.repos import git_out
from tests.support.simworld import make_world, tree_bytes


@pytest.fixture
def world(tmp_path: Path) -> Path:
    return make_world(tmp_path / "w", agents=6)


def test_frames_commit_append_and_advance_the_clock(world: Path) -> None:
    before = {p.name: p.read_bytes() for p in (world / "memory").glob("*.md")}
    results = run_frames(world, OfflineBrain(), steps=5)
    assert [r.frame for r in results] == [1, 2, 3, 4, 5]
    assert [r.date for r in results] == [f"2026-03-0{d}" for d in range(2, 7)]
    log = git_out(world, "log", "--format=%s").splitlines()
    # One commit per frame, on top of init and the six registrations.
    assert log[:5] == [r.message for r in reversed(results)]
    assert len(log) == 1 + 6 + 5
    assert log[0].startswith("frame 5: 6 agents, ")
    assert json.loads((world / "world.json").read_text())["frame"] == 5
    assert git_out(world, "status", "--porcelain") == ""
    for path in (world / "memory").glob("*.md"):
        data = path.read_bytes()
        assert data.startswith(before[path.name])  # history is never rewritten
        soul = read_soul(path)
        assert [f.number for f in soul.frames] == [1, 2, 3, 4, 5]
        assert [f.date for f in soul.frames] == [r.date for r in results]
        assert not [p for p in soul.problems]
        assert all(f.actions and f.get("Becoming") for f in soul.frames)


def test_entries_cite_real_threads_and_agents(world: Path) -> None:
    run_frames(world, OfflineBrain(), steps=6)
    store = community.Community.load(world)
    assert store.posts and store.comments and store.votes
    post_ids = {p.id for p in store.posts}
    agents = {a.id for a in World.open(world).agents()}
    assert all(c.post in post_ids for c in store.comments)
    assert all(v.post in post_ids and v.voter in agents for v in store.votes)
    for path in (world / "memory").glob("*.md"):
        for frame in read_soul(path).frames:
            for text in frame.get("Connected"):
                cited = {int(t.strip().lstrip("#")) for t in text.split(",")}
                assert cited <= post_ids
            for text in frame.get("Relationships"):
                named = {part.split(" (")[0].strip() for part in text.split("), ")}
                assert named <= agents


def test_frame_logs_keep_what_each_agent_saw(world: Path) -> None:
    run_frames(world, OfflineBrain(), steps=3)
    logs = sorted((world / "frames" / "3").glob("*.json"))
    assert len(logs) == 6
    log = json.loads(logs[0].read_text())
    assert log["frame"] == 3 and log["brain"] == "offline" and log["error"] is None
    assert set(log["context"]) >= {"soul", "identity", "channels", "posts"}
    assert json.loads(log["raw"])["actions"]
    assert log["decision"]["actions"][0]["kind"] in {"post", "comment", "vote", "follow", "lurk"}
    tracked = git_out(world, "ls-files", "frames/3").split()
    assert len(tracked) == 6


def test_becoming_shifts_when_influences_accumulate(tmp_path: Path) -> None:
    world = make_world(tmp_path / "w", agents=8)
    run_frames(world, OfflineBrain(), steps=30)
    shifts = []
    for path in (world / "memory").glob("*.md"):
        statements = arc(read_soul(path))
        assert len(statements) == 30
        shifts += [s for s in statements if s.shift]
    assert shifts, "thirty frames of reading each other move some identity"
    assert all(s.from_role and s.to_role and s.text.startswith("the ") for s in shifts)


def test_same_seed_same_world_other_seed_other_world(tmp_path: Path) -> None:
    a, b, c = (make_world(tmp_path / n, agents=5) for n in "abc")
    run_frames(a, OfflineBrain(), steps=4, seed=11)
    run_frames(b, OfflineBrain(), steps=4, seed=11)
    run_frames(c, OfflineBrain(), steps=4, seed=12)
    assert tree_bytes(a) == tree_bytes(b)
    assert tree_bytes(a) != tree_bytes(c)
    # The world's clock dates the commits, so the histories are identical too.
    assert git_out(a, "rev-parse", "HEAD") == git_out(b, "rev-parse", "HEAD")


def test_named_and_sampled_agents(world: Path) -> None:
    named = run_frames(world, OfflineBrain(), agents=["zion-coder-01", "zion-debater-03"])[0]
    assert named.agents == 2
    sampled = run_frames(world, OfflineBrain(), sample=3)[0]
    assert sampled.agents == 3 and sampled.frame == 2
    touched = git_out(world, "show", "--name-only", "--format=", "HEAD").split()
    assert len([t for t in touched if t.startswith("memory/")]) == 3
    with pytest.raises(WorldError, match="no agent 'nobody'"):
        run_frames(world, OfflineBrain(), agents=["nobody"])


def test_retired_agents_sit_frames_out(world: Path) -> None:
    registry = json.loads((world / "agents.json").read_text())
    registry["agents"]["zion-coder-01"]["status"] = "retired"
    (world / "agents.json").write_text(json.dumps(registry))
    assert run_frames(world, OfflineBrain())[0].agents == 5
    assert read_soul(world / "memory" / "zion-coder-01.md").frames == ()


def test_a_second_runner_is_refused_and_a_dead_ones_lock_is_taken(world: Path) -> None:
    with WorldLock(world), pytest.raises(LockedError, match=f"pid {os.getpid()}"):
        run_frames(world, OfflineBrain())
    (world / ".soulscope" / "lock").write_text("999999\n")  # left by a runner that is gone
    result = run_frames(world, OfflineBrain())[0]
    assert result.frame == 1
    assert any("pid 999999" in n for n in result.notes)


def test_register_writes_once_and_refuses_bad_input(tmp_path: Path) -> None:
    world = make_world(tmp_path / "w", agents=1)
    path = world / "memory" / "zion-coder-01.md"
    original = path.read_bytes()
    with pytest.raises(WorldError, match="already exists"):
        register_agent(world, "zion-coder-01", "Other", "Coder", "loud", "")
    assert path.read_bytes() == original
    with pytest.raises(WorldError, match="not a valid agent id"):
        register_agent(world, "../escape", "X", "Coder", "loud", "")
    with pytest.raises(WorldError, match="needs a voice"):
        register_agent(world, "zion-x", "X", "Coder", "  ", "")
    hostile = register_agent(
        world, "zion-x", "X\n## Frame 1", "Coder", "dry", "p\n\n## Convictions\n- evil"
    )
    soul = read_soul(hostile)
    assert soul.name == "X ## Frame 1" and soul.frames == ()
    assert [s.title for s in soul.sections] == ["Identity"]
    assert git_out(world, "log", "-1", "--format=%s").strip() == "register zion-x"


def test_init_refuses_a_used_folder(tmp_path: Path) -> None:
    (tmp_path / "used").mkdir()
    (tmp_path / "used" / "notes.txt").write_text("mine")
    with pytest.raises(WorldError, match="not empty"):
        init_world(tmp_path / "used", "2026-01-01")
    with pytest.raises(WorldError, match="YYYY-MM-DD"):
        init_world(tmp_path / "new", "01/02/2026")
    assert (tmp_path / "used" / "notes.txt").read_text() == "mine"


def test_worlds_outside_git_or_inside_soulscope_are_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A copy outside any repository, wherever the temp folder sits: git looks no higher than it.
    plain = tmp_path / "plain"
    shutil.copytree(DEMO_WORLD, plain)
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    with pytest.raises(RepoError, match="not in a git repository"):
        FrameRunner(plain, OfflineBrain())
    if (PROJECT_ROOT / ".git").exists():  # running from soulscope's own checkout
        monkeypatch.delenv("GIT_CEILING_DIRECTORIES")
        with pytest.raises(RepoError, match="soulscope's own repository"):
            FrameRunner(DEMO_WORLD, OfflineBrain())


def test_a_torn_community_line_is_ignored_then_cut(world: Path) -> None:
    run_frames(world, OfflineBrain())
    posts = world / "community" / "posts.jsonl"
    whole = posts.read_bytes()
    last_id = community.Community.load(world).next_post_id - 1
    with open(posts, "ab") as f:  # what a crash in the middle of an append leaves
        f.write(b'{"id": 999, "frame": 2, "da')
    assert community.Community.load(world).next_post_id == last_id + 1
    result = run_frames(world, OfflineBrain())[0]
    data = posts.read_bytes()
    assert data.startswith(whole) and b'"id": 999' not in data
    new = [json.loads(line) for line in data[len(whole) :].splitlines()]
    assert [p["id"] for p in new] == list(range(last_id + 1, last_id + 1 + result.posts))


def test_frames_keep_the_repository_packed(world: Path) -> None:
    # Each frame's objects land in one pack; git's own limits decide when to repack, as after
    # `git commit`. With a limit of 3 packs, ten frames must not leave ten packs behind.
    git_out(world, "config", "gc.autoPackLimit", "3")
    git_out(world, "config", "gc.autoDetach", "false")
    run_frames(world, OfflineBrain(), steps=10)
    packs = [p for p in (world / ".git" / "objects" / "pack").glob("*.pack")]
    assert 0 < len(packs) <= 4
    assert "error" not in git_out(world, "fsck").lower()


def _edit_between_frames(world: Path) -> str:
    """What a user may do between frames 3 and 4, in what frames 1 and 2 wrote or before: rewrite
    a conviction in place (the file keeps its size), give another soul new interests, retitle a
    post of frame 2 in place, add a vote that is no record. Returns the post's new title."""
    coder = world / "memory" / "zion-coder-01.md"
    data = coder.read_bytes()
    with open(coder, "r+b") as f:
        f.seek(data.index(b"- Tests come first\n"))
        f.write(b"- Proofs come last\n")
    debater = world / "memory" / "zion-debater-03.md"
    data = debater.read_bytes()
    start = data.index(b"## Interests\n\n") + len(b"## Interests\n\n")
    debater.write_bytes(data[:start] + b"- lighthouses\n" + data[data.index(b"\n## ", start) :])
    posts = world / "community" / "posts.jsonl"
    lines = posts.read_bytes().splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if json.loads(line)["frame"] == 2)
    title = json.loads(lines[at])["title"]
    lines[at] = lines[at].replace(title.encode(), title.upper().encode())
    posts.write_bytes(b"".join(lines))
    with open(world / "community" / "votes.jsonl", "ab") as f:
        f.write(b'{"frame": "three"}\n')
    return title.upper()


def test_a_runner_kept_open_sees_edits_between_frames_as_a_new_one_would(tmp_path: Path) -> None:
    kept, fresh = (make_world(tmp_path / name, agents=6) for name in ("kept", "fresh"))
    with FrameRunner(kept, OfflineBrain(), commit_edits=True) as runner:
        for frame in range(1, 7):
            if frame == 4:
                titles = {_edit_between_frames(w) for w in (kept, fresh)}
            notes = runner.step().notes
            assert notes == run_frames(fresh, OfflineBrain(), commit_edits=True)[0].notes
            assert any("votes.jsonl: skipped 1 bad record" in n for n in notes) == (frame >= 4)
    assert tree_bytes(kept) == tree_bytes(fresh)
    # The frames after the edits read them: the conviction, the interest, the new title.
    coder = read_soul(kept / "memory" / "zion-coder-01.md").frames[3:]
    assert any("proofs come last" in f.source.lower() for f in coder)
    debater = read_soul(kept / "memory" / "zion-debater-03.md").frames[3:]
    assert any("lighthouses" in f.source for f in debater)
    seen = [json.loads(p.read_text())["context"] for p in (kept / "frames" / "4").glob("*.json")]
    assert {p["title"] for c in seen for p in c["posts"]} & titles


def test_a_runner_kept_open_refuses_bytes_appended_that_are_not_utf8(world: Path) -> None:
    soul = world / "memory" / "zion-coder-01.md"
    with FrameRunner(world, OfflineBrain(), commit_edits=True) as runner:
        runner.step()
        with open(soul, "ab") as f:
            f.write(b"\n- a note in Latin-1: caf\xe9\n")
        result = runner.step()
    assert result.skipped == (
        (
            "zion-coder-01",
            "memory/zion-coder-01.md is not UTF-8; soulscope appends only to UTF-8 files",
        ),
    )
    assert soul.read_bytes().endswith(b"caf\xe9\n")


def test_new_posts_take_ids_above_every_thread_number_the_souls_name(tmp_path: Path) -> None:
    """A world grown elsewhere: its souls name threads its community files never held."""
    from soulscope.sim.community import Community
    from soulscope.sim.frame import run_frames
    from soulscope.sim.offline import OfflineBrain
    from tests.support.repos import git

    world = make_world(tmp_path / "w", agents=3)
    soul = world / "memory" / "zion-coder-01.md"
    soul.write_text(
        soul.read_text()
        + "\n## Frame 7 — 2026-02-27\n- Replied on #104 to Ada, &#8217;quoted&#8217; &#65533;"
        " and #2026x\n- Upvoted #99.\n"
    )
    git(world, "add", "-A")
    git(world, "commit", "-q", "-m", "grown elsewhere")
    run_frames(world, OfflineBrain(), steps=2)
    ids = [p.id for p in Community.load(world).posts]
    assert ids and min(ids) == 105 and ids == sorted(set(ids))
