"""Each soul file's link tallies kept between runs (``history.tallystore``): a listing that indexed
the world keeps them, a graph then reads no soul file, a changed file is read again alone, and
anything that changes what a file's words name (an agent joining, a registry edited, an
archetype another file lists) is never answered from a stale tally."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from soulscope.history import graph
from soulscope.history.tallystore import prepared, store_path
from soulscope.keep import fresh
from soulscope.world import World
from tests.support.cli import soulscope, soulscope_process
from tests.support.worlds import soul, write_world


@pytest.fixture(autouse=True)
def _settled(monkeypatch: pytest.MonkeyPatch) -> None:
    """Files written by a test count as settled at once (no racy stat): their tallies are kept."""
    monkeypatch.setattr(fresh, "RACY_NS", 0)


def frames(*lines: str) -> list[str]:
    return [f"## Frame {n} — 2026-03-0{n}\n- {line}\n\n" for n, line in enumerate(lines, 1)]


def registry_world(root: Path) -> Path:
    souls = {
        "ada-01": soul(
            "Ada",
            "ada-01",
            "Archivist",
            frames(
                "Influenced by: bo-02's audit",
                "Influenced by: cy-03's thread",
                "Thanks to Grace Hopper for the review",
            ),
        ),
        "bo-02": soul("Bo", "bo-02", "Debater", frames("Replied to ada-01 on #12")),
    }
    return write_world(root, souls, {"ada-01": "Ada Ledger", "bo-02": "Bo Debater"})


def edges(world: Path) -> dict[tuple[str, str], int]:
    g = graph.influence(World.open(world))
    return {key: a.weight for key, a in g.arcs.items()}


def fresh_edges(world: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict:
    """The arcs as a cache that keeps nothing of this world reads them."""
    with monkeypatch.context() as m:
        m.setenv("SOULSCOPE_CACHE", str(tmp_path / "elsewhere"))
        shutil.rmtree(tmp_path / "elsewhere", ignore_errors=True)
        return edges(world)


def reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The agents whose soul file the graph reads from now on."""
    read: list[str] = []
    tally = graph._file_tally

    def counted(names, data, agent, window):  # noqa: ANN001
        read.append(agent)
        return tally(names, data, agent, window)

    monkeypatch.setattr(graph, "_file_tally", counted)
    return read


def test_after_a_listing_the_graph_reads_no_soul_file(tmp_path: Path, monkeypatch) -> None:
    world = registry_world(tmp_path / "w")
    listing = soulscope("agents", "--world", str(world), "--json")
    assert listing.returncode == 0 and [a["id"] for a in json.loads(listing.stdout)] == [
        "ada-01",
        "bo-02",
    ]
    read = reads(monkeypatch)
    found = edges(world)
    assert read == []
    assert found == {("bo-02", "ada-01"): 1, ("ada-01", "bo-02"): 1}
    assert found == fresh_edges(world, tmp_path, monkeypatch)


def test_a_changed_file_is_read_again_alone(tmp_path: Path, monkeypatch) -> None:
    world = registry_world(tmp_path / "w")
    edges(world)
    with (world / "memory" / "bo-02.md").open("a", encoding="utf-8") as f:
        f.write("## Frame 4 — 2026-03-04\n- Influenced by: ada-01's catalogue\n\n")
    read = reads(monkeypatch)
    assert edges(world)[("ada-01", "bo-02")] == 2
    assert read == ["bo-02"]


def test_an_agent_joining_is_named_in_files_that_did_not_change(tmp_path, monkeypatch) -> None:
    world = registry_world(tmp_path / "w")
    assert ("cy-03", "ada-01") not in edges(world)  # no file, not in the registry: a word
    (world / "memory" / "cy-03.md").write_text(soul("Cy", "cy-03", "Coder", frames("Posted #3")))
    found = edges(world)
    assert found[("cy-03", "ada-01")] == 1
    assert found == fresh_edges(world, tmp_path, monkeypatch)


def test_a_registry_edit_is_read_into_files_that_did_not_change(tmp_path, monkeypatch) -> None:
    world = registry_world(tmp_path / "w")
    assert ("bo-02", "ada-01") in edges(world) and len(edges(world)) == 2
    registry = json.loads((world / "agents.json").read_text())
    registry["agents"]["bo-02"]["name"] = "Grace Hopper"
    (world / "agents.json").write_text(json.dumps(registry))
    found = edges(world)
    assert found[("bo-02", "ada-01")] == 2  # the audit, and now the thanks to Grace Hopper
    assert found == fresh_edges(world, tmp_path, monkeypatch)


def test_an_archetype_another_file_lists_is_read_into_files_that_did_not_change(
    tmp_path: Path, monkeypatch
) -> None:
    """No registry: "philosopher-08" is an agent once some soul lists a philosopher."""
    souls = {
        "zion-coder-01": soul(
            "One",
            "zion-coder-01",
            "Coder",
            frames(
                "Replied to philosopher-08 on #12",
                "Influenced by: coder-02's parser",
            ),
        ),
        "zion-coder-02": soul("Two", "zion-coder-02", "Coder", frames("Posted #13")),
    }
    world = write_world(tmp_path / "w", souls)
    assert ("zion-philosopher-08", "zion-coder-01") not in edges(world)
    with (world / "memory" / "zion-coder-02.md").open("a", encoding="utf-8") as f:
        f.write("## Frame 2 — 2026-03-02\n- Relationships: philosopher-03 (ally)\n\n")
    found = edges(world)
    assert ("zion-philosopher-08", "zion-coder-01") in found
    assert found == fresh_edges(world, tmp_path, monkeypatch)


def test_a_window_reads_the_files(tmp_path: Path, monkeypatch) -> None:
    world = registry_world(tmp_path / "w")
    edges(world)
    read = reads(monkeypatch)
    g = graph.influence(World.open(world), since="2026-03-02", until="2026-03-02")
    assert sorted(read) == ["ada-01", "bo-02"]
    assert set(g.arcs) == set()  # cy-03 is no agent; bo-02 wrote only on the first day


def test_listing_keeps_no_tallies_when_told_not_to(tmp_path: Path) -> None:
    world = registry_world(tmp_path / "w")
    done = soulscope("agents", "--world", str(world), env={"SOULSCOPE_KEEP_LINKS": "0"})
    assert done.returncode == 0 and not store_path(World.open(world)).exists()
    done = soulscope("overview", "--world", str(world), "--json")
    assert done.returncode == 0 and store_path(World.open(world)).exists()


def test_a_broken_store_is_made_again(tmp_path: Path, monkeypatch) -> None:
    world = registry_world(tmp_path / "w")
    right = edges(world)
    store_path(World.open(world)).write_bytes(b"not a database" * 100)
    assert edges(world) == right
    read = reads(monkeypatch)
    assert edges(world) == right and read == []  # and kept again


def test_a_listing_reads_the_links_of_changed_files_only(tmp_path: Path, monkeypatch) -> None:
    world = registry_world(tmp_path / "w")
    read = reads(monkeypatch)
    soulscope("agents", "--world", str(world))
    assert sorted(read) == ["ada-01", "bo-02"] and prepared(World.open(world))
    with (world / "memory" / "bo-02.md").open("a", encoding="utf-8") as f:
        f.write("## Frame 4 — 2026-03-04\n- Influenced by: ada-01's catalogue\n\n")
    assert not prepared(World.open(world))
    read.clear()
    soulscope("overview", "--world", str(world))
    assert read == ["bo-02"]
    read.clear()
    soulscope("agents", "--world", str(world))
    assert read == []  # nothing changed since: not a file opened for its links


def test_the_listing_is_whole_where_it_is_piped(tmp_path: Path) -> None:
    """(Standard output is let go before the links are read: the answer is all there.)"""
    world = registry_world(tmp_path / "w")
    done = soulscope_process("agents", "--world", str(world), "--json")
    assert done.returncode == 0 and [a["id"] for a in json.loads(done.stdout)] == [
        "ada-01",
        "bo-02",
    ]


def test_a_stopped_preparation_keeps_what_it_read(tmp_path: Path, monkeypatch) -> None:
    """(The dashboard stops it when the world changes again: frames being written.)"""
    world = registry_world(tmp_path / "w")
    assert graph.prepare(World.open(world), stop=lambda: True) == 1
    assert not prepared(World.open(world))
    read = reads(monkeypatch)
    assert graph.prepare(World.open(world)) == 1 and read == ["bo-02"]
    assert prepared(World.open(world))
