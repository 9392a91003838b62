"""Kept answers (``soulscope.memo``): ``graph --json`` and ``spread --json`` asked again of the same
files print what they printed, and any change to the world is a new answer, never a stale one."""

from __future__ import annotations

import json
import os
import shutil
import time
from dataclasses import replace
from pathlib import Path

import pytest

from soulscope import memo
from soulscope.keep import ANSWERS, KINDS, fresh
from soulscope.memo import Memo
from soulscope.world import World
from tests.support.cli import soulscope
from tests.support.kept import kept_text, rewrite


@pytest.fixture
def world(early_world: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the real world whose files count as settled (no racy stat) at once."""
    copy = tmp_path / "world"
    shutil.copytree(early_world, copy)
    monkeypatch.setattr(fresh, "RACY_NS", 0)
    return copy


def kept(kind: str) -> list[Path]:
    return sorted(ANSWERS.path.glob(f"*/{kind}-*"))


def append_frame(path: Path, text: str) -> None:
    with path.open("a", encoding="utf-8") as f:
        f.write(f"\n## Frame 999 — 2026-04-30\n- {text}\n")


def test_graph_asked_again_prints_the_kept_answer_until_a_file_changes(world: Path) -> None:
    first = soulscope("graph", "--world", str(world), "--json")
    assert first.returncode == 0, first.stderr
    (entry,) = kept("graph.json")
    assert kept_text(entry) == first.stdout
    # The kept text is what the next run prints (here marked, to tell it from a new answer).
    rewrite(entry, first.stdout.replace('"frames": ', '"frames":  '))
    again = soulscope("graph", "--world", str(world), "--json")
    assert again.stdout != first.stdout and json.loads(again.stdout) == json.loads(first.stdout)

    # A frame appended to one file: the arc it adds is counted, nothing stale is printed.
    before = {(e["from"], e["to"]): e["weight"] for e in json.loads(first.stdout)["edges"]}
    source, target = "zion-coder-01", "zion-debater-03"
    append_frame(world / "memory" / f"{target}.md", f"Influenced by: {source}'s last review")
    changed = soulscope("graph", "--world", str(world), "--json")
    edges = {(e["from"], e["to"]): e["weight"] for e in json.loads(changed.stdout)["edges"]}
    assert edges[(source, target)] == before.get((source, target), 0) + 1
    assert len(kept("graph.json")) == 2
    # and a window is another question
    window = soulscope("graph", "--world", str(world), "--json", "--since", "2026-04-30")
    assert {(e["from"], e["to"]) for e in json.loads(window.stdout)["edges"]} == {(source, target)}


def test_spread_asked_again_sees_a_new_adopter(world: Path) -> None:
    args = ("spread", "lanternwick", "--world", str(world), "--json")
    none = soulscope(*args)
    assert json.loads(none.stdout)["agents"] == []
    append_frame(world / "memory" / "zion-coder-01.md", "Named the lanternwick pattern.")
    one = soulscope(*args)
    assert [a["agent"] for a in json.loads(one.stdout)["agents"]] == ["zion-coder-01"]
    assert soulscope(*args).stdout == one.stdout
    # another way of matching is another question
    stem = soulscope("spread", "lanternwicks", "--stem", "--world", str(world), "--json")
    assert [a["agent"] for a in json.loads(stem.stdout)["agents"]] == ["zion-coder-01"]
    assert len(kept("spread.json")) == 3


def test_the_registry_is_part_of_the_question(world: Path) -> None:
    """Display names come from ``agents.json``: renaming an agent there changes who a line names."""
    append_frame(world / "memory" / "zion-debater-03.md", "Influenced by: Quiet Lantern's notes")
    args = ("graph", "--world", str(world), "--json")
    arc = ("zion-coder-01", "zion-debater-03")

    def weight() -> int:
        edges = json.loads(soulscope(*args).stdout)["edges"]
        return next((e["weight"] for e in edges if (e["from"], e["to"]) == arc), 0)

    before = weight()
    registry_path = world / "agents.json"
    registry = json.loads(registry_path.read_text(encoding="utf-8"))
    agents = registry.get("agents", registry)
    agents["zion-coder-01"]["name"] = "Quiet Lantern"
    registry_path.write_text(json.dumps(registry), encoding="utf-8")
    assert weight() == before + 1


def test_files_just_written_keep_no_answer(early_world: Path, tmp_path: Path) -> None:
    copy = tmp_path / "world"
    shutil.copytree(early_world, copy)  # every file changed now: a stat may not show the next
    assert Memo(World.open(copy), "graph.json").path is None
    out = soulscope("graph", "--world", str(copy), "--json")
    assert out.returncode == 0 and json.loads(out.stdout)["nodes"]
    assert kept("graph.json") == []


def test_each_world_keeps_its_newest_answers(world: Path) -> None:
    for n in range(ANSWERS.max_entries + 3):
        assert soulscope("spread", f"term{n}", "--world", str(world), "--json").returncode == 0
    assert len(kept("spread.json")) == ANSWERS.max_entries


def test_the_tables_are_drawn_from_the_kept_answer(world: Path) -> None:
    args = ("spread", "sortition", "--world", str(world))
    table = soulscope(*args)
    (entry,) = kept("spread.json")  # the table kept the answer it was drawn from
    answer = json.loads(kept_text(entry))
    first = answer["agents"][0]
    assert first["agent"] in table.stdout and first["text"] in table.stdout
    assert soulscope(*args, "--json").stdout == kept_text(entry)
    # what the next table shows is the kept answer's (here marked)
    first["text"] = "MARKED SENTENCE"
    rewrite(entry, json.dumps(answer))
    assert "MARKED SENTENCE" in soulscope(*args).stdout
    # a damaged kept answer is made again, and said
    entry.write_text("{not json", encoding="utf-8")
    again = soulscope(*args)
    assert again.stdout == table.stdout and "was unreadable" in again.stderr

    graph = soulscope("graph", "--world", str(world))
    assert graph.returncode == 0 and "influence arcs among" in graph.stdout
    assert kept("graph.json") == []  # a table of the strongest arcs: the whole answer not made
    assert soulscope("graph", "--world", str(world), "--json").returncode == 0
    assert len(kept("graph.json")) == 1
    assert soulscope("graph", "--world", str(world)).stdout == graph.stdout  # drawn from it


def test_a_kept_graph_reads_back_as_the_graph_it_was(world: Path) -> None:
    from soulscope.history.graph import graph_memo, influence, kept_influence

    w = World.open(world)
    made = influence(w)
    assert kept_influence(graph_memo(w)) is None  # nothing kept yet
    soulscope("graph", "--world", str(world), "--json")
    back = kept_influence(graph_memo(World.open(world)))
    assert back is not None
    assert back.arcs == made.arcs and back.groups == made.groups
    assert back.summary == made.summary
    for agent, node in made.nodes.items():
        again = back.nodes[agent]
        assert again.group == node.group and again.influences == node.influences
        assert abs(again.pagerank - node.pagerank) < 1e-6
    assert [n.agent for n in back.ranked()[:20]] == [n.agent for n in made.ranked()[:20]]


def test_big_answers_are_kept_within_a_size(world: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # every answer is too big but the newest
    monkeypatch.setitem(KINDS, "kept answer", replace(ANSWERS, max_bytes=1))
    monkeypatch.setattr(memo, "ANSWERS", KINDS["kept answer"])
    for term in ("sortition", "ledger", "consensus"):
        soulscope("spread", term, "--world", str(world), "--json")
    (newest,) = kept("spread.json")
    assert '"term": "consensus"' in kept_text(newest)


def test_a_write_killed_before_its_rename_leaves_nothing_for_long(world: Path) -> None:
    soulscope("spread", "sortition", "--world", str(world), "--json")
    (entry,) = kept("spread.json")
    old = entry.parent / f".{entry.name}.a1b2c3.tmp"  # what a kill -9 mid-write leaves
    new = entry.parent / f".{entry.name}.d4e5f6.tmp"  # another run writing right now
    for leftover in (old, new):
        leftover.write_bytes(b'{"term": "sort')
    hour_ago = time.time() - 2 * 3600
    os.utime(old, (hour_ago, hour_ago))
    out = soulscope("spread", "ledger", "--world", str(world), "--json")
    assert json.loads(out.stdout)["term"] == "ledger"
    assert not old.exists() and new.exists()
