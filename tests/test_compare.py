"""Two arcs side by side: rows in time order by date and time, undated rows beside their neighbours."""

from __future__ import annotations

import pytest

from soulscope.soul.parse import read_soul
from soulscope.soul.trajectory import arc, compare
from tests.support.paths import corpus_dir

LEFT = """# Ada

## Frame 2026-03-14 (01:15 UTC)
- Becoming: the reader.

## Frame 7
- Becoming: the cataloguer.

## Frame 2026-03-14 (09:00 UTC)
- Becoming: the archivist.

## Frame 2026-03-15
- Becoming: the keeper.
"""

RIGHT = """# Bo

## Frame 2026-03-14 (05:30 UTC)
- Becoming: the contrarian.

## Frame 2026-03-14 (09:00 UTC)
- Becoming: the listener.

## Frame 2026-03-14 (23:40 UTC)
- Becoming: the skeptic.
"""


def _cells(rows):  # noqa: ANN001, ANN202
    return [
        (r.when, r.left.role if r.left else None, r.right.role if r.right else None) for r in rows
    ]


def test_rows_interleave_by_time_and_undated_rows_keep_their_neighbours() -> None:
    from soulscope.soul.parse import parse

    left, right = arc(parse(LEFT)), arc(parse(RIGHT))
    assert [s.time for s in left] == ["01:15", None, "09:00", None]
    assert _cells(compare(left, right)) == [
        ("2026-03-14 01:15", "reader", None),
        (None, "cataloguer", None),  # undated: stays after the reader, before Bo's 05:30
        ("2026-03-14 05:30", None, "contrarian"),
        ("2026-03-14 09:00", "archivist", "listener"),  # the same moment pairs up
        ("2026-03-14 23:40", None, "skeptic"),
        ("2026-03-15", "keeper", None),
    ]
    # Undated statements before any date stay just before the arc's first dated one.
    rows = compare(arc(parse(LEFT.replace("## Frame 2026-03-14 (01:15 UTC)", "## Frame 6"))), right)
    assert _cells(rows)[:4] == [
        ("2026-03-14 05:30", None, "contrarian"),
        (None, "reader", None),
        (None, "cataloguer", None),
        ("2026-03-14 09:00", "archivist", "listener"),
    ]


def _check_alignment(left_path: str, right_path: str) -> list:
    left, right = (
        arc(read_soul(corpus_dir(*left_path.split("/")))),
        arc(read_soul(corpus_dir(*right_path.split("/")))),
    )
    rows = compare(left, right)
    place = {}
    for i, r in enumerate(rows):
        for side, s in ((0, r.left), (1, r.right)):
            if s is not None:
                assert (side, s.index) not in place
                place[side, s.index] = i
    assert len(place) == len(left) + len(right)  # nothing lost, nothing twice
    dated = [r.when for r in rows if r.when]
    assert dated == sorted(dated)  # chronological
    for r in rows:
        if r.left and r.right:
            assert (r.left.frame_label, r.left.when) == (r.right.frame_label, r.right.when)
    for side, statements in ((0, left), (1, right)):
        for s in statements[1:]:
            if s.date is None:  # after the statement before it in its own arc
                assert place[side, s.index] > place[side, s.index - 1]
    return rows


@pytest.mark.parametrize(
    ("left", "right"),
    [
        ("rappterbook/memory/zion-archivist-01.md", "rappterbook/memory/zion-archivist-02.md"),
        (
            "rappterbook-later/memory/zion-coder-09.md",
            "rappterbook-later/memory/zion-reviewer-01.md",
        ),
    ],
)
def test_real_arcs_align_in_time(left: str, right: str) -> None:
    rows = _check_alignment(left, right)
    assert rows


def test_real_early_arcs_use_the_heading_times() -> None:
    rows = _check_alignment(
        "rappterbook/memory/zion-archivist-01.md", "rappterbook/memory/zion-archivist-02.md"
    )
    timed = [r.when for r in rows if r.when and " " in r.when]
    assert timed, "early-era headings carry times"
    # Within a day the two arcs interleave by time: not one arc's rows, then the other's.
    days = {}
    for r in rows:
        if r.when and " " in r.when:
            days.setdefault(r.when[:10], []).append(0 if r.left else 1)
    assert any(sides != sorted(sides) for sides in days.values())
