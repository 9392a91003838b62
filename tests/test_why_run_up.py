"""``why``: what the agent itself wrote of others while it held the role before a shift. A
cause a frame before the shift states plainly ("Learned from X", "Replied to X") belongs in the
dossier even where the shift's own frame names no one; what came before that role does not."""

from __future__ import annotations

from pathlib import Path

import pytest

from soulscope.history.export import why_dict
from soulscope.history.why import explain
from soulscope.world import World
from tests.support.repos import commit, init

CURATOR = """# Librarian

## Frame 1 — 2026-05-01
- Replied to lab-wildcard-11 on #90: shelve the jokes too.
- Becoming: the librarian of loud shelves.

## Frame 3 — 2026-05-03
- Becoming: the librarian.

## Frame 4 — 2026-05-04
- Voted: 👍 lab-wildcard-11/#91

## Frame 5 — 2026-05-05
- Learned from storyteller-08: every index is a story someone chose to tell.
- Replied on #96 to lab-coder-03: the index is the argument.

## Frame 6 — 2026-05-06
- Becoming: the narrative librarian. From shelving to telling.
"""


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("runup")
    (root / "memory").mkdir()
    (root / "memory" / "lab-curator-02.md").write_text(CURATOR, encoding="utf-8")
    for other in ("lab-storyteller-08", "lab-wildcard-11", "lab-coder-03"):
        (root / "memory" / f"{other}.md").write_text(f"# {other}\n", encoding="utf-8")
    return root


def test_the_run_up_holds_the_credit_a_frame_before_the_shift(world: Path) -> None:
    why = explain(World.open(world), "lab-curator-02", frame="6")
    got = [(r["agent"], r["kind"], r["frame"]) for r in why_dict(why)["run_up"]]
    # frame 5's credit and reply; not frame 4's vote, nor frame 1's reply (another role then)
    assert got == [("lab-storyteller-08", "credit", 5), ("lab-coder-03", "reply", 5)]
    assert "lab-storyteller-08" in why.narrative
    assert "[lab-curator-02 · frame 5]" in why.narrative
    assert "[lab-curator-02 · frame 5]" in why.citations()
    assert "lab-wildcard-11" not in why.narrative


def test_an_earlier_statements_own_credit_is_not_the_run_up(tmp_path: Path) -> None:
    soul = (
        "# Bettor\n\n## Frame 1 — 2026-05-01\n"
        "- Becoming: the pricer, on lab-coder-03's framework.\n\n"
        "## Frame 2 — 2026-05-02\n- Becoming: the bettor. From pricer to bettor.\n"
    )
    (tmp_path / "memory").mkdir()
    (tmp_path / "memory" / "lab-debater-06.md").write_text(soul, encoding="utf-8")
    (tmp_path / "memory" / "lab-coder-03.md").write_text("# Coder\n", encoding="utf-8")
    why = explain(World.open(tmp_path), "lab-debater-06", frame="2")
    assert why_dict(why)["run_up"] == []
    assert "lab-coder-03" not in why.narrative


def test_a_statement_headed_later_but_committed_earlier_is_said(tmp_path: Path) -> None:
    """A "Frame 0" headed 00:30 committed before the "Frame 1" headed 00:17: by the headings
    the statement before frame 1's is the one of 23:45, by the commits it is frame 0's. The
    dossier says both, as its note."""
    repo = init(tmp_path / "w")
    (repo / "memory").mkdir()
    soul = repo / "memory" / "lab-debater-06.md"
    soul.write_text("# Bettor\n\n## Frame 2026-03-14 (23:45 UTC)\n- Becoming: the monarchist.\n\n")
    commit(repo, "sync", date="2026-03-14T23:50:00Z")
    with soul.open("a") as f:
        f.write("## Frame 2026-03-15 (00:30 UTC) — Frame 0\n- Becoming: the theologian.\n\n")
    zero = commit(repo, "sync", date="2026-03-15T00:38:00Z")
    with soul.open("a") as f:
        f.write("## Frame 2026-03-15 (00:17 UTC) — Frame 1\n- Becoming: the pricer of gods.\n\n")
    commit(repo, "sync", date="2026-03-15T00:52:00Z")
    why = explain(World.open(repo), "lab-debater-06", index=2)  # the arc in time order
    assert why.statement.text.startswith("the pricer of gods")
    assert why.note is not None
    assert "the theologian" in why.note and zero[:7] in why.note


def test_the_frame_that_stated_the_role_before_is_its_cause_not_the_run_up(
    tmp_path: Path,
) -> None:
    """Real souls state a role and its cause in every frame: the credit beside the role before
    is that role's cause, and no part of the next statement's run-up."""
    soul = (
        "# Declarer\n\n## Frame 216 — 2026-03-22\n"
        "- Influenced by: lab-storyteller-07's parallel being precisely correct.\n"
        "- Becoming: the blocked declarer.\n\n"
        "## Frame 216 — 2026-03-22\n- Replied on #5892 to lab-coder-07: challenged it.\n"
        "- Becoming: the interface declarer.\n"
    )
    (tmp_path / "memory").mkdir()
    (tmp_path / "memory" / "lab-coder-06.md").write_text(soul, encoding="utf-8")
    for other in ("lab-storyteller-07", "lab-coder-07"):
        (tmp_path / "memory" / f"{other}.md").write_text("# x\n", encoding="utf-8")
    why = explain(World.open(tmp_path), "lab-coder-06", index=2)
    assert why.statement.text == "the interface declarer."
    assert why_dict(why)["run_up"] == []
    assert "lab-storyteller-07" not in why.narrative


def test_a_frame_headed_after_the_statement_is_not_its_run_up(tmp_path: Path) -> None:
    """Evidence comes only from frames the headings place before the statement: a "Frame 0"
    headed 00:30 above a "Frame 1" headed 00:17 is not what came before frame 1."""
    soul = (
        "# Bettor\n\n## Frame 2026-03-14 (23:45 UTC)\n- Becoming: the monarchist.\n\n"
        "## Frame 2026-03-15 (00:30 UTC) — Frame 0\n- Replied to lab-coder-01 on #4922.\n\n"
        "## Frame 2026-03-15 (00:17 UTC) — Frame 1\n- Becoming: the pricer of gods.\n"
    )
    (tmp_path / "memory").mkdir()
    (tmp_path / "memory" / "lab-debater-06.md").write_text(soul, encoding="utf-8")
    (tmp_path / "memory" / "lab-coder-01.md").write_text("# x\n", encoding="utf-8")
    why = explain(World.open(tmp_path), "lab-debater-06", index=2)
    assert why.statement.text == "the pricer of gods."
    assert why_dict(why)["run_up"] == []
    assert "lab-coder-01" not in why.narrative
