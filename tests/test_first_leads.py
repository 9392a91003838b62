"""What ``first`` leads with where the headings leave a choice, and what counts as a use: a use
whose own heading dates it leads over an undated one it ties with, and an agent's name (its
soul's title, its display name) is not a use of the word."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.cli import soulscope
from tests.support.repos import commit, init


def _world(root: Path, souls: dict[str, str]) -> Path:
    memory = root / "memory"
    memory.mkdir(parents=True)
    for agent, text in souls.items():
        (memory / f"{agent}.md").write_text(text)
    return root


def _run(world: Path, *args: str) -> str:
    done = soulscope(*args, "--world", str(world))
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_a_dated_use_leads_over_an_undated_one_it_ties_with(tmp_path: Path) -> None:
    # ana-01's "## Frame 2" has no date: it came after 2026-03-01, maybe after ben-02's 03-05
    world = _world(
        tmp_path,
        {
            "ana-01": "# Ana\n\n## Frame 1 — 2026-03-01\n- Watched the sky.\n\n"
            "## Frame 2\n- Named the Comet-ledger.\n",
            "ben-02": "# Ben\n\n## Frame 7 — 2026-03-05\n- Read the comet ledger.\n",
        },
    )
    got = json.loads(_run(world, "first", "comet", "--json"))
    assert (got["agent"], got["date"], got["line"]) == ("ben-02", "2026-03-05", 4)
    assert [(t["agent"], t["date"], t["precision"]) for t in got["ties"]] == [
        ("ana-01", None, "inferred")
    ]
    text = _run(world, "first", "comet")
    headline, *rest = text.splitlines()
    assert headline.startswith("ben-02, frame 7, 2026-03-05")
    assert any(line.strip().startswith("ana-01, frame 2, undated") for line in rest)


# ana-01 is named Entropy (its title and its display name) but never uses the word; cy-03 holds
# it as a conviction; ben-02 writes it in a frame.
_NAMED = {
    "ana-01": "# Entropy\n\n## Identity\n- **ID:** ana-01\n- **Display name:** Entropy\n\n"
    "## Frame 1 — 2026-03-01\n- Watched the sky.\n",
    "ben-02": "# Ben\n\n## Identity\n- **ID:** ben-02\n\n"
    "## Frame 1 — 2026-03-04\n- Read about entropy.\n",
    "cy-03": "# Cy\n\n## Identity\n- **ID:** cy-03\n\n## Convictions\n- ENTROPY is a teacher.\n\n"
    "## Frame 1 — 2026-03-06\n- Slept.\n",
}


def test_an_agent_s_name_is_not_its_use_of_the_word(tmp_path: Path) -> None:
    world = _world(tmp_path / "files", _NAMED)
    got = json.loads(_run(world, "first", "entropy", "--json"))
    assert (got["agent"], got["line"]) == ("ben-02", 7)
    assert [t["agent"] for t in got["ties"]] == ["cy-03"]  # its header: before 03-06
    spread = json.loads(_run(world, "spread", "entropy", "--json"))
    assert sorted(a["agent"] for a in spread["agents"]) == ["ben-02", "cy-03"]
    trends = json.loads(_run(world, "trends", "entropy", "--json"))
    assert max(p["so_far"] for p in trends["terms"][0]["periods"]) == 1  # cy-03's has no date


def test_in_git_a_commit_that_brought_a_name_brought_no_use(tmp_path: Path) -> None:
    repo = init(tmp_path / "world")
    memory = repo / "memory"
    memory.mkdir()
    (memory / "ana-01.md").write_text(_NAMED["ana-01"])
    commit(repo, "ana", date="2026-03-01T10:00:00Z")
    (memory / "ben-02.md").write_text(_NAMED["ben-02"])
    commit(repo, "ben", date="2026-03-04T10:00:00Z")
    got = json.loads(_run(repo, "first", "entropy", "--json"))
    assert (got["agent"], got["commit"]["message"]) == ("ben-02", "ben")


def test_an_undated_frame_comes_after_every_dated_frame_above_it(tmp_path: Path) -> None:
    # the 03-02 frame was appended after the 03-05 one (a date three days backwards: misdated,
    # placed by its file); the undated frame after both: it is no earlier than 2026-03-05. One
    # above them all came before the 03-05 frame; its misdated date says nothing of it.
    world = _world(
        tmp_path,
        {
            "ana-01": "# Ana\n\n## Frame 1\n- Drew the Orrery.\n\n"
            "## Frame 3 — 2026-03-05\n- Watched.\n\n## Frame 2 — 2026-03-02\n- Late copy.\n\n"
            "## Frame 4\n- Named the comet ledger.\n",
        },
    )
    got = json.loads(_run(world, "first", "comet", "--json"))
    assert got["span"] == ["2026-03-05 00:00", None]
    assert "undated, after 2026-03-05" in _run(world, "first", "comet").splitlines()[0]
    got = json.loads(_run(world, "first", "orrery", "--json"))
    assert got["span"] == [None, "2026-03-05 23:59"]
