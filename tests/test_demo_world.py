"""The built-in demo world (`state/`): what a newcomer opens first must be whole and coherent."""

from __future__ import annotations

import json
import re
from datetime import date, timedelta
from functools import cache

import pytest

from soulscope.soul.model import Soul
from soulscope.soul.trajectory import arc
from soulscope.world import DEMO_WORLD, World
from tests.support.cli import soulscope

ARC_LABELS = ("Influenced by", "Reinforced", "Becoming", "Relationships", "Connected")
_THREAD = re.compile(r"#(\d+)")
_RELATION = re.compile(r"([A-Za-z0-9._-]+)\s*\(([^()]+)\)")


@cache
def _world() -> World:
    return World.open(DEMO_WORLD)


@cache
def _souls() -> dict[str, Soul]:
    world = _world()
    return {a.id: world.read(a.id) for a in world.agents()}


def _jsonl(name: str) -> list[dict]:
    text = (DEMO_WORLD / "community" / name).read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines()]


def _clock() -> dict:
    return json.loads((DEMO_WORLD / "world.json").read_text(encoding="utf-8"))


def _start() -> date:
    """The world's first day: its clock's date, minus one day per frame before the last."""
    clock = _clock()
    return date.fromisoformat(clock["date"]) - timedelta(days=clock["frame"] - 1)


def _agent_mentions(text: str) -> set[str]:
    """Tokens shaped like the demo's ids (`<archetype>-<name>`) with a known archetype prefix."""
    prefixes = {i.split("-")[0] for i in _souls()}
    pattern = rf"\b(?:{'|'.join(sorted(prefixes))})-[a-z]+\b"
    return set(re.findall(pattern, text))


def test_the_demo_world_opens_with_a_registered_cast() -> None:
    world = _world()
    ids = [a.id for a in world.agents()]
    assert 8 <= len(ids) <= 12
    assert world.junk() == []
    registry = world.registry()
    assert sorted(registry) == ids
    for agent_id, soul in _souls().items():
        entry = registry[agent_id]
        assert soul.agent_id == agent_id and soul.identity["ID"] == agent_id
        assert world.display_name(agent_id) == soul.name == entry["name"]
        assert entry["archetype"] == soul.identity["Archetype"]
        assert {"Voice", "Personality"} <= set(soul.identity)
        for title in ("Convictions", "Interests", "Subscribed Channels"):
            assert soul.items(title), f"{agent_id} has no {title}"
        channels = [c.removeprefix("c/") for c in soul.items("Subscribed Channels")]
        assert entry["subscribed_channels"] == channels
    archetypes = {s.identity["Archetype"] for s in _souls().values()}
    assert len(archetypes) == len(ids), "every agent has its own archetype"


def test_every_frame_parses_cleanly_in_order_and_on_the_world_clock() -> None:
    start = _start()
    last = _clock()["frame"]
    for agent_id, soul in _souls().items():
        assert not soul.problems, f"{agent_id}: {soul.problems}"
        frames = soul.frames
        assert 20 <= len(frames) <= 40, agent_id
        numbers = [f.number for f in frames]
        # Quiet agents skip frames, so numbers rise strictly but may leave gaps.
        assert numbers == sorted(set(numbers)) and numbers[0] >= 1 and numbers[-1] <= last
        for f in frames:
            assert f.date == (start + timedelta(days=f.number - 1)).isoformat(), f.heading
            assert 1 <= len(f.actions) <= 3, f"{agent_id} {f.heading}: {len(f.actions)} actions"
            labels = {o.label for o in f.observations}
            missing = set(ARC_LABELS) - labels
            assert not missing, f"{agent_id} {f.heading} lacks {missing}"


def test_world_clock_stands_at_the_last_frame() -> None:
    clock = _clock()
    last = max(f.number for s in _souls().values() for f in s.frames)
    assert clock["frame"] == last and clock["seed"] == 7 and clock["name"]
    dates = {f.date for s in _souls().values() for f in s.frames if f.number == last}
    assert dates == {clock["date"]}


def test_every_agent_has_an_arc_that_shifts_and_holds_between_shifts() -> None:
    for agent_id, soul in _souls().items():
        statements = arc(soul)
        assert len(statements) == len(soul.frames), f"{agent_id}: one Becoming per frame"
        shifts = [s for s in statements if s.shift]
        assert 3 <= len(shifts) <= 6, f"{agent_id}: {len(shifts)} shifts"
        assert not any(s.repeat for s in statements), f"{agent_id} repeats a statement verbatim"
        roles = [s.role for s in statements]
        assert all(s.text.startswith("the ") for s in statements), agent_id
        # Each shift names where it comes from and where it goes.
        for s in [statements[0], *shifts]:
            assert s.from_role and s.to_role, f"{agent_id} frame {s.number}: no 'From Y to Z'"
        # A role, once left, is a new chapter; coming back to it is a return, not a shift.
        for i, s in enumerate(statements[1:], 1):
            if s.role != roles[i - 1] and s.role in roles[:i]:
                assert s.kind == "return", f"{agent_id} frame {s.number}"


def test_thread_references_point_at_posts_that_already_exist() -> None:
    posts = {p["id"]: p for p in _jsonl("posts.jsonl")}
    for agent_id, soul in _souls().items():
        for f in soul.frames:
            for n in map(int, _THREAD.findall(f.source)):
                assert n in posts, f"{agent_id} {f.heading} cites #{n}, not in posts.jsonl"
                assert posts[n]["frame"] <= f.number, f"{agent_id} {f.heading} cites #{n} early"
            connected = {int(n) for o in f.get("Connected") for n in _THREAD.findall(o)}
            assert connected, f"{agent_id} {f.heading} connects to no thread"


def test_relationships_and_influences_name_real_agents() -> None:
    ids = set(_souls())
    partners: dict[str, set[str]] = {}
    for agent_id, soul in _souls().items():
        for f in soul.frames:
            related = [other for o in f.get("Relationships") for other, _ in _RELATION.findall(o)]
            assert related, f"{agent_id} {f.heading}: no 'id (nature)' relationships"
            assert set(related) <= ids - {agent_id}, f"{agent_id} {f.heading}: {related}"
            partners.setdefault(agent_id, set()).update(related)
            influences = " ".join(f.get("Influenced by"))
            named = _agent_mentions(influences)
            assert named and named <= ids - {agent_id}, f"{agent_id} {f.heading}: {influences}"
            assert _agent_mentions(f.source) <= ids, f"{agent_id} {f.heading} names a stranger"
    # A community, not a set of monologues: everyone relates to several others, over time.
    assert all(len(p) >= 4 for p in partners.values()), partners


def test_community_records_agree_with_the_soul_files() -> None:
    souls = _souls()
    start = _start()
    posts = {p["id"]: p for p in _jsonl("posts.jsonl")}
    assert sorted(posts) == list(range(1, len(posts) + 1))
    for p in posts.values():
        assert set(p) == {"id", "frame", "date", "author", "channel", "title", "body"}
        assert p["author"] in souls and p["title"] and p["body"]
        assert p["date"] == (start + timedelta(days=p["frame"] - 1)).isoformat()
        assert f"c/{p['channel']}" in souls[p["author"]].items("Subscribed Channels"), p["id"]
        frame = next(f for f in souls[p["author"]].frames if f.number == p["frame"])
        posted = f'Posted #{p["id"]} in c/{p["channel"]}: "{p["title"]}"'
        assert posted in frame.actions, p["id"]
    assert 3 <= len({p["channel"] for p in posts.values()}) <= 4

    comments = _jsonl("comments.jsonl")
    by_id = {c["id"]: c for c in comments}
    assert len(by_id) == len(comments) and comments
    for c in comments:
        assert c["author"] in souls and c["post"] in posts
        assert c["frame"] >= posts[c["post"]]["frame"]
        if c["parent"] is not None:
            parent = by_id[c["parent"]]
            assert parent["post"] == c["post"] and parent["id"] < c["id"]
        frame = next(f for f in souls[c["author"]].frames if f.number == c["frame"])
        assert any(c["body"] in a and f"#{c['post']}" in a for a in frame.actions), c

    votes = _jsonl("votes.jsonl")
    assert votes
    for v in votes:
        assert v["voter"] in souls and v["value"] in (1, -1)
        assert posts[v["post"]]["frame"] <= v["frame"]
    for f in _jsonl("follows.jsonl"):
        assert {f["follower"], f["followee"]} <= set(souls) and f["follower"] != f["followee"]


def test_cli_reads_the_demo_world_by_default() -> None:
    out = soulscope("overview", "--json")
    assert out.returncode == 0, out.stderr
    rows = {r["id"]: r for r in json.loads(out.stdout)}
    assert set(rows) == set(_souls())
    clock = _clock()
    for agent_id, row in rows.items():
        statements = arc(_souls()[agent_id])
        assert row["shifts"] == sum(s.shift for s in statements) >= 3
        assert row["last_date"] == clock["date"]
        assert row["latest"]["role"] == statements[-1].role


@pytest.mark.parametrize("agent_id", ["welcomer-pell", "archivist-hale"])
def test_cli_becoming_shows_the_arc_with_its_shifts(agent_id: str) -> None:
    out = soulscope("becoming", agent_id, "--json")
    assert out.returncode == 0, out.stderr
    rows = json.loads(out.stdout)
    soul = _souls()[agent_id]
    assert [r["frame"] for r in rows] == [f.number for f in soul.frames]
    assert [r["shift"] for r in rows] == [s.shift for s in arc(soul)]
    assert sum(r["shift"] for r in rows) >= 3
