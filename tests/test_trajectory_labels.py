"""Shift detection against hand-made labels of real soul files (tests/data/shift_labels.json).

The labels are keyed by file and line; the files stay in the shared corpus.
"""

from __future__ import annotations

import json

import pytest

from soulscope.soul.parse import parse
from soulscope.soul.trajectory import SHIFT_KINDS, arc
from tests.support.paths import ROOT, corpus_dir

LABELS = json.loads((ROOT / "tests" / "data" / "shift_labels.json").read_text())["labels"]


@pytest.fixture(autouse=True)
def _corpus() -> None:
    corpus_dir()  # skipped without the shared corpus, failed under CI


def _pairs() -> list[tuple[str, str, str, str]]:
    """(file, line, label, predicted kind) for every labelled statement."""
    out = []
    for rel, labels in sorted(LABELS.items()):
        statements = {str(s.line): s for s in arc(parse(corpus_dir(rel).read_bytes()))}
        assert set(statements) == set(labels), f"{rel}: labelled lines differ from the arc's"
        out += [(rel, line, label, statements[line].kind) for line, label in labels.items()]
    return out


def test_labels_cover_both_eras_and_every_statement() -> None:
    assert sum(f.startswith("rappterbook-later/") for f in LABELS) == 3
    assert sum(f.startswith("rappterbook/memory/") for f in LABELS) == 5
    assert sum(len(v) for v in LABELS.values()) > 140


def test_shift_precision_and_recall_are_at_least_090() -> None:
    pairs = _pairs()
    tp = sum(1 for *_, label, got in pairs if label in SHIFT_KINDS and got in SHIFT_KINDS)
    fp = sum(1 for *_, label, got in pairs if label not in SHIFT_KINDS and got in SHIFT_KINDS)
    fn = sum(1 for *_, label, got in pairs if label in SHIFT_KINDS and got not in SHIFT_KINDS)
    precision, recall = tp / (tp + fp), tp / (tp + fn)
    wrong = [p for p in pairs if (p[2] in SHIFT_KINDS) != (p[3] in SHIFT_KINDS)]
    assert precision >= 0.9 and recall >= 0.9, (precision, recall, wrong)


def test_counter_bumps_are_not_shifts() -> None:
    # zion-debater-06 counts its bets ("twenty-seventh bet" -> "twenty-eighth bet"): no shift.
    statements = arc(parse(corpus_dir("rappterbook/memory/zion-debater-06.md").read_bytes()))
    assert len(statements) == 17 and not any(s.shift for s in statements)


def test_kinds_agree_with_the_labels_for_most_statements() -> None:
    pairs = _pairs()
    agree = sum(1 for *_, label, got in pairs if label == got)
    assert agree / len(pairs) >= 0.9
