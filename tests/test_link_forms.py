"""How the link reader (``history.links.read``) reads lines in forms the corpus does not hold:
whose reply a line tells, which names a credit bullet sets against or denies, and which way an
idea went. Each line is read as a careful reader reads it; where a form does not say that the
other shaped the writer, the name is a mention, never a credit."""

from __future__ import annotations

from pathlib import Path

import pytest

from soulscope.history.links import read
from soulscope.history.names import AgentNames
from tests.support.linkworld import REGISTRY, WRITER, links_of, registry_names


@pytest.fixture(scope="module")
def names(tmp_path_factory: pytest.TempPathFactory) -> AgentNames:
    return registry_names(tmp_path_factory.mktemp("forms"), REGISTRY, WRITER)


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        # whose reply: the writer's, or another's that the writer tells of
        (
            "- Replied to coder-01, who had replied to debater-07.",
            {"coder-01": "reply", "debater-07": "mention"},
        ),
        (
            "- Replied to coder-01, who then replied to debater-07.",
            {"coder-01": "reply", "debater-07": "mention"},
        ),
        ("- Grace Hopper's reply to debater-07 was sharp.", {"debater-07": "mention"}),
        ("- Her reply to debater-07 was sharp.", {"debater-07": "mention"}),
        ("- My reply to debater-07 on #12.", {"debater-07": "reply"}),
        (
            "- debater-07 answered philosopher-03 on #12.",
            {"debater-07": "mention", "philosopher-03": "mention"},
        ),
        ("- debater-07 answered Grace Hopper on #12.", {"debater-07": "mention"}),
        ("- debater-07 answered my question on #12.", {"debater-07": "reply"}),
        ("- debater-07 responded Case File: a story back.", {"debater-07": "reply"}),
        # the other's objection to the writer, after a colon
        ("- Debater-07 CHALLENGED: my census counts lurkers twice.", {"debater-07": "reply"}),
        ("- Sophia Mindwell objected: the archive is not memory.", {"philosopher-03": "reply"}),
        (
            "- Shipped the parser. debater-07 pushed back: too slow. Fair hit.",
            {"debater-07": "reply"},
        ),
        ("- Challenged: debater-07's census on #12.", {"debater-07": "mention"}),
    ],
)
def test_whose_reply_a_line_tells(names: AgentNames, line: str, expected: dict) -> None:
    got = links_of(names, line)
    assert {k: v for k, v in got.items() if k in expected} == expected


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        (
            "- Influenced by: coder-01's parser (debater-07 was wrong).",
            {"coder-01": "credit", "debater-07": "mention"},
        ),
        (
            "- Influenced by: coder-01's parser (Nova Quinn was wrong).",
            {"coder-01": "credit", "wildcard-12": "mention"},
        ),
        ("- Influenced by: debater-07's framing, which was mistaken.", {"debater-07": "mention"}),
        ("- Influenced by: the archive, not Nova Quinn's view.", {"wildcard-12": "mention"}),
        ("- Influenced by: rejecting debater-07's framing.", {"debater-07": "mention"}),
        ("- Influenced by: nobody this frame; debater-07 posted noise.", {"debater-07": "mention"}),
        (
            "- Influenced by: nothing new; Sophia Mindwell posted noise.",
            {"philosopher-03": "mention"},
        ),
        ("- Influenced by: no one but debater-07 this frame.", {"debater-07": "credit"}),
        # the other took from the writer: the idea went the other way
        ("- Influenced by: coder-01 adopted my schema.", {"coder-01": "mention"}),
        ("- Influenced by: Nova Quinn adopted my map.", {"wildcard-12": "mention"}),
        ("- Reinforced: coder-01 borrowed my parser.", {"coder-01": "mention"}),
        # the writer's credit of what the other did: the label says so
        ("- Influenced by: coder-01 adopted the schema.", {"coder-01": "credit"}),
        (
            "- Influenced by: coder-01's parser, despite debater-07's objections.",
            {"coder-01": "credit", "debater-07": "mention"},
        ),
    ],
)
def test_a_credit_set_against_or_going_the_other_way_is_a_mention(
    names: AgentNames, line: str, expected: dict
) -> None:
    assert links_of(names, line) == expected


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        (
            "- Relationships: GRACE HOPPER (mentor), Nova Quinn (rival)",
            {"coder-01": "relationship", "wildcard-12": "relationship"},
        ),
        ("- Influenced by: ZED PRIME'S curation.", {"curator-02": "credit"}),
        ("- Replied to MARCUS AURELIUS on #41.", {"debater-07": "reply"}),
        ("- NOVA said hello.", {}),  # one word in capitals: emphasis as often as a name
    ],
)
def test_display_names_in_capitals_are_names(names: AgentNames, line: str, expected: dict) -> None:
    assert links_of(names, line) == expected
    if expected:
        assert names.resolve("GRACE HOPPER") == "zion-coder-01"


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        (
            "- After reading philosopher-03's census, I rewrote the plan.",
            {"philosopher-03": "credit"},
        ),
        ("- After seeing debater-07's table I switched.", {"debater-07": "credit"}),
        ("- As debater-07 argued, quorum is theatre.", {"debater-07": "credit"}),
        ("- Not as debater-07 argued: quorum matters.", {"debater-07": "mention"}),
        ("- philosopher-03 pointed out the gap in my proof.", {"philosopher-03": "credit"}),
        ("- coder-01 made me rethink the parser.", {"coder-01": "credit"}),
        # "per X" reports what X said ("P = 0.20 per X. Actual: 0.35"): no credit
        ("- P(accept) = 0.20 per debater-07. Actual: 0.35.", {"debater-07": "mention"}),
        (
            "- Becoming: the mapmaker, on Nova Quinn's map and coder-01's parser.",
            {"wildcard-12": "credit", "coder-01": "credit"},
        ),
        ("- Becoming: the skeptic, unlike Nova Quinn's map.", {"wildcard-12": "mention"}),
        (
            "- Becoming: the mapmaker. That is Nova Quinn's move, not mine.",
            {"wildcard-12": "mention"},
        ),
    ],
)
def test_credits_in_running_text_and_the_statement(
    names: AgentNames, line: str, expected: dict
) -> None:
    assert links_of(names, line) == expected


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        (
            "- Influenced by: debater-07's point that coder-01 was wrong.",
            {"debater-07": "credit", "coder-01": "mention"},
        ),
        (
            "- debater-07 convinced coder-01, not me.",
            {"debater-07": "mention", "coder-01": "mention"},
        ),
        ('- Replied to "coder-01" on #12.', {"coder-01": "reply"}),
        ("- Replied to **coder-01** on #12.", {"coder-01": "reply"}),
        ("- Replied to [coder-01](https://example.org/u/coder-01) on #12.", {"coder-01": "reply"}),
        ("- Replied under coder-01's post on #12.", {"coder-01": "reply"}),
        ("- h/t coder-01 for the parser.", {"coder-01": "credit"}),
        ("- Shoutout to coder-01 for the parser.", {"coder-01": "credit"}),
    ],
)
def test_names_in_marks_and_other_credit_words(
    names: AgentNames, line: str, expected: dict
) -> None:
    assert links_of(names, line) == expected


@pytest.mark.parametrize(
    "line",
    [
        "- Got a reply from coder-01 on #12.",
        "- Reply from coder-01 on #12.",
        "- Heard back from coder-01 on #12.",
        "- Drew a response from coder-01.",
    ],
)
def test_a_reply_from_the_other_is_a_reply(names: AgentNames, line: str) -> None:
    assert links_of(names, line) == {"coder-01": "reply"}


def test_spread_says_no_direction_for_a_reply_the_other_made(tmp_path: Path) -> None:
    """ "debater-07 replied to me" is a reply link from debater-07, as "Replied to debater-07"
    is: ``spread`` must not say the adopter replied to it."""
    from tests.support.cli import soulscope

    (tmp_path / "memory").mkdir()
    files = {
        "zion-debater-07": "## Frame 1 — 2026-03-01\n- Lanterns waste oil.\n",
        WRITER: "## Frame 2 — 2026-03-02\n- debater-07 replied to me on #7.\n- Bought oil.\n",
    }
    for agent, body in files.items():
        (tmp_path / "memory" / f"{agent}.md").write_text(f"# {agent}\n\n{body}", encoding="utf-8")
    out = soulscope("spread", "oil", "-w", str(tmp_path)).stdout
    assert "← zion-debater-07 (a reply between them, frame 2, line 4)" in out
    assert "replied to" not in out.replace("replied to me", "")


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("- Did not reply to coder-01.", {"coder-01": "mention"}),
        ("- Never replied to coder-01's challenge.", {"coder-01": "mention"}),
        ("- Chose not to answer debater-07.", {"debater-07": "mention"}),
        ("- No reply from coder-01 yet.", {"coder-01": "mention"}),
        ("- Will reply to coder-01 next frame.", {"coder-01": "mention"}),
        ("- Noted the author has not answered debater-07's questions.", {"debater-07": "mention"}),
        ("- If nobody responds to debater-07, the hypothesis holds.", {"debater-07": "mention"}),
        (
            "- Replied to coder-01, not to debater-07.",
            {"coder-01": "reply", "debater-07": "mention"},
        ),
        ("- Essay on #5466 (No Ground): countered coder-01's borders.", {"coder-01": "reply"}),
    ],
)
def test_a_reply_denied_or_to_come_is_no_reply(
    names: AgentNames, line: str, expected: dict
) -> None:
    assert links_of(names, line) == expected


def test_a_name_set_against_in_parentheses_stays_denied(names: AgentNames) -> None:
    line = "- Influenced by: the code (coder-01), not the document (debater-07)."
    assert links_of(names, line) == {"coder-01": "credit", "debater-07": "mention"}


@pytest.fixture(scope="module")
def accented(tmp_path_factory: pytest.TempPathFactory) -> AgentNames:
    root = tmp_path_factory.mktemp("accented")
    people = {
        "zion-coder-01": "Zoë Ångström",
        "zion-debater-07": "José Núñez",
        "zion-wildcard-12": "Élodie Martin",
        WRITER: "Tess Writer",
    }
    return registry_names(root, people, WRITER)


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("- Replied to Zoë Ångström on #12.", {"coder-01": "reply"}),
        ("- Influenced by: José Núñez's proof.", {"debater-07": "credit"}),
        (
            "- Relationships: Élodie Martin (ally), Zoë Ångström (mentor)",
            {"wildcard-12": "relationship", "coder-01": "relationship"},
        ),
        ("- Thanks to Élodie for the map.", {"wildcard-12": "credit"}),
        ("- Zoë Ångström forced this.", {"coder-01": "credit"}),
        ("- Influenced by: the archive, not José Núñez's view.", {"debater-07": "mention"}),
        ("- Read Élodie Martin's note.", {"wildcard-12": "mention"}),
    ],
)
def test_display_names_beyond_ascii(accented: AgentNames, line: str, expected: dict) -> None:
    assert links_of(accented, line) == expected


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("- Influences: coder-01's parser.", {"coder-01": "credit"}),
        ("- *Influenced by:* coder-01's parser.", {"coder-01": "credit"}),
        ("- Inspirations: coder-01, debater-07.", {"coder-01": "credit", "debater-07": "credit"}),
        ("- Key influence: coder-01's parser.", {"coder-01": "credit"}),
        (
            "- Allies: coder-01, debater-07.",
            {"coder-01": "relationship", "debater-07": "relationship"},
        ),
        ("- Challenged by: debater-07.", {"debater-07": "reply"}),
        # "Influence:" may be the writer's own on others: its label says nothing
        ("- Influence: coder-01 adopted my schema.", {"coder-01": "mention"}),
    ],
)
def test_labels_of_other_words(names: AgentNames, line: str, expected: dict) -> None:
    assert links_of(names, line) == expected


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("- Read coder-01's reply to my comment.", {"coder-01": "reply"}),
        ("- Read Sophia Mindwell's reply to my comment.", {"philosopher-03": "reply"}),
        ("- coder-01's response to me was kind.", {"coder-01": "reply"}),
        (
            "- debater-07's reply to coder-01 was sharp.",
            {"debater-07": "mention", "coder-01": "mention"},
        ),
    ],
)
def test_the_others_reply_to_the_writer(names: AgentNames, line: str, expected: dict) -> None:
    assert links_of(names, line) == expected


def test_a_bullet_goes_on_over_its_indented_lines(names: AgentNames) -> None:
    """A bullet wrapped onto indented lines keeps its label there; a blank line ends it."""
    text = (
        "## Frame 2 — 2026-03-02\n"
        "- Influenced by: coder-01's parser and\n  debater-07's tests.\n"
        "- Relationships: coder-01 (mentor),\n  Nova Quinn (rival)\n"
        "- Read philosopher-03.\n\n  philosopher-03 spoke.\n"
    )
    data = text.encode()
    got = {
        (data.count(b"\n", 0, at) + 1, who.removeprefix("zion-"), kind)
        for at, who, kind in read(names, data, 0, len(data))
    }
    assert got == {
        (2, "coder-01", "credit"),
        (3, "debater-07", "credit"),
        (4, "coder-01", "relationship"),
        (5, "wildcard-12", "relationship"),
        (6, "philosopher-03", "mention"),
        (8, "philosopher-03", "mention"),
    }


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("- After coder-01's analysis, realized the list was wrong.", {"coder-01": "credit"}),
        ("- P(case) revised up to 0.40 after coder-01's contribution.", {"coder-01": "credit"}),
        ("- Planted 3 questions on #4719 after coder-01's return.", {"coder-01": "mention"}),
        ("- Logged in after coder-01's post went up.", {"coder-01": "mention"}),
    ],
)
def test_after_the_others_work_is_a_credit_where_the_mind_moved(
    names: AgentNames, line: str, expected: dict
) -> None:
    assert links_of(names, line) == expected


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("- If slopes diverge, coder-01 is right. If not, an artifact.", {"coder-01": "mention"}),
        ("- Unless coder-01's parser is wrong, the loop stays.", {"coder-01": "mention"}),
        ("- coder-01 is right: the loop stays.", {"coder-01": "credit"}),
        ("- Thanks to coder-01, if only for the parser.", {"coder-01": "credit"}),
    ],
)
def test_a_credit_only_supposed_is_a_mention(names: AgentNames, line: str, expected: dict) -> None:
    assert links_of(names, line) == expected


def test_a_bullet_that_lists_no_one_names_no_relationship(names: AgentNames) -> None:
    assert links_of(names, "- Relationships: none yet (coder-01 ignored me)") == {
        "coder-01": "mention"
    }
    assert links_of(names, "- Relationships: none new; coder-01 (ally)") == {
        "coder-01": "relationship"
    }


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        # what the writer took from another, with no possessive
        ("- Borrowed the census method from debater-07.", {"debater-07": "credit"}),
        ("- Picked up the term from Nova Quinn on #12.", {"wildcard-12": "credit"}),
        ("- Lifted the whole grid idea from coder-01.", {"coder-01": "credit"}),
        ("- Becoming: the mapmaker who learned tides from Nova Quinn.", {"wildcard-12": "credit"}),
        ("- Becoming: the mapmaker, after talking with debater-07.", {"debater-07": "credit"}),
        ("- Becoming: the mapmaker (credit: coder-01).", {"coder-01": "credit"}),
        # ... not blame, flak, nothing, or a place taken over
        ("- Learned nothing from debater-07's post.", {"debater-07": "mention"}),
        (
            "- Met coder-01, who borrowed the census from debater-07.",
            {"coder-01": "mention", "debater-07": "mention"},
        ),
        ("- Took heat from debater-07 on #12.", {"debater-07": "mention"}),
        ("- Took over from coder-01 as the keeper.", {"coder-01": "mention"}),
        # ... nor what another took
        (
            "- coder-01 borrowed debater-07's method.",
            {"coder-01": "mention", "debater-07": "mention"},
        ),
        (
            '- Replied to coder-01 on #36: "You stole that from debater-07."',
            {"coder-01": "reply", "debater-07": "mention"},
        ),
        ("- They had adopted Nova Quinn's map.", {"wildcard-12": "mention"}),
        # every credited thing of a list, not the first alone
        (
            "- Inspired by coder-01's parser and debater-07's tests.",
            {"coder-01": "credit", "debater-07": "credit"},
        ),
        (
            "- Built on Nova Quinn's map, Grace Hopper's compiler and debater-07's census.",
            {"wildcard-12": "credit", "coder-01": "credit", "debater-07": "credit"},
        ),
        # ... where each is one
        (
            "- Built on coder-01's parser; debater-07's tests failed.",
            {"coder-01": "credit", "debater-07": "mention"},
        ),
        (
            "- Adopted coder-01's parser and debater-07's census was wrong.",
            {"coder-01": "credit", "debater-07": "mention"},
        ),
    ],
)
def test_what_the_writer_took(names: AgentNames, line: str, expected: dict) -> None:
    assert links_of(names, line) == expected
