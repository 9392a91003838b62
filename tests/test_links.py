"""The links between agents (``history.links``): every line that names another agent, read
once into a kind, as ``graph``, ``spread`` and ``why`` show it; on real files of both eras and
on hand-made files in forms the real ones do not hold."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from soulscope.history.graph import influence
from soulscope.history.names import AgentNames
from soulscope.history.spread import spread, spread_dict
from soulscope.soul.terms import Term
from soulscope.world import World

VOTE_LINE = re.compile(r"^\W*(\*\*[^*]+\*\*\W*)?(up|down)?-?vot(ed|es?|ing)\b", re.I)
# A vote anywhere on a line: its word, or a reaction emoji.
VOTE_IN_LINE = re.compile(
    r"\b(up|down)?-?vot(ed|es|ing)\b|[\U0001F300-\U0001FAFF\u2600-\u27BF\u2B50]", re.I
)


def later_with_registry(tmp_path: Path, later_world: Path, early_world: Path) -> World:
    """The later-era files with the registry of the same world, in a temporary world."""
    shutil.copytree(later_world / "memory", tmp_path / "memory")
    shutil.copy(early_world / "agents.json", tmp_path / "agents.json")
    return World.open(tmp_path)


def short_forms(world: World) -> dict[str, str]:
    """Every id of the world's registry and files, lowered, with and without its prefix."""
    ids = set(world.registry()) | {a.id for a in world.agents()}
    out = {i.lower(): i for i in ids if "-" in i}
    out.update({i[5:].lower(): i for i in ids if i.startswith("zion-")})
    return out


def test_every_later_era_reply_line_is_a_reply_arc(
    tmp_path: Path, later_world: Path, early_world: Path
) -> None:
    """ "Replied on #6686 to debater-06: ..." (the later era's usual form) and "Replied to X on
    #N" are reply arcs, as the files say them."""
    world = later_with_registry(tmp_path, later_world, early_world)
    forms = short_forms(world)
    g = influence(world, measures=False)
    form = re.compile(r"Replied (?:on #\d+ )?to ([\w-]+)", re.I)
    checked = 0
    for path in sorted((tmp_path / "memory").glob("*.md")):
        for line in path.read_text("utf-8").split("\n"):
            for m in form.finditer(line):
                who = forms.get(m.group(1).lower())
                if who is None or who == path.stem:
                    continue
                arc = g.arcs.get((who, path.stem))
                assert arc is not None and arc.kinds["reply"] > 0, line
                checked += 1
    assert checked >= 25


def test_history_bullets_of_the_early_era_are_reply_arcs(early_world: Path) -> None:
    """ "- **2026-02-19T18:38:32Z** — Replied to zion-curator-02 on #3436" sits in the header,
    before any frame: a reply arc all the same, dated by its own stamp."""
    world = World.open(early_world)
    g = influence(world, measures=False)
    bullet = re.compile(r"^- \*\*(\d{4}-\d{2}-\d{2})T[\d:]+Z\*\* — Replied to (zion-[\w-]+) on #")
    checked = 0
    for path in sorted((early_world / "memory").glob("*.md")):
        for line in path.read_text("utf-8", "replace").split("\n"):
            m = bullet.match(line)
            if m is None or m.group(2) == path.stem or m.group(2) not in world.registry():
                continue
            arc = g.arcs.get((m.group(2), path.stem))
            assert arc is not None and arc.kinds["reply"] > 0, line
            assert arc.first is not None and arc.first <= m.group(1)
            checked += 1
    assert checked >= 50
    # a window reads the bullets its dates hold
    day = influence(world, since="2026-02-19", until="2026-02-19", measures=False)
    assert day.arcs[("zion-curator-02", "zion-coder-03")].kinds["reply"] >= 1


def test_no_spread_link_rests_on_a_vote(early_world: Path) -> None:
    """A vote line says the agent saw a post: never a ``from``; votes carry kind "vote" and are
    shown apart."""
    world = World.open(early_world)
    for term in ("Ship of Theseus", "dormancy"):
        s = spread(world, Term(term))
        assert s.edges and s.votes
        for e in s.edges:
            line = (early_world / "memory" / f"{e.target}.md").read_text("utf-8", "replace")
            assert not VOTE_LINE.match(line.split("\n")[e.line - 1]), (term, e)
            assert e.kind != "vote"
        for v in s.votes:
            line = (early_world / "memory" / f"{v.target}.md").read_text("utf-8", "replace")
            assert VOTE_IN_LINE.search(line.split("\n")[v.line - 1]), (term, v)
            assert v.kind == "vote" and v.source not in s.adopter(v.target).sources
        answer = spread_dict(s)
        assert {v["kind"] for v in answer["votes"]} == {"vote"}
        assert all(a["voted"] is not None for a in answer["agents"])
        # started_by: those with no transmission link, a vote not counted
        started = set(answer["started_by"])
        assert all(not s.adopter(a).links for a in started)


def write_world(tmp_path: Path, registry: dict[str, dict] | None, souls: dict[str, str]) -> World:
    memory = tmp_path / "memory"
    memory.mkdir(parents=True)
    for agent, text in souls.items():
        (memory / f"{agent}.md").write_text(text, encoding="utf-8")
    if registry is not None:
        (tmp_path / "agents.json").write_text(json.dumps({"agents": registry}), encoding="utf-8")
    return World.open(tmp_path)


REGISTRY = {
    "zion-coder-05": {"name": "Grace O'Neil"},
    "zion-coder-07": {"name": "Lin Park"},
    "zion-debater-06": {"name": "Ode Maker"},
    "zion-security-01": {"name": "Vault Keeper"},
    "zion-researcher-05": {"name": "Data Digger"},
    "zion-writer-01": {"name": "Wren Scribe"},
}


def kinds_of(world: World, target: str) -> dict[str, dict[str, int]]:
    g = influence(world, measures=False)
    return {s: dict(a.kinds) for (s, t), a in g.arcs.items() if t == target}


def test_replies_in_forms_the_corpus_does_not_hold(tmp_path: Path) -> None:
    """Other verbs, mixed case, names with punctuation after them, a reply to the agent."""
    frames = [
        "ANSWERED Coder-05 on #12: no.",
        "Rebutted debater-06's claim about ledgers.",
        "Wrote back to @zion-coder-07.",
        "In reply to Security-01, I asked for data.",
        "researcher-05 replied to my post on #40.",
    ]
    body = "".join(f"## Frame {i} — 2026-01-0{i}\n- {t}\n\n" for i, t in enumerate(frames, 1))
    world = write_world(tmp_path, REGISTRY, {"zion-writer-01": "# Wren\n\n" + body})
    got = kinds_of(world, "zion-writer-01")
    for agent in (
        "zion-coder-05",
        "zion-debater-06",
        "zion-coder-07",
        "zion-security-01",
        "zion-researcher-05",
    ):
        assert got[agent] == {"reply": 1}, agent


def test_credits_votes_and_mentions_are_told_apart(tmp_path: Path) -> None:
    soul = (
        "# Wren\n\n## Frame 1 — 2026-01-01\n"
        "- Security-01 forced this: the audit came first.\n"
        "- Borrowed coder-07's method for the census.\n"
        "- researcher-05's critique was correct.\n"
        "- Voted: 🚀 debater-06/#5578, 👍 Coder-05\n"
        "- Upvoted zion-coder-05's post.\n"
        "- Read ZION-DEBATER-06 on the ledger.\n"
        "- Surprised by: Grace O'Neil's silence.\n"
    )
    world = write_world(tmp_path, REGISTRY, {"zion-writer-01": soul})
    got = kinds_of(world, "zion-writer-01")
    assert got["zion-security-01"] == {"credit": 1}
    assert got["zion-coder-07"] == {"credit": 1}
    assert got["zion-researcher-05"] == {"credit": 1}
    assert got["zion-debater-06"] == {"vote": 1, "mention": 1}
    assert got["zion-coder-05"] == {"vote": 1, "credit": 1}


def test_only_agents_of_the_world_are_named(tmp_path: Path) -> None:
    """ "carbon-14", "lurker-47", "phil-01" are words of a story unless the world holds them; a
    world without a registry still knows its own archetypes."""
    soul = (
        "# Wren\n\n## Frame 1 — 2026-01-01\n"
        "- Replied to lurker-47 about carbon-14 dating; phil-01 agreed.\n"
        "- Replied to coder-05 and coder-07.\n"
    )
    world = write_world(tmp_path / "a", REGISTRY, {"zion-writer-01": soul})
    assert set(kinds_of(world, "zion-writer-01")) == {"zion-coder-05", "zion-coder-07"}
    bare = write_world(tmp_path / "b", None, {"zion-writer-01": soul, "zion-coder-01": "# C\n"})
    names = AgentNames.of(bare)
    assert names.resolve("Coder-05") == "zion-coder-05"
    assert names.resolve("lurker-47") == "lurker-47"  # not an agent: the name as written
    assert set(kinds_of(bare, "zion-writer-01")) == {"zion-coder-05", "zion-coder-07"}


@pytest.mark.parametrize(
    ("line", "kind"),
    [
        ("- Relationships: Coder-05 (rival)", "relationship"),
        ("- Commented on coder-05's proposal #12.", "comment"),
        ("- **2026-02-01T10:00:00Z** — Upvoted coder-05/#33", "vote"),
        ("- Thanks to Grace O'Neil, the parser holds.", "credit"),
        ("- Learned from coder-05 that tests come first.", "credit"),
        ("- Pushed back on Coder-05's schema.", "reply"),
        ("- Responding to coder-05: the schema is fine.", "reply"),
        ("- Saw coder-05 at the meetup.", "mention"),
        ("- Coder-05 replied with a challenge of its own.", "reply"),
        ("- Replied with fresh data to coder-05.", "reply"),
        ("- Replied with coder-05's numbers in hand.", "mention"),
        ("- Influenced by: the audit. The bug is bigger than coder-05 framed it.", "mention"),
        ("- Influenced by: the census, unlike Coder-05's guess.", "mention"),
        ("- Influenced by: coder-05 declaring the same module.", "credit"),
        ("- Evolving position: coder-05's observer problem is legitimate.", "credit"),
        ("- Becoming: the mapper (Coder-05's framework, my data).", "credit"),
        ("- Becoming: reject composition. That is coder-05's move, not mine.", "mention"),
        ("- Coder-05's Q4 was the kill shot.", "credit"),
        ("- coder-05's addition is worth integrating.", "credit"),
        ("- Borrowed from coder-05's Daoist tradition.", "credit"),
        ("- Drew on coder-05's census for the ledger.", "credit"),
        ("- coder-05's post was long.", "mention"),
        ("- Key synthesis: activity voting + coder-05 sortition = merit.", "mention"),
        ("- Spent the hour voting on coder-05's posts.", "vote"),
        ("- Voted: 👍 coder-05/#1, 🚀 coder-05/#2 (one line, one link)", "vote"),
        ("- Not inspired by coder-05 at all.", "mention"),
        ("- Never learned from coder-05.", "mention"),
        ("- Did not borrow coder-05's method.", "mention"),
        ("- No thanks to coder-05, the build broke.", "mention"),
        ("- Influenced by: nobody this frame; coder-05's critique did not move me.", "mention"),
        ("- Influenced by: not only coder-05 but the whole thread.", "credit"),
        ("- Influenced by: no one but coder-05 this frame.", "credit"),
        ("- Influenced by: the point no one reads, and coder-05's census.", "credit"),
        ("- Conceded to coder-05 taxonomy (the 3-tier model was better).", "credit"),
        ("- Per coder-05's suggestion, I cut the list.", "credit"),
        ("- The fix came because Coder-05 pushed me.", "credit"),
        ("- coder-05 replied on #212: the ledger is wrong.", "reply"),
        ("- Coder-05 challenged me on #304.", "reply"),
        ("- Rebutted by coder-05 on #303.", "reply"),
        ("- Relationship: zion-x-01 — an ally (they challenged coder-05's claim).", "mention"),
        ("- Influenced by: the audit, and coder-05's framing of it.", "credit"),
    ],
)
def test_a_line_reads_as_a_reader_reads_it(tmp_path: Path, line: str, kind: str) -> None:
    soul = f"# Wren\n\n## Frame 1 — 2026-01-01\n{line}\n"
    world = write_world(tmp_path, REGISTRY, {"zion-writer-01": soul})
    assert kinds_of(world, "zion-writer-01") == {"zion-coder-05": {kind: 1}}


def test_spread_reads_history_bullets_by_their_own_time(tmp_path: Path) -> None:
    """A History bullet above the frames is a link when its own stamp comes before the first
    use; one stamped after it is not, though it sits above in the file."""
    registry = {"zion-coder-05": {"name": "Grace O'Neil"}, "zion-writer-01": {"name": "Wren"}}
    ada = "# Grace\n\n## Frame 1 — 2026-02-10 (09:00 UTC)\n- Coined the quiet ledger.\n"
    wren = (
        "# Wren\n\n## History\n"
        "- **2026-02-11T10:00:00Z** — Replied to zion-coder-05 on #3 Ledgers.\n\n"
        "## Frame 1 — 2026-02-12 (09:00 UTC)\n- Adopted the quiet ledger.\n"
    )
    world = write_world(tmp_path / "a", registry, {"zion-coder-05": ada, "zion-writer-01": wren})
    s = spread(world, Term("quiet ledger"))
    (link,) = s.adopter("zion-writer-01").links
    assert (link.source, link.kind, link.label, link.line) == ("zion-coder-05", "reply", None, 4)
    late = wren.replace("2026-02-11T10:00:00Z", "2026-02-13T10:00:00Z")
    world = write_world(tmp_path / "b", registry, {"zion-coder-05": ada, "zion-writer-01": late})
    assert not spread(world, Term("quiet ledger")).adopter("zion-writer-01").links


def test_an_id_with_dots_in_any_case(tmp_path: Path) -> None:
    registry = {**REGISTRY, "dr.who-1": {"name": "the doctor"}}
    soul = "# Wren\n\n## Frame 1 — 2026-01-01\n- Replied to Dr.Who-1, then read coder-05.\n"
    world = write_world(tmp_path, registry, {"zion-writer-01": soul})
    got = kinds_of(world, "zion-writer-01")
    assert got == {"dr.who-1": {"reply": 1}, "zion-coder-05": {"mention": 1}}


def test_every_arc_cites_the_line_that_says_it(early_world: Path) -> None:
    """``graph``: each arc names its strongest kind and cites the line of the target's file
    that says it, and that line says so (a vote line for a vote, a reply's verb for a reply)."""
    world = World.open(early_world)
    g = influence(world, measures=False)
    registry = world.registry()
    files: dict[str, list[str]] = {}
    replying = re.compile(
        r"repl|respon|answer|rebut|counter|challeng|push|back|disagree|argu", re.I
    )
    for (src, dst), arc in sorted(g.arcs.items())[::7]:
        lines = files.setdefault(
            dst, (early_world / "memory" / f"{dst}.md").read_text("utf-8", "replace").split("\n")
        )
        assert arc.kind is not None and arc.line is not None
        line = lines[arc.line - 1].lower()
        name = str(registry.get(src, {}).get("name", "")).lower()
        assert src.removeprefix("zion-") in line or (name and name.split()[0] in line), arc
        if arc.kind == "vote":
            assert VOTE_IN_LINE.search(line), arc
        if arc.kind == "reply":
            assert replying.search(line), arc
        assert arc.kinds[arc.kind] >= 1


def test_a_plain_word_id_is_a_name_only_where_it_stands_as_one(tmp_path: Path) -> None:
    """An agent whose id is a plain word ("system") is named in a Relationships bullet as an
    item of its list, not in "type system thinking"."""
    registry = {**REGISTRY, "system": {"name": "the host"}}
    soul = (
        "# Wren\n\n## Frame 1 — 2026-01-01\n"
        "- Relationships: Coder-05 (aligned on type system thinking)\n\n"
        "## Frame 2 — 2026-01-02\n- Relationships: system (the host), coder-05 (ally)\n"
    )
    world = write_world(tmp_path, registry, {"zion-writer-01": soul, "system": "# Host\n"})
    got = kinds_of(world, "zion-writer-01")
    assert got == {"zion-coder-05": {"relationship": 2}, "system": {"relationship": 1}}


@pytest.mark.parametrize(
    ("line", "kind"),
    [
        ("- Pass 2 votes: 🚀 coder-05/#4199, 👍 debater-06/#4200", "vote"),
        ("Pass 1: LURK PASS — 12 votes … 🚀 coder-05 #18", "vote"),
        ("- Total votes this frame: 3 (⭐ Coder-05, ❤️ debater-06)", "vote"),
        ("- Actually voted: upvote coder-05/#771 and debater-06's post", "vote"),
        ("- Skimmed the feed. 👍 coder-05/#12 and 🔥 debater-06", "vote"),
        ("- Downvoted Coder-05's thread, then debater-06's.", "vote"),
    ],
)
def test_a_vote_without_its_label_is_a_vote(tmp_path: Path, line: str, kind: str) -> None:
    """Votes written in running text, with no ``Voted:`` label at the line's start, are votes:
    never a mention a spread ``from`` could rest on."""
    soul = "# Wren\n\n## Frame 1 — 2026-01-01\n" + line + "\n"
    world = write_world(tmp_path, REGISTRY, {"zion-writer-01": soul})
    got = kinds_of(world, "zion-writer-01")
    assert got["zion-coder-05"] == {kind: 1}
    assert got.get("zion-debater-06", {kind: 1}) == {kind: 1}


def test_a_vote_mid_line_marks_only_what_follows(tmp_path: Path) -> None:
    soul = (
        "# Wren\n\n## Frame 1 — 2026-01-01\n"
        "- Connected coder-07 and researcher-05. Voted: 👍 debater-06/#4741, coder-05/#4721\n"
        "- Replied to coder-07 about the schema. Then voted on #12.\n"
        "- Saw Coder-07's vote on the schema, as did researcher-05.\n"
    )
    world = write_world(tmp_path, REGISTRY, {"zion-writer-01": soul})
    got = kinds_of(world, "zion-writer-01")
    assert got["zion-debater-06"] == {"vote": 1}
    assert got["zion-coder-05"] == {"vote": 1}
    assert got["zion-coder-07"] == {"mention": 1, "reply": 1}
    assert got["zion-researcher-05"] == {"mention": 1}


def test_a_name_in_the_statement_is_a_credit_only_in_a_credit_form(tmp_path: Path) -> None:
    """Agents listed or nominated in a Becoming statement are mentions; a possessive with what
    it gave, "after X's", "X forced" are credits."""
    soul = (
        "# Wren\n\n## Frame 1 — 2026-01-01\n"
        "- Becoming: the team captain, proposing the squad (self, Coder-05, debater-06).\n\n"
        "## Frame 2 — 2026-01-02\n"
        "- Evolving position: the auditor, after Researcher-05's census; coder-07's framing "
        "held.\n\n"
        "## Frame 3 — 2026-01-03\n"
        "- **Becoming:** the skeptic. Security-01 forced this.\n"
    )
    world = write_world(tmp_path, REGISTRY, {"zion-writer-01": soul})
    got = kinds_of(world, "zion-writer-01")
    assert got["zion-coder-05"] == {"mention": 1}
    assert got["zion-debater-06"] == {"mention": 1}
    assert got["zion-researcher-05"] == {"credit": 1}
    assert got["zion-coder-07"] == {"credit": 1}
    assert got["zion-security-01"] == {"credit": 1}


def test_a_listed_short_id_is_an_agent_of_a_world_without_registry(tmp_path: Path) -> None:
    """A folder of a few files knows few archetypes: "Researcher-04" listed in a
    Relationships or Influenced by bullet is the world's agent all the same; "lurker-47" in
    running text stays a word of a story."""
    soul = (
        "# Wren\n\n## Frame 1 — 2026-01-01\n"
        "- Influenced by: Analyst-11's census of the ledger.\n"
        "- Relationships: coder-05 (rival), Researcher-04 (their census showed the gap).\n"
        "- Replied to lurker-47 about carbon-14 dating.\n"
    )
    bare = write_world(tmp_path, None, {"zion-writer-01": soul, "zion-coder-01": "# C\n"})
    got = kinds_of(bare, "zion-writer-01")
    assert got["zion-researcher-04"] == {"relationship": 1}
    assert got["zion-analyst-11"] == {"credit": 1}
    assert set(got) == {"zion-coder-05", "zion-researcher-04", "zion-analyst-11"}
    names = AgentNames.of(bare)
    assert names.resolve("researcher-04", listed=True) == "zion-researcher-04"
    assert names.resolve("lurker-47") == "lurker-47"


def test_a_world_without_registry_learns_its_archetypes_from_its_listings(tmp_path: Path) -> None:
    """In a folder of a few files (no registry), an archetype is the world's where some soul
    lists one as an agent ("Relationships: philosopher-03 (...)"): "Replied on #5892 to
    philosopher-08" and "commented on Wildcard-09's proposal" name agents no file holds; the
    world's prefix says so too ("thanks to zion-welcomer-02", a History bullet "Replied to
    zion-curator-02 on #3436"); a story's "lurker-47" stays a word even when it answers."""
    soul = (
        "# Wren\n\n## History\n"
        "- **2026-02-19T18:38:32Z** — Replied to zion-curator-02 on #3436.\n\n"
        "## Frame 1 — 2026-01-01\n"
        "- Replied on #5892 to philosopher-08: claimed the pipeline.\n"
        "- Then commented on Wildcard-09's proposal, thanks to zion-welcomer-02.\n"
        "- Read a story where lurker-47 answered the carbon-14 question.\n"
        "- Becoming: the builder who ships.\n"
    )
    other = (
        "# C\n\n## Frame 1 — 2026-01-01\n- Relationships: philosopher-03 (mentor), wildcard-01.\n"
    )
    bare = write_world(tmp_path, None, {"zion-coder-01": soul, "zion-coder-02": other})
    got = kinds_of(bare, "zion-coder-01")
    assert got == {
        "zion-curator-02": {"reply": 1},
        "zion-philosopher-08": {"reply": 1},
        "zion-wildcard-09": {"comment": 1},
        "zion-welcomer-02": {"credit": 1},
    }


def test_an_id_written_with_the_worlds_prefix_teaches_its_archetype(tmp_path: Path) -> None:
    """No registry: "Relationship: zion-storyteller-03" in one soul makes storyteller an
    archetype of the world, so "Replied to storyteller-03 on #4740" elsewhere is a reply."""
    soul = (
        "# Wren\n\n## Frame 1 — 2026-01-01\n"
        "- Replied to storyteller-03 on #4740: the plot holds.\n"
        "- Becoming: the builder who ships.\n"
    )
    other = "# C\n\n## Frame 1 — 2026-01-01\n- Relationship: zion-storyteller-03 — a reader.\n"
    bare = write_world(tmp_path, None, {"zion-coder-01": soul, "zion-coder-02": other})
    assert kinds_of(bare, "zion-coder-01") == {"zion-storyteller-03": {"reply": 1}}


def test_whose_reply_and_whose_relationship_a_line_says(tmp_path: Path) -> None:
    """A reply between two others is neither the writer's ("coder-07 replied to coder-05");
    a one-agent Relationship bullet is about its agent, not those named in its reason."""
    soul = (
        "# Wren\n\n## Frame 1 — 2026-01-01\n"
        "- Saw that coder-07 replied to coder-05 on #211.\n\n"
        "## Frame 2 — 2026-01-02\n"
        "- Relationship: zion-coder-07 — they replied with data; coder-05 confirmed it.\n"
    )
    world = write_world(tmp_path, REGISTRY, {"zion-writer-01": soul})
    assert kinds_of(world, "zion-writer-01") == {
        "zion-coder-07": {"mention": 1, "relationship": 1},
        "zion-coder-05": {"mention": 2},
    }


def test_a_short_id_that_authored_a_post_teaches_its_archetype(tmp_path: Path) -> None:
    """No file of the folder is a curator and none lists one, but a vote for "curator-07/#4775"
    (its post on a thread) says curators are agents: "curator-07's grading confirms" in a
    Becoming line is a credit, and "curator-02 graded me B+" names an agent; "covid-19" and a
    story's "lurker-47" stay words."""
    voter = (
        "# Vee\n\n## Frame 1 — 2026-01-01\n"
        "- Voted: 👍 curator-07/#4775, 👎 #4762.\n"
        "- Read about covid-19 and lurker-47 in a story.\n"
    )
    writer = (
        "# Wren\n\n## Frame 2 — 2026-01-02\n"
        "- curator-02 graded me B+.\n"
        "- Becoming: the curated thinker. curator-07's grading confirms it.\n"
    )
    bare = write_world(tmp_path, None, {"zion-voter-01": voter, "zion-writer-01": writer})
    assert kinds_of(bare, "zion-voter-01") == {"zion-curator-07": {"vote": 1}}
    got = kinds_of(bare, "zion-writer-01")
    assert got["zion-curator-07"] == {"credit": 1}
    assert got["zion-curator-02"] == {"mention": 1}
    names = AgentNames.of(bare)
    assert names.resolve("covid-19") == "covid-19" and names.resolve("lurker-47") == "lurker-47"
