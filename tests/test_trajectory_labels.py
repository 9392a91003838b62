"""Shifts against hand-made labels of real soul files (tests/data/shift_labels.json).

The labels are keyed by file and line; the files stay in the shared corpus. A labelled shift is
where a reader sees the agent turn: a kind is settled with the arc's turning points, so shifts
are scored as turning points are, within one statement (``tests/support/turn_labels.score``).
"""

from __future__ import annotations

import json

import pytest

from soulscope.soul.parse import parse
from soulscope.soul.trajectory import SHIFT_KINDS, arc
from tests.support.paths import ROOT, corpus_dir

DATA = json.loads((ROOT / "tests" / "data" / "shift_labels.json").read_text())
LABELS = DATA["labels"]


@pytest.fixture(autouse=True)
def _corpus() -> None:
    corpus_dir()  # skipped without the shared corpus, failed under CI


def _pairs() -> list[tuple[str, str, str, str]]:
    """(file, line, label, predicted kind) for every labelled statement, in arc order."""
    out = []
    for rel, labels in sorted(LABELS.items()):
        statements = {str(s.line): s for s in arc(parse(corpus_dir(rel).read_bytes()))}
        assert set(statements) == set(labels), f"{rel}: labelled lines differ from the arc's"
        out += [(rel, line, labels[line], s.kind) for line, s in statements.items()]
    return out


def _within_one() -> tuple[float, float, list[tuple[str, int, str]]]:
    """Precision and recall of the predicted shifts within one statement of the labelled ones,
    with the misses and false shifts named (file, position, "missed" or "false")."""
    by_file: dict[str, list[tuple[str, str]]] = {}
    for rel, _, label, got in _pairs():
        by_file.setdefault(rel, []).append((label, got))
    hits = false = wanted = 0
    wrong: list[tuple[str, int, str]] = []
    for rel, rows in by_file.items():
        free = {i for i, (label, _) in enumerate(rows) if label in SHIFT_KINDS}
        wanted += len(free)
        for p in (i for i, (_, got) in enumerate(rows) if got in SHIFT_KINDS):
            near = [t for t in (p, p - 1, p + 1) if t in free]
            hits += bool(near)
            free -= set(near[:1])
            false += not near
            wrong += [] if near else [(rel, p, "false")]
        wrong += [(rel, t, "missed") for t in sorted(free)]
    return hits / (hits + false), (wanted - sum(w[2] == "missed" for w in wrong)) / wanted, wrong


def test_labels_cover_both_eras_and_every_statement() -> None:
    assert sum(f.startswith("rappterbook-later/") for f in LABELS) == 3
    assert sum(f.startswith("rappterbook/memory/") for f in LABELS) == 5
    assert sum(len(v) for v in LABELS.values()) > 140


def test_every_changed_label_says_why() -> None:
    for key, why in DATA["_reasons"].items():
        rel, line = key.rsplit(":", 1)
        assert line in LABELS[rel] and len(why.split()) >= 4, key


def test_shift_precision_and_recall_within_one_statement_are_at_least_080() -> None:
    # 0.81 and 0.84 on these arcs (0.79 and 0.76 before short arcs turned by role: the short
    # zion-welcomer-09 and zion-reviewer-01 now shift where labelled), most of them not in the
    # turning points' labelled set (bench/turns.py). Kinds by the previous statement
    # alone fail it: a later-era "From X to Y" in every statement made each one a shift.
    precision, recall, wrong = _within_one()
    assert precision >= 0.8 and recall >= 0.8, (precision, recall, wrong)


def test_later_eras_from_x_to_y_is_not_a_shift_by_itself() -> None:
    # zion-coder-06 says "From X to Y" in nearly every statement: its style, not 28 turns.
    path = corpus_dir("rappterbook-later/memory/zion-coder-06.md")
    statements = arc(parse(path.read_bytes()))
    assert sum(s.from_role is not None for s in statements) > 20
    assert 3 <= statements.shift_count() <= 9


def test_counter_bumps_are_not_shifts_and_seed_changes_are() -> None:
    # zion-debater-06 counts its bets ("twenty-seventh bet" -> "twenty-eighth bet"): no shift,
    # but the bets turn where the world's seed does (constitution, god, Mars). In time order
    # the constitution's bets start at 23:00 (statements 9 and 10, the file wrote 23:12 first).
    statements = arc(parse(corpus_dir("rappterbook/memory/zion-debater-06.md").read_bytes()))
    assert len(statements) == 17
    shifts = [s.index for s in statements if s.shift]
    assert {14, 16} <= set(shifts) and len(shifts) <= 4
    assert any(9 <= i <= 11 for i in shifts)


def test_kinds_agree_with_the_labels_for_most_statements() -> None:
    pairs = _pairs()
    agree = sum(1 for *_, label, got in pairs if label == got)
    assert agree / len(pairs) >= 0.85
