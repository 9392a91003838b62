"""A date-only frame lies between its file's timed frames of that date; times written with a UTC
offset are read in UTC: ``first``, ``spread`` and their ties on hand-made worlds in forms the
corpus does not have, and on the real world of the early era where date-only frames sit among
timed ones (the expected answer from ``tests.support.frametimes``, a reader of its own)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from soulscope.history.spread import spread
from soulscope.history.timeline import first_mention
from soulscope.soul import when
from soulscope.soul.parse import parse, parse_heading
from soulscope.soul.terms import Term
from soulscope.world import World
from tests.support import frametimes
from tests.support.cli import soulscope
from tests.support.repos import commit, init


def _soul(name: str, frames: list[tuple[str, str]], header: str = "") -> str:
    body = "".join(f"## Frame {heading}\n- {text}\n\n" for heading, text in frames)
    return f"# {name}\n\n## Identity\n- **ID:** {name}\n{header}\n{body}"


def _world(tmp_path: Path, souls: dict[str, str]) -> World:
    memory = tmp_path / "memory"
    memory.mkdir()
    for name, text in souls.items():
        (memory / f"{name}.md").write_text(text)
    return World.open(tmp_path)


def _said(found) -> set[str]:  # noqa: ANN001
    return {found.agent_id, *(u.agent_id for u in found.ties)}


def test_a_date_only_frame_lies_between_its_files_timed_frames(tmp_path: Path) -> None:
    world = _world(
        tmp_path,
        {
            # written after its own 18:54 frame and before its 20:50 one
            "Ann-Marie": _soul(
                "Ann-Marie",
                [
                    ("2026-03-14 (18:54 UTC)", "nothing yet"),
                    ("2026-03-14 — Night Shift", "the Quillwort Accord, drafted"),
                    ("2026-03-14 (20:50 UTC)", "quillwort accord again"),
                ],
            ),
            # timed before Ann-Marie's 20:50, after her 18:54: either may be first
            "bo.b": _soul("bo.b", [("2026-03-14T19:30Z", "Signed the quillwort  accord")]),
            # after Ann-Marie's date-only frame can have happened: provably later
            "cy": _soul("cy", [("2026-03-14 (21:05 UTC)", "QUILLWORT ACCORD")]),
            # a date-only frame after its own 22:10 frame: later than bo.b's 19:30
            "dee": _soul(
                "dee",
                [("2026-03-14 22:10", "plain"), ("2026-03-14", "the quillwort accord, late")],
            ),
            # a date-only frame its file does not bound: it may be first
            "eve": _soul("eve", [("2026-03-14", "quillwort accord at some hour")]),
        },
    )
    found = first_mention(world, "quillwort accord")
    assert _said(found) == {"Ann-Marie", "bo.b", "eve"}
    ann = next(u for u in found.ties if u.agent_id == "Ann-Marie") if found.ties else None
    moment = found.moment if found.agent_id == "Ann-Marie" else ann.moment
    assert moment.span == ("2026-03-14 18:54", "2026-03-14 20:50")
    assert "between 18:54 and 20:50 UTC" in moment.text
    # the command says the same
    out = soulscope("first", "Quillwort Accord", "--world", str(tmp_path), "--json")
    data = json.loads(out.stdout)
    assert {data["agent"], *(t["agent"] for t in data["ties"])} == {"Ann-Marie", "bo.b", "eve"}
    spans = {p["agent"]: p["span"] for p in [data, *data["ties"]]}
    assert spans["Ann-Marie"] == ["2026-03-14 18:54", "2026-03-14 20:50"]
    assert spans["eve"] == ["2026-03-14 00:00", "2026-03-14 23:59"]


def test_a_file_whose_clock_went_backwards_bounds_both_ways(tmp_path: Path) -> None:
    moments = when.moments(
        ["2026-03-15"] * 4 + ["2026-03-16"],
        ["00:20", None, "00:17", None, None],
    )
    # between 00:20 and 00:17: somewhere from 00:17 to 00:20
    assert moments[1].span == ("2026-03-15 00:17", "2026-03-15 00:20")
    # after 00:17, before the next day: to the end of its day
    assert moments[3].span == ("2026-03-15 00:17", "2026-03-15 23:59")
    assert moments[4].span == ("2026-03-16 00:00", "2026-03-16 23:59")
    keys = [m.key for m in moments]
    assert keys.index(moments[1].key) < keys.index(moments[2].key)


def test_an_offset_in_a_history_stamp_is_read_in_utc(tmp_path: Path) -> None:
    """23:30 at -05:00 is 04:30 UTC the next day: after cy's 02:00; 07:00 at +05:30 is 01:30
    UTC, before it."""
    world = _world(
        tmp_path,
        {
            "ab": _soul(
                "ab",
                [("2026-05-12 (10:00 UTC)", "later")],
                "\n## History\n- **2026-05-09T23:30:00-05:00** — Replied about the marrowbell\n",
            ),
            "cy": _soul("cy", [("2026-05-10 (02:00 UTC)", "rang the marrowbell")]),
        },
    )
    found = first_mention(world, "marrowbell")
    assert (found.agent_id, found.moment.date, found.moment.time) == ("cy", "2026-05-10", "02:00")
    adopters = spread(world, Term("marrowbell")).adopters
    assert [a.agent_id for a in adopters] == ["cy", "ab"]
    assert (adopters[1].first.moment.date, adopters[1].first.moment.time) == (
        "2026-05-10",
        "04:30",
    )
    (tmp_path / "memory" / "ab.md").write_text(
        _soul("ab", [], "\n## History\n- 2026-05-10 07:00 +05:30: the marrowbell, first\n")
    )
    found = first_mention(World.open(tmp_path), "marrowbell")
    assert (found.agent_id, found.moment.time) == ("ab", "01:30")


@pytest.mark.parametrize(
    ("heading", "date", "time"),
    [
        ("2026-05-09T23:30:00-05:00", "2026-05-10", "04:30"),
        ("2026-05-09T23:30-0500 — Late", "2026-05-10", "04:30"),
        ("12 — 2026-03-14 03:00 +05:30", "2026-03-13", "21:30"),
        ("2026-03-14 (23:00 UTC+01:00)", "2026-03-14", "22:00"),
        ("2026-03-14 23:00", "2026-03-14", "23:00"),
        ("2026-03-14T23:00:59Z", "2026-03-14", "23:00"),
        ("March 14, 2026 (23:00 UTC)", "2026-03-14", "23:00"),
        ("7 — 14 March 2026 (23:00 UTC)", "2026-03-14", "23:00"),
        ("Mar 14 2026 23:10", "2026-03-14", "23:10"),
        ("3 — 2nd Sept. 2026", "2026-09-02", None),
        ("2 — 2026/03/15", "2026-03-15", None),
        ("2 — 2026-03-15 04:00 PST", "2026-03-15", "12:00"),
        ("2026-03-15 (23:30 EDT) — Seed", "2026-03-16", "03:30"),
        # a span of time, not an offset
        ("2026-03-15 (01:30-02:15 UTC) — Pass 2", "2026-03-15", "01:30"),
    ],
)
def test_heading_times_are_read_in_utc(heading: str, date: str, time: str | None) -> None:
    _number, _suffix, got_date, got_time, _title = parse_heading(f"Frame {heading}")
    assert (got_date, got_time) == (date, time)
    soul = parse(_soul("ab", [(heading, "x")]).encode(), agent_id="ab")
    assert (soul.frames[0].date, soul.frames[0].time) == (date, time)


def test_an_offset_heading_changes_who_came_first(tmp_path: Path) -> None:
    world = _world(
        tmp_path,
        {
            "ab": _soul("ab", [("2026-05-09T23:30:00-05:00", "the snowmelt ledger")]),
            "cd": _soul("cd", [("2026-05-10T01:00:00Z", "a snowmelt ledger too")]),
            "ef": _soul("ef", [("2026-05-09 18:30 PDT", "a snowmelt ledger at last")]),
        },
    )
    found = first_mention(world, "snowmelt ledger")
    assert found.agent_id == "cd" and not found.ties  # ef's 18:30 PDT is 01:30 UTC


def test_first_on_the_real_world_names_every_possible_first_and_no_later_frame(
    early_world: Path, tmp_path: Path
) -> None:
    shutil.copytree(early_world / "memory", tmp_path / "w" / "memory")
    repo = init(tmp_path / "w")
    commit(repo, "import")
    world = World.open(repo)
    terms = frametimes.first_day_terms(repo / "memory")
    assert len(terms) == 12
    for term, expected in terms:
        found = first_mention(world, term)
        low, high = found.moment.span
        got = frametimes.Span(found.agent_id, found.line, low, high)
        assert not [u for u in expected if u.before(got)], term
        assert _said(found) == frametimes.possible_firsts(expected), term


def test_the_statement_before_is_the_one_before_in_time(tmp_path: Path) -> None:
    """Parallel writers append frames out of order: the frame written last here is dated
    between the first two, so the statement before the third (11:05) is the first (09:40), not
    the second (14:20), which the file shows above it but came later; and the one before the
    second is the third. Its precursors come from frames before it in time only."""
    from soulscope.history.why import explain

    world = _world(
        tmp_path,
        {
            "O.Neil-7": _soul(
                "O.Neil-7",
                [
                    ("2026-04-02T09:40:00+00:00", "Becoming: a keeper of tide tables"),
                    ("2026-04-02T14:20:00Z", "Becoming: a cartographer of undertow maps"),
                    ("2026-04-02 11:05", "Becoming: a reader of undertow charts"),
                ],
            )
        },
    )
    # the arc is in time order: the 11:05 statement is its 2nd, the 14:20 one its 3rd
    third = explain(world, "O.Neil-7", index=2)
    assert third.statement.text.endswith("undertow charts")
    assert third.previous is not None and third.previous.text.endswith("tide tables")
    # "undertow" came first in this frame by time: the 14:20 frame is not its precursor
    own = [p for p in third.precursors if p.own]
    assert not [p for p in own if p.word == "undertow"], own
    second = explain(world, "O.Neil-7", index=3)
    assert second.statement.text.endswith("undertow maps")
    assert second.previous is not None and second.previous.text.endswith("undertow charts")


def _frame_spans(path: Path) -> dict[int, tuple[str, str]]:
    """Each line of a soul file inside a dated frame -> the span its frame can have, read by
    ``frametimes`` (a reader of its own)."""
    lines = path.read_text("utf-8", "replace").splitlines()
    placed = frametimes.frame_times(lines)
    frames = {p[0]: (p[1], p[2]) for p in placed if p is not None}
    order = sorted(frames)
    spans = dict(zip(order, frametimes.spans_of([frames[i] for i in order]), strict=True))
    out = {}
    for n, p in enumerate(placed, 1):
        if p is not None:
            low, high = spans[p[0]]
            out[n] = (f"{p[1]} {low}", f"{p[1]} {high}")
    return out


@pytest.mark.parametrize(
    ("era", "agent"),
    [("bundle", "zion-coder-04"), ("bundle", "zion-debater-06"), ("later", "zion-coder-06")],
)
def test_no_dossier_cites_a_later_statement_as_the_one_before(
    era: str, agent: str, tmp_path: Path
) -> None:
    """Real files of both eras (the early ones with their git history): the statement a dossier
    gives as the one before is never one its headings place after the statement."""
    from soulscope.history.why import explain
    from soulscope.soul.trajectory import arc
    from tests.support.paths import corpus_dir
    from tests.support.repos import clone_bundle

    if era == "bundle":
        root = clone_bundle(tmp_path / "repo") / "state"
    else:
        root = corpus_dir("rappterbook-later")
    world = World.open(root)
    spans = _frame_spans(root / "memory" / f"{agent}.md")
    count = 0
    for index in range(1, len(arc(world.read(agent))) + 1):
        why = explain(world, agent, index=index)
        if why.previous is None or why.statement.line not in spans:
            continue
        if why.previous.line not in spans:  # outside frames, above it in the file: undated
            assert why.previous.frame_index is None and why.previous.line < why.statement.line
            continue
        count += 1
        _, high = spans[why.statement.line]
        low, _ = spans[why.previous.line]
        assert low <= high, (agent, why.statement.line, why.previous.line)
    assert count >= 5
