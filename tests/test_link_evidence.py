"""Lines a reader of an unseen world checks a dossier against, in forms the other link tests do
not hold: a name under a credit label that did something else than give, a second reply of
one sentence, a disagreement, pushback, a changed vote. Each is read as a careful reader reads
it; where a form does not say the other shaped the writer, the name is a mention."""

from __future__ import annotations

import pytest

from soulscope.history.mentions import thread_ids
from soulscope.history.names import AgentNames
from tests.support.linkworld import links_of as links
from tests.support.linkworld import registry_names

WRITER = "zion-archivist-04"
REGISTRY = {
    "zion-coder-01": "Lin Okafor",
    "zion-coder-03": "Ruth Vega",
    "zion-debater-07": "Oskar Brandt",
    "zion-philosopher-03": "Ines Halloran",
    WRITER: "Pell Archivist",
}


@pytest.fixture(scope="module")
def names(tmp_path_factory: pytest.TempPathFactory) -> AgentNames:
    return registry_names(tmp_path_factory.mktemp("evidence"), REGISTRY, WRITER)


def links_of(names: AgentNames, line: str) -> dict[str, str]:
    return links(names, line, "## Frame 4 — 2026-03-04")


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("- Reinforced: my parser, which coder-01 had tried to break", {"coder-01": "mention"}),
        (
            "- **Reinforced:** the ledger survived coder-03's attempt to break it",
            {"coder-03": "mention"},
        ),
        (
            "- Reinforced: my claim held although debater-07 attacked it on #12",
            {"debater-07": "mention"},
        ),
        ("- Influenced by: Ruth Vega, who failed to sink the proposal", {"coder-03": "mention"}),
        ("- Reinforced: coder-03's stress test, which the parser passed", {"coder-03": "credit"}),
    ],
)
def test_a_name_that_attacked_what_held_is_no_credit(
    names: AgentNames, line: str, expected: dict
) -> None:
    assert links_of(names, line) == expected


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        (
            "- Replied on #12 to coder-01 and on #13 to debater-07.",
            {"coder-01": "reply", "debater-07": "reply"},
        ),
        (
            "- Replied on #12 to coder-01, then on #15 to Ruth Vega.",
            {"coder-01": "reply", "coder-03": "reply"},
        ),
        (
            "- Replied to coder-01 on #12 and to debater-07 on #13.",
            {"coder-01": "reply", "debater-07": "reply"},
        ),
        (
            "- Replied on #12 to coder-01 and on #13 read debater-07's post.",
            {"coder-01": "reply", "debater-07": "mention"},
        ),
    ],
)
def test_every_reply_of_one_sentence(names: AgentNames, line: str, expected: dict) -> None:
    assert links_of(names, line) == expected


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("- Disagreed with debater-07 on #12.", {"debater-07": "reply"}),
        (
            "- **Disagreed with:** debater-07, coder-03",
            {"debater-07": "reply", "coder-03": "reply"},
        ),
        ("- Argued with Ruth Vega on #14 about the ledger.", {"coder-03": "reply"}),
        ("- debater-07 disagreed with me on #12.", {"debater-07": "reply"}),
        ("- **Pushback from:** debater-07 on my ledger claim", {"debater-07": "reply"}),
        ("- Got pushback from coder-01 on #9.", {"coder-01": "reply"}),
        # another's disagreement, or one denied, is no reply of the writer's
        (
            "- coder-01 disagreed with debater-07 on #12.",
            {"coder-01": "mention", "debater-07": "mention"},
        ),
        ("- Did not disagree with debater-07.", {"debater-07": "mention"}),
        (
            "- Influenced by: coder-01; disagreed with debater-07",
            {"coder-01": "credit", "debater-07": "mention"},
        ),
    ],
)
def test_a_disagreement_is_an_exchange(names: AgentNames, line: str, expected: dict) -> None:
    assert links_of(names, line) == expected


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("- Bare-upvote update: flipped my vote after coder-03's rescue.", {"coder-03": "credit"}),
        ("- Reversed my stance on #12 after debater-07's numbers.", {"debater-07": "credit"}),
        ("- Retracted the claim after Ruth Vega's counterexample.", {"coder-03": "credit"}),
        # a vote is still a vote, and a time is still a time
        ("- Upvoted coder-03's rescue post.", {"coder-03": "vote"}),
        ("- Flipped through the archive after coder-03's return.", {"coder-03": "mention"}),
    ],
)
def test_a_mind_that_turned_after_the_others_work(
    names: AgentNames, line: str, expected: dict
) -> None:
    assert links_of(names, line) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("- Influenced by: debater-07 (the #5580 rescue)", [5580]),
        ("- Reread the #4772 failure, then #4790.", [4772, 4790]),
        ("- Ranked it the #1 priority.", []),
    ],
)
def test_a_thread_after_the(text: str, expected: list[int]) -> None:
    assert thread_ids(text) == expected


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        (
            "- Becoming: the skeptic, after debater-07 dismantled my claim on #12.",
            {"debater-07": "credit"},
        ),
        ("- Ruth Vega demolished my cache argument; I rewrote it.", {"coder-03": "credit"}),
        ("- coder-01 refuted my census on #9.", {"coder-01": "credit"}),
        # another's claim, or one that only tried
        (
            "- coder-01 refuted debater-07's census on #9.",
            {"coder-01": "mention", "debater-07": "mention"},
        ),
        ("- coder-01 tried and failed to dismantle my claim.", {"coder-01": "mention"}),
    ],
)
def test_one_who_dismantled_the_writers_claim_moved_it(
    names: AgentNames, line: str, expected: dict
) -> None:
    assert links_of(names, line) == expected


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        (
            "- Oskar Brandt's critique of the grid on #40 was right: the projection lies.",
            {"debater-07": "credit"},
        ),
        ("- coder-01's audit of my cache was decisive.", {"coder-01": "credit"}),
        # what it was about, with no verdict of the writer's
        ("- coder-01's essay on the flood in #40 was long.", {"coder-01": "mention"}),
    ],
)
def test_a_verdict_on_what_the_others_work_was_about(
    names: AgentNames, line: str, expected: dict
) -> None:
    assert links_of(names, line) == expected
