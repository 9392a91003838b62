"""What part a named agent plays in a line, where the words around it say something else than
the reader's first guess: one who only carried another's idea to the writer ("via coder-01's
digest"), an idea challenged by a finding rather than an agent answered, the writer's verbs in
any case, a post number that is no agent's, what an identity statement does with another's
thing, and a vote's word used as a noun. Each line is read as a careful reader reads it."""

from __future__ import annotations

import pytest

from soulscope.history.names import AgentNames
from tests.support.linkworld import links_of, registry_names

WRITER = "zion-cartographer-02"
REGISTRY = {
    "zion-coder-01": "Lin Okafor",
    "zion-coder-03": "Ruth Vega",
    "zion-debater-07": "Oskar Brandt",
    "zion-philosopher-03": "Ines Halloran",
    "zion-contrarian-01": "Mara Quell",
    WRITER: "Pell Cartographer",
}


@pytest.fixture(scope="module")
def names(tmp_path_factory: pytest.TempPathFactory) -> AgentNames:
    return registry_names(tmp_path_factory.mktemp("roles"), REGISTRY, WRITER)


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        (
            "- Influenced by: debater-07 (via coder-01's digest)",
            {"debater-07": "credit", "coder-01": "mention"},
        ),
        (
            "- Influenced by: debater-07's doubt, through coder-01's summary",
            {"debater-07": "credit", "coder-01": "mention"},
        ),
        (
            "- Influenced by: debater-07 (as relayed by Coder-01)",
            {"debater-07": "credit", "coder-01": "mention"},
        ),
        (
            "- **Surprised by:** debater-07's framing by way of Lin Okafor",
            {"debater-07": "credit", "coder-01": "mention"},
        ),
        (
            "- Reinforced: Ruth Vega's census, passed along by debater-07",
            {"coder-03": "credit", "debater-07": "mention"},
        ),
        (
            "- Becoming: the one who kept debater-07's doubt, VIA coder-01's digest.",
            {"debater-07": "credit", "coder-01": "mention"},
        ),
        # the one credited is the one before "via": a carrier only after it
        (
            "- Influenced by: coder-01 via debater-07's summary",
            {"coder-01": "credit", "debater-07": "mention"},
        ),
        # ... or whose relay held the idea
        (
            "- Influenced by: debater-07's doubt through coder-01's summary",
            {"debater-07": "credit", "coder-01": "mention"},
        ),
        (
            "- Influenced by: debater-07's census, from Lin Okafor's weekly recap",
            {"debater-07": "credit", "coder-01": "mention"},
        ),
        # work on the other's own thing is no carrying
        ("- Influenced by: working through coder-01's proof", {"coder-01": "credit"}),
        ("- Influenced by: coder-01's digest", {"coder-01": "credit"}),
        ("- Learned from coder-01's summary of the thread.", {"coder-01": "credit"}),
    ],
)
def test_one_who_only_carried_an_idea_is_no_credit(
    names: AgentNames, line: str, expected: dict
) -> None:
    assert links_of(names, line) == expected


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        # a thing challenges the other's idea: no reply of the writer's
        ("- This challenges philosopher-03's framing.", {"philosopher-03": "mention"}),
        ("- The census CHALLENGES philosopher-03's framing.", {"philosopher-03": "mention"}),
        ("- Posted #12, which disputes debater-07's count.", {"debater-07": "mention"}),
        ("- It directly counters debater-07's thesis.", {"debater-07": "mention"}),
        ("- Evidence refutes Debater-07's claim.", {"debater-07": "mention"}),
        ("- The data challenged philosopher-03's claim.", {"philosopher-03": "mention"}),
        # the writer's own challenge, like "disagreed with X": an exchange
        ("- Challenged philosopher-03's claim on #12.", {"philosopher-03": "reply"}),
        ("- I challenged philosopher-03 on #12.", {"philosopher-03": "reply"}),
        ("- Publicly rebutted debater-07's claim.", {"debater-07": "reply"}),
        ("- Posted on #12 and countered debater-07.", {"debater-07": "reply"}),
        ("- My reply challenged debater-07's claim on #12.", {"debater-07": "reply"}),
        ("- This counters Ines Halloran's framing.", {"philosopher-03": "mention"}),
        # a thing of the writer's that challenges the other itself: an exchange
        ("- Posted a rebuttal that challenged debater-07 directly.", {"debater-07": "reply"}),
    ],
)
def test_an_idea_challenged_by_a_thing_is_no_reply(
    names: AgentNames, line: str, expected: dict
) -> None:
    assert links_of(names, line) == expected


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        # a line in capitals: the verb counts, the capitalised words after it are no agent
        ("- debater-07 Forced This.", {"debater-07": "credit"}),
        ("- Debater-07 Convinced Me On #12.", {"debater-07": "credit"}),
        ("- DEBATER-07 POINTED OUT THE GAP.", {"debater-07": "credit"}),
        ("- Oskar Brandt Pointed Out The Gap.", {"debater-07": "credit"}),
        ("- contrarian-01 CHALLENGED my take", {"contrarian-01": "reply"}),
        ("- Mara Quell Disagreed With Me.", {"contrarian-01": "reply"}),
        (
            "- Replied On #12 To Debater-07 And On #13 To Coder-01",
            {"debater-07": "reply", "coder-01": "reply"},
        ),
        # ... and the passive, in any case
        ("- My post was REPLIED TO by contrarian-01.", {"contrarian-01": "reply"}),
        ("- Becoming: the critic, responded to by Mara Quell.", {"contrarian-01": "reply"}),
        # another agent as the object: it forced another, not the writer
        ("- debater-07 Forced Ines Halloran to rethink.", {"debater-07": "mention"}),
        ("- Challenged Mara Quell's take.", {"contrarian-01": "reply"}),
    ],
)
def test_verbs_in_any_case(names: AgentNames, line: str, expected: dict) -> None:
    assert links_of(names, line) == expected


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        # a vote's word naming a kind of engagement votes for no one
        (
            "- Bare-upvote update: #4767 improved from 86% to 65% after coder-03's rescue.",
            {"coder-03": "mention"},
        ),
        ("- BARE UPVOTES on #12 fell after Ruth Vega's rescue.", {"coder-03": "mention"}),
        (
            "- #4732 rescued from 18 bare upvotes by coder-03 + debater-07.",
            {"coder-03": "mention", "debater-07": "mention"},
        ),
        ("- Traced the upvote epidemic (debater-07's cross-case).", {"debater-07": "mention"}),
        ("- Upvote ratio: coder-01 leads the board.", {"coder-01": "mention"}),
        # votes stay votes
        ("- Upvoted coder-01's post.", {"coder-01": "vote"}),
        (
            "- Pass 2 votes: 🚀 coder-01/#4257, 👍 debater-07 sol 300",
            {"coder-01": "vote", "debater-07": "vote"},
        ),
        ("- Upvotes: coder-03, debater-07", {"coder-03": "vote", "debater-07": "vote"}),
    ],
)
def test_a_kind_of_vote_as_a_noun_is_no_vote(names: AgentNames, line: str, expected: dict) -> None:
    assert links_of(names, line) == expected


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        # the statement acts on the other's thing: it gave the writer nothing
        ("- Becoming: the skeptic who answers debater-07's doubt.", {"debater-07": "mention"}),
        ("- Becoming: someone who refuses coder-01's framing.", {"coder-01": "mention"}),
        ("- Becoming: the target of debater-07's doubt.", {"debater-07": "mention"}),
        ("- **Becoming:** someone who fixed coder-01's bug.", {"coder-01": "mention"}),
        ("- Becoming: the CRITIC OF Ruth Vega's census.", {"coder-03": "mention"}),
        (
            "- Becoming: the archivist debater-07's doubt could not shake.",
            {"debater-07": "mention"},
        ),
        (
            "- Evolving position: the one who outlived debater-07's doubt.",
            {"debater-07": "mention"},
        ),
        # held against it, but the sentence grants it something: it moved the writer
        (
            "- Becoming: the census survived Ruth Vega's challenge but needs refinement.",
            {"coder-03": "credit"},
        ),
        # what the other gave, and the statement says so
        ("- Becoming: someone who carries debater-07's doubt.", {"debater-07": "credit"}),
        ("- Becoming: a builder on coder-01's parser.", {"coder-01": "credit"}),
        ("- Becoming: a patchwork of coder-01's ideas.", {"coder-01": "credit"}),
        ("- Becoming: less sure, after debater-07's doubt.", {"debater-07": "credit"}),
        ("- Becoming: someone shaped by Oskar Brandt's doubt.", {"debater-07": "credit"}),
    ],
)
def test_a_statement_that_acts_on_the_others_thing(
    names: AgentNames, line: str, expected: dict
) -> None:
    assert links_of(names, line) == expected
