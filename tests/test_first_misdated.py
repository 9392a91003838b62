"""A frame whose heading's date runs backwards against its file (frame 12 dated a month before
frame 11: a typo, a wrong year) is not named the first use by that date: it is placed by its
file, after the frame above it, and the answer says the date it was written with."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from soulscope.soul import when
from tests.support.cli import soulscope
from tests.support.repos import commit, init

CODER = """# Coder

## Frame 10 — 2026-03-01 (10:00 UTC)
- Wrote a parser.

## Frame 11 — 2026-03-02 (10:00 UTC)
- Read about Lanterns.

## Frame 12 — 2026-02-03 (10:00 UTC)
- Built lanterns for the harbor.

## Frame 13 — 2026-03-04 (10:00 UTC)
- Lanterns again; the harbor glows.
"""
POET = "# Poet\n\n## Frame 9 — 2026-02-20 (10:00 UTC)\n- A poem of lanterns.\n"
# past midnight, parallel writers append a frame of the day before: a day back is its own date
NIGHT = """# Night

## Frame 8 — 2026-02-19 (00:10 UTC)
- Watched.

## Frame 7 — 2026-02-18 (23:55 UTC)
- Lit a lantern at the quay.
"""


@pytest.fixture(scope="module", params=["files", "one commit"])
def world(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("misdated")
    (root / "memory").mkdir()
    for agent, text in {"zion-coder-01": CODER, "zion-poet-02": POET}.items():
        (root / "memory" / f"{agent}.md").write_text(text, encoding="utf-8")
    if request.param == "one commit":
        init(root)
        commit(root, "import", date="2026-03-05T00:00:00Z")
    return root


def first(world: Path, *args: str) -> dict:
    done = soulscope("first", *args, "-w", str(world), "--json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_a_misdated_frame_is_not_the_first_and_is_said(world: Path) -> None:
    found = first(world, "lanterns")
    assert (found["agent"], found["frame"], found["heading_date"]) == ("zion-poet-02", 9, None)
    [doubt] = found["misdated"]
    assert (doubt["agent"], doubt["frame"], doubt["line"]) == ("zion-coder-01", 12, 10)
    assert doubt["heading_date"] == "2026-02-03 10:00 UTC"
    assert doubt["precision"] == "misdated" and doubt["date"] is None
    assert doubt["span"][0] == "2026-03-02 10:00"  # after frame 11, by its place
    text = soulscope("first", "lanterns", "-w", str(world)).stdout
    assert text.startswith("zion-poet-02, frame 9, 2026-02-20 10:00 UTC")
    assert "runs backwards" in text and "frame 12" in text


def test_one_agents_first_use_is_by_its_files_order(world: Path) -> None:
    found = first(world, "lanterns", "--agent", "zion-coder-01")
    assert (found["frame"], found["date"]) == (11, "2026-03-02")
    assert [u["frame"] for u in found["misdated"]] == [12]  # dated before it, and said
    # where the misdated frame is the only one: named, with its doubt
    found = first(world, "built", "--agent", "zion-coder-01")
    assert (found["frame"], found["precision"]) == (12, "misdated")
    assert found["heading_date"] == "2026-02-03 10:00 UTC"
    text = soulscope("first", "built", "-w", str(world)).stdout
    assert "dated 2026-02-03 10:00 UTC by its heading, which runs backwards" in text


def test_spread_orders_an_agent_by_its_files_order(world: Path) -> None:
    done = soulscope("spread", "lanterns", "-w", str(world), "--json")
    agents = json.loads(done.stdout)["agents"]
    assert [(a["agent"], a["frame"]) for a in agents] == [
        ("zion-poet-02", 9),
        ("zion-coder-01", 11),
    ]


def test_a_day_back_past_midnight_keeps_its_date(tmp_path: Path) -> None:
    (tmp_path / "memory").mkdir()
    (tmp_path / "memory" / "night.md").write_text(NIGHT + "\n", encoding="utf-8")
    (tmp_path / "memory" / "poet.md").write_text(POET, encoding="utf-8")
    found = first(tmp_path, "lantern", "--stem")
    assert (found["agent"], found["date"], found["misdated"]) == ("night", "2026-02-18", [])


@pytest.mark.parametrize(
    ("dates", "expected"),
    [
        (["2026-03-01", "2026-03-02", "2026-02-03", "2026-03-04"], {2: (1, 3)}),
        # a month ahead of both neighbours: that frame, not every frame after it
        (["2026-03-01", "2026-03-02", "2026-03-30", "2026-03-04", "2026-03-05"], {2: (1, 3)}),
        (["2026-03-13", "2025-07-14", None, "2026-03-14"], {1: (0, 3)}),
        (["2027-03-01", "2026-03-02", "2026-03-03"], {0: (-1, 1)}),
        # two frames out of order: the one that runs backwards is the lower
        (["2026-03-01", "2026-02-01"], {1: (0, -1)}),
        (["2026-03-02", "2026-03-01", "2026-03-02", "2026-03-01"], {}),
        ([None, "2026-03-01", None], {}),
    ],
)
def test_which_frames_are_misdated(dates: list[str | None], expected: dict) -> None:
    assert when.misdated(dates) == expected


def test_every_view_places_a_misdated_frame_by_its_file(world: Path) -> None:
    """The log lists frame 12 after frame 11, at its date, marked; the world as it stood on
    2026-02-25 (by the frames, outside git) holds no frame of the coder: frame 12 came later."""
    done = soulscope("log", "-w", str(world), "--json")
    coder = [e for e in json.loads(done.stdout) if e["agent"] == "zion-coder-01"]
    assert [(e["frame"], e["date"], e["precision"]) for e in coder] == [
        (10, "2026-03-01", "minute"),
        (11, "2026-03-02", "minute"),
        (12, "2026-03-02", "misdated"),
        (13, "2026-03-04", "minute"),
    ]
    text = soulscope("log", "-w", str(world)).stdout
    assert "~2026-03-02 10:00  zion-coder-01  Frame 12 — 2026-02-03" in text
    if not (world / ".git").exists():
        done = soulscope("agents", "-w", str(world), "--at", "2026-02-25", "--json")
        assert [a["id"] for a in json.loads(done.stdout)] == ["zion-poet-02"]


def test_a_misdated_frame_lies_between_the_frames_around_it(tmp_path: Path) -> None:
    """Placed after frame 11 (2026-03-02) and before frame 13 (2026-03-04), the misdated
    frame cannot tie with a frame of 2026-03-06: that one is later, and said so."""
    (tmp_path / "memory").mkdir()
    (tmp_path / "memory" / "zion-coder-01.md").write_text(CODER, encoding="utf-8")
    late = "# Late\n\n## Frame 20 — 2026-03-06 (09:00 UTC)\n- Built a harbor tower.\n"
    (tmp_path / "memory" / "zion-late-03.md").write_text(late, encoding="utf-8")
    found = first(tmp_path, "harbor")
    assert (found["agent"], found["frame"], found["ties"]) == ("zion-coder-01", 12, [])
    assert found["span"] == ["2026-03-02 10:00", "2026-03-04 23:59"]
