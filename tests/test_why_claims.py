"""Every claim of a why dossier is one the files bear out: what it quotes is in the file, what it
counts is counted whole, what it says of a relationship is what the frames say."""

from __future__ import annotations

import re

import pytest

from soulscope.history.export import why_dict
from soulscope.history.render import why_text
from soulscope.history.why import explain
from soulscope.world import World

AGENT = "zion-debater-06"
# Early-era positions: counting sentences, then the claim; a role word a counter hides
# ("the first falsifiable seed") and a second sentence no role opens.
POSITIONS = (
    "# Marcus\n\n"
    "## Frame 2026-03-15 (01:50 UTC) — SEED: Mars\n"
    "- Evolving position: thirty-seventh proof. The Mars seed is the first falsifiable seed. "
    "Unlike god, survival is computable.\n- Read a post on citizenship.\n\n"
    "## Frame 2026-03-15 (03:08 UTC) — SEED: Polis\n"
    "- Connected: #4857 (unchosen beings), #5051.\n"
    "- Evolving position: thirty-ninth formalism. First political one. Citizenship is a "
    "fixed-point computation — same shape as survival loops.\n"
)
# Fourteen other agents name the thread before the statement, one of them twice: more than a
# dossier lists.
OTHERS = [f"zion-coder-{n:02d}" for n in range(1, 15)]
# Relationships a frame does not restate; the frame compared with is not the one just above.
TIES = "zion-curator-03"
TIES_SOUL = (
    "# Curator Three\n\n"
    "## Frame 7 — 2026-03-20\n"
    "- Relationships: Coder-01 (rival), coder-02 (mentor)\n\n"
    "## Frame 8 — 2026-03-21\n"
    "- Posted a digest.\n\n"
    "## Frame 9 — 2026-03-22\n"
    "- Becoming: the patient curator. From hoarder to patient curator.\n"
    "- Relationships: coder-01 (ally), coder-03 (new reader)\n"
)


def other(agent: str) -> str:
    text = f"# {agent}\n\n## Frame 2026-03-14 (10:00 UTC)\n- Commented on #4857: a reading.\n"
    if agent == OTHERS[0]:
        text += "\n## Frame 2026-03-14 (11:00 UTC)\n- Voted: UP #4857.\n"
    return text


# Named by another agent only in a frame of the same minute as the statement.
TIED = "zion-debater-09"
TIED_SOUL = "# Tied\n\n## Frame 2026-03-15 (03:08 UTC)\n- Voted: UP #5051, UP #4857.\n"


# An agent whose role takes up the word of its own id and archetype.
REVIEWER = "zion-reviewer-01"
REVIEWER_SOUL = (
    "# zion-reviewer-01 — Soul File\n\n## Identity\n- **ID:** zion-reviewer-01\n"
    "- **Archetype:** Reviewer\n\n"
    "## Frame 5 — 2026-03-18\n- Commented on #12: flagged as code reviewer, read a forensic report.\n"
    "- Becoming: the careful reader. From skimmer to careful reader.\n\n"
    "## Frame 6 — 2026-03-19\n"
    "- Becoming: the forensic reviewer. From careful reader to forensic reviewer.\n"
)

# A credit by a display name the world has no registry for.
PIPER = "zion-coder-20"
PIPER_SOUL = (
    "# Piper\n\n## Frame 506 — 2026-04-16\n- Read a reply on #14891.\n"
    "- Influenced by: Boundary Tester upgrading my invariant spec.\n"
    "- Becoming: the conservation law architect. From cadence architect to conservation law "
    "architect.\n"
)

# Parallel writers: frame 7 is written below frame 8, whose role frame 9 leaves.
LATE = "zion-coder-21"
LATE_SOUL = (
    "# Late\n\n"
    "## Frame 8 — 2026-03-21\n- Becoming: the error-path reviewer. From analyst to reviewer.\n\n"
    "## Frame 7 — 2026-03-21\n- Replied on #70 to coder-02: drew the flow chart.\n"
    "- Becoming: the integration tester. From planner to tester.\n\n"
    "## Frame 8 — 2026-03-21\n- Replied on #71 to coder-03: a test contract.\n\n"
    "## Frame 9 — 2026-03-21\n"
    "- Becoming: the test-as-schema advocate. From reviewer to schema advocate.\n"
)


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> World:
    root = tmp_path_factory.mktemp("why-claims")
    memory = root / "memory"
    memory.mkdir()
    (memory / f"{AGENT}.md").write_text(POSITIONS, encoding="utf-8")
    (memory / f"{TIES}.md").write_text(TIES_SOUL, encoding="utf-8")
    (memory / f"{REVIEWER}.md").write_text(REVIEWER_SOUL, encoding="utf-8")
    (memory / f"{PIPER}.md").write_text(PIPER_SOUL, encoding="utf-8")
    (memory / f"{TIED}.md").write_text(TIED_SOUL, encoding="utf-8")
    (memory / f"{LATE}.md").write_text(LATE_SOUL, encoding="utf-8")
    (memory / f"{FORK}.md").write_text(FORK_SOUL, encoding="utf-8")
    for agent in OTHERS:
        (memory / f"{agent}.md").write_text(other(agent), encoding="utf-8")
    return World.open(root)


def folded(text: str) -> str:
    return " ".join(text.split()).casefold()


def test_the_narrative_quotes_only_words_the_file_holds(world: World) -> None:
    why = explain(world, AGENT)
    said = why.narrative.split("]. ")[0]
    quotes = re.findall(r'"([^"]+)"', said)
    assert len(quotes) == 2, said
    source = folded((world.memory_dir / f"{AGENT}.md").read_text(encoding="utf-8"))
    for quote in quotes:
        assert folded(quote.rstrip("…")) in source, quote


def test_a_thread_is_counted_whole_not_as_far_as_it_is_listed(world: World) -> None:
    why = explain(world, AGENT)
    post, _ = why.posts
    assert post.id == 4857 and len(post.mentions) < 15
    assert (post.mentions_before, post.agents_before) == (15, 14)
    assert "a thread 14 other agents name before it" in why.narrative
    assert (
        "15 frames of 14 other agents name it before it; 1 frame of others the headings"
        in why_text(why).plain
    )
    data = why_dict(why)["posts"][0]
    assert (data["mentions_before"], data["agents_before"]) == (15, 14)


def test_a_relationship_not_restated_is_not_said_to_be_lost(world: World) -> None:
    why = explain(world, TIES)
    changes = {r.agent: (r.before, r.after, r.since, r.since_line) for r in why.relationships}
    assert changes == {
        "zion-coder-01": ("rival", "ally", "7", 3),
        "zion-coder-03": (None, "new reader", "7", 3),
        "zion-coder-02": ("mentor", None, "7", 3),
    }
    text = why_text(why).plain
    assert "since the previous frame" not in text
    assert "relationships against frame 7 (line 3)" in text
    assert "- zion-coder-02 (mentor): listed there, not restated here" in text
    data = why_dict(why)["relationships_changed"]
    assert {(r["agent"], r["since"], r["since_line"]) for r in data} == {
        (a, "7", 3) for a in changes
    }


def test_the_build_up_leaves_out_the_words_of_the_agents_own_name(world: World) -> None:
    """ "reviewer" is in zion-reviewer-01's id and archetype from the start: no frame built it
    up. "forensic" was first written in frame 5."""
    why = explain(world, REVIEWER)
    assert {(p.word, p.own, p.place.frame) for p in why.precursors} == {("forensic", True, "5")}


def test_a_credit_the_world_cannot_resolve_is_still_said(world: World) -> None:
    """The frame credits "Boundary Tester", a name no file or registry of the world holds: the
    dossier has no influencer, but it does not go on as if nothing were credited."""
    why = explain(world, PIPER)
    assert why.influencers == ()
    credit = '"Boundary Tester upgrading my invariant spec."'
    assert why.thin is not None and f"its frame credits {credit}" in why.thin
    assert f"It credits {credit} [zion-coder-20 · frame 506], naming no agent" in why.narrative


def test_a_thread_named_at_the_same_minute_is_not_named_nowhere(world: World) -> None:
    """#5051 is named by another agent only in a frame of the statement's own minute: not
    before it, and not nowhere either."""
    why = explain(world, AGENT)
    post = why.posts[1]
    assert (post.id, post.mentions_before, post.mentions_tied) == (5051, 0, 1)
    text = why_text(why).plain
    assert "named nowhere" not in text
    assert (
        "#5051  (no other agent names it before it; 1 frame of others the headings cannot place "
        "before or after it)" in text
    )


def test_the_run_up_holds_only_frames_after_the_role_before_began(world: World) -> None:
    """The role before is frame 8's; frame 7, written below it, comes before it by the
    headings: its reply is no part of "while it held the role before". The second frame 8 is."""
    why = explain(world, LATE)
    assert why.previous is not None and why.previous.line == 4
    assert [(link.source, link.line) for _, link in why.run_up] == [("zion-coder-03", 11)]


def test_a_position_is_not_called_a_role(world: World) -> None:
    """Early-era positions name no role: the dossier speaks of the position's words."""
    why = explain(world, AGENT)
    assert [p.word for p in why.precursors] == ["citizenship"]
    text = why_text(why).plain
    assert "build-up of the new position's words:" in text and "role" not in text


# Parallel writers: two copies of frame 4 each say they come from frame 3's role.
FORK = "zion-coder-22"
FORK_SOUL = (
    "# Fork\n\n"
    "## Frame 3 — 2026-03-20\n- Becoming: the pipeline mapper. From reader to pipeline mapper.\n\n"
    "## Frame 4 — 2026-03-21\n- Becoming: the type author. From pipeline mapper to type author.\n\n"
    "## Frame 4 — 2026-03-21\n"
    "- Becoming: the integration tester. From pipeline mapper to integration tester.\n"
)


def test_a_from_role_held_further_back_is_cited_where_it_was_held(world: World) -> None:
    why = explain(world, FORK)
    assert why.previous is not None and why.previous.role == "type author"
    said = 'it says it comes from "pipeline mapper": not the role just before it, but one it '
    said += "stated earlier, at line 4 [zion-coder-22 · frame 3]"
    assert said in why_text(why).plain
    assert "It" + said[2:] in why.narrative
    assert "which is not the previous role" not in why_text(why).plain
    assert why_dict(why)["came_from"]["line"] == 4
    assert (
        "in Frame 4 — 2026-03-21, line 7 (the same heading written twice: only the file's "
        "order puts this one first)" in why_text(why).plain
    )
