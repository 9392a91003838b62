"""The action kinds live in one table (``soulscope.sim.actions.KINDS``): the decision schema,
the answer's check, the prompt's rules and the frame's effects all come from it, so a new kind is
one entry there."""

from __future__ import annotations

from soulscope.sim import actions
from soulscope.sim.actions import Action, ActionKind, DecisionError, Turn
from soulscope.sim.brain import DECISION_SCHEMA, Feed, Request, validate
from soulscope.sim.community import Community, Follow
from soulscope.soul.parse import parse


def _request() -> Request:
    soul = parse(b"# Ada\n\n## Identity\n- **ID:** ada\n", agent_id="ada")
    return Request("ada", 3, "2026-05-03", 0, soul, Feed(agents=("ada", "bo")), ("code",))


def test_schema_check_and_rules_come_from_the_table() -> None:
    item = DECISION_SCHEMA["properties"]["actions"]["items"]
    assert item["properties"]["type"]["enum"] == list(actions.KINDS)
    for kind in actions.KINDS.values():
        assert set(kind.fields) <= set(item["properties"])
    rules = actions.rules("c/code")
    assert "c/code" in rules and all(
        k.rule.split()[0] in rules for k in actions.KINDS.values() if k.rule
    )
    request = _request()
    answer = {"actions": [{"type": "follow", "agent": "bo"}, {"type": "lurk"}], "relationships": []}
    assert [a.kind for a in validate(answer, request).actions] == ["follow", "lurk"]
    for odd in ("dance", ["post"], {"k": 1}, 7, None):
        try:
            validate({"actions": [{"type": odd}], "relationships": []}, request)
        except DecisionError as exc:
            assert "one of post, comment, vote, follow, lurk" in str(exc)
        else:
            raise AssertionError(f"the kind {odd!r} was accepted")


def test_a_new_kind_is_one_entry(monkeypatch) -> None:
    """A 'mute' kind added to the table alone is in the schema, checked, and takes effect."""

    def check(a: dict, request: Request, where: str) -> Action:
        agent = actions.text_of(a, "agent")
        if agent not in request.feed.agents:
            raise DecisionError(f"{where}: '{agent}' is not an agent of this world")
        return Action("mute", agent=agent)

    def effect(t: Turn, a: Action) -> None:
        t.took("mute", Follow(t.frame, t.agent, a.agent), f"Muted {a.agent}")

    mute = ActionKind("mute", {"agent": {"type": "string"}}, check, effect, "mute only agents")
    monkeypatch.setitem(actions.KINDS, "mute", mute)
    monkeypatch.setattr(actions, "ACTION_KINDS", tuple(actions.KINDS))
    assert actions.item_schema()["properties"]["type"]["enum"][-1] == "mute"
    decision = validate({"actions": [{"type": "mute", "agent": "bo"}]}, _request())
    turn = Turn(3, "2026-05-03", "ada", Community(), set(), 1, 1)
    for a in decision.actions:
        actions.KINDS[a.kind].effect(turn, a)
    assert turn.bullets == ["Muted bo"] and turn.counts == {"mute": 1}
    assert "mute only agents" in actions.rules("c/code")


def test_the_decisions_labels_come_from_the_format_table() -> None:
    """A decision holds the one-string labels of ``soul.format``'s table by their field, so a
    label added to that table is asked for, checked and written with no field to add here."""
    from dataclasses import fields

    from soulscope.sim.brain import TEXT_FIELDS, Decision
    from soulscope.soul.format import TEXT_LABELS

    assert {f.name for f in fields(Decision)} == {"actions", "texts", "relationships"}
    assert tuple(x.field for x in TEXT_LABELS) == TEXT_FIELDS
    answer = {"actions": [{"type": "lurk"}], **{name: f"the {name}" for name in TEXT_FIELDS}}
    decision = validate(answer, _request())
    assert all(decision.text(name) == f"the {name}" for name in TEXT_FIELDS)
    assert set(DECISION_SCHEMA["required"]) >= set(TEXT_FIELDS)
