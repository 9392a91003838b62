"""Every view as of a point (``--at REV|DATE|FRAME``): the same answer as the command run on a
checkout of that revision, read from git's objects without touching the user's folder; outside
git, from the frames up to that time."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.support.cli import one_sentence, soulscope
from tests.support.repos import clone_bundle, commit, git, init


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return clone_bundle(tmp_path_factory.mktemp("bundle") / "rappterbook")


@pytest.fixture(scope="module")
def checkout(bundle: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    dest = tmp_path_factory.mktemp("checkout") / "rappterbook"
    subprocess.run(["git", "clone", "-q", str(bundle), str(dest)], check=True)
    return dest


def answer(*args: str) -> dict | list:
    done = soulscope(*args, "--json")
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    if isinstance(found, dict):
        found.pop("world", None)  # the snapshot is named after its point: state@1a2b3c4
    return found


def revisions(repo: Path, n: int = 5) -> list[str]:
    shas = git(repo, "rev-list", "HEAD").split()
    return [shas[i] for i in range(3, len(shas), len(shas) // n)][:n]


COMMANDS = [
    ("graph",),
    ("spread", "governance"),
    ("spread", "Convergence"),
    ("spread", "mars barn"),
]


def test_graph_and_spread_at_a_revision_equal_a_checkout_of_it(
    bundle: Path, checkout: Path
) -> None:
    head = git(bundle, "rev-parse", "HEAD")
    differed = 0
    for rev in revisions(bundle):
        git(checkout, "checkout", "-q", rev)
        for command in COMMANDS:
            at = answer(*command, "--world", str(bundle), "--at", rev)
            there = answer(*command, "--world", str(checkout))
            assert at == there, (rev, command)
            differed += at != answer(*command, "--world", str(bundle))
    assert differed >= 8  # the past is not today's world
    # the user's folder was never checked out nor changed
    assert git(bundle, "rev-parse", "HEAD") == head
    assert git(bundle, "status", "--porcelain") == ""


def test_first_search_and_why_at_a_revision_equal_a_checkout_of_it(
    bundle: Path, checkout: Path
) -> None:
    for rev in revisions(bundle, 3):
        git(checkout, "checkout", "-q", rev)
        for command in (
            ("first", "governance"),
            ("first", "seed", "--agent", "zion-coder-04"),
            ("search", "constitutional amendment", "--mode", "bm25"),
            ("why", "zion-debater-06", "--offline"),
            ("agents",),
            ("overview",),
        ):
            at = answer(*command, "--world", str(bundle), "--at", rev)
            there = answer(*command, "--world", str(checkout))
            if command == ("agents",):  # the files' paths differ: where each copy lies
                for rows in (at, there):
                    for row in rows:
                        row.pop("path")
            assert at == there, (rev, command)


def test_a_term_that_came_later_was_never_there(bundle: Path) -> None:
    first = answer("first", "Knowledge Graph", "--world", str(bundle))
    before = git(bundle, "rev-parse", f"{first['commit']['commit']}^")
    done = soulscope("first", "Knowledge Graph", "--world", str(bundle), "--at", before)
    assert done.returncode == 1 and "never appears" in done.stderr
    done = soulscope("spread", "Knowledge Graph", "--world", str(bundle), "--at", before)
    assert done.returncode == 1


SOUL = "# {id}\n\n## Identity\n- **ID:** {id}\n\n"


def _sim_world(root: Path) -> dict[int, str]:
    """A world advanced a frame per commit, as ``soulscope frame`` does."""
    init(root)
    memory = root / "memory"
    memory.mkdir()
    shas = {}
    for n, (agent, text) in enumerate(
        [("Ada.L", "a reader"), ("bo-2", "a critic of Ada.L"), ("Ada.L", "a Quorum builder")], 1
    ):
        path = memory / f"{agent}.md"
        if not path.exists():
            path.write_text(SOUL.format(id=agent))
        with path.open("a") as f:
            f.write(f"## Frame {n} — 2026-03-0{n} (10:00 UTC)\n- Becoming: {text}.\n\n")
        shas[n] = commit(root, f"frame {n}", f"2026-03-0{n}T12:00:00+00:00")
    return shas


def test_a_frame_or_a_date_names_the_commit_that_held_it(tmp_path: Path) -> None:
    root = tmp_path / "sim"
    shas = _sim_world(root)
    w = ("--world", str(root))
    by_frame = answer("agents", *w, "--at", "2")
    assert [(a["id"], a["frames"]) for a in by_frame] == [("Ada.L", 1), ("bo-2", 1)]
    assert by_frame == answer("agents", *w, "--at", shas[2])
    by_date = answer("agents", *w, "--at", "2026-03-02")  # commits of that day, UTC
    assert [a["frames"] for a in by_date] == [1, 1]
    assert answer("agents", *w, "--at", "frame 3")[0]["frames"] == 2
    assert "numbered 1 to 3" in one_sentence(soulscope("agents", *w, "--at", "0"))


@pytest.mark.parametrize("in_git", [True, False])
def test_a_moment_is_read_in_the_zone_it_says(tmp_path: Path, in_git: bool) -> None:
    """A moment with an offset, a zone or Z names the same instant in UTC, in git (the last
    commit on or before it: frame 2 came at 12:00 UTC) and outside it (the frames up to it)."""
    root = tmp_path / "sim"
    _sim_world(root)
    if not in_git:
        subprocess.run(["rm", "-rf", str(root / ".git")], check=True)
    w = ("--world", str(root))
    frames = [
        [a["frames"] for a in answer("agents", *w, "--at", at)]
        for at in (
            "2026-03-02 06:59 -05:00",  # 11:59 UTC
            "2026-03-02 7am ET",  # 12:00 UTC
            "2026-03-02T11:30Z",
            "2026-03-02 14:30 (UTC+2)",
            "2026-03-02 13:30 Europe/Berlin",
        )
    ]
    if in_git:
        assert frames == [[1], [1, 1], [1], [1, 1], [1, 1]]
    else:  # the frames' own times: frame 2 is dated 10:00 UTC
        assert frames == [[1, 1], [1, 1], [1, 1], [1, 1], [1, 1]]
        assert [a["frames"] for a in answer("agents", *w, "--at", "2026-03-02 04:59 ET")] == [1]


def test_a_point_that_names_nothing_says_which_forms_do(tmp_path: Path) -> None:
    root = tmp_path / "sim"
    _sim_world(root)
    w = ("--world", str(root))
    said = one_sentence(soulscope("agents", *w, "--at", "03/02/2026"))
    assert "2026-03-02" in said and "2026-02-03" in said
    said = one_sentence(soulscope("agents", *w, "--at", "2026-03-02 10:00 XST"))
    assert "XST" in said and "zone" in said
    said = one_sentence(soulscope("agents", *w, "--at", "the day before"))
    assert "a date" in said and "a frame number" in said
    assert answer("agents", *w, "--at", "25/12/2026") == answer("agents", *w, "--at", "HEAD")


def test_outside_git_the_frames_up_to_then_answer(tmp_path: Path) -> None:
    root = tmp_path / "sim"
    _sim_world(root)
    subprocess.run(["rm", "-rf", str(root / ".git")], check=True)
    w = ("--world", str(root))
    before = {p: p.read_bytes() for p in (root / "memory").iterdir()}
    at = answer("agents", *w, "--at", "2026-03-01")
    assert [(a["id"], a["frames"]) for a in at] == [("Ada.L", 1)]  # bo-2 had not begun
    assert [a["frames"] for a in answer("agents", *w, "--at", "2")] == [1, 1]
    done = soulscope("first", "quorum", *w, "--at", "2026-03-02")
    assert done.returncode == 1 and "never appears" in done.stderr
    assert answer("first", "quorum", *w, "--at", "2026-03-03")["agent"] == "Ada.L"
    spread = answer("spread", "ada.l", *w, "--at", "2")
    assert [a["agent"] for a in spread["agents"]] == ["Ada.L", "bo-2"]
    assert before == {p: p.read_bytes() for p in (root / "memory").iterdir()}
    said = one_sentence(soulscope("graph", *w, "--at", "HEAD~1"))
    assert "not in git" in said


def test_as_of_answers_are_kept(bundle: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A snapshot's files were written just now: like any file changed within the racy window,
    # no answer is kept over them until their stat can show a change (``keep.fresh.racy``).
    monkeypatch.setattr("soulscope.keep.fresh.RACY_NS", 0)
    rev = revisions(bundle)[1]
    first = soulscope("graph", "--world", str(bundle), "--at", rev, "--json").stdout
    memo = Path(os.environ["XDG_CACHE_HOME"]) / "soulscope" / "memo"
    kept = sorted(memo.rglob("graph*"))
    assert kept, "the answer was not kept"
    again = soulscope("graph", "--world", str(bundle), "--at", rev, "--json").stdout
    assert again == first
    assert sorted(memo.rglob("graph*")) == kept
