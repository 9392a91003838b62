"""``trends``: per day or frame, the agents that had used a term so far and in that period, on the
real early world (checked against ``spread``'s timeline) and on a world made by hand."""

from __future__ import annotations

import csv
import io
import json
import struct
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tests.support.cli import one_sentence, soulscope
from tests.support.paths import corpus_dir

TERMS = ("governance", "convergence", "mars barn")


def trends(*args: str) -> dict:
    done = soulscope("trends", *args, "--json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_per_day_counts_equal_the_spread_timeline() -> None:
    world = str(corpus_dir("rappterbook"))
    found = trends(*TERMS, "--world", world)
    assert [t["term"] for t in found["terms"]] == list(TERMS)
    for t in found["terms"]:
        spread = json.loads(soulscope("spread", t["term"], "--world", world, "--json").stdout)
        curve = {p["date"]: p["agents"] for p in spread["timeline"]}
        by_day = {p["period"]: p for p in t["periods"]}
        assert curve and all(by_day[d]["so_far"] == n for d, n in curve.items())
        last = 0
        for p in t["periods"]:  # between the spread's dates, the count stays
            last = curve.get(p["period"], last)
            assert p["so_far"] == last
            assert p["in_period"] <= p["active"]
        peak = max(t["periods"], key=lambda p: p["in_period"])
        assert t["peak"] == peak["period"]
        assert t["first_majority"] is not None


def test_csv_and_the_charts_open(tmp_path: Path) -> None:
    world = str(corpus_dir("rappterbook"))
    done = soulscope("trends", "governance", "--world", world, "--csv")
    rows = list(csv.DictReader(io.StringIO(done.stdout)))
    assert rows and rows[0].keys() >= {"period", "so_far", "in_period", "active", "share", "mark"}
    assert sum("peak" in r["mark"] for r in rows) == 1
    png = tmp_path / "trend.png"
    done = soulscope("trends", *TERMS, "--world", world, "--plot", str(png))
    assert done.returncode == 0 and f"written to {png}" in done.stderr
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert struct.unpack(">II", data[16:24]) == (960, 540)
    svg = tmp_path / "trend.svg"
    soulscope("trends", *TERMS, "--world", world, "--plot", str(svg))
    root = ET.fromstring(svg.read_text())
    texts = [e.text for e in root.iter("{http://www.w3.org/2000/svg}text")]
    assert "mars barn" in texts and "2026-03-15" in texts
    said = one_sentence(
        soulscope("trends", "x", "--world", world, "--plot", str(tmp_path / "a.gif"))
    )
    assert "name a .png or .svg file" in said
    assert not (tmp_path / "a.gif").exists()


def test_by_frame_on_a_world_made_by_hand(tmp_path: Path) -> None:
    memory = tmp_path / "w" / "memory"
    memory.mkdir(parents=True)
    frames = {  # agent: [(frame, text)]
        "Ada.L": [(1, "Proposed a Quorum rule."), (2, "Counted votes.")],
        "bo-2": [(1, "Read posts."), (2, "Backed the quorum of Ada.L."), (3, "QUORUM again.")],
        "cy_3": [(2, "Lurked."), (3, "Wrote about quorums.")],  # another word: not a use
    }
    for agent, entries in frames.items():
        body = f"# {agent}\n\n"
        for n, text in entries:
            body += f"## Frame {n} — 2026-04-0{n}\n- {text}\n\n"
        (memory / f"{agent}.md").write_text(body)
    found = trends("quorum", "--by", "frame", "--world", str(memory.parent))["terms"][0]
    assert [(p["period"], p["so_far"], p["in_period"], p["active"]) for p in found["periods"]] == [
        ("1", 1, 1, 2),
        ("2", 2, 1, 3),
        ("3", 2, 1, 2),
    ]
    assert found["first_majority"] == "2"  # 2 of the 3 agents active so far
    assert found["peak"] == "1"
    stems = trends("quorum", "--stem", "--by", "frame", "--world", str(memory.parent))["terms"][0]
    assert stems["periods"][-1]["so_far"] == 3


def test_by_frame_without_numbers_says_so(tmp_path: Path) -> None:
    memory = tmp_path / "w" / "memory"
    memory.mkdir(parents=True)
    (memory / "ada.md").write_text("# Ada\n\n## Frame 2026-04-01\n- Governance.\n")
    done = soulscope("trends", "governance", "--by", "frame", "--world", str(memory.parent))
    assert "no frame has a number" in one_sentence(done, code=1)


@pytest.mark.parametrize("bad", [("",), ("   ",)])
def test_an_empty_term_is_refused(bad: tuple[str, ...]) -> None:
    done = soulscope("trends", *bad)
    assert done.returncode == 2 and "Traceback" not in done.stderr


def test_a_use_whose_day_is_only_inferred_is_on_no_day(tmp_path: Path) -> None:
    """dd-04's use is in a frame with no date, below its frame of March 1: it is on no day, in
    the uses of a day as in the counts so far (which follow ``spread``)."""
    (tmp_path / "memory").mkdir()
    for agent, body in {
        "aa-01": "## Frame 1 — 2026-03-04\n- Found the zephyr rule.\n",
        "dd-04": "## Frame 8 — 2026-03-01\n- Quiet.\n\n## Frame 9\n- Said zephyr first?\n",
    }.items():
        head = f"# {agent}\n\n## Identity\n- **ID:** {agent}\n\n"
        (tmp_path / "memory" / f"{agent}.md").write_text(head + body)
    days = {
        p["period"]: p for p in trends("zephyr", "--world", str(tmp_path))["terms"][0]["periods"]
    }
    assert (days["2026-03-01"]["in_period"], days["2026-03-01"]["so_far"]) == (0, 0)
    assert (days["2026-03-04"]["in_period"], days["2026-03-04"]["so_far"]) == (1, 1)
