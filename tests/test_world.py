"""Opening worlds: folders, memory folders, single files, junk, and ids that try to escape."""

from __future__ import annotations

from pathlib import Path

import pytest

from soulscope.world import World, WorldError


def test_world_listing_is_sorted_and_junk_is_reported(strays: Path) -> None:
    world = World.open(strays)
    assert world.agents() == []
    assert len(world.junk()) == 21
    assert all(j.problem for j in world.junk())


def test_world_from_memory_folder_and_single_file(later_world: Path) -> None:
    by_root = World.open(later_world)
    by_memory = World.open(later_world / "memory")
    one = World.open(later_world / "memory" / "zion-coder-09.md")
    assert (
        [a.id for a in by_root.agents()]
        == [a.id for a in by_memory.agents()]
        == ["zion-coder-06", "zion-coder-09", "zion-reviewer-01"]
    )
    assert [a.id for a in one.agents()] == ["zion-coder-09"]
    assert one.read("zion-coder-09").name


@pytest.mark.parametrize("bad", ["../x", "..", "a/b", "", "x" * 65, ".hidden"])
def test_bad_ids_are_refused(later_world: Path, bad: str) -> None:
    world = World.open(later_world)
    with pytest.raises(WorldError, match="not a valid agent id"):
        world.read(bad)


def test_missing_and_empty_folders(tmp_path: Path) -> None:
    with pytest.raises(WorldError, match="no such file or folder"):
        World.open(tmp_path / "nope")
    with pytest.raises(WorldError, match="holds no soul files"):
        World.open(tmp_path)


def test_registry_names(early_world: Path) -> None:
    world = World.open(early_world)
    assert world.display_name("zion-philosopher-01")
    assert len(world.agents()) == 116


def test_broken_registry_is_ignored(tmp_path: Path) -> None:
    (tmp_path / "memory").mkdir()
    (tmp_path / "memory" / "a.md").write_text("# A\n")
    (tmp_path / "agents.json").write_text("{not json")
    world = World.open(tmp_path)
    assert world.registry() == {}
    assert world.read("a").name == "A"


def test_an_agent_is_found_by_id_and_a_refresh_sees_files_come_and_go(tmp_path: Path) -> None:
    memory = tmp_path / "memory"
    memory.mkdir()
    for name in ("b", "a", "c"):
        (memory / f"{name}.md").write_text(f"# {name.upper()}\n")
    world = World.open(tmp_path)
    assert [world.agent(i).id for i in ("c", "a", "b")] == ["c", "a", "b"]
    (memory / "a.md").unlink()
    (memory / "d.md").write_text("# D\n")
    assert world.agent("a").id == "a"  # the listing is kept until refreshed
    world.refresh()
    assert world.read("d").name == "D"
    with pytest.raises(WorldError, match="no agent 'a'"):
        world.agent("a")
