"""Dates and times of frame headings in forms the corpus does not hold: ``9:15 PM``, offsets
(``-0500``, ``UTC-5``), day-first
``25/11/2026`` and month-first ``12/25/2026`` where the numbers say which is the day; a date
whose order they do not say (``03/12/2026``) stays undated rather than guessed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from soulscope.history.first import dated_line
from soulscope.soul.parse import parse, parse_heading
from tests.support.cli import soulscope
from tests.support.repos import commit, init


@pytest.mark.parametrize(
    ("heading", "date", "time"),
    [
        ("Frame 16 — Dec. 3, 2026, 9:15 PM", "2026-12-03", "21:15"),
        ("Frame 17 — 2026-12-03 (9:15pm UTC)", "2026-12-03", "21:15"),
        ("Frame 17 — 2026-12-03 (12:05 a.m. UTC)", "2026-12-03", "00:05"),
        ("Frame 17 — 2026-12-03 (12:05 PM)", "2026-12-03", "12:05"),
        ("Frame 17 — 2026-12-03 (11:30 pm EST)", "2026-12-04", "04:30"),
        ("Frame 13 — 25/12/2026", "2026-12-25", None),
        ("Frame 13 — 12/25/2026", "2026-12-25", None),
        ("Frame 13 25/12/2026 — the feast", "2026-12-25", None),
        ("Frame 19 — 13.12.2026 08:00 UTC", "2026-12-13", "08:00"),
        ("Frame 13 — 03/12/2026", None, None),  # March or December: not said
        ("Frame 20 — 31/02/2026", None, None),  # no such day
        ("Frame 10 — Dec 3", None, None),  # no year
        ("Frame 5 — 2026-12-03 10:00 -0500", "2026-12-03", "15:00"),
        ("Frame 5 — 2026-12-03 10:00 (UTC-5)", "2026-12-03", "15:00"),
        ("Frame 5 — 2026-12-03 (10:00 UTC+5:30)", "2026-12-03", "04:30"),
        ("Frame 5 — 2026-12-03 (9:15 PM UTC-5)", "2026-12-04", "02:15"),
        ("Frame 5 — 2026-12-03 18:15-18:45", "2026-12-03", "18:15"),  # a span, no offset
    ],
)
def test_a_heading_gives_its_date_and_time_as_written(
    heading: str, date: str | None, time: str | None
) -> None:
    _, _, got_date, got_time, _ = parse_heading(heading)
    assert (got_date, got_time) == (date, time)


@pytest.mark.parametrize(
    ("heading", "date", "time"),
    [
        # an offset written apart from the time, without a colon, after the zone's name
        ("Frame 5 — 2026-12-03 (10:00 -05:00)", "2026-12-03", "15:00"),
        ("Frame 5 — Dec 3, 2026 10:00 -05:00", "2026-12-03", "15:00"),
        ("Frame 5 — 2026-12-03 10:00 (UTC-05:00)", "2026-12-03", "15:00"),
        ("Frame 5 — 2026-12-03 10:00 (-05:00)", "2026-12-03", "15:00"),
        ("Frame 5 — 2026-12-03 (10:00 GMT\u22125)", "2026-12-03", "15:00"),
        ("Frame 5 — 2026-12-03 (10:00 utc+2)", "2026-12-03", "08:00"),
        ("Frame 5 — 2026-12-03 (10:00 est)", "2026-12-03", "15:00"),
        # before the date: the offset is no time of day of its own
        ("Frame 5 — 10:00 -05:00 2026-12-03", "2026-12-03", "15:00"),
        ("Frame 5 — 10:00 UTC+2, 2026-12-03", "2026-12-03", "08:00"),
        # spans and numbers stay as written
        ("Frame 5 — 2026-12-03 (09:00 -10:00)", "2026-12-03", "09:00"),
        ("Frame 5 — 2026-12-03 (23:30-00:30 UTC)", "2026-12-03", "23:30"),
        ("Frame 5 — 2026-12-03 (23:30 -00:30 UTC)", "2026-12-03", "23:30"),
        ("Frame 5 — 2026-12-03 (10:00 -5)", "2026-12-03", "10:00"),
        ("Frame 5 — 2026-12-03 (10:00 IST)", "2026-12-03", "10:00"),  # India, Israel, Ireland
    ],
)
def test_an_offset_as_people_write_it(heading: str, date: str, time: str) -> None:
    _, _, got_date, got_time, _ = parse_heading(heading)
    assert (got_date, got_time) == (date, time)


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("- 2026-12-03 10:00 -05:00 — Replied to coder-01", ("2026-12-03", "15:00")),
        ("- **2026-12-03 10:00 EST** — Replied", ("2026-12-03", "15:00")),
        ("- 2026-12-03 10:00 UTC+2: posted", ("2026-12-03", "08:00")),
        ("- 2026-12-03T10:00 GMT-5 — posted", ("2026-12-03", "15:00")),
        ("- 2026-12-03 09:30-10:00 — a span", ("2026-12-03", "09:30")),
    ],
)
def test_a_history_stamp_with_an_offset_as_people_write_it(line: str, expected: tuple) -> None:
    assert dated_line(line.encode()) == expected


def test_an_ambiguous_zone_is_said(tmp_path: Path) -> None:
    soul = parse(
        "# Pell\n\n## Frame 3 — 2026-12-03 (10:00 IST)\n- Mapped.\n\n"
        "## Frame 4 — 2026-12-03 (11:00 CST)\n- Mapped more.\n"
    )
    said = {p.line: p.message for p in soul.problems if p.kind == "time"}
    assert "India" in said[3] and "Israel" in said[3]
    assert "China" in said[6]
    assert [(f.date, f.time) for f in soul.frames] == [
        ("2026-12-03", "10:00"),
        ("2026-12-03", "17:00"),
    ]


def one_commit(root: Path, files: dict[str, str]) -> Path:
    """A world whose frames all arrive in one commit."""
    repo = init(root)
    (repo / "memory").mkdir()
    for agent, body in files.items():
        (repo / "memory" / f"{agent}.md").write_text(f"# {agent}\n\n{body}", encoding="utf-8")
    commit(repo, "import", date="2026-12-04T00:00:00Z")
    return repo


LIT = {
    "zion-coder-01": "## Frame 7 — Dec. 3, 2026, 9:15 PM UTC\n- Lit the lanterns.\n",
    "zion-debater-07": "## Frame 7 — 2026-12-03 (14:00 UTC)\n- The lanterns waste oil.\n",
}


def test_first_orders_frames_of_one_commit_by_their_written_times(tmp_path: Path) -> None:
    """One commit brings the frames: their headings decide who said "lanterns" first. "9:15
    PM" is after "14:00"; a day-first date before both is the earliest, not a tie."""
    repo = one_commit(tmp_path / "a", LIT)
    first = json.loads(soulscope("first", "lanterns", "-w", str(repo), "--json").stdout)
    assert (first["agent"], first["time"]) == ("zion-debater-07", "14:00")
    dreamer = {"zion-wildcard-12": "## Frame 6 — 25/11/2026\n- Dreamed of lanterns.\n"}
    repo = one_commit(tmp_path / "b", LIT | dreamer)
    first = json.loads(soulscope("first", "lanterns", "-w", str(repo), "--json").stdout)
    assert (first["agent"], first["date"], first["ties"]) == ("zion-wildcard-12", "2026-11-25", [])


@pytest.mark.parametrize(
    ("heading", "date", "time"),
    [
        # a region's time follows its daylight saving time: the date says EST or EDT
        ("Frame 5 — 2026-03-03 10:00 ET", "2026-03-03", "15:00"),
        ("Frame 5 — 2026-07-03 10:00 ET", "2026-07-03", "14:00"),
        ("Frame 5 — 2026-03-03 (10:00 Eastern)", "2026-03-03", "15:00"),
        ("Frame 5 — 2026-07-03 10:00 Eastern Time", "2026-07-03", "14:00"),
        ("Frame 5 — 2026-12-03 (10:00 PT)", "2026-12-03", "18:00"),
        ("Frame 5 — 2026-07-03 10:00 pacific", "2026-07-03", "17:00"),
        ("Frame 5 — 2026-12-03 9:30 pm CT", "2026-12-04", "03:30"),
        ("Frame 5 — 2026-07-03 10:00 Central European Time", "2026-07-03", "08:00"),
        ("Frame 5 — 2026-07-03 10:00 Europe/Berlin", "2026-07-03", "08:00"),
        ("Frame 5 — 2026-01-03 10:00 America/New_York", "2026-01-03", "15:00"),
        # the night the clocks go forward: 03:30 in New York is already EDT
        ("Frame 5 — 2026-03-08 (03:30 ET)", "2026-03-08", "07:30"),
        # an abbreviation names one offset, standard or daylight, in any season
        ("Frame 5 — 2026-07-03 10:00 CET", "2026-07-03", "09:00"),
        ("Frame 5 — 2026-07-03 10:00 CEST", "2026-07-03", "08:00"),
        ("Frame 5 — 2026-03-03 10:00 MSK", "2026-03-03", "07:00"),
        ("Frame 5 — 2026-03-03 23:00 NZDT", "2026-03-03", "10:00"),
        ("Frame 5 — 2026-03-03 10:00 GMT-5", "2026-03-03", "15:00"),
        # an hour alone, said to be one by am or pm
        ("Frame 5 — 2026-03-03 3pm", "2026-03-03", "15:00"),
        ("Frame 5 — 2026-03-03 10pm ET", "2026-03-04", "03:00"),
        ("Frame 5 — March 3rd, 2026, 10 a.m. PT", "2026-03-03", "18:00"),
        ("Frame 5 — 2026-03-06 noon", "2026-03-06", "12:00"),
        ("Frame 5 — March 6, 2026, at noon ET", "2026-03-06", "17:00"),
        ("Frame 5 — 2026-03-06 — a noon meeting", "2026-03-06", None),
        # words that are no zone, numbers that are no hour
        ("Frame 5 — 2026-03-03 10:00 et al", "2026-03-03", "10:00"),
        ("Frame 5 — 2026-03-03 — 3 items", "2026-03-03", None),
    ],
)
def test_a_zone_by_its_region_or_name(heading: str, date: str, time: str | None) -> None:
    _, _, got_date, got_time, _ = parse_heading(heading)
    assert (got_date, got_time) == (date, time)


def test_a_zone_soulscope_does_not_know_is_said() -> None:
    """A time written in a zone that is not known is read as UTC, and the file's problems say
    so, on its line; a known zone, UTC and a title in capitals say nothing."""
    soul = parse(
        "# Pell\n\n## Frame 3 — 2026-12-03 (10:00 XST)\n- a\n\n"
        "## Frame 4 — 2026-12-03 10:00 local\n- b\n\n"
        "## Frame 5 — 2026-12-03 10:00 Mars/Olympus\n- c\n\n"
        "## Frame 6 — 2026-12-03 10:00 ET\n- d\n\n"
        "## Frame 7 — 2026-12-03 (16:00 UTC) — PR review\n- e\n"
    )
    said = {p.line: p.message for p in soul.problems if p.kind == "time"}
    assert set(said) == {3, 6, 9}, said
    assert "XST" in said[3] and "UTC" in said[3]
    assert "local" in said[6] and "Mars/Olympus" in said[9]


def test_the_graph_dates_a_zoned_frame_as_the_parser_does() -> None:
    """The graph's fast reading of headings leaves a time with a zone to the parser: "10pm ET"
    on the 3rd is the 4th in UTC."""
    from soulscope.history.graph import frame_dates
    from soulscope.soul import when

    data = (
        b"# A\n\n## Frame 1 \xe2\x80\x94 2026-03-03 10pm ET\n- a\n"
        b"## Frame 2 \xe2\x80\x94 2026-03-03 (23:00 Pacific)\n- b\n"
        b"## Frame 3 \xe2\x80\x94 2026-03-05 (noon NZDT)\n- c\n"
    )
    columns = parse(data).frames.columns
    assert frame_dates(data)[2] == [m.date for m in when.frame_moments(columns)]
    assert frame_dates(data)[2] == ["2026-03-04", "2026-03-04", "2026-03-04"]


def test_a_date_that_dates_nothing_says_why() -> None:
    """A day and month whose order the numbers do not say, a day of no calendar and a day
    without its year leave the frame undated (placed by the frames around it), and the file's
    problems say which and why; a date that reads, or a title, say nothing."""
    soul = parse(
        "# Pell\n\n## Frame 3 — 03/04/2026\n- a\n\n## Frame 4 — 04.03.2026\n- b\n\n"
        "## Frame 5 — 31/02/2026\n- c\n\n## Frame 6 — Tuesday, March 3\n- d\n\n"
        "## Frame 7 — 25/12/2026\n- e\n\n## Frame 8 — may the fourth\n- f\n"
    )
    said = {p.line: p.message for p in soul.problems if p.kind == "time"}
    assert set(said) == {3, 6, 9, 12}, said
    assert "2026-03-04" in said[3] and "2026-04-03" in said[3]
    assert "2026-03-04" in said[6] and "2026-04-03" in said[6]
    assert "no day of the calendar" in said[9]
    assert "March 3" in said[12] and "no year" in said[12]
    assert [f.date for f in soul.frames][:4] == [None] * 4


def test_a_standard_time_in_summer_is_read_as_written_and_said() -> None:
    """ "10:00 EST" in July is UTC-05:00 as written, though New York kept EDT then: the
    problems say so; in January, EST is what it kept, and nothing is said."""
    soul = parse(
        "# Pell\n\n## Frame 3 — 2026-07-03 10:00 EST\n- a\n\n"
        "## Frame 4 — 2026-07-03 (18:00 CET)\n- b\n\n"
        "## Frame 5 — 2026-12-03 10:00 EST\n- c\n"
    )
    said = {p.line: p.message for p in soul.problems if p.kind == "time"}
    assert set(said) == {3, 6}, said
    assert "EST" in said[3] and "UTC-04:00" in said[3]
    assert "CET" in said[6] and "UTC+02:00" in said[6]
    assert [(f.date, f.time) for f in soul.frames] == [
        ("2026-07-03", "15:00"),
        ("2026-07-03", "17:00"),
        ("2026-12-03", "15:00"),
    ]


YEARLESS = (
    "# Pell\n\n## Frame 7 — 2026-03-02\n- a\n\n## Frame 8 — Tuesday, March 3\n- b\n\n"
    "## Frame 9 — Wednesday, March 4th\n- c\n\n## Frame 10 — Thursday, March 4\n- d\n\n"
    "## Frame 11 — 2026-12-30\n- e\n\n## Frame 12 — Jan 2\n- f\n"
)


def test_a_day_without_its_year_takes_the_year_of_the_frame_above() -> None:
    """"Tuesday, March 3" below a frame of 2026-03-02 is 2026-03-03 (a Tuesday); "Jan 2" below
    2026-12-30 is 2027-01-02; "Thursday, March 4" is no Thursday near: it stays undated. Every
    reader of headings agrees, and the problems say what was read."""
    from soulscope.history.graph import frame_dates
    from soulscope.soul import when
    from soulscope.soul.parse import frame_columns

    soul = parse(YEARLESS)
    dates = list(soul.frames.columns.dates)
    assert dates == ["2026-03-02", "2026-03-03", "2026-03-04", None, "2026-12-30", "2027-01-02"]
    assert list(frame_columns(YEARLESS.encode()).dates) == dates
    moments = [m.date for m in when.frame_moments(soul.frames.columns)]
    assert frame_dates(YEARLESS.encode())[2] == moments
    said = {p.line: p.message for p in soul.problems if p.kind == "time"}
    assert "2026-03-03" in said[6] and "no year" in said[6]
    assert "no year" in said[12] and "left undated" in said[12]
