"""The why dossier cites each piece of evidence where it is written: an influencer's statement
by the frame that holds it, a date's every frame, the statement before one outside frames, the
threads and agents of a statement's unit, and the diff's lines by the file's numbers."""

from __future__ import annotations

import json
from pathlib import Path

from soulscope.history.export import why_dict
from soulscope.history.render import why_text
from soulscope.history.why import explain
from soulscope.world import World

REGISTRY = {
    "zion-philosopher-05": {"name": "Sofia Thinker"},
    "zion-researcher-05": {"name": "Data Digger"},
    "zion-coder-05": {"name": "Grace O'Neil"},
}


def write(root: Path, souls: dict[str, str], registry: bool = True) -> World:
    (root / "memory").mkdir(parents=True, exist_ok=True)
    for agent, text in souls.items():
        (root / "memory" / f"{agent}.md").write_text(text, encoding="utf-8")
    if registry:
        (root / "agents.json").write_text(json.dumps({"agents": REGISTRY}), encoding="utf-8")
    return World.open(root)


def test_an_influencers_state_is_cited_to_the_frame_that_holds_it(tmp_path: Path) -> None:
    """The influencer's latest frame before the statement states nothing: what it held then is
    its statement of an earlier frame, cited to that frame and line, said as of the later one."""
    researcher = (
        "# Data Digger\n\n"
        "## Frame 3 — 2026-03-14 (07:00 UTC)\n"
        "- Counted the leaks.\n"
        "- BECOMING: the one who counts leaks, twice.\n\n"
        "## Frame 4 — 2026-03-14 (09:30 UTC)\n"
        "- Counted them again; nothing new.\n"
    )
    me = (
        "# Sofia Thinker\n\n"
        "## Frame 7 — 2026-03-14 (10:40 UTC)\n"
        "- influenced by: Researcher-05's recount.\n"
        "- Becoming: the ledger skeptic.\n"
    )
    world = write(tmp_path, {"zion-philosopher-05": me, "zion-researcher-05": researcher})
    why = explain(world, "zion-philosopher-05")
    (state,) = why.influencer_states
    assert state.becoming == "the one who counts leaks, twice."
    assert (state.number, state.line, state.time) == (3, 5, "07:00")
    assert state.citation == "[zion-researcher-05 · frame 3]"
    assert state.as_of == "4"
    text = why_text(why).plain
    assert "frame 3] (line 5, its latest statement as of frame 4)" in text
    assert "frame 4]" not in why.narrative
    d = why_dict(why)["influencer_states"][0]
    assert (d["frame"], d["line"], d["as_of"]) == (3, 5, "4")


def test_a_bulk_commit_is_counted_in_this_souls_frames_and_its_diff_numbered_by_the_file(
    tmp_path: Path,
) -> None:
    """A commit that rewrote one frame, added another to this file and a whole other file: the
    note says the frame was written by the first commit and its statement by this one (not that
    the frames arrived together), and the frame's hunk carries the file's line numbers on both
    sides, not the block's own 1, 2, 3."""
    from tests.support.repos import commit, init

    head = "# Sofia Thinker\n\nSome preamble.\n\n"
    one = "## Frame 1 — 2026-03-10 (08:00 UTC)\n- Read #3.\n- Becoming: the reader.\n\n"
    two_old = "## Frame 2 — 2026-03-11 (08:00 UTC)\n- Read #4.\n\n"
    two_new = "## Frame 2 — 2026-03-11 (08:00 UTC)\n- Read #4.\n- becoming: the re-reader.\n\n"
    three = "## Frame 3 — 2026-03-12 (08:00 UTC)\n- Read #5.\n"
    other = "".join(
        f"## Frame {n} — 2026-03-1{n} (09:00 UTC)\n- Wrote #{n}.\n\n" for n in (1, 2, 3)
    )
    root = tmp_path / "w"
    write(root, {"zion-philosopher-05": head + one + two_old})
    init(root)
    first = commit(root, "first")
    write(root, {"zion-philosopher-05": head + one + two_new + three, "zion-coder-05": other})
    commit(root, "rewrite")
    why = explain(World.open(root), "zion-philosopher-05", frame="2")
    assert why.statement.line == 11
    assert why.frame_commit is not None and why.frame_commit.sha == first and not why.together
    assert why.bulk_note is not None and f"commit {first[:7]} first wrote" in why.bulk_note
    assert why.diff is not None
    hunks = [ln for ln in why.diff.splitlines() if ln.startswith("@@")]
    assert hunks == ["@@ -9,2 +9,3 @@"]  # the frame's lines 9-10 before, 9-11 after
    assert "+- becoming: the re-reader." in why.diff and "Read #5" not in why.diff


def test_a_term_used_once_in_an_imported_file_arrived_with_the_others(tmp_path: Path) -> None:
    """A world imported in one commit: the term is in one frame only, but the commit brought the
    file's every frame, so it does not date the use; ``first`` says so in text and JSON."""
    from soulscope.cli.history import mention_text
    from soulscope.history.export import mention_dict
    from soulscope.history.timeline import timeline_for
    from tests.support.repos import commit, init

    soul = (
        "# Grace O'Neil\n\n"
        "## Frame 1 — 2026-03-10 (08:00 UTC)\n- Read #3.\n\n"
        "## Frame 2 — 2026-03-11 (08:00 UTC)\n- Mended Chesterton's-fence code.\n\n"
        "## Frame 3 — 2026-03-12 (08:00 UTC)\n- Read #5.\n"
    )
    root = tmp_path / "w"
    write(root, {"zion-coder-05": soul})
    init(root)
    commit(root, "import")
    world = World.open(root)
    found = timeline_for(world).first_mention("Chesterton")
    assert found is not None and found.line == 7
    assert found.together and mention_dict(found)["arrived_together"] is True
    assert "several frames at once" in mention_text(found)


def test_a_date_takes_its_numbered_frames_too(tmp_path: Path) -> None:
    """``--frame 2026-03-15``: a frame headed by the date alone and a numbered frame of that
    date both hold statements; the date names both, and the later one is taken."""
    soul = (
        "# Sofia Thinker\n\n"
        "## Frame 2026-03-15 (09:00 UTC)\n- becoming: the ledger doubter.\n\n"
        "## Frame 12 — 2026-03-15\n- Read #12.\n- Becoming: the ledger skeptic.\n\n"
        "## Frame 13 — 2026-03-16\n- Becoming: the ledger auditor.\n"
    )
    world = write(tmp_path, {"zion-philosopher-05": soul})
    why = explain(world, "zion-philosopher-05", frame="2026-03-15")
    assert why.statement.line == 8 and why.statement.number == 12
    assert why.note is not None and "names 2 statements" in why.note
    assert "lines 4 to 8" in why.note


def test_the_statement_before_the_first_framed_one_is_the_one_above_it(tmp_path: Path) -> None:
    """No framed statement comes before the frame's: the statement outside frames above it
    in the file (after an archive marker) is the one before."""
    soul = (
        "# Sofia Thinker\n\n## Recent Experience\n\n"
        "<!-- 12 earlier entries archived -->\n\n"
        "- Becoming: the coordinator who counts.\n"
        "- Connected: #41, #42; see PR #7.\n\n"
        "## Frame 9 — 2026-03-22\n- Read #43.\n- Becoming: the counter who coordinates.\n"
    )
    world = write(tmp_path, {"zion-philosopher-05": soul})
    why = explain(world, "zion-philosopher-05", index=2)
    assert why.previous is not None and why.previous.line == 7
    assert why_dict(why)["previous"]["line"] == 7
    first = explain(world, "zion-philosopher-05", index=1)
    assert first.previous is None
    # the statement outside frames reads its threads from its unit, as its links are
    assert first.threads == (41, 42)
    assert [p.id for p in first.posts] == [41, 42]


def test_a_relationship_to_a_name_no_agent_has_is_not_an_agent(tmp_path: Path) -> None:
    """A registry world: "Governance-01" of a Relationships bullet is not in the registry, so
    it is not among the agents the frame names; researcher-05 is."""
    soul = (
        "# Sofia Thinker\n\n## Frame 9 — 2026-03-22\n- Read #43.\n"
        "- Becoming: the reviewer of rules.\n"
        "- Relationships: Governance-01 (his rules), Researcher-05 (her census).\n"
    )
    world = write(tmp_path, {"zion-philosopher-05": soul, "zion-researcher-05": "# R\n"})
    why = explain(world, "zion-philosopher-05")
    assert why.agents == ("zion-researcher-05",)
    assert {link.source for link in why.links} == {"zion-researcher-05"}


def test_thin_evidence_says_what_was_looked_at_and_its_own_earlier_frames(
    tmp_path: Path,
) -> None:
    """Only the agent's own earlier frame names its thread: the thin sentence says nothing in
    *other* agents' memory does, and cites its own earlier line."""
    soul = (
        "# Sofia Thinker\n\n"
        "## Frame 1 — 2026-03-01 (08:00 UTC)\n- Opened #77 (a census).\n\n"
        "## Frame 2 — 2026-03-02 (08:00 UTC)\n- Replied on #77.\n- Becoming: the lone ledger.\n"
    )
    world = write(tmp_path, {"zion-philosopher-05": soul, "zion-coder-05": "# G\n"})
    why = explain(world, "zion-philosopher-05", index=1)
    assert why.thin is not None
    assert "other agents' memory" in why.thin
    assert "#77 (line 4)" in why.thin


def test_an_undated_use_has_no_date_or_time_in_json(tmp_path: Path) -> None:
    """A use in a section above the first frame is undated: ``spread --json`` and ``first
    --json`` give it null date and time (``when`` and the span say what bounds it), and the
    spread's timeline counts it as undated, not on the next frame's day."""
    from soulscope.history.export import mention_dict
    from soulscope.history.first import first_in_files
    from soulscope.history.spread import spread, spread_dict
    from soulscope.soul.terms import Term

    soul = (
        "# Sofia Thinker\n\n## Working Notes\n\n- Ready-to-hand: ZUHANDENHEIT, again.\n\n"
        "## Frame 3 — 2026-03-14 (20:38 UTC)\n- Read #43.\n"
    )
    world = write(tmp_path, {"zion-philosopher-05": soul})
    s = spread(world, Term("Zuhandenheit"))
    (agent,) = spread_dict(s)["agents"]
    assert (agent["date"], agent["time"], agent["line"]) == (None, None, 5)
    assert "20:38" in agent["when"] and "undated" in agent["when"]
    assert spread_dict(s)["undated"] == 1 and spread_dict(s)["timeline"] == []
    path = tmp_path / "memory" / "zion-philosopher-05.md"
    found = first_in_files([("zion-philosopher-05", path)], Term("Zuhandenheit"), tmp_path)
    assert found is not None
    d = mention_dict(found)
    assert (d["date"], d["time"], d["line"]) == (None, None, 5)
    assert d["span"][1] == "2026-03-14 20:38"


def test_an_influencers_line_on_two_threads_is_shown_once(tmp_path: Path) -> None:
    """The influencer wrote one line naming both threads of the statement's frame: its lines
    on those threads list it once."""
    researcher = (
        "# Data Digger\n\n## Frame 2 — 2026-03-02 (09:00 UTC)\n"
        "- Connected #41 (ledger), #42 (census).\n- Becoming: the counter.\n"
    )
    soul = (
        "# Sofia Thinker\n\n## Frame 3 — 2026-03-03 (10:00 UTC)\n"
        "- Commented on #41 and #42.\n- Influenced by: researcher-05's census.\n"
        "- Becoming: the ledger keeper.\n"
    )
    world = write(tmp_path, {"zion-philosopher-05": soul, "zion-researcher-05": researcher})
    (state,) = explain(world, "zion-philosopher-05").influencer_states
    assert [p.line for p in state.lines] == [4]
