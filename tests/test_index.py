"""The world index: rows reused while files are unchanged, parsed again when they change, rebuilt
when missing, stale or corrupt; its summaries are the ones parsing gives."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
from pathlib import Path

import pytest

from soulscope.index import WorldIndex, index_path, world_entries
from soulscope.soul.parse import parse
from soulscope.soul.trajectory import summarize
from soulscope.world import DEMO_WORLD, World
from tests.support.bigworld import frame_entries
from tests.support.cli import soulscope


@pytest.fixture
def world(tmp_path: Path) -> World:
    shutil.copytree(DEMO_WORLD, tmp_path / "w")
    return World.open(tmp_path / "w")


def parsed(world: World) -> dict:
    return {a.id: summarize(a.id, parse(a.path.read_bytes(), a.id)) for a in world.agents()}


def append_frame(path: Path) -> None:
    with open(path, "a", encoding="utf-8") as f:
        f.write("\n" + next(frame_entries(1, start=999)))


def test_the_index_gives_what_parsing_gives_and_is_reused(world: World) -> None:
    entries = world_entries(world)
    assert {e.file.id: e.summary for e in entries} == parsed(world)
    assert [e.file.id for e in entries] == [a.id for a in world.agents()]
    assert index_path(world).is_file()
    with WorldIndex(World.open(world.root)) as index:
        fresh, stale = index.scan()
    assert stale == [] and len(fresh) == len(entries)


def test_only_changed_files_are_parsed_again(world: World) -> None:
    world_entries(world)
    changed = world.agents()[3]
    append_frame(changed.path)
    (world.memory_dir / world.agents()[0].path.name).unlink()
    shutil.copy(changed.path, world.memory_dir / "newcomer-ada.md")
    again = World.open(world.root)
    with WorldIndex(again) as index:
        fresh, stale = index.scan()
        assert sorted(f.id for f in stale) == sorted([changed.id, "newcomer-ada"])
        assert world.agents()[0].id not in {e.file.id for e in fresh}
    entries = {e.file.id: e for e in world_entries(again)}
    assert {k: e.summary for k, e in entries.items()} == parsed(again)
    assert entries[changed.id].summary.frames == len(parse(changed.path.read_bytes()).frames)
    assert entries[changed.id].last_frame.startswith("Frame 999")


@pytest.mark.parametrize("damage", ["garbage", "stale", "foreign table", "unreadable rows"])
def test_a_corrupt_or_stale_index_is_rebuilt(world: World, damage: str) -> None:
    world_entries(world)
    path = index_path(world)
    if damage == "garbage":
        path.write_bytes(b"this is not a database" * 100)
    elif damage == "stale":
        # Rows written by another parser: their values are not to be trusted.
        with sqlite3.connect(path) as db:
            db.execute("UPDATE meta SET value = 'older' WHERE key = 'fingerprint'")
            db.execute('UPDATE souls SET summary = \'{"agent_id": "x"}\'')
    elif damage == "unreadable rows":
        # The index is current, but its rows are not what this code writes.
        with sqlite3.connect(path) as db:
            names = [r[0] for r in db.execute("SELECT name FROM souls ORDER BY name")]
            unreadable = ['{"agent_id": "x"}', "[1, 2]", "not json", "null", '"x"']
            for name, text in zip(names, unreadable, strict=False):
                db.execute("UPDATE souls SET summary = ? WHERE name = ?", (text, name))
    else:
        with sqlite3.connect(path) as db:
            db.execute("DROP TABLE souls")
            db.execute("CREATE TABLE souls (name TEXT)")
    entries = world_entries(World.open(world.root))
    assert {e.file.id: e.summary for e in entries} == parsed(world)


def test_an_unwritable_cache_folder_keeps_the_index_in_memory(
    world: World, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("SOULSCOPE_CACHE", str(blocker / "cache"))
    entries = world_entries(world)
    assert {e.file.id: e.summary for e in entries} == parsed(world)


def test_unreadable_files_are_reported_and_tried_again(world: World) -> None:
    victim = world.agents()[1]
    os.chmod(victim.path, 0)
    try:
        if os.access(victim.path, os.R_OK):
            pytest.skip("this user reads any file (root)")
        entry = next(e for e in world_entries(world) if e.file.id == victim.id)
        assert entry.summary is None and "cannot read" in entry.error
    finally:
        os.chmod(victim.path, 0o644)
    entry = next(e for e in world_entries(World.open(world.root)) if e.file.id == victim.id)
    assert entry.summary is not None


def printed(*args: str) -> list[dict]:
    """What ``soulscope ARGS --json`` printed."""
    out = soulscope(*args, "--json")
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_agents_and_overview_follow_a_file_that_grew(world: World) -> None:
    before = {r["id"]: r for r in printed("agents", "--world", str(world.root))}
    grown = world.agents()[2]
    append_frame(grown.path)
    after = {r["id"]: r for r in printed("agents", "--world", str(world.root))}
    assert after[grown.id]["frames"] == before[grown.id]["frames"] + 1
    assert after[grown.id]["bytes"] == grown.path.stat().st_size
    assert after[grown.id]["last_frame"].startswith("Frame 999")
    overview = {r["id"]: r for r in printed("overview", "--world", str(world.root))}
    soul = parse(grown.path.read_bytes())
    assert overview[grown.id]["frames"] == len(soul.frames)
    assert overview[grown.id]["last_date"] == max(f.date for f in soul.frames if f.date)


def test_real_worlds_round_trip_through_the_index(early_world: Path, later_world: Path) -> None:
    for where in (early_world, later_world):
        world = World.open(where)
        cold = world_entries(world)
        warm = world_entries(World.open(where))  # read back from the rows
        assert [e.summary for e in warm] == [e.summary for e in cold]
        assert {e.file.id: e.summary for e in warm} == parsed(world)
