"""The why dossier reads evidence as a careful reader does: the agents a statement credits are
its influencers, with what they held and wrote just before; a thread's mentions closest before
the statement come first; the statement's own frame is shown and found by its place, not its
heading; pull requests are not threads."""

from __future__ import annotations

import json
import re
from pathlib import Path

from soulscope.history.export import why_dict
from soulscope.history.mentions import thread_ids
from soulscope.history.render import why_text
from soulscope.history.why import explain
from soulscope.soul.trajectory import arc
from soulscope.world import World
from tests.support.repos import commit, init

REGISTRY = {
    "zion-philosopher-05": {"name": "Sofia Thinker"},
    "zion-security-01": {"name": "Vault Keeper"},
    "zion-researcher-05": {"name": "Data Digger"},
    "zion-coder-05": {"name": "Grace O'Neil"},
}


def write(root: Path, souls: dict[str, str]) -> World:
    (root / "memory").mkdir(parents=True, exist_ok=True)
    for agent, text in souls.items():
        (root / "memory" / f"{agent}.md").write_text(text, encoding="utf-8")
    (root / "agents.json").write_text(json.dumps({"agents": REGISTRY}), encoding="utf-8")
    return World.open(root)


SECURITY = (
    "# Vault Keeper\n\n"
    "## Frame 10 — 2026-03-14 (09:00 UTC)\n"
    "- Becoming: the auditor who reads every diff.\n\n"
    "## Frame 11 — 2026-03-14 (10:05 UTC)\n"
    "- Commented on #4691: the ledger leaks keys; nobody checked.\n"
    "- Becoming: the auditor who reads every diff twice.\n\n"
    "## Frame 12 — 2026-03-14 (13:00 UTC)\n"
    "- Commented on #4691 again, after the shift: told you so.\n"
    "- Becoming: the auditor vindicated.\n"
)
PHILOSOPHER = (
    "# Sofia Thinker\n\n"
    "## Frame 6 — 2026-03-13 (08:00 UTC)\n"
    "- Becoming: the ledger optimist.\n\n"
    "## Frame 7 — 2026-03-14 (10:40 UTC)\n"
    "- Read #4691 closely.\n"
    "- Becoming: the ledger skeptic. Security-01 forced this; researcher-05's critique was "
    "correct.\n"
)
RESEARCHER = (
    "# Data Digger\n\n## Frame 3 — 2026-03-14 (07:00 UTC)\n- Becoming: the one who counts leaks.\n"
)


def test_an_agent_the_statement_credits_is_an_influencer_with_its_state(tmp_path: Path) -> None:
    """ "Security-01 forced this", "researcher-05's critique was correct": both credited, each
    with its statement just before and (security-01) its comment on the shared thread."""
    world = write(
        tmp_path,
        {
            "zion-philosopher-05": PHILOSOPHER,
            "zion-security-01": SECURITY,
            "zion-researcher-05": RESEARCHER,
        },
    )
    why = explain(world, "zion-philosopher-05", index=2)
    assert why.influencers == ("zion-security-01", "zion-researcher-05")
    states = {s.agent: s for s in why.influencer_states}
    security = states["zion-security-01"]
    assert security.number == 11  # frame 12 (13:00) is after the statement (10:40)
    assert security.becoming == "the auditor who reads every diff twice."
    assert [m.text for m in security.lines] == [
        "Commented on #4691: the ledger leaks keys; nobody checked."
    ]
    assert states["zion-researcher-05"].number == 3
    # every link of the frame says its kind and cites its line
    assert {(k.source, k.kind) for k in why.links} == {
        ("zion-security-01", "credit"),
        ("zion-researcher-05", "credit"),
    }
    assert all(k.line == 8 for k in why.links)
    d = why_dict(why)
    assert d["influencers"] == ["zion-security-01", "zion-researcher-05"]
    assert d["influencer_states"][0]["lines"][0]["line"] == 7
    assert {k["kind"] for k in d["links"]} == {"credit"}
    text = str(why_text(why))
    assert "Security-01 forced this" in text and "frame 11, line 7" in text
    # nothing cited comes after the statement
    assert "told you so" not in text and "told you so" not in why.narrative


def test_thread_mentions_closest_before_the_statement_come_first(tmp_path: Path) -> None:
    others = {
        f"zion-researcher-{k:02d}": f"# R{k}\n\n## Frame 1 — 2026-02-{k:02d} (12:00 UTC)\n"
        f"- Read #77 on day {k}.\n"
        for k in range(1, 21)
    }
    me = (
        "# Me\n\n## Frame 1 — 2026-02-25 (12:00 UTC)\n- Replied on #77 to researcher-20.\n"
        "- Becoming: the one who read #77 last.\n"
    )
    late = "# Late\n\n## Frame 1 — 2026-03-01 (12:00 UTC)\n- Read #77 after all of them.\n"
    world = write(tmp_path, {**others, "zion-coder-05": me, "zion-debater-01": late})
    why = explain(world, "zion-coder-05", index=1)
    (post,) = why.posts
    days = [m.date for m in post.mentions]
    assert days[0] == "2026-02-20" and days == sorted(days, reverse=True)
    assert len(days) == 12 and "2026-02-01" not in days
    assert "2026-03-01" not in days
    assert {k.kind for k in why.links} == {"reply"}


def test_pull_requests_and_their_lists_are_not_threads() -> None:
    text = "Code review of PRs #110 and #111, PR #13 needs this; replied on #4744 and #4745"
    assert thread_ids(text) == [4744, 4745]
    assert thread_ids("pull request #4, #5 and merge request #9 / see #6") == [6]


def test_a_repeated_heading_is_found_by_its_place(tmp_path: Path, later_world: Path) -> None:
    """A real later-era file repeats "## Frame 216 — 2026-03-22": the statement of the second
    is shown with its own frame and its own commit's diff, not the first's."""
    source = (later_world / "memory" / "zion-coder-06.md").read_text("utf-8")
    heading = "## Frame 216 — 2026-03-22"
    starts = [m.start() for m in re.finditer(re.escape(heading), source)]
    assert len(starts) >= 2
    repo = init(tmp_path / "sim")
    memory = repo / "state" / "memory"
    memory.mkdir(parents=True)
    target = memory / "zion-coder-06.md"
    target.write_text(source[: starts[1]], encoding="utf-8")
    commit(repo, "up to the first frame 216")
    target.write_text(source, encoding="utf-8")  # many frames at once: the diff is cut
    commit(repo, "the second frame 216 and the rest")
    world = World.open(repo / "state")
    soul = world.read("zion-coder-06")
    statements = [s for s in arc(soul) if s.frame_index is not None]
    frames = [s for s in statements if "## " + soul.frames[s.frame_index].heading == heading]
    assert len(frames) >= 2
    st = frames[1]
    why = explain(world, "zion-coder-06", index=st.index + 1)
    assert why.frame is not None and why.frame.index == st.frame_index
    assert why.commit is not None and why.commit.message.startswith("the second frame 216")
    assert why.diff and st.text.split(".")[0] in why.diff
    assert why.together
    for other in (frames[0], *frames[2:]):
        assert other.text.split(".")[0] not in why.diff
    shown = [line["text"] for line in why_dict(why)["frame_lines"]]
    assert shown[0] == heading and any(st.text.split(".")[0] in line for line in shown)


SAME_FRAME = (
    "# Sofia Thinker\n\n"
    "## Frame 5 — 2026-03-12 (08:00 UTC)\n"
    "- Becoming: the ledger optimist.\n\n"
    "## Frame 6 — 2026-03-15 (09:00 UTC)\n"
    "- Becoming: the ledger doubter.\n"
    "- Read #12 twice.\n"
    "- Becoming: the ledger skeptic.\n\n"
    "## Frame 7 — 2026-03-15 (18:00 UTC)\n"
    "- Becoming: the ledger auditor.\n"
)


def test_the_previous_statement_of_the_same_frame_is_the_one_above(tmp_path: Path) -> None:
    """Two statements in one frame: the previous of the second is the first, by the file's
    order, not the latest of an earlier frame."""
    world = write(tmp_path, {"zion-philosopher-05": SAME_FRAME})
    why = explain(world, "zion-philosopher-05", index=3)
    assert why.statement.line == 9
    assert why.previous is not None and why.previous.line == 7


def test_a_date_of_several_statements_is_said_with_how_to_pick(tmp_path: Path) -> None:
    """``--frame 2026-03-15`` names three statements: the latest is taken, and the note and the
    text say how many there were and how to pick another."""
    world = write(tmp_path, {"zion-philosopher-05": SAME_FRAME})
    why = explain(world, "zion-philosopher-05", frame="2026-03-15")
    assert why.statement.line == 12
    assert why.note is not None and "names 3 statements" in why.note and "--shift" in why.note
    assert "names 3 statements" in why_text(why)
    one = explain(world, "zion-philosopher-05", frame="5")
    assert "statements" not in (one.note or "")


def test_a_statement_outside_frames_keeps_the_credits_next_to_it(tmp_path: Path) -> None:
    """After an archive marker, a statement in a ``## Recent Experience`` section: its unit
    (the bullets around it, up to a blank line) is its evidence, each typed; a bare list in
    the statement is no credit, and lines of another unit are not read."""
    soul = (
        "# Sofia Thinker\n\n## Frame 6 — 2026-03-13 (08:00 UTC)\n"
        "- Becoming: the ledger optimist.\n\n"
        "## Recent Experience\n\n"
        "- Relationships: zion-coder-05 (an old rival).\n\n"
        "<!-- 40 earlier entries archived -->\n"
        "- Influenced by: Researcher-05's census exposing my redundancy.\n"
        "- Becoming: the coordinator, proposing the squad (self, security-01).\n"
        "- Relationships: researcher-05 (their census corrected me), security-01 (reviewer).\n"
    )
    world = write(tmp_path, {"zion-philosopher-05": soul, "zion-researcher-05": RESEARCHER})
    why = explain(world, "zion-philosopher-05")
    assert why.statement.line == 12 and why.statement.frame_index is None
    got = {(link.source, link.kind, link.line) for link in why.links}
    assert got == {
        ("zion-researcher-05", "credit", 11),
        ("zion-security-01", "mention", 12),
        ("zion-researcher-05", "relationship", 13),
        ("zion-security-01", "relationship", 13),
    }
    assert why.influencers == ("zion-researcher-05",)


def test_plain_words_and_later_stamped_lines_are_no_evidence(tmp_path: Path) -> None:
    """A role of plain words ("made", "condition") has no precursor from them; a thread named
    by a line stamped after the statement, inside its frame, is not one it saw."""
    soul = (
        "# Sofia Thinker\n\n## Frame 6 — 2026-03-13 (08:00 UTC)\n"
        "- Becoming: the ledger optimist.\n\n"
        "## Frame 7 — 2026-03-14 (10:40 UTC)\n"
        "- Read #4691 closely.\n"
        "- **2026-03-30T21:22:56Z** — Upvoted #12712.\n"
        "- Becoming: the condition made Cartographer.\n"
    )
    other = (
        "# Data Digger\n\n## Frame 3 — 2026-03-14 (07:00 UTC)\n"
        "- Made a condition list; the cartographer of leaks.\n"
    )
    world = write(tmp_path, {"zion-philosopher-05": soul, "zion-researcher-05": other})
    why = explain(world, "zion-philosopher-05")
    assert why.threads == (4691,)
    assert [p.word for p in why.precursors] == ["cartographer"]


def test_a_statement_outside_frames_is_cited_by_its_place_and_its_lines_shown(
    tmp_path: Path,
) -> None:
    """A world imported in one commit: a statement in ``## Recent Experience`` is cited by its
    section and line, never as a frame, and the commit's diff is cut to the lines around it
    (the commit wrote the whole file)."""
    from tests.support.repos import commit, init

    filler = "".join(f"- Read #{n} and moved on.\n" for n in range(40))
    soul = (
        "# Sofia Thinker\n\n## Recent Experience\n\n" + filler + "\n"
        "- Influenced by: researcher-05's census.\n"
        "- Becoming: the coordinator who counts.\n\n"
        "## Frame 6 — 2026-03-13 (08:00 UTC)\n" + filler
    )
    root = tmp_path / "w"
    write(root, {"zion-philosopher-05": soul, "zion-researcher-05": RESEARCHER})
    init(root)
    commit(root, "import")
    why = explain(World.open(root), "zion-philosopher-05")
    line = soul.splitlines().index("- Becoming: the coordinator who counts.") + 1
    assert why.citation == f"[zion-philosopher-05 · Recent Experience, line {line}]"
    assert "frame Recent" not in why_text(why).plain
    assert "- Becoming: the coordinator who counts." in why.diff
    assert "Read #30 and" not in why.diff and "Read #5 and" not in why.diff
    assert why.bulk_note is not None and "around the statement" in why.bulk_note


def test_a_thread_the_agent_itself_named_before_is_not_named_nowhere(tmp_path: Path) -> None:
    """The statement's frame returns to #812, which only its own earlier frame named: the
    dossier says so, cites that frame, and never says the thread is named nowhere else."""
    me = (
        "# Me\n\n## Frame 4 — 2026-03-02 (12:00 UTC)\n"
        '- Commented on #812 "decay.py": flagged ln(0).\n- Becoming: the edge-case hunter.\n\n'
        "## Frame 9 — 2026-03-05 (12:00 UTC)\n- Connected: #812, #990\n"
        "- Becoming: the reviewer of reviewers.\n\n"
        "## Frame 10 — 2026-03-06 (12:00 UTC)\n- Commented on #990 once more.\n"
    )
    world = write(tmp_path, {"zion-coder-05": me})
    why = explain(world, "zion-coder-05", index=2)
    own = {p.id: p.own for p in why.posts}
    assert own[812] is not None and own[812].frame == "4" and "ln(0)" in own[812].text
    assert own[990] is None  # named again only after the statement
    text = why_text(why).plain
    assert "#812  (no other agent names it before it)" in text
    assert "its own memory first · frame 4" in text
    assert "#990  (named nowhere before it in this world)" in text
    assert "named nowhere else" not in text
    posts = {p["id"]: p for p in why_dict(why)["posts"]}
    assert posts[812]["own_first"]["frame"] == 4 and posts[990]["own_first"] is None
