"""What ``first`` leads with where the headings leave a choice, and what counts as a use: a use
whose own heading dates it leads over an undated one it ties with, and an agent's name (its
soul's title, its display name) is not a use of the word."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.cli import soulscope


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
