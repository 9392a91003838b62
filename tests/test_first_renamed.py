"""``first`` in a world whose soul files were renamed: a line a file held under its old name is
its agent's, by the name the file came to have (``git mv memory/dan.md memory/dan-04.md``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.cli import soulscope
from tests.support.repos import commit, git, init
from tests.support.worlds import soul


@pytest.fixture(scope="module")
def renamed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """dan-04's file was ``memory/dan.md`` when it first wrote "comet"; ana-01 took it up after
    the rename; a newcomer then took the old name ``dan.md`` and wrote it too."""
    repo = init(tmp_path_factory.mktemp("renamed") / "world")
    memory = repo / "memory"
    memory.mkdir()
    dan = soul("Dan", "dan-04", "Namer", [])
    (memory / "dan.md").write_text(dan + "## Frame 1 — 2026-03-02\n- Named the comet protocol.\n")
    (memory / "ana-01.md").write_text(soul("Ana", "ana-01", "Watcher", []))
    commit(repo, "frame 1", date="2026-03-02T10:00:00Z")
    git(repo, "mv", "memory/dan.md", "memory/dan-04.md")
    commit(repo, "rename dan", date="2026-03-03T10:00:00Z")
    with (memory / "ana-01.md").open("a") as f:
        f.write("## Frame 2 — 2026-03-04\n- Used the Comet protocol from dan-04.\n")
    (memory / "dan.md").write_text(soul("Dan Two", "dan", "Namer", []) + "- A comet seen.\n")
    commit(repo, "frame 2", date="2026-03-04T10:00:00Z")
    return repo


def _first(world: Path, *args: str) -> dict:
    done = soulscope("first", *args, "--world", str(world), "--json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_first_names_the_agent_a_renamed_file_belongs_to(renamed: Path) -> None:
    got = _first(renamed, "comet")
    assert (got["agent"], got["path"], got["line"]) == ("dan-04", "memory/dan.md", 12)
    assert got["commit"]["message"] == "frame 1"
    # the same asked of the agent alone
    assert _first(renamed, "comet", "--agent", "dan-04")["agent"] == "dan-04"


def test_a_file_that_took_an_old_name_is_its_own_agent(renamed: Path) -> None:
    got = _first(renamed, "seen", "--exact")
    assert (got["agent"], got["path"]) == ("dan", "memory/dan.md")


@pytest.fixture(scope="module")
def reverted(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """ana-01 wrote "quasar" in a commit that was reverted; eve-05 wrote "nebula" in a file later
    deleted; ben-02 wrote both after."""
    repo = init(tmp_path_factory.mktemp("reverted") / "world")
    memory = repo / "memory"
    memory.mkdir()
    for agent in ("ana-01", "ben-02", "eve-05"):
        (memory / f"{agent}.md").write_text(soul(agent.title(), agent, "Tester", []))
    commit(repo, "register", date="2026-03-01T10:00:00Z")
    with (memory / "ana-01.md").open("a") as f:
        f.write("## Frame 1 — 2026-03-02\n- Proposed the quasar ledger.\n")
    with (memory / "eve-05.md").open("a") as f:
        f.write("## Frame 1 — 2026-03-02\n- Coined nebula voting.\n")
    commit(repo, "frame 1", date="2026-03-02T10:00:00Z")
    git(repo, "revert", "--no-edit", "HEAD", date="2026-03-02T12:00:00Z")
    (memory / "eve-05.md").write_text(soul("Eve", "eve-05", "Tester", []) + "- Nebula again.\n")
    commit(repo, "eve again", date="2026-03-03T10:00:00Z")
    (memory / "eve-05.md").unlink()
    commit(repo, "eve leaves", date="2026-03-04T10:00:00Z")
    with (memory / "ben-02.md").open("a") as f:
        f.write("## Frame 2 — 2026-03-05\n- A QUASAR ledger, and nebula voting.\n")
    commit(repo, "frame 2", date="2026-03-05T10:00:00Z")
    return repo


def test_a_first_line_taken_out_again_names_the_commit_that_took_it(reverted: Path) -> None:
    got = _first(reverted, "quasar")
    assert (got["agent"], got["commit"]["message"]) == ("ana-01", "frame 1")
    assert got["removed_by"]["message"] == 'Revert "frame 1"'
    text = soulscope("first", "quasar", "--world", str(reverted)).stdout
    assert "no longer in its memory" in text and got["removed_by"]["commit"][:7] in text
    got = _first(reverted, "nebula")
    assert (got["agent"], got["text"]) == ("eve-05", "- Coined nebula voting.")
    assert got["removed_by"]["message"] == 'Revert "frame 1"'
    got = _first(reverted, "again")  # only ever in a file since deleted
    assert (got["agent"], got["removed_by"]["message"]) == ("eve-05", "eve leaves")
    # a line still there was removed by nothing
    assert _first(reverted, "quasar", "--at", "HEAD~4")["removed_by"] is None


def test_a_single_soul_file_is_searched_under_every_name_it_had(renamed: Path) -> None:
    got = _first(renamed / "memory" / "dan-04.md", "comet")
    assert (got["agent"], got["commit"]["message"], got["path"]) == (
        "dan-04",
        "frame 1",
        "memory/dan.md",
    )


def test_a_file_in_a_folder_under_memory_is_no_agent(tmp_path: Path) -> None:
    """``memory/archive/aa-01-frames-1-100.md`` is no soul of the world (``agents`` does not
    list it, nor does ``spread``): ``first`` does not name it either."""
    repo = init(tmp_path / "world")
    (repo / "memory" / "archive").mkdir(parents=True)
    (repo / "memory" / "archive" / "aa-01-frames-1-100.md").write_text(
        soul("Aa", "aa-01", "Tester", []) + "## Frame 1 — 2026-03-01\n- The kelp rule.\n"
    )
    (repo / "memory" / "bb-02.md").write_text(
        soul("Bb", "bb-02", "Tester", []) + "## Frame 101 — 2026-03-05\n- Kelp too.\n"
    )
    commit(repo, "import", date="2026-03-06T10:00:00Z")
    got = _first(repo, "kelp")
    assert (got["agent"], got["path"]) == ("bb-02", "memory/bb-02.md")
