"""How the link reader reads forms of the language that the corpus does not hold: a label whose
items stand on the lines below it, replies and credits told in other words. Each line is read
as a careful reader reads it; where a form does not say that the other shaped the writer, the
name is a mention, never a credit."""

from __future__ import annotations

import pytest

from soulscope.history.links import read
from soulscope.history.names import AgentNames
from tests.support.linkworld import REGISTRY, WRITER, links_of, registry_names


@pytest.fixture(scope="module")
def names(tmp_path_factory: pytest.TempPathFactory) -> AgentNames:
    return registry_names(tmp_path_factory.mktemp("unseen"), REGISTRY, WRITER)


@pytest.mark.parametrize(
    ("lines", "expected"),
    [
        # a label alone on its line, its items indented below it
        (
            "- Relationships:\n  - Nova Quinn — partner at the bench\n  - coder-01: customer",
            {"wildcard-12": "relationship", "coder-01": "relationship"},
        ),
        (
            "* **Influenced by:**\n    * debater-07's census\n    * Sophia Mindwell",
            {"debater-07": "credit", "philosopher-03": "credit"},
        ),
        (
            "- Relationships:\n  - Nova Quinn (taught me to measure)",
            {"wildcard-12": "credit"},
        ),
        # an item's continuation line goes with it
        (
            "- Influenced by:\n  - coder-01's parser, and\n    debater-07's tests",
            {"coder-01": "credit", "debater-07": "credit"},
        ),
        # items under a bullet that is no bare label, or after a blank line, are running text
        (
            "- Posted the census:\n  - coder-01 ran it twice",
            {"coder-01": "mention"},
        ),
        (
            "- Relationships: none new\n  - coder-01 ran the census",
            {"coder-01": "mention"},
        ),
        (
            "- Relationships:\n\n  - coder-01 ran the census",
            {"coder-01": "mention"},
        ),
    ],
)
def test_items_below_a_label_take_its_kind(
    names: AgentNames, lines: str, expected: dict[str, str]
) -> None:
    assert links_of(names, lines) == expected


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        # the other asked, the writer answered
        (
            "- Nova Quinn asked me why the census doubled; I answered that lurkers count twice.",
            {"wildcard-12": "reply"},
        ),
        ("- debater-07 pressed us on the numbers, and we replied on #12.", {"debater-07": "reply"}),
        ("- coder-01 asked me about the parser.", {"coder-01": "mention"}),
        (
            "- coder-01 asked me about it; debater-07 explained.",
            {"coder-01": "mention", "debater-07": "mention"},
        ),
        # the writer's answer as a noun
        ("- My answer to Grace's question is on #53.", {"coder-01": "reply"}),
        ("- Posted a rebuttal to @debater-07 on #12.", {"debater-07": "reply"}),
        (
            "- Grace Hopper's answer to debater-07 was sharp.",
            {"coder-01": "mention", "debater-07": "mention"},
        ),
        # on in the other's thread
        ("- Picked up Sophia Mindwell's thread on quorum.", {"philosopher-03": "reply"}),
        ("- Weighed in on coder-01's post about the parser.", {"coder-01": "reply"}),
        ("- Took up DEBATER-07's thread again.", {"debater-07": "reply"}),
        ("- Joined coder-01's team for the sprint.", {"coder-01": "mention"}),
    ],
)
def test_replies_told_in_other_words(
    names: AgentNames, line: str, expected: dict[str, str]
) -> None:
    assert links_of(names, line) == expected


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        # what the writer owes the other
        ("- Owe this frame's calm to Nova.", {"wildcard-12": "credit"}),
        ("- Owed the whole season to zion-coder-01.", {"coder-01": "credit"}),
        ("- Owe nothing to debater-07.", {"debater-07": "mention"}),
        ("- Still owe a reply to debater-07 on #12.", {"debater-07": "mention"}),
        ("- Owed money to coder-01 after the bet.", {"coder-01": "mention"}),
        # what the other said stayed with the writer
        (
            "- Sophia Mindwell's idea of a census without names stuck with me.",
            {"philosopher-03": "credit"},
        ),
        ("- debater-07's warning about drift finally sank in.", {"debater-07": "credit"}),
        ("- coder-01's cart stuck in the mud on #12.", {"coder-01": "mention"}),
        ("- debater-07's point never stuck.", {"debater-07": "mention"}),
        # one credited, another set against it
        (
            "- cutter: coder-01, not debater-07, convinced me.",
            {"coder-01": "credit", "debater-07": "mention"},
        ),
        (
            "- Nova Quinn (rather than debater-07) taught me to count.",
            {"wildcard-12": "credit", "debater-07": "mention"},
        ),
    ],
)
def test_credits_told_in_other_words(
    names: AgentNames, line: str, expected: dict[str, str]
) -> None:
    assert links_of(names, line) == expected


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        # a display name of several words in running text, used as a person's
        ("- Grace Hopper disagreed; I didn't follow her.", {"coder-01": "mention"}),
        ('- "Count twice," Sophia Mindwell told the guild.', {"philosopher-03": "mention"}),
        ("- Nova Quinn flatly insists the census is done.", {"wildcard-12": "mention"}),
        ("- Becoming: the skeptic, unlike Nova Quinn.", {"wildcard-12": "mention"}),
        (
            "- Grace Hopper, Nova Quinn, and Zed Prime all watched the launch.",
            {"coder-01": "mention", "wildcard-12": "mention", "curator-02": "mention"},
        ),
        (
            "- Watched coder-01 and Marcus Aurelius argue on #12.",
            {"coder-01": "mention", "debater-07": "mention"},
        ),
        # ... and as a phrase or a title, no one
        ("- Posted on #12 (Zed Prime Digest #26): graded B+.", {}),
        ("- Soil Algorithms vs Nova Quinn Variety.", {}),
        ("- Grace Hopper invented the compiler.", {}),
        ("- Read Sophia Mindwell Weekly and the Zed Prime list.", {}),
    ],
)
def test_display_names_in_running_text(
    names: AgentNames, line: str, expected: dict[str, str]
) -> None:
    assert links_of(names, line) == expected


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        # an exchange with the other
        ("- Got back to coder-01 on #12 about the parser.", {"coder-01": "reply"}),
        ("- Followed up with debater-07 on #12.", {"debater-07": "reply"}),
        ("- Later debated Nova Quinn on #12.", {"wildcard-12": "reply"}),
        ("- Traded replies with debater-07 on #12.", {"debater-07": "reply"}),
        ("- Went back and forth with coder-01 on #12.", {"coder-01": "reply"}),
        ("- coder-01 and I went back and forth on #12.", {"coder-01": "reply"}),
        (
            "- Replied to both coder-01 and debater-07.",
            {"coder-01": "reply", "debater-07": "reply"},
        ),
        ("- Exchanged posts with Marcus Aurelius on #12.", {"debater-07": "reply"}),
        # ... and not one of the writer's
        (
            "- coder-01 debated debater-07 on #12.",
            {"coder-01": "mention", "debater-07": "mention"},
        ),
        ("- coder-01 and I agreed on #12.", {"coder-01": "mention"}),
        ("- Traded places with coder-01 in the queue.", {"coder-01": "mention"}),
    ],
)
def test_exchanges_are_replies(names: AgentNames, line: str, expected: dict[str, str]) -> None:
    assert links_of(names, line) == expected


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("- Nova Quinn talked me into the recount.", {"wildcard-12": "credit"}),
        ("- coder-01 got me thinking about drift.", {"coder-01": "credit"}),
        ("- Came around to debater-07's view.", {"debater-07": "credit"}),
        ("- Modeled the parser on coder-01's.", {"coder-01": "credit"}),
        ("- Standing on debater-07's shoulders here.", {"debater-07": "credit"}),
        ("- Leaned on coder-01's parser for the count.", {"coder-01": "credit"}),
        ("- A nod to Nova Quinn for the census.", {"wildcard-12": "credit"}),
        ("- With help from coder-01, shipped the parser.", {"coder-01": "credit"}),
        ("- Shipped the parser with coder-01's help.", {"coder-01": "credit"}),
        ("- coder-01 deserves the credit for this.", {"coder-01": "credit"}),
        ("- Credit where it's due: debater-07 found the bug.", {"debater-07": "credit"}),
        ("- Sophia Mindwell opened my eyes to drift.", {"philosopher-03": "credit"}),
        ("- It was Sophia Mindwell who changed my mind.", {"philosopher-03": "credit"}),
        # ... and where they do not credit
        ("- coder-01 deserves no credit for this.", {"coder-01": "mention"}),
        ("- Shipped the parser with coder-01's team.", {"coder-01": "mention"}),
        ("- Influenced by: debater-07 — no, not really.", {"debater-07": "mention"}),
        ("- Did not take coder-01's advice.", {"coder-01": "mention"}),
    ],
)
def test_more_credits_in_running_text(
    names: AgentNames, line: str, expected: dict[str, str]
) -> None:
    assert links_of(names, line) == expected


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("- Influenced by: Grace.", {"coder-01": "credit"}),
        ("- Influenced by: Grace, Nova", {"coder-01": "credit", "wildcard-12": "credit"}),
        (
            "- Relationships: Nova — rival; Grace — mentor",
            {"wildcard-12": "relationship", "coder-01": "relationship"},
        ),
        # a first name that begins a phrase is the phrase
        ("- Influenced by: Grace notes and rests.", {}),
        ("- Reinforced: Nova projects are slow.", {}),
    ],
)
def test_a_first_name_alone_in_a_list_of_credits(
    names: AgentNames, line: str, expected: dict[str, str]
) -> None:
    assert links_of(names, line) == expected


# Names with titles, hyphens, apostrophes and letters beyond ASCII.
FIELD = {
    "ns-pilot-01": "Jean-Luc Okoro",
    "ns-medic-02": "Mary O'Neil",
    "ns-cook-03": "Dr. Amara Singh",
    "ns-scout-04": "Søren Åberg",
    "ns-clerk-05": "Li Wei",
    "ns-writer-06": "Pat Writer",
}


@pytest.fixture(scope="module")
def field(tmp_path_factory: pytest.TempPathFactory) -> AgentNames:
    return registry_names(tmp_path_factory.mktemp("field"), FIELD, "ns-writer-06")


def _field_links(names: AgentNames, line: str) -> dict[str, str]:
    return {k.removeprefix("ns-"): v for k, v in links_of(names, line).items()}


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        # a title before a name, written or left out
        ("- Replied to Dr. Amara Singh on #4.", {"cook-03": "reply"}),
        ("- Amara Singh's notes convinced me.", {"cook-03": "credit"}),
        ("- Thanks to Amara for the stew.", {"cook-03": "credit"}),
        ("- Replied to Dr. Who on #4.", {}),
        # a bullet that opens with "Re:" and the other
        ("- Re: Jean-Luc Okoro's post on #3 — the map is wrong.", {"pilot-01": "reply"}),
        (
            "- Replied to Li Wei (re: Jean-Luc Okoro's claim).",
            {"clerk-05": "reply", "pilot-01": "mention"},
        ),
        ("- Posted the re: thread summary for ns-pilot-01.", {"pilot-01": "mention"}),
        # what the writer made of the other's work
        ("- Forked ns-pilot-01's map for the south pass.", {"pilot-01": "credit"}),
        ("- Built atop ns-pilot-01's map.", {"pilot-01": "credit"}),
        ("- Riffed on ns-medic-02's triage idea.", {"medic-02": "credit"}),
        ("- Remixed Mary O'Neil's drill.", {"medic-02": "credit"}),
        ("- Mary O'Neil's drill shaped how I triage.", {"medic-02": "credit"}),
        ("- Echoing Jean-Luc Okoro: fly low.", {"pilot-01": "credit"}),
        ("- ns-pilot-01 forked my map.", {"pilot-01": "mention"}),
        # whose words are repeated
        ('- Quoting Mary O\'Neil: "triage first".', {"medic-02": "mention"}),
        ("- Søren Åberg and I argued about the pass.", {"scout-04": "reply"}),
    ],
)
def test_titles_and_other_names(field: AgentNames, line: str, expected: dict[str, str]) -> None:
    assert _field_links(field, line) == expected


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        # what the agent is to the other, in its statement, is no gift of the other's
        ("- Becoming: the counter — debater-07's worst nightmare.", {"debater-07": "mention"}),
        ("- Becoming: Nova Quinn's rival in all but name.", {"wildcard-12": "mention"}),
        ("- Becoming: Nova Quinn's student in all but name.", {"wildcard-12": "credit"}),
        # what the agent left behind
        ("- Becoming: the counter, having outgrown coder-01's parser.", {"coder-01": "mention"}),
        (
            "- Becoming: the counter, free of debater-07's influence at last.",
            {"debater-07": "mention"},
        ),
        ("- Becoming: the counter, despite Grace Hopper.", {"coder-01": "mention"}),
        # a credit bullet's aside, a denial in other words, a relationship with no one
        ("- Influenced by: the archive (debater-07 disagreed).", {"debater-07": "mention"}),
        (
            "- Influenced by: coder-01 (debater-07 would object) and the archive.",
            {"coder-01": "credit", "debater-07": "mention"},
        ),
        ("- Surprised by: how little coder-01's parser mattered.", {"coder-01": "mention"}),
        ("- Surprised by: debater-07 agreeing with me.", {"debater-07": "credit"}),
        ("- Relationships: none with debater-07 yet.", {"debater-07": "mention"}),
        ("- Relationships: none new; coder-01 (ally)", {"coder-01": "relationship"}),
    ],
)
def test_statements_and_bullets_that_give_no_credit(
    names: AgentNames, line: str, expected: dict[str, str]
) -> None:
    assert links_of(names, line) == expected


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        # whose act it is: another's thanks, lessons and convictions are not the writer's
        ("- Nova Quinn thanked Grace Hopper for the parser.", {"coder-01": "mention"}),
        ("- Nova Quinn learned from debater-07.", {"debater-07": "mention"}),
        ("- Sophia Mindwell borrowed coder-01's parser.", {"coder-01": "mention"}),
        (
            "- debater-07 says coder-01 convinced him.",
            {"debater-07": "mention", "coder-01": "mention"},
        ),
        ("- coder-01 taught them the census.", {"coder-01": "mention"}),
        (
            "- coder-01's idea stuck with debater-07.",
            {"coder-01": "mention", "debater-07": "mention"},
        ),
        # several subjects of one credit or reply
        (
            "- coder-01 and debater-07 convinced me.",
            {"coder-01": "credit", "debater-07": "credit"},
        ),
        (
            "- Both coder-01 and debater-07 changed my mind.",
            {"coder-01": "credit", "debater-07": "credit"},
        ),
        (
            "- Unlike coder-01, debater-07 convinced me.",
            {"coder-01": "mention", "debater-07": "credit"},
        ),
        (
            "- wildcard-12, coder-01 and debater-07 replied to my post.",
            {"wildcard-12": "reply", "coder-01": "reply", "debater-07": "reply"},
        ),
        # what the other asked, answered
        ("- Replied to a question from coder-01.", {"coder-01": "reply"}),
        ("- Answered the hard question coder-01 posed on #12.", {"coder-01": "reply"}),
        ("- Sent coder-01 a long reply on #12.", {"coder-01": "reply"}),
        (
            "- debater-07 answered a question from coder-01.",
            {"debater-07": "mention", "coder-01": "mention"},
        ),
        ("- Gave coder-01 credit for the parser.", {"coder-01": "credit"}),
        ("- Gave coder-01 the parser.", {"coder-01": "mention"}),
    ],
)
def test_whose_act_and_how_many(names: AgentNames, line: str, expected: dict[str, str]) -> None:
    assert links_of(names, line) == expected


def _kinds(names: AgentNames, text: str) -> list[tuple[str, str]]:
    data = text.encode()
    return [(w.removeprefix("zion-"), k) for _, w, k in read(names, data, 0, len(data))]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a section of the card, its heading the label of every bullet below it
        (
            "# Tess\n\n## Relationships\n\n- **coder-01** — ally\n- debater-07: rival\n"
            "- **Nova Quinn** (`zion-wildcard-12`): taught me to count\n\n"
            "## Frame 1 — 2026-03-01\n- Posted with coder-01.\n",
            [
                ("coder-01", "relationship"),
                ("debater-07", "relationship"),
                ("wildcard-12", "relationship"),
                ("coder-01", "mention"),
            ],
        ),
        (
            "## Frame 2 — 2026-03-02\n### Influences\n- coder-01\n- Grace Hopper's tests\n",
            [("coder-01", "credit"), ("coder-01", "credit")],
        ),
        (
            "## Frame 2 — 2026-03-02\n**Relationships**\n- debater-07 — rival\n",
            [("debater-07", "relationship")],
        ),
        (
            "## Frame 2 — 2026-03-02\nInfluenced by:\n1. coder-01\n2. debater-07\n",
            [("coder-01", "credit"), ("debater-07", "credit")],
        ),
        # a list under any other heading or line is running text
        ("## History\n- coder-01 liked it\n", [("coder-01", "mention")]),
        (
            "## Frame 2 — 2026-03-02\nI posted twice:\n- coder-01 liked it\n",
            [("coder-01", "mention")],
        ),
        (
            "## Relationships\nThe ones I watch, below.\n- coder-01 liked it\n",
            [("coder-01", "mention")],
        ),
    ],
)
def test_a_section_heading_is_the_label_of_its_list(
    names: AgentNames, text: str, expected: list[tuple[str, str]]
) -> None:
    assert _kinds(names, text) == expected


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        # set against what shaped the agent
        ("- Influenced by: the opposite of coder-01's advice.", {"coder-01": "mention"}),
        ("- Influenced by: everything except debater-07's framing.", {"debater-07": "mention"}),
        (
            "- Influenced by: neither coder-01 nor debater-07.",
            {"coder-01": "mention", "debater-07": "mention"},
        ),
        (
            "- Influenced by: coder-01, though I wish it were debater-07.",
            {"coder-01": "credit", "debater-07": "mention"},
        ),
        ("- Reinforced: my doubt about debater-07's census.", {"debater-07": "mention"}),
        ("- Becoming: the mapmaker, out of Nova Quinn's shadow.", {"wildcard-12": "mention"}),
        ("- Becoming: the mapmaker, born out of Nova Quinn's census.", {"wildcard-12": "credit"}),
        ("- Becoming: the mapmaker, beyond debater-07's reach.", {"debater-07": "mention"}),
        # not done after all
        ("- Refused to borrow coder-01's parser.", {"coder-01": "mention"}),
        ("- Stopped following coder-01's method.", {"coder-01": "mention"}),
        ("- Almost adopted coder-01's parser.", {"coder-01": "mention"}),
        ("- Almost entirely built on coder-01's parser.", {"coder-01": "credit"}),
        ("- Would have borrowed coder-01's parser if it worked.", {"coder-01": "mention"}),
        # taken back after the name
        ("- Inspired by coder-01? Hardly.", {"coder-01": "mention"}),
        ("- Becoming: the mapmaker. debater-07's framing, rejected.", {"debater-07": "mention"}),
        (
            "- Becoming: the mapmaker; debater-07's framing is dead to me.",
            {"debater-07": "mention"},
        ),
        ("- Reinforced: coder-01 is still wrong.", {"coder-01": "mention"}),
    ],
)
def test_credits_taken_back(names: AgentNames, line: str, expected: dict[str, str]) -> None:
    assert links_of(names, line) == expected


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("- Meant to reply to coder-01 but ran out of time.", {"coder-01": "mention"}),
        ("- Was about to reply to coder-01 when the thread closed.", {"coder-01": "mention"}),
        ("- Skipped replying to coder-01.", {"coder-01": "mention"}),
        ("- Tried to answer debater-07, but the thread was locked.", {"debater-07": "mention"}),
        # a title's words are not the writer's
        (
            "- Dialogue on #5456 (Citizen Who Tried to Leave): replied to debater-07.",
            {"debater-07": "reply"},
        ),
        ("- Replied to coder-01 at last.", {"coder-01": "reply"}),
    ],
)
def test_replies_meant_and_not_made(names: AgentNames, line: str, expected: dict[str, str]) -> None:
    assert links_of(names, line) == expected


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        # a display name of several words whose words are quoted, or who is met or told
        ('- "Fiber first," said Sophia Mindwell.', {"philosopher-03": "mention"}),
        ('- Sophia Mindwell: "fiber first."', {"philosopher-03": "mention"}),
        ("- In the words of Sophia Mindwell, fiber first.", {"philosopher-03": "mention"}),
        ("- Heard Sophia Mindwell say fiber first.", {"philosopher-03": "mention"}),
        ("- Welcomed Nova Quinn to the census.", {"wildcard-12": "mention"}),
        ("- Met Zed Prime criteria on #12.", {}),
        # whose words the writer takes up
        ("- As Sophia Mindwell put it: fiber first.", {"philosopher-03": "credit"}),
        ('- Becoming: "fiber first", as Sophia Mindwell says.', {"philosopher-03": "credit"}),
        ("- As coder-01 said, the loop stays.", {"coder-01": "credit"}),
        # a title is no one's
        ("- Zed Prime Digest: forty posts this week.", {}),
    ],
)
def test_a_person_quoted_or_met(names: AgentNames, line: str, expected: dict[str, str]) -> None:
    assert links_of(names, line) == expected


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        # a name in markup
        ("- Replied to [[debater-07]] on #12.", {"debater-07": "reply"}),
        ("- Replied to *Nova Quinn* on #12.", {"wildcard-12": "reply"}),
        (
            "- Replied to **coder-01** and *debater-07* on #12.",
            {"coder-01": "reply", "debater-07": "reply"},
        ),
        # a list of posts by their authors
        (
            "- Replied to coder-01/#12 and debater-07/#13.",
            {"coder-01": "reply", "debater-07": "reply"},
        ),
        # who it is, in a parenthesis
        ("- coder-01 (Grace) convinced me.", {"coder-01": "credit"}),
        # the id in any case
        ("- INFLUENCED BY: CODER-01'S PARSER.", {"coder-01": "credit"}),
        (
            "- Becoming: the skeptic. From believer to skeptic, thanks to DEBATER-07.",
            {"debater-07": "credit"},
        ),
    ],
)
def test_names_in_markup_and_case(names: AgentNames, line: str, expected: dict[str, str]) -> None:
    assert links_of(names, line) == expected


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("- Built on top of coder-01's parser.", {"coder-01": "credit"}),
        ("- Expanded on coder-01's idea.", {"coder-01": "credit"}),
        ("- Drew inspiration from Nova Quinn's map.", {"wildcard-12": "credit"}),
        ("- Found inspiration in coder-01's parser.", {"coder-01": "credit"}),
        ("- Adapted coder-01's parser for the census.", {"coder-01": "credit"}),
        ("- Integrated debater-07's feedback.", {"debater-07": "credit"}),
        ("- Incorporated Nova Quinn's census.", {"wildcard-12": "credit"}),
        ("- Heeded debater-07's warning.", {"debater-07": "credit"}),
        ("- Riffing off coder-01's joke.", {"coder-01": "credit"}),
        ("- Inspired by a thread by coder-01.", {"coder-01": "credit"}),
        # the other took from the writer, or the writer did it for the other
        ("- coder-01 adapted my parser.", {"coder-01": "mention"}),
        ("- Adapted my parser for coder-01.", {"coder-01": "mention"}),
        ("- Ignored a post by coder-01.", {"coder-01": "mention"}),
    ],
)
def test_work_taken_up_in_more_words(
    names: AgentNames, line: str, expected: dict[str, str]
) -> None:
    assert links_of(names, line) == expected
