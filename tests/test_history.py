"""Memory over git time, against plain git on real and generated repositories."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from soulscope.history.git import HistoryError, find_repo
from soulscope.history.timeline import (
    Timeline,
    diff,
    first_mention,
    history,
    soul_at,
    world_at,
)
from soulscope.soul.parse import parse
from soulscope.soul.terms import Term
from soulscope.soul.trajectory import arc
from soulscope.world import World
from tests.support.repos import HEADER, clone_bundle, commit, frame, git, init, shallow_clone

AGENTS = ("zion-coder-04", "zion-debater-06", "zion-philosopher-07")


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return clone_bundle(tmp_path_factory.mktemp("bundle") / "rappterbook")


def test_history_counts_match_git_log(bundle: Path) -> None:
    world = World.open(bundle)
    for agent in AGENTS:
        path = f"state/memory/{agent}.md"
        expected = git(bundle, "log", "--format=%H", "--", path).split()
        changes = history(world, agent)
        assert [c.commit.sha for c in changes] == expected
    debater = history(world, "zion-debater-06")
    assert len(debater) == 116
    assert debater[-1].status == "created" and debater[-1].size_before == 0
    assert sum(len(c.frames_added) for c in debater) >= len(world.read("zion-debater-06").frames)


def test_memory_at_every_commit_equals_git_show(bundle: Path) -> None:
    world = World.open(bundle)
    path = "state/memory/zion-debater-06.md"
    for change in history(world, "zion-debater-06"):
        sha = change.commit.sha
        shown = subprocess.run(
            ["git", "show", f"{sha}:{path}"], cwd=bundle, capture_output=True, check=True
        ).stdout
        soul = soul_at(world, "zion-debater-06", sha)
        expected = parse(shown, "zion-debater-06")
        assert soul.render() == shown
        assert [f.heading for f in soul.frames] == [f.heading for f in expected.frames]
        statements = arc(expected)
        # The history's fast per-block reading agrees with parsing the whole file.
        assert change.becoming_after == (statements[-1].text if statements else None)


def test_first_mention_exact_agrees_with_git_log_s(bundle: Path) -> None:
    """Matched exactly as typed, the first commit is ``git log -S``'s."""
    world = World.open(bundle)
    for term in ("junk food", "Knowledge Graph", "god seed", "governance", "zion-coder-04"):
        for agent, paths in [
            (None, ["state/memory"]),
            *((a, [f"state/memory/{a}.md"]) for a in AGENTS),
        ]:
            shas = git(bundle, "log", f"-S{term}", "--reverse", "--format=%H", "--", *paths).split()
            found = first_mention(world, Term(term, "exact"), agent)
            if not shas:
                assert found is None
                continue
            assert found is not None and found.commit.sha == shas[0]
            text = git(bundle, "show", f"{shas[0]}:{found.path}")
            assert term in text.splitlines()[found.line - 1]
            if agent:
                assert found.agent_id == agent


def test_diff_first_and_last_by_frame(bundle: Path) -> None:
    world = World.open(bundle)
    changes = history(world, "zion-philosopher-07")
    first, last = changes[-1].commit.sha, changes[0].commit.sha
    d = diff(world, "zion-philosopher-07", first, last)
    before = soul_at(world, "zion-philosopher-07", first)
    after = soul_at(world, "zion-philosopher-07", last)
    assert len(after.frames) - len(before.frames) == len(d.frames.added) - len(d.frames.removed)
    assert d.becoming_after == arc(after)[-1].text
    expected = git(bundle, "diff", first, last, "--", "state/memory/zion-philosopher-07.md")
    assert _hunk_lines(d.unified) == _hunk_lines(expected)


def _hunk_lines(text: str) -> list[str]:
    return [ln for ln in text.splitlines() if ln[:1] in "+- " and not ln.startswith(("+++", "---"))]


def test_world_at_is_a_read_only_snapshot(bundle: Path) -> None:
    world = World.open(bundle)
    old = world_at(world, "HEAD~150")
    assert old.read_only and not world.read_only
    assert [a.id for a in old.agents()] == [
        a.id for a in world.agents() if old.soul_path(a.id).exists()
    ]
    shown = git(bundle, "show", "HEAD~150:state/memory/zion-debater-06.md")
    assert old.read("zion-debater-06").render() == shown.encode()
    assert len(old.read("zion-debater-06").frames) < len(world.read("zion-debater-06").frames)
    # Files and folders carry no write permission (root ignores it, so check the modes).
    for p in (old.memory_dir, old.soul_path("zion-debater-06")):
        assert p.stat().st_mode & 0o222 == 0


# -- generated repositories ------------------------------------------------------------------


def ada_world(tmp_path: Path) -> Path:
    """A code repository whose world lives in ``state/``, as the demo world does."""
    repo = init(tmp_path / "repo")
    (repo / "README.md").write_text("a project\n")
    (repo / "state" / "memory").mkdir(parents=True)
    return repo


def write(repo: Path, name: str, text: str | bytes) -> None:
    p = repo / "state" / "memory" / name
    if isinstance(text, bytes):
        p.write_bytes(text)
    else:
        p.write_text(text, encoding="utf-8")


def test_renames_are_followed(tmp_path: Path) -> None:
    repo = ada_world(tmp_path)
    write(repo, "ada-old.md", HEADER + frame(1, "the listener."))
    first = commit(repo, "frame 1: 1 agents, 0 posts, 0 comments")
    write(repo, "ada-old.md", HEADER + frame(1, "the listener.") + frame(2, "the builder."))
    commit(repo, "frame 2: 1 agents, 0 posts, 0 comments")
    git(repo, "mv", "state/memory/ada-old.md", "state/memory/ada.md")
    commit(repo, "rename ada")
    write(
        repo,
        "ada.md",
        HEADER + frame(1, "the listener.") + frame(2, "the builder.") + frame(3, "the critic."),
    )
    commit(repo, "frame 3: 1 agents, 0 posts, 0 comments")
    world = World.open(repo)
    changes = history(world, "ada")
    assert [c.commit.message for c in changes] == [
        "frame 3: 1 agents, 0 posts, 0 comments",
        "rename ada",
        "frame 2: 1 agents, 0 posts, 0 comments",
        "frame 1: 1 agents, 0 posts, 0 comments",
    ]
    assert [c.status for c in changes] == ["modified", "renamed", "modified", "created"]
    assert (
        changes[1].old_path == "state/memory/ada-old.md"
        and changes[1].path == "state/memory/ada.md"
    )
    assert changes[0].frames_added == ("Frame 3 — 2026-03-03",)
    assert changes[0].becoming_before == "the builder." and changes[0].becoming_changed
    # Memory at a commit before the rename is found under the old name.
    assert len(soul_at(world, "ada", first).frames) == 1
    assert first_mention(world, "the listener", "ada").commit.sha == first


def test_deleted_then_recreated(tmp_path: Path) -> None:
    repo = ada_world(tmp_path)
    write(repo, "ada.md", HEADER + frame(1, "the listener.") + frame(2, "the builder."))
    commit(repo, "frame 2")
    (repo / "state" / "memory" / "ada.md").unlink()
    gone = commit(repo, "remove ada")
    write(repo, "ada.md", HEADER + frame(7, "the newcomer."))
    commit(repo, "frame 7")
    world = World.open(repo)
    changes = history(world, "ada")
    assert [c.status for c in changes] == ["created", "deleted", "created"]
    assert changes[1].frames_removed == ("Frame 1 — 2026-03-01", "Frame 2 — 2026-03-02")
    assert not changes[1].truncated and changes[1].becoming_after is None
    assert changes[0].frames_added == ("Frame 7 — 2026-03-07",)
    with pytest.raises(HistoryError, match="had no soul file at"):
        soul_at(world, "ada", gone)


def test_merges_count_against_their_first_parent(tmp_path: Path) -> None:
    repo = ada_world(tmp_path)
    write(repo, "ada.md", HEADER + frame(1, "the listener."))
    commit(repo, "frame 1")
    git(repo, "checkout", "-q", "-b", "side")
    write(repo, "ada.md", HEADER + frame(1, "the listener.") + frame(2, "the side writer."))
    commit(repo, "side frame 2")
    git(repo, "checkout", "-q", "main")
    write(repo, "ada.md", HEADER + frame(1, "the listener.") + frame(3, "the main writer."))
    commit(repo, "main frame 3")
    subprocess.run(
        ["git", "merge", "-q", "side", "-m", "merge side"], cwd=repo, capture_output=True
    )
    write(
        repo,
        "ada.md",
        HEADER
        + frame(1, "the listener.")
        + frame(2, "the side writer.")
        + frame(3, "the main writer."),
    )
    merge = commit(repo, "merge side")
    world = World.open(repo)
    changes = history(world, "ada")
    expected = git(
        repo,
        "log",
        "--follow",
        "--diff-merges=first-parent",
        "--no-patch",
        "--format=%H",
        "--",
        "state/memory/ada.md",
    ).split()
    assert [c.commit.sha for c in changes] == expected and len(expected) == 4
    top = changes[0]
    assert top.commit.sha == merge and len(top.commit.parents) == 2
    assert top.frames_added == ("Frame 2 — 2026-03-02",)
    # The merged frame puts a new role between the listener and the main writer: a shift.
    assert top.becoming_changed


def test_empty_commits_are_not_history_but_are_revisions(tmp_path: Path) -> None:
    repo = ada_world(tmp_path)
    write(repo, "ada.md", HEADER + frame(1, "the listener."))
    commit(repo, "frame 1")
    empty = commit(repo, "nothing happened", allow_empty=True)
    world = World.open(repo)
    assert len(history(world, "ada")) == 1
    assert len(soul_at(world, "ada", empty).frames) == 1
    assert diff(world, "ada", "HEAD~1", empty).unified == ""


def test_truncating_commit_is_flagged(tmp_path: Path) -> None:
    repo = ada_world(tmp_path)
    frames = "".join(
        frame(n, f"the stage {n}.", extra="- Named: a long thought. " * 5 + "\n")
        for n in range(1, 9)
    )
    write(repo, "ada.md", HEADER + frames)
    commit(repo, "frame 8")
    archived = HEADER + "<!-- 6 earlier entries archived for context window efficiency -->\n\n"
    write(repo, "ada.md", archived + frame(7, "the stage 7.") + frame(8, "the stage 8."))
    commit(repo, "archive old frames")
    write(
        repo,
        "ada.md",
        archived + frame(7, "the stage 7.") + frame(8, "the stage 8.") + frame(9, "the stage 9."),
    )
    commit(repo, "frame 9")
    changes = history(World.open(repo), "ada")
    latest, archive = changes[0], changes[1]
    assert archive.truncated and "truncated" in archive.flags
    assert len(archive.frames_removed) == 6 and archive.rewrote
    assert not archive.becoming_changed  # the latest identity survived the archiving
    assert (
        not latest.truncated
        and not latest.rewrote
        and latest.frames_added == ("Frame 9 — 2026-03-09",)
    )


def test_duplicated_headings_are_matched_by_position(tmp_path: Path) -> None:
    repo = ada_world(tmp_path)
    dup = frame(4, "the twin.")
    write(repo, "ada.md", HEADER + frame(3, "the one.") + dup)
    commit(repo, "frame 4")
    write(
        repo,
        "ada.md",
        HEADER + frame(3, "the one.") + dup + dup.replace("- Replied", "- Also replied"),
    )
    commit(repo, "frame 4 again")
    write(
        repo,
        "ada.md",
        HEADER + frame(3, "the one.") + dup + dup.replace("- Replied", "- Then replied"),
    )
    commit(repo, "second copy edited")
    changes = history(World.open(repo), "ada")
    assert changes[1].frames_added == ("Frame 4 — 2026-03-04",) and not changes[1].frames_changed
    assert changes[0].frames_changed == ("Frame 4 — 2026-03-04",)
    assert not changes[0].frames_added and not changes[0].frames_removed and not changes[0].rewrote


def test_non_utf8_bytes_survive(tmp_path: Path) -> None:
    repo = ada_world(tmp_path)
    data = HEADER.encode() + frame(1, "the listener.").encode() + b"- Named: caf\xe9 \xff\n\n"
    write(repo, "ada.md", data)
    sha = commit(repo, "frame 1")
    world = World.open(repo)
    assert soul_at(world, "ada", sha).render() == data
    assert history(world, "ada")[0].frames_added == ("Frame 1 — 2026-03-01",)
    found = first_mention(world, "caf", "ada")
    assert found is not None and found.commit.sha == sha and "\ufffd" in found.text


def test_world_in_a_subfolder_and_revisions_by_name_and_date(tmp_path: Path) -> None:
    repo = ada_world(tmp_path)
    write(repo, "ada.md", HEADER + frame(1, "the listener."))
    commit(repo, "frame 1", date="2026-03-01T12:00:00+00:00")
    git(repo, "tag", "v1")
    write(repo, "ada.md", HEADER + frame(1, "the listener.") + frame(2, "the builder."))
    commit(repo, "frame 2", date="2026-03-05T12:00:00+00:00")
    world = World.open(repo / "state")
    assert find_repo(world.memory_dir).working_tree_dir == str(repo)
    assert len(soul_at(world, "ada", "v1").frames) == 1
    assert len(soul_at(world, "ada", "HEAD~1").frames) == 1
    assert len(soul_at(world, "ada", "2026-03-03").frames) == 1
    assert len(soul_at(world, "ada", "HEAD").frames) == 2
    with pytest.raises(HistoryError, match="unknown revision 'nope'"):
        soul_at(world, "ada", "nope")
    with pytest.raises(HistoryError, match="no commit on or before the end of 2025-01-01 .UTC."):
        soul_at(world, "ada", "2025-01-01")
    snap = world_at(world, "v1")
    assert snap.commit.sha == git(repo, "rev-parse", "v1").strip()
    assert len(snap.read("ada").frames) == 1 and snap.root.name == "state"


def test_folder_without_a_repository_says_so(tmp_path: Path) -> None:
    (tmp_path / "w" / "memory").mkdir(parents=True)
    (tmp_path / "w" / "memory" / "ada.md").write_text(HEADER + frame(1, "the listener."))
    world = World.open(tmp_path / "w")
    assert find_repo(tmp_path / "w") is None
    with pytest.raises(HistoryError, match=r"is not in a git repository, so it has no history$"):
        history(world, "ada")
    assert world.read("ada").frames  # everything else keeps working


def test_agent_without_history(tmp_path: Path) -> None:
    repo = ada_world(tmp_path)
    write(repo, "ada.md", HEADER + frame(1, "the listener."))
    commit(repo, "frame 1")
    write(repo, "bob.md", HEADER)  # not committed yet
    with pytest.raises(HistoryError, match="bob has no history yet"):
        history(World.open(repo), "bob")


def test_shallow_clone_is_named(tmp_path: Path) -> None:
    repo = ada_world(tmp_path)
    for n in range(1, 4):
        write(repo, "ada.md", HEADER + "".join(frame(k, f"stage {k}.") for k in range(1, n + 1)))
        commit(repo, f"frame {n}")
    shallow = shallow_clone(repo, tmp_path / "shallow")
    world = World.open(shallow)
    with pytest.raises(HistoryError, match="shallow clone"):
        history(world, "ada")
    with pytest.raises(HistoryError, match="shallow clone"):
        soul_at(world, "ada", "HEAD~2")


def test_timeline_keeps_each_distinct_block_once(tmp_path: Path) -> None:
    repo = ada_world(tmp_path)
    text = HEADER
    for n in range(1, 21):
        text += frame(n, f"stage {n}.")
        write(repo, "ada.md", text)
        commit(repo, f"frame {n}")
    timeline = Timeline.open(World.open(repo))
    assert len(timeline.history("ada")) == 20
    # 20 frames and the header sections: appending reuses every block already seen.
    assert len(timeline._versions.blocks) == 20 + 1


def test_appending_after_a_blank_line_changes_no_frame(tmp_path: Path) -> None:
    """Writers open each entry with a blank line, which lands at the end of the frame above."""
    repo = ada_world(tmp_path)
    text = HEADER + "## Frame 1 — 2026-03-01\n- Began.\n- Becoming: the listener.\n"
    write(repo, "ada.md", text)
    commit(repo, "frame 1")
    text += "\n## Frame 2 — 2026-03-02\n- Went on.\n- Becoming: the builder.\n"
    write(repo, "ada.md", text)
    commit(repo, "frame 2")
    latest = history(World.open(repo), "ada")[0]
    assert latest.frames_added == ("Frame 2 — 2026-03-02",)
    assert latest.frames_changed == () and not latest.rewrote and latest.becoming_changed


def test_repository_without_commits(tmp_path: Path) -> None:
    repo = ada_world(tmp_path)
    write(repo, "ada.md", HEADER + frame(1, "the listener."))
    world = World.open(repo)
    with pytest.raises(HistoryError, match="ada has no history yet"):
        history(world, "ada")
    with pytest.raises(HistoryError, match="unknown revision 'HEAD'"):
        soul_at(world, "ada", "HEAD")
