"""Turning points as a reader marks them: against the labelled arcs of both eras (the labels are
in tests/support/turn_labels.py), and on arcs made in forms the corpus does not use."""

from __future__ import annotations

import pytest

from soulscope.soul.chapters import as_words, outline, seed_changes
from soulscope.soul.parse import parse
from soulscope.soul.trajectory import arc
from soulscope.soul.turns import cue_mask, declared, topic_of, without_past
from tests.support.paths import corpus_dir
from tests.support.turn_labels import ALSO, TURNS, score


def _labelled() -> dict[tuple[str, str], list[int]]:
    out = {}
    for world, agent in TURNS:
        path = corpus_dir(world, "memory", f"{agent}.md")
        out[(world, agent)] = arc(parse(path.read_bytes(), agent)).turning_positions()
    return out


def test_the_labels_cover_both_eras_and_a_dozen_arcs() -> None:
    worlds = [w for w, _ in TURNS]
    assert len(TURNS) >= 12 and worlds.count("rappterbook-later") >= 2
    assert sum(map(len, TURNS.values())) >= 40
    for key, turns in TURNS.items():  # a statement is a turn or a maybe, not both
        assert not set(turns) & set(ALSO.get(key, {})), key


def test_turning_points_match_the_readers_within_one_statement() -> None:
    precision, recall, notes = score(_labelled())
    assert precision >= 0.85 and recall >= 0.85, (precision, recall, notes)


def test_short_arcs_turn_where_a_reader_sees_them_turn() -> None:
    # Arcs of 2 to 9 statements: two seeds in a row, a seed in the second of two statements, a
    # declared change right before a seed all turn (the model before turned one in two at most).
    labelled = _labelled()
    short = [k for k in TURNS if len(arc_of(*k)) < 10]
    assert len(short) >= 20 and any(w == "rappterbook-later" for w, _ in short)
    precision, recall, notes = score(labelled, short)
    assert precision >= 0.9 and recall >= 0.9, (precision, recall, notes)
    assert labelled[("rappterbook", "zion-storyteller-09")] == [1]
    assert labelled[("rappterbook", "zion-welcomer-09")] == [7, 8]


def arc_of(world: str, agent: str):  # noqa: ANN201
    return arc(parse(corpus_dir(world, "memory", f"{agent}.md").read_bytes(), agent))


def test_every_seed_change_of_the_labelled_arcs_turns() -> None:
    for (world, agent), turning in _labelled().items():
        statements = arc(parse(corpus_dir(world, "memory", f"{agent}.md").read_bytes(), agent))
        seeds = seed_changes(as_words(statements.texts, statements.headings()))
        missed = [p for p, v in enumerate(seeds) if v and p not in turning]
        assert not missed, (agent, missed)


def soul_of(frames: list[tuple[str, str]], label: str = "Becoming") -> bytes:
    """A soul of frames given as (what the heading says after the date, statement)."""
    out = ["# Made Agent\n"]
    for i, (tail, text) in enumerate(frames, 1):
        heading = f"## Frame {i} — 2026-05-{1 + i // 4:02d} ({i % 24:02d}:10 UTC){tail}"
        out.append(f"\n{heading}\n- Walked the shore.\n- {label}: {text}\n")
    return "".join(out).encode()


LIGHTHOUSE = [
    "the lighthouse keeper who trims the lamp before the fog rolls in",
    "the lighthouse keeper logging every ship that passes the point",
    "lighthouse keeper: the lamp oil runs low in winter storms",
    "the keeper of the light counts fog horns through the night",
    "the lighthouse keeper paints the tower white again after the gale",
    "the lighthouse keeper teaching the lamp to the new assistant",
]
TIDES = [
    "tide tables for the harbour pilots, read against the moon",
    "the tide reader warns the pilots of the spring tide surge",
    "the moon and the spring tides: the harbour pilots trust the tables",
    "tables of the neap tides for the harbour pilots this month",
    "the tide reader who charts the harbour shoals at low water",
]


def test_a_new_seed_turns_where_its_heading_first_names_it() -> None:
    # Headings in another form than the corpus's: "Seed — ..." in mixed case, in brackets.
    frames = [("", t) for t in LIGHTHOUSE] + [
        (" [seed — The Drowned Orchard]", "the lighthouse keeper plants apple trees in salt"),
        (" [Seed — the drowned orchard]", "apple trees in salt water: the keeper grafts roots"),
        (" [SEED — the drowned orchard]", "the keeper's orchard blooms under the tide line"),
        ("", "the keeper's orchard fruits under the tide at last"),
    ]
    statements = arc(parse(soul_of(frames)))
    assert topic_of(statements[6].heading) == {"drowned", "orchard"}
    assert 6 in statements.turning_positions()
    assert 7 not in statements.turning_positions()  # the same seed, in other letters


def test_the_agent_declaring_its_change_turns_in_words_rare_in_its_arc() -> None:
    frames = [("", t) for t in LIGHTHOUSE] + [
        ("", "I stopped being the keeper; the sea charts call me now, tide by tide"),
        *(("", t) for t in TIDES),
    ]
    statements = arc(parse(soul_of(frames)))
    assert 6 in statements.turning_positions()
    # "From ... to" in every statement is the arc's style, not a change each time.
    habit = [cue_mask(f"the keeper. From lamp {i} to lamp {i + 1}.") for i in range(8)]
    assert declared(habit) == [0.0] * 8
    masks = [cue_mask(t) for t in ("Less keeper, more cartographer now.", "the keeper.")]
    assert declared(masks)[0] > 0.0 and declared(masks)[1] == 0.0
    assert declared([cue_mask("I was wrong about the lamp; it needs revision."), 0])[0] > 0


def test_counters_and_fragments_never_turn() -> None:
    # Only the counter moves ("Bet #27" -> "Bet #28", "twelfth" -> "thirteenth"): no turn.
    frames = [("", f"Bet #{27 + i}. The harbour market prices the spring tides") for i in range(6)]
    frames += [
        ("", f"{w} bet. The harbour market prices the spring tides")
        for w in ("Twelfth", "Thirteenth", "Fourteenth", "Fifteenth", "Sixteenth", "Seventeenth")
    ]
    assert arc(parse(soul_of(frames))).turning_positions() == []
    # A two-word fragment amid a stretch is not where the arc turns, however new its words.
    frames = [("", t) for t in LIGHTHOUSE] + [("", "Interface Auditor.")] + [("", t) for t in TIDES]
    turning = arc(parse(soul_of(frames))).turning_positions()
    assert 6 not in turning and turning


def test_the_words_of_where_it_came_from_are_not_its_own() -> None:
    assert without_past("the planner. From key candidate to proposing the plan.").split() == [
        "the",
        "planner.",
        "proposing",
        "the",
        "plan.",
    ]
    assert without_past("From 3 to 4 bets") == "From 3 to 4 bets"


@pytest.mark.parametrize("n", [2, 3, 4, 5, 8])
def test_a_short_arc_that_the_world_turns_has_its_turn(n: int) -> None:
    texts = (LIGHTHOUSE + TIDES)[: n - 1] + [
        "the keeper reads the new seed: tides of the drowned orchard"
    ]
    headings = [f"Frame {i}" for i in range(n - 1)] + ["Frame 9 — SEED: Drowned Orchard"]
    assert outline(texts, headings=headings).turning_positions() == [n - 1]
    assert outline(texts).turning_positions() == []  # (no heading names it: nothing says so)


def test_turning_points_by_meaning_keep_the_seed_changes(later_world, capsys) -> None:
    # zion-reviewer-01's frames name a new seed each ("(decay seed)", "(murder mystery seed"):
    # judged by meaning (the embedding model), the arc still turns where the world did.
    import json

    from soulscope.cli import main

    args = ["becoming", "zion-reviewer-01", "--world", str(later_world), "--json"]
    main(args)
    by_words = [r["line"] for r in json.loads(capsys.readouterr().out) if r["turning_point"]]
    main([*args, "--semantic"])
    rows = json.loads(capsys.readouterr().out)
    assert by_words and [r["line"] for r in rows if r["turning_point"]] == by_words


def test_a_short_arc_turns_where_a_new_role_comes_in_new_words() -> None:
    # Forms the corpus does not use: dashes, semicolons, capitals, a role in brackets.
    frames = [
        ("", "The Cartographer — maps the river delta at low water."),
        ("", "the cartographer; charting the delta's islands at low water"),
        ("", "Ferryman (now): rowing travellers across the strait at dusk"),
        ("", "FERRYMAN: the strait at dusk again, travellers and their fares"),
    ]
    statements = arc(parse(soul_of(frames)))
    assert statements.turning_positions() == [2]
    assert [s.kind for s in statements] == ["first", "refinement", "shift", "refinement"]
    assert [s.chapter for s in statements] == [1, 1, 2, 2]
    # A new name for the same stretch, in its words, is no turn: the ferryman after it is.
    frames[2] = ("", "the Delta Surveyor: charting the river delta's islands")
    assert arc(parse(soul_of(frames))).turning_positions() == [3]


def test_a_short_arc_that_renames_itself_every_time_turns_by_seeds_alone() -> None:
    roles = ["miller", "tanner", "cooper", "fletcher", "chandler", "glazier"]
    frames = [
        ("", f"the {r}. From {r}'s yard to the {r}'s market, trade {i}")
        for i, r in enumerate(roles)
    ]
    assert arc(parse(soul_of(frames))).turning_positions() == []
    frames[3] = (" — Seed: The Flood", frames[3][1])
    statements = arc(parse(soul_of(frames)))
    assert statements.turning_positions() == [3]
    assert statements.shift_positions() == [3]


def test_a_declared_turn_is_where_a_short_arc_turns_not_the_role_after_it() -> None:
    frames = [
        ("", "the lamp keeper who trims the wick before the fog"),
        ("", "the lamp keeper, logging the ships that pass the point"),
        ("", "the lamp keeper. I was wrong about the light: no longer a keeper of it."),
        ("", "the ferryman, rowing travellers across the strait"),
        ("", "the ferryman at the strait, counting fares at dusk"),
    ]
    statements = arc(parse(soul_of(frames)))
    assert statements.turning_positions() == [2]
    assert [s.kind for s in statements][2:] == ["shift", "refinement", "refinement"]
