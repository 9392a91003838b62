"""Display names in the forms the link reader met on unseen worlds: a surname with an
apostrophe ("Conor O'Brien answered my objection"), a list of display names after a reply
("Responding to Bram Okafor and Yuki Tanaka"), a work cited ("Cited Saoirse Kealy's census"),
thanks ("@tw-navigator-01 thanks for the chart") and a quotation signed with a name
('"..." — Zoë Marlowe'). Each is read as a careful reader reads it."""

from __future__ import annotations

import pytest

from soulscope.history.names import AgentNames
from tests.support.linkworld import links_of, registry_names

WRITER = "tw-scribe-04"
REGISTRY = {
    "tw-navigator-01": "Zoë Marlowe",
    "tw-smith-02": "Conor O'Brien",
    "tw-oracle-03": "Inès Duval",
    WRITER: "Bram Okafor",
    "tw-warden-05": "Saoirse Kealy",
    "tw-tinker-06": "Yuki Tanaka",
    "tw-herald-07": "Dmitri D\u2019Souza",
}


@pytest.fixture(scope="module")
def names(tmp_path_factory: pytest.TempPathFactory) -> AgentNames:
    return registry_names(tmp_path_factory.mktemp("display"), REGISTRY, WRITER)


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        # a surname with an apostrophe as the one who replied, or gave
        (
            "- Conor O'Brien answered my objection on #44 with hook readings.",
            {"tw-smith-02": "reply"},
        ),
        ("- Dmitri D\u2019Souza replied to my census.", {"tw-herald-07": "reply"}),
        ("- Conor O'Brien's tally was decisive.", {"tw-smith-02": "credit"}),
        # every display name of a list replied to, not the first alone
        (
            "- Responding to Zoë Marlowe and Yuki Tanaka on #45: the census disagrees.",
            {"tw-navigator-01": "reply", "tw-tinker-06": "reply"},
        ),
        (
            "- In reply to Conor O'Brien, Inès Duval and Yuki Tanaka on #46.",
            {"tw-smith-02": "reply", "tw-oracle-03": "reply", "tw-tinker-06": "reply"},
        ),
        # ... and of ids, as before
        (
            "- Responding to tw-smith-02 and tw-tinker-06 on #45.",
            {"tw-smith-02": "reply", "tw-tinker-06": "reply"},
        ),
        # a work cited is a work used; one who cited the writer's is not
        ("- Cited Saoirse Kealy's mooring census on #46.", {"tw-warden-05": "credit"}),
        ("- Citing smith-02's hook counts in the history.", {"tw-smith-02": "credit"}),
        ("- Tinker-06 cited my census in the ledger.", {"tw-tinker-06": "mention"}),
        # the name that signs a quotation: whose words they are
        (
            '- > "Tides keep better books than clerks." \u2014 Zoë Marlowe',
            {"tw-navigator-01": "mention"},
        ),
        # thanks for what the other gave: a credit; thanks the other gave the writer: none
        ("- @tw-navigator-01 thanks for the east channel chart.", {"tw-navigator-01": "credit"}),
        ("- Zoë Marlowe, thank you for the soundings.", {"tw-navigator-01": "credit"}),
        ("- Thanks, Yuki Tanaka, for the ledger.", {"tw-tinker-06": "credit"}),
        ("- Tinker-06 thanked me for the census.", {"tw-tinker-06": "mention"}),
        # a display name that is not set as a name stays a phrase
        ("- Yuki Tanaka style ledgers are everywhere.", {}),
    ],
)
def test_display_names_as_a_reader_reads_them(names: AgentNames, line: str, expected: dict) -> None:
    assert links_of(names, line) == expected


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        # a relationship whose nature says the other gave the writer something: a credit
        (
            "- Relationships: Yuki Tanaka (taught me to measure), tw-herald-07 (rival)",
            {"tw-tinker-06": "credit", "tw-herald-07": "relationship"},
        ),
        (
            "- Relationship: tw-smith-02 — their hook readings were the seed for my ledger.",
            {"tw-smith-02": "credit"},
        ),
        # ... not one that denies it, nor the writer's own act
        (
            "- Relationships: Conor O'Brien (never taught me a thing)",
            {"tw-smith-02": "relationship"},
        ),
        (
            "- Relationships: tw-smith-02 (I taught my cousin), Zoë Marlowe (ally)",
            {"tw-smith-02": "relationship", "tw-navigator-01": "relationship"},
        ),
    ],
)
def test_a_relationship_that_gave(names: AgentNames, line: str, expected: dict) -> None:
    assert links_of(names, line) == expected
