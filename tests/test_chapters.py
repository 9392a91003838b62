"""Turning points and chapters of arcs: on every real arc of both eras, and on arcs made to test
the rules."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from soulscope.soul.chapters import content_words, outline
from soulscope.soul.counters import is_counter
from soulscope.soul.parse import parse
from soulscope.soul.trajectory import KINDS, arc, summarize
from tests.support.paths import corpus_dir
from tests.support.worlds import ASTRONOMER, BAKER, GARDENER


def soul_of(statements: list[str], label: str = "Becoming") -> bytes:
    lines = ["# Test Agent\n"]
    for i, text in enumerate(statements, 1):
        lines.append(f"\n## Frame {i} — 2026-03-{1 + i // 3:02d}\n- Acted.\n- {label}: {text}\n")
    return "".join(lines).encode()


def test_an_arc_of_three_stretches_turns_where_each_begins_and_names_them() -> None:
    statements = arc(parse(soul_of(GARDENER + ASTRONOMER + BAKER)))
    assert statements.turning_positions() == [5, 10]
    assert [s.chapter for s in statements] == [1] * 5 + [2] * 5 + [3] * 5
    titles = [c.title for c in statements.outline().chapters]
    for title, topic in zip(titles, ("tomatoes", "comets", "sourdough"), strict=True):
        assert topic in title.split(", ") or any(topic in part for part in title.split(", "))


def test_turning_points_by_meaning_follow_the_vectors() -> None:
    # Vectors that change direction twice, with the words saying nothing apart.
    texts = [f"the same plain words said again, number {i}" for i in range(15)]
    vectors = np.zeros((15, 3))
    vectors[:6, 0] = 1
    vectors[6:11, 1] = 1
    vectors[11:, 2] = 1
    vectors += np.random.default_rng(1).normal(0, 0.05, vectors.shape)
    assert outline(texts, vectors=vectors).turning_positions() == [6, 11]


def test_an_arc_that_never_moves_has_no_turning_point_and_one_chapter() -> None:
    statements = arc(parse(soul_of(["the archivist of the old threads"] * 12)))
    assert statements.turning_positions() == []
    assert {s.chapter for s in statements} == {1}


def test_a_short_arc_turns_where_it_takes_a_new_role_in_new_words() -> None:
    # Four statements: too few for usual moves, but a reader sees the gardener become the baker.
    statements = arc(parse(soul_of(GARDENER[:2] + BAKER[:2])))
    assert statements.turning_positions() == [2]
    assert [s.chapter for s in statements] == [1, 1, 2, 2]
    assert [s.kind for s in statements] == ["first", "refinement", "shift", "refinement"]
    # The same role said differently, or a new role in the stretch's words, is no turn.
    same = arc(parse(soul_of(GARDENER[:4])))
    assert same.turning_positions() == [] and same.shift_count() == 0


def test_a_short_arc_turns_by_meaning_where_a_reader_sees_it_turn(minilm) -> None:
    # The real model puts the gardener's statements about 0.5 apart, the baker 0.8 from them.
    turned = arc(parse(soul_of(GARDENER[:2] + BAKER[:2])))
    assert turned.by_meaning(minilm.encode(turned.texts)).turning_positions() == [2]
    same = arc(parse(soul_of(GARDENER[:4])))  # compost, pruning: the gardener still
    assert same.by_meaning(minilm.encode(same.texts)).turning_positions() == []


def test_a_summary_counts_the_turning_points_streamed_or_from_the_arc() -> None:
    soul = parse(soul_of(GARDENER + ASTRONOMER + BAKER))
    streamed, held = summarize("a", soul), summarize("a", soul, None, arc(soul))
    assert streamed == held
    assert (held.turning_points, held.chapters) == (2, 3)
    assert held.latest is not None and held.latest.chapter == 3


def test_a_position_is_summarised_by_its_own_words() -> None:
    # Early-era positions open with a counter ("twenty-third bet."): that is not a role.
    texts = [
        f"{n} bet. The {w} market prices claims about {w}."
        for n, w in (("twenty-third", "weather"), ("twenty-fourth", "rivers"))
    ]
    statements = arc(parse(soul_of(texts, label="Evolving position")))
    assert statements[0].headline == "The weather market prices claims about weather."
    long = arc(parse(soul_of(["word " * 60], label="Evolving position")))[0].headline
    assert long.endswith("…") and len(long) <= 100
    assert arc(parse(soul_of(GARDENER)))[0].headline == "gardener"  # a role stays a role


def test_title_words_leave_out_counters_agent_ids_and_praise() -> None:
    words = [w for _, w, _ in content_words("Thirtieth bet. coder-07's sharpest #4 theology seed")]
    assert words == ["theology", "seed"]


def _real_arcs() -> list[Path]:
    return sorted(
        [
            *corpus_dir("rappterbook", "memory").glob("*.md"),
            *corpus_dir("rappterbook-later", "memory").glob("*.md"),
        ]
    )


def test_every_real_arc_of_ten_or_more_singles_out_turning_points_and_chapters() -> None:
    checked = {"rappterbook": 0, "rappterbook-later": 0}
    for path in _real_arcs():
        statements = arc(parse(path.read_bytes(), path.stem))
        n = len(statements)
        if n < 10:
            continue
        checked[path.parent.parent.name] += 1
        where = f"{path.parent.parent.name}/{path.name} ({n} statements)"
        turning = statements.turning_positions()
        chapters = statements.outline().chapters
        assert 1 <= len(turning) <= max(3, int(0.3 * n)), where
        assert 2 <= len(chapters) <= n / 3, where
        # Every statement in one chapter, in order; each chapter after the first opens at a turn.
        assert [s.chapter for s in statements] == [
            c.number for c in chapters for _ in range(c.start, c.end)
        ], where
        assert [c.start for c in chapters[1:]] == turning, where
        for c in chapters:
            said = {
                key
                for text in statements.texts[c.start : c.end]
                for key, _, _ in content_words(text)
            }
            title = content_words(c.title)
            assert 2 <= len(c.title.replace(",", "").split()) <= 5, (where, c.title)
            # The chapter's own words (as the arc writes them: "norms" for "norm"), no counter.
            assert all(key in said for key, _, _ in title), (where, c.title)
            assert len(title) == len(c.title.replace(",", "").split()), (where, c.title)
            assert not any(is_counter(w.lower()) for _, w, _ in title), (where, c.title)
    assert checked["rappterbook"] >= 50 and checked["rappterbook-later"] >= 2


@pytest.mark.parametrize("agent", ["zion-debater-06", "zion-philosopher-07"])
def test_an_early_arc_that_only_refines_still_has_its_turns(agent: str) -> None:
    # Against the previous statement alone, every statement of these arcs is a "refinement":
    # that singles nothing out. Settled with the turning points, those are the arc's shifts.
    path = corpus_dir("rappterbook", "memory", f"{agent}.md")
    statements = arc(parse(path.read_bytes(), agent))
    assert set(statements.kinds[1:]) == {KINDS.index("refinement")}
    assert statements.turning_positions()
    assert statements.shift_positions() == statements.turning_positions()
    assert all(s.headline and s.headline != s.role for s in statements)


def test_turning_points_by_meaning_on_real_arcs_of_both_eras(minilm) -> None:
    from soulscope.recall.semantic import embed

    for world, agent in (
        ("rappterbook", "zion-debater-06"),
        ("rappterbook-later", "zion-coder-06"),
    ):
        path = corpus_dir(world, "memory", f"{agent}.md")
        texts = arc(parse(path.read_bytes(), agent)).texts
        shape = outline(texts, vectors=embed(texts, minilm, None))
        n = len(texts)
        assert 1 <= shape.turning_count() <= max(3, int(0.3 * n)), agent
        assert 2 <= len(shape.chapters) <= n / 3, agent


def test_becoming_semantic_judges_chapters_by_meaning(later_world: Path, capsys) -> None:
    import json

    from soulscope.cli import main

    args = ["becoming", "zion-coder-09", "--world", str(later_world), "--json"]
    main(args)
    by_words = json.loads(capsys.readouterr().out)
    main([*args, "--semantic"])
    by_meaning = json.loads(capsys.readouterr().out)
    main([*args, "--semantic", "--chapters"])
    chapters = json.loads(capsys.readouterr().out)
    assert len(by_meaning) == len(by_words) and all(r["chapter"] for r in by_meaning)
    assert len(chapters) == by_meaning[-1]["chapter"] >= 2
    # The magnitudes are the model's now, not the words' overlap.
    assert [r["magnitude"] for r in by_meaning] != [r["magnitude"] for r in by_words]
