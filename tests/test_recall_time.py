"""Time in questions: "first"/"latest" answered in time order, dates and frames as filters."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from soulscope.history.timeline import first_mention
from soulscope.recall.hybrid import FrameRange, RecallIndex
from soulscope.recall.semantic import EmbeddingCache
from soulscope.recall.temporal import read_intent
from soulscope.world import World
from tests.support.cli import soulscope

AGENTS = ("zion-coder-06", "zion-coder-09", "zion-reviewer-01")


def test_reading_time_in_a_question() -> None:
    i = read_intent("when did coder-06 start caring about ownership?", AGENTS)
    assert (i.order, i.agent, i.topic) == ("earliest", "zion-coder-06", ("ownership",))
    assert "coder-06" not in i.words  # the agent is a filter, not words to match
    i = read_intent("who first argued for tombstones?")
    assert i.order == "earliest" and i.topic == ("tombston",)  # "argued" is what was done
    i = read_intent("what is the latest on governance?")
    assert i.order == "latest" and i.topic == ("govern",)
    assert read_intent("what did he say before 2026-04-01").until == "2026-03-31"
    assert read_intent("anything since 2026-03-28?").since == "2026-03-28"
    i = read_intent("what happened after 28 March 2026")
    assert (i.since, i.until) == ("2026-03-29", None)
    i = read_intent("what happened in March 2026")
    assert (i.since, i.until) == ("2026-03-01", "2026-03-31")
    i = read_intent("what changed after frame 225")
    assert (i.first_frame, i.last_frame, i.order) == (226, None, None)
    i = read_intent("what happened between frames 230 and 220")
    assert (i.first_frame, i.last_frame) == (220, 230)
    assert read_intent("what does ownership mean to you?").order is None
    assert read_intent("on 2026-02-30 nothing").since is None  # not a day: not a filter


def test_dates_in_the_question_filter_frames(later_world: Path) -> None:
    index = RecallIndex.for_world(World.open(later_world))
    found = index.find("what did reviewer-01 review after 2026-03-29?", k=50, mode="bm25")
    assert found.hits and found.intent.agent == "zion-reviewer-01"
    assert all(h.chunk.date > "2026-03-29" for h in found.hits)
    assert {h.chunk.agent for h in found.hits} == {"zion-reviewer-01"}
    plain = index.search("review", k=50, mode="bm25", agent="zion-reviewer-01")
    assert any(h.chunk.date and h.chunk.date <= "2026-03-29" for h in plain)
    # A --frames range and a bound in the question: the tighter end of each wins.
    found = index.find("ownership after frame 225", k=50, mode="bm25", frames=FrameRange(200, 233))
    assert found.hits and all(226 <= h.chunk.number <= 233 for h in found.hits)


@pytest.fixture(scope="module")
def demo(tmp_path_factory, minilm) -> tuple[World, RecallIndex]:
    """The demo world as a git repository (one frame advanced), embedded once."""
    folder = tmp_path_factory.mktemp("demo") / "world"
    made = soulscope("demo", str(folder), "--frames", "1")
    assert made.returncode == 0, made.stderr
    world = World.open(folder)
    index = RecallIndex.for_world(world)
    index.attach(minilm, EmbeddingCache(tmp_path_factory.mktemp("cache") / "e.sqlite3"))
    return world, index


@pytest.mark.slow
def test_who_first_argued_agrees_with_first_mention(demo) -> None:
    world, index = demo
    mention = first_mention(world, "tombstone")
    found = index.find("who first argued for tombstones?", k=5)
    top = found.hits[0]
    assert found.reordered == "earliest" and found.timely >= 1
    assert top.chunk.number == int(mention.frame)  # the frame git says the word arrived in
    assert "tombstone" in top.chunk.text.lower()
    plain = index.search("who first argued for tombstones?", k=1)[0]
    assert plain.chunk.number > top.chunk.number  # by score alone, a later frame wins


@pytest.mark.slow
def test_why_did_you_start_is_the_shift_frame(demo) -> None:
    world, index = demo
    soul = world.read("philosopher-oren")
    shift = next(
        f for f in soul.frames
        if any("defender of forgetting" in o.text for o in f.observations)
    )  # fmt: skip
    found = index.find("why did you start defending forgetting?", k=5, agent="philosopher-oren")
    assert found.hits[0].chunk.frame_index == shift.index
    assert "defender of forgetting" in found.hits[0].best


@pytest.mark.slow
def test_latest_puts_the_newest_frames_first(demo) -> None:
    _, index = demo
    found = index.find("what is the latest on the lanterns?", k=5)
    assert found.reordered == "latest"
    dates = [h.chunk.date for h in found.hits[: found.timely]]
    assert dates == sorted(dates, reverse=True)
    newest = max(c.date for c in index.chunks if c.date and "lantern" in c.text.lower())
    assert dates[0] == newest


def test_search_json_says_it_reordered_by_time(later_world: Path) -> None:
    out = soulscope(
        "search", "when did coder-06 start caring about ownership?", "-w", str(later_world),
        "--mode", "bm25", "--json",
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    hits = json.loads(out.stdout)
    timely = [h for h in hits if h["time_order"] == "earliest"]
    assert timely and hits[: len(timely)] == timely
    assert {h["agent"] for h in hits} == {"zion-coder-06"}
    assert hits[0]["frame"] == 220  # the first frame about ownership
    assert [h["frame"] for h in timely] == sorted(h["frame"] for h in timely)
    plain = json.loads(soulscope("search", "ownership types", "-w", str(later_world), "--mode",
                           "bm25", "--json").stdout)  # fmt: skip
    assert all(h["time_order"] is None for h in plain)
    text = soulscope("search", "when did coder-06 start caring about ownership?", "-w",
               str(later_world), "--mode", "bm25")  # fmt: skip
    assert text.stdout.startswith("read as: earliest first, agent zion-coder-06")


def test_time_questions_start_at_a_frame_holding_the_asked_words(
    early_world: Path, later_world: Path
) -> None:
    """Real worlds of both eras and a hand-made one: stem neighbours ("digest" for
    "digestion"), one word of a phrase, or words apart never lead a time-ordered answer; where
    nothing holds the words the search says so (``tests.support.timequestions``)."""
    from tests.support.timequestions import QUESTIONS, run_questions, sampled

    rows = run_questions()
    assert len(rows) == len(QUESTIONS) >= 25
    assert [r["question"] for r in rows if not r["ok"]] == []
    rows = run_questions(sampled(early_world / "memory", 25, seed=11))
    assert [r["question"] for r in rows if not r["ok"]] == []


def test_a_phrase_is_held_as_written_or_said_missing(tmp_path: Path) -> None:
    from tests.support.timequestions import made_world

    index = RecallIndex.for_world(World.open(made_world(tmp_path / "w")))
    # "lantern" and "guild" apart come first (ann.b); the Lantern Guild as written later (Bo-7)
    found = index.find("When did the Lantern Guild first come up?", k=3, mode="bm25")
    assert (found.held, found.hits[0].chunk.agent) == ("as written", "Bo-7")
    assert all("LANTERN GUILD" in h.chunk.text.upper() for h in found.hits[: found.timely])
    # a brisket protocol is no Brisket Protocol: nothing holds it, and no time order is claimed
    found = index.find("when did the Brisket Protocol first come up?", k=3, mode="bm25")
    assert (found.held, found.timely, found.reordered) == ("nothing", 0, None)
    out = soulscope("search", "when did the Brisket Protocol first come up?", "-w",
                    str(tmp_path / "w"), "--mode", "bm25")  # fmt: skip
    assert 'no frame holds "Brisket Protocol"' in out.stdout
    # words asked apart may be held apart, and the answer says so
    found = index.find("when did anyone first write about the kiln and the quay?", mode="bm25")
    assert found.held == "as words" and found.hits[0].chunk.agent == "ann.b"
    # a word held by stem only: said, and still in time order
    found = index.find("when did sortitioning first come up?", k=3, mode="bm25")
    assert found.held == "by stem" and found.hits[0].chunk.agent == "ann.b"
    out = soulscope("search", "first mention of sortitioning", "-w", str(tmp_path / "w"),
                    "--mode", "bm25", "--json")  # fmt: skip
    assert json.loads(out.stdout)[0]["holds"] == "by stem"


def test_when_did_it_come_up_agrees_with_first(early_world: Path) -> None:
    """A question about when a word came up starts at a frame ``first`` names (or ties)."""
    from tests.support import frametimes

    world = World.open(early_world)
    index = RecallIndex.for_world(world)
    checked = 0
    for term, expected in frametimes.first_day_terms(early_world / "memory", 12):
        found = index.find(f"when did {term} first come up?", k=1, mode="bm25")
        mention = first_mention(world, term)
        said = {mention.agent_id, *(u.agent_id for u in mention.ties)}
        assert found.timely and found.hits[0].chunk.agent in said, term
        assert said == frametimes.possible_firsts(expected), term
        checked += 1
    assert checked == 12


def test_a_named_agent_is_found_as_its_whole_id_or_tail_in_any_case() -> None:
    """The words of a question are looked up, as the pattern of each id found them: a whole id
    or the tail after its prefix, any letter case, never inside a longer name; ids with a dot."""
    from soulscope.recall.temporal import _named_agent

    agents = ["zion-coder-06", "zion-poet-01", "Ada.Lovelace-1", "bob", "rustacean"]
    cases = {
        "what did coder-06 say first?": "zion-coder-06",
        "ZION-CODER-06, latest": "zion-coder-06",
        "(Coder-06)'s first post": "zion-coder-06",
        "first from ada.lovelace-1": "Ada.Lovelace-1",
        "what did Bob say?": "bob",
        "zion-coder-066 first": None,  # a longer name
        "x-coder-06 first": None,
        "coder-06s first": None,
        "the bobcat": None,
        "bob and poet-01": None,  # two agents: neither
        "rustacéan": None,
    }
    for text, agent in cases.items():
        found, pattern = _named_agent(text, agents)
        assert found == agent, text
        assert (pattern is None) == (agent is None), text
        if pattern is not None:
            assert pattern.search(text), text
