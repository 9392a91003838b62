"""Roles, shift classes, from-mismatches and drift of identity arcs."""

from __future__ import annotations

from dataclasses import replace

import pytest

from soulscope.soul.parse import parse
from soulscope.soul.pieces import ArcPieces, arc_pieces
from soulscope.soul.trajectory import (
    KINDS,
    arc,
    classify,
    drift,
    iter_arc,
    lexical_distance,
    role_of,
    summarize,
)


@pytest.mark.parametrize(
    ("text", "role"),
    [
        (
            "the integration testing advocate who writes actual test code",
            "integration testing advocate",
        ),
        (
            "reluctant empiricist — efficient untested code is still untested code.",
            "reluctant empiricist",
        ),
        ("the twenty-seventh bettor who prices everything", "bettor"),
        ("Twenty-eighth bet. The Bayesian bettor of the hubs.", "Bayesian bettor"),
        ("the 15th archivist, #3 in the queue", "archivist"),
        ("a sceptic with teeth", "sceptic"),
        (
            "the agent who patches before proposing. Then ships.",
            "agent who patches before proposing",
        ),
        ("less solo coder, more team lead. Proposing contracts.", "team lead"),
        ("interface auditor", "interface auditor"),
    ],
)
def test_role_is_the_normalised_identity_noun_phrase(text: str, role: str) -> None:
    assert role_of(text) == role


def test_counters_qualifiers_and_articles_do_not_make_a_new_role() -> None:
    prev = "the twenty-seventh bet: the market maker."
    assert classify("the market maker who prices governance.", "the market maker.") == "refinement"
    assert classify("the 28th market maker", "the market maker") == "refinement"
    assert classify("twenty-eighth bet. the market maker.", prev) == "repeat"
    assert classify("the empiricist who ships v1", "the reluctant empiricist") == "refinement"
    assert classify("the sim evangelist.", "the market maker.") == "shift"


def test_a_role_held_earlier_is_a_return_and_counts_as_a_shift() -> None:
    held = [("market", "maker"), ("sim", "evangelist")]
    assert classify("the market maker, back at the book.", "the sim evangelist.", held) == "return"
    assert (
        classify("the market maker, back at the book.", "the sim evangelist.", held[1:]) == "shift"
    )


def test_positions_shift_only_when_they_claim_a_change_of_stance() -> None:
    prev = "the bridge role maps conversations after they happen."
    for text, kind in [
        ("Twelfth bridge. The bridge role has shifted from mapping to facilitation.", "shift"),
        ("conceded the premise. The claim needs refinement.", "shift"),
        ("I was wrong about the canon: it is a bibliography.", "shift"),
        ("Thirteenth bridge. The bridge role extends from threads to channels.", "refinement"),
        ("Seed shifted from constitution to theology. First deployment.", "refinement"),
        ("Fourteenth bridge. The community admits nothing.", "refinement"),
        ("Fifteenth deployment. Without abandoning the method, a new case.", "refinement"),
    ]:
        assert classify(text, prev, position=True) == kind, text


SOUL = """# Agent

## Frame 1 — 2026-03-01
- Becoming: the market maker. Prices threads.

## Frame 2 — 2026-03-02
- Becoming: the market maker who prices governance.

## Frame 3 — 2026-03-03
- Becoming: the sim evangelist. From market maker to demanding running code.

## Frame 4 — 2026-03-04
- Becoming: the type author. From schema author to writing shared types.

## Frame 5 — 2026-03-05
- Becoming: the market maker, back at the order book. From type author to prices again.
"""


def test_arc_classes_mismatches_and_magnitudes() -> None:
    # A short arc that takes a new role in new words at frames 3 to 5: each is a turning point,
    # so a shift (frame 5 a return to the market maker), as against the previous statement alone.
    streamed = list(iter_arc(parse(SOUL)))
    assert [s.kind for s in streamed] == ["first", "refinement", "shift", "shift", "return"]
    statements = arc(parse(SOUL))
    assert statements.turning_positions() == [2, 3, 4]
    assert [s.kind for s in statements] == ["first", "refinement", "shift", "shift", "return"]
    assert [s.shift for s in statements] == [False, False, True, True, True]
    # Frame 4 says it comes from "schema author", but frame 3 was the sim evangelist.
    assert [s.from_mismatch for s in statements] == [False, False, False, True, False]
    assert statements[0].magnitude == 0.0
    assert all(0.0 <= s.magnitude <= 1.0 for s in statements)
    assert statements[1].magnitude < statements[3].magnitude


def test_an_arc_gives_back_every_statement_as_it_was_found() -> None:
    # Statements outside frames, a repeated frame heading, bytes that are not UTF-8 and markup
    # in a heading: what the arc holds as columns (and sends in pieces) reads back the same.
    data = (
        SOUL
        + "\n## Notes\n- Becoming: the [bold]archivist[/bold]. From type author to archives.\n"
        + "\n## Frame 5 — 2026-03-05\n- Becoming: the archivist again.\n"
        + "\n## Frame 6 BYTES — 2026-03-06 (10:30 UTC)\n- Becoming: the archivist.\n"
    ).encode()
    soul = parse(data.replace(b"BYTES", b"\xff\xfe"))
    streamed = list(iter_arc(soul))
    statements = arc(soul)
    # The stream knows no chapters (they are the whole arc's); the rest is the same.
    assert all(s.chapter == 0 and not s.turning_point for s in streamed)
    assert all(s.chapter >= 1 for s in statements)
    found = [
        replace(f, chapter=s.chapter, turning_point=s.turning_point, kind=s.kind)
        for f, s in zip(streamed, statements, strict=True)
    ]
    assert list(statements) == found and len(statements) == 8
    assert statements[5].heading == "Notes" and statements[5].frame_index is None
    assert statements[5].to_role == "archives" and statements[5].from_mismatch
    assert statements[6].duplicate_frame and statements[6].frame_label == "5"
    assert statements[7].heading == "Frame 6 \ufffd\ufffd — 2026-03-06 (10:30 UTC)"
    assert statements[7].time == "10:30"
    assert statements[-1] == found[-1] and statements[2:4] == found[2:4]
    assert list(reversed(statements)) == found[::-1]
    assert statements.shift_positions() == [i for i, s in enumerate(found) if s.shift]
    assert statements.shift_count() == sum(s.shift for s in found) > 0
    assert summarize("a", soul, None, statements) == summarize("a", soul)  # (columns, stream)
    received = ArcPieces()
    for kind, value in arc_pieces(statements):
        assert kind == "arc"
        received.add(value)
    assert received.arc(soul.frames.columns) == found
    with pytest.raises(IndexError):
        statements[8]


def test_lexical_distance_ignores_counters_and_stop_words() -> None:
    assert (
        lexical_distance("Twentieth bet. The market maker.", "Thirtieth bet. the market maker") == 0
    )
    assert lexical_distance("market maker", "sim evangelist") == 1


def test_semantic_drift_is_the_cosine_distance_of_the_real_model() -> None:
    from soulscope.recall.semantic import MiniLM, embed

    statements = arc(parse(SOUL))
    encoder = MiniLM(device="cpu")
    values = drift(statements, lambda texts: embed(texts, encoder, None))
    assert len(values) == len(statements) and values[0] == 0.0
    assert all(0.0 <= v <= 1.0 for v in values)
    # A refinement moves less than a jump to another role.
    assert values[1] < values[2]
    assert drift(statements) == [s.magnitude for s in statements]


TURNS = """# Agent

## Frame 1 — 2026-03-01
- Becoming: the market maker who prices threads.

## Frame 2 — 2026-03-02
- Becoming: the market maker who prices governance threads.

## Frame 3 — 2026-03-03
- Becoming: the Market-Maker, pricing governance again.

## Frame 4 — 2026-03-04
- Becoming: the market maker. I was wrong about pricing votes: no longer a market at all.

## Frame 5 — 2026-03-05
- Becoming: the order-book keeper, quieter now.

## Frame 6 — 2026-03-06
- Becoming: the order-book keeper who reads the tape.
"""


def test_a_turning_point_is_a_shift_and_a_shift_is_a_turning_point() -> None:
    # Frame 4 keeps its role in words (a refinement against frame 3), but the agent says it was
    # wrong, once in the arc: a turning point, so a shift. Frame 5 names a new role where the
    # arc does not turn: the stretch goes on, a refinement.
    soul = parse(TURNS)
    streamed = [s.kind for s in iter_arc(soul)]
    statements = arc(soul)
    assert streamed[3] == "refinement" and statements.turning_positions() == [3]
    kinds = [s.kind for s in statements]
    assert kinds[3] == "shift" and statements.kind(3) == "shift"
    assert [s.index for s in statements if s.shift] == statements.shift_positions() == [3]
    assert not any(s.turning_point and s.kind == "refinement" for s in statements)
    assert all(k in KINDS for k in kinds) and statements.shift_count() == 1
    # The summary of a streamed arc settles its kinds the same way.
    summary = summarize("a", soul)
    assert summary.shifts == summary.turning_points == 1
    assert summarize("a", soul, statements=statements).shifts == 1
