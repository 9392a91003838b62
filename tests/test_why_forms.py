"""The why dossier on soul files in forms the corpus holds rarely or not at all: which lines are
a statement's evidence when several statements share a list, and whose influence a dossier
names."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from soulscope.history.mentions import thread_ids
from soulscope.history.why import explain
from soulscope.world import World
from tests.support.repos import commit, init

REGISTRY = {
    "zion-philosopher-07": {"name": "Ines Ortega"},
    "zion-debater-06": {"name": "Marcus Aurelius"},
    "zion-debater-10": {"name": "Toulmin Ten"},
    "zion-coder-04": {"name": "Linus Kernel"},
}
RECENT = (
    "# Ines Ortega\n\n## Recent Experience\n"
    "- Read the thread on #4744.\n"
    "- Reply to debater-10's Toulmin reconstruction.\n"
    "- debater-06 replied: the observer problem.\n"
    "- Evolving position: fourteenth ternary. debater-06's observer problem is legitimate.\n"
    "- Fifteenth ternary on #4717 with coder-04.\n"
    "- Evolving position: fifteenth ternary. The ternary is now three persons.\n"
    "- Relationships: coder-04 (co-author).\n"
)


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> World:
    root = tmp_path_factory.mktemp("why-forms")
    (root / "memory").mkdir()
    souls = {"zion-philosopher-07": RECENT}
    for agent, fields in REGISTRY.items():
        souls.setdefault(agent, f"# {fields['name']}\n")
    for agent, text in souls.items():
        (root / "memory" / f"{agent}.md").write_text(text, encoding="utf-8")
    (root / "agents.json").write_text(json.dumps({"agents": REGISTRY}), encoding="utf-8")
    return World.open(root)


def test_statements_of_one_list_each_keep_their_own_evidence(world: World) -> None:
    """Two statements in one ``## Recent Experience`` list: the credit and replies before the
    first are its evidence, not the second's; the second has the lines after the first."""
    later = explain(world, "zion-philosopher-07", index=-1)
    assert later.statement.line == 9
    assert {(k.source, k.kind, k.line) for k in later.links} == {
        ("zion-coder-04", "mention", 8),
        ("zion-coder-04", "relationship", 10),
    }
    assert "zion-debater-06" not in later.influencers
    assert later.threads == (4717,)
    earlier = explain(world, "zion-philosopher-07", index=-2)
    assert earlier.statement.line == 7
    assert {(k.source, k.kind) for k in earlier.links} == {
        ("zion-debater-10", "reply"),
        ("zion-debater-06", "reply"),
        ("zion-debater-06", "credit"),
    }
    assert earlier.influencers[0] == "zion-debater-06"


@pytest.mark.parametrize(
    ("text", "threads"),
    [
        ("- Commented on #14591. Bug #2 is style. Fix for #1 is worse.", [14591]),
        ("- Bug #2 filed.\n- The fix for #1 shipped.", []),
        ("- Bugs #4, #7, #11 addressed; Bugs #1 and #9 not.", []),
        ("- Bug #2 reported on #4410, and #4411.", [4410, 4411]),
        ("- Case #3: the thread on #4721 is for #4722.", [4721, 4722]),
        ("- Changelog #17 links to #18 (founding debate).", [18]),
        ("- Fix for #1 shipped.", [1]),  # no counter before it: a thread
    ],
)
def test_numbers_after_a_counter_are_its_count(text: str, threads: list[int]) -> None:
    """ "Bug #2 ... the fix for #1": after one of the agent's own counters, a small number
    that comes on loosely (after "for", a comma) is more of the count, not a thread."""
    assert thread_ids(text) == threads


def test_a_statement_rewritten_later_names_both_commits(tmp_path: Path) -> None:
    """Frame 2 arrives in its own commit; a later commit fixes a typo in its statement and
    adds frame 3. The dossier says which commit wrote the frame and which rewrote the
    statement, and never that frame 2 arrived together with frame 3."""
    repo = init(tmp_path / "w")
    (repo / "memory").mkdir()
    soul = repo / "memory" / "zion-philosopher-07.md"
    (repo / "memory" / "zion-coder-04.md").write_text("# Linus\n\n## Frame 1 — 2026-03-01\n")
    soul.write_text("# Ines\n\n## Frame 1 — 2026-03-01\n- Becoming: the teller.\n\n")
    commit(repo, "frame 1", date="2026-03-01T12:00:00Z")
    with soul.open("a") as f:
        f.write("## Frame 2 — 2026-03-02\n- Becoming: the mapmaker. Form teller to mapmaker.\n\n")
    written = commit(repo, "frame 2", date="2026-03-02T12:00:00Z")
    text = soul.read_text().replace("Form teller", "From teller")
    soul.write_text(text + "## Frame 3 — 2026-03-03\n- Becoming: the mapmaker.\n\n")
    rewrote = commit(repo, "frame 3, and a typo", date="2026-03-03T12:00:00Z")
    why = explain(World.open(repo), "zion-philosopher-07", frame="2")
    assert why.commit is not None and why.commit.sha == rewrote
    assert why.frame_commit is not None and why.frame_commit.sha == written
    assert not why.together
    assert f"Commit {written[:7]} wrote its frame" in why.narrative
    assert "arrived together" not in why.narrative


def test_relationships_are_compared_by_agent_in_any_form(tmp_path: Path) -> None:
    """The previous frame names coder-04 by id, this one by display name and in a dash form:
    one relationship changed, not one lost and one gained; a display name beyond ASCII is kept
    whole; "none yet (coder-04 ignored me)" and "the community" are no relationships."""
    (tmp_path / "memory").mkdir()
    registry = {**REGISTRY, "zion-wildcard-12": {"name": "Zoë Ångström"}}
    (tmp_path / "agents.json").write_text(json.dumps({"agents": registry}), encoding="utf-8")
    soul = (
        "# Ines Ortega\n\n## Frame 1 — 2026-03-01\n- Becoming: the teller.\n"
        "- Relationships: coder-04 (stranger), debater-06 (rival)\n\n"
        "## Frame 2 — 2026-03-02\n- Becoming: the mapmaker.\n"
        "- Relationships: **Linus Kernel** — mentor; debater-06 — rival; Zoë Ångström — guide\n\n"
        "## Frame 3 — 2026-03-03\n- Becoming: the hermit.\n"
        "- Relationships: none yet (coder-04 ignored me), the community (warm)\n"
    )
    for agent, fields in registry.items():
        text = soul if agent == "zion-philosopher-07" else f"# {fields['name']}\n"
        (tmp_path / "memory" / f"{agent}.md").write_text(text, encoding="utf-8")
    why = explain(World.open(tmp_path), "zion-philosopher-07", frame="2")
    got = {(r.agent, r.before, r.after) for r in why.relationships}
    assert got == {
        ("zion-coder-04", "stranger", "mentor"),
        ("zion-wildcard-12", None, "guide"),
    }
    # a bullet that lists no one, and a group that is no agent: relationships lost, none gained
    hermit = explain(World.open(tmp_path), "zion-philosopher-07", frame="3")
    assert {(r.agent, r.after) for r in hermit.relationships} == {
        ("zion-coder-04", None),
        ("zion-debater-06", None),
        ("zion-wildcard-12", None),
    }


def test_relationships_listed_below_their_label_are_read(tmp_path: Path) -> None:
    """A frame lists its relationships as items below a bare label, or under a heading: the
    dossier compares those items, and does not report the earlier ones lost."""
    (tmp_path / "memory").mkdir()
    (tmp_path / "agents.json").write_text(json.dumps({"agents": REGISTRY}), encoding="utf-8")
    soul = (
        "# Ines Ortega\n\n## Frame 1 — 2026-03-01\n- Becoming: the teller.\n"
        "- Relationships: coder-04 (stranger)\n\n"
        "## Frame 2 — 2026-03-02\n- Becoming: the mapmaker.\n"
        "- Relationships:\n  - Linus Kernel — mentor now\n  - debater-06 — rival\n\n"
        "## Frame 3 — 2026-03-03\n- Becoming: the surveyor.\n"
        "### Relationships\n- coder-04 (mentor now)\n- debater-06 (friend)\n"
    )
    for agent, fields in REGISTRY.items():
        text = soul if agent == "zion-philosopher-07" else f"# {fields['name']}\n"
        (tmp_path / "memory" / f"{agent}.md").write_text(text, encoding="utf-8")
    world = World.open(tmp_path)
    why = explain(world, "zion-philosopher-07", frame="2")
    assert {(r.agent, r.before, r.after) for r in why.relationships} == {
        ("zion-coder-04", "stranger", "mentor now"),
        ("zion-debater-06", None, "rival"),
    }
    assert {"zion-coder-04", "zion-debater-06"} <= set(why.agents)
    later = explain(world, "zion-philosopher-07", frame="3")
    assert {(r.agent, r.before, r.after) for r in later.relationships} == {
        ("zion-debater-06", "rival", "friend"),
    }
