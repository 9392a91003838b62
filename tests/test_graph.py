"""``soulscope graph``: the influence arcs of a world, checked against the files themselves."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import networkx as nx
import pytest

from soulscope.cli import main
from soulscope.history import graph
from soulscope.history.graph import GraphError, influence
from soulscope.world import World
from tests.support.paths import ROOT
from tests.support.worlds import soul, write_world

_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def frames_naming(path: Path, forms: list[str], since: str | None = None) -> int:
    """How many ``## Frame`` entries of a file name one of ``forms`` (as a whole name, in any
    case), read line by line, and how many lines outside frames (the header's History
    bullets, each one action) do; a frame without a date takes the one above it in the file."""
    pattern = re.compile(r"(?<![\w-])(" + "|".join(map(re.escape, forms)) + r")(?![\w-])", re.I)
    count, in_frame, hit, date = 0, False, False, None
    for line in path.read_text("utf-8", "replace").split("\n") + ["## end"]:
        if line.startswith("## "):
            count += in_frame and hit and (since is None or (date or "") >= since)
            in_frame, hit = line[3:].startswith("Frame"), False
            if in_frame:
                m = _DATE.search(line)
                date = m.group() if m else date
            continue
        if pattern.search(line):
            if in_frame:
                hit = True
            elif since is None:
                count += 1
    return count


def test_arcs_count_the_frames_that_name_an_agent(early_world: Path) -> None:
    g = influence(World.open(early_world))
    arcs = g.strongest()
    picked = arcs[:3] + arcs[len(arcs) // 2 : len(arcs) // 2 + 3] + arcs[-3:]
    for arc in picked:
        forms = [arc.source, arc.source.removeprefix("zion-")]
        target = early_world / "memory" / f"{arc.target}.md"
        assert arc.weight == frames_naming(target, forms), arc
    # heaviest first, ties by name
    assert [(a.source, a.target) for a in arcs] == [
        (a.source, a.target)
        for a in sorted(g.arcs.values(), key=lambda a: (-a.weight, a.source, a.target))
    ]
    # every agent with a soul file is a node; measures are in range
    assert {p.stem for p in (early_world / "memory").glob("*.md")} <= set(g.nodes)
    assert abs(sum(n.pagerank for n in g.nodes.values()) - 1) < 1e-6
    assert g.groups and all(len(c) > 1 for c in g.groups)


def test_the_window_keeps_the_frames_of_its_dates(early_world: Path) -> None:
    world = World.open(early_world)
    whole = influence(world, measures=False)
    day = influence(world, since="2026-03-14", until="2026-03-14", measures=False)
    later = influence(world, since="2026-03-15", measures=False)
    assert day.frames < whole.frames and later.frames < whole.frames
    # an arc of the later window counts no more frames than the whole world's
    for key, arc in later.arcs.items():
        assert arc.weight <= whole.arcs[key].weight
        assert arc.first >= "2026-03-15"
    arc = max(later.arcs.values(), key=lambda a: a.weight)
    forms = [arc.source, arc.source.removeprefix("zion-")]
    target = early_world / "memory" / f"{arc.target}.md"
    assert arc.weight == frames_naming(target, forms, since="2026-03-15")


def test_influence_follows_the_bullets(tmp_path: Path) -> None:
    memory = tmp_path / "memory"
    memory.mkdir()
    (memory / "ada-1.md").write_text("# Ada\n\n## Frame 1 — 2026-01-01\n- Posted a plan\n")
    (memory / "bob-1.md").write_text(
        "# Bob\n\n## Frame 1 — 2026-01-01\n- Influenced by: ada-1\n\n"
        "## Frame 2 — 2026-01-02\n- Replied to ada-1 on #3\n"
    )
    (memory / "cy-1.md").write_text(
        "# Cy\n\n## Frame 2 — 2026-01-02\n- Relationships: bob-1 (ally)\n- Read bob-1's reply\n"
    )
    (memory / "dee-1.md").write_text("# Dee\n\n## Frame 3 — 2026-01-03\n- Read cy-1's notes\n")
    g = influence(World.open(tmp_path))
    assert g.arcs[("ada-1", "bob-1")].weight == 2
    assert dict(g.arcs[("ada-1", "bob-1")].kinds) == {"credit": 1, "reply": 1}
    assert dict(g.arcs[("bob-1", "cy-1")].kinds) == {"relationship": 1, "mention": 1}
    assert dict(g.arcs[("cy-1", "dee-1")].kinds) == {"mention": 1}
    assert ("ada-1", "cy-1") not in g.arcs
    ranked = [n.agent for n in g.ranked()]
    assert ranked[0] == "ada-1"  # everyone's memory leads back to her
    assert ranked[-1] == "dee-1"
    # the way from ada to dee passes bob and cy
    assert g.nodes["bob-1"].betweenness > 0 and g.nodes["ada-1"].betweenness == 0
    assert [a.target for a in g.influenced("ada-1")] == ["bob-1"]
    assert [a.source for a in g.influencers("dee-1")] == ["cy-1"]
    since = influence(World.open(tmp_path), since="2026-01-02")
    assert since.arcs[("ada-1", "bob-1")].weight == 1


def test_a_frame_counts_once_under_each_kind_it_names_an_agent_in(tmp_path: Path) -> None:
    memory = tmp_path / "memory"
    memory.mkdir()
    (memory / "ada-1.md").write_text("# Ada\n")
    (memory / "bob-1.md").write_text(
        "# Bob\n\n## Frame 1 — 2026-01-01\n- Read ada-1's plan\n- Replied to ada-1\n"
        "- Influenced by: ada-1\n\n## Notes\n- ada-1 again, between frames\n\n"
        "## Frame 2 — 2026-01-02\n- Influenced by: ada-1\n- Read ada-1's plan\n\n"
        "## Frame 3\n- Replied to ada-1\n"
    )
    arc = influence(World.open(tmp_path)).arcs[("ada-1", "bob-1")]
    # the line between frames counts on its own (a line outside frames is one unit)
    assert arc.weight == 4
    assert dict(arc.kinds) == {"credit": 2, "reply": 2, "mention": 3}
    assert (arc.first, arc.last) == ("2026-01-01", "2026-01-02")
    # a window reads its frames (frame 3 takes the date of the one above it) and the lines
    # outside frames that its dates place in it (the section after frame 1 is not)
    arc = influence(World.open(tmp_path), since="2026-01-02").arcs[("ada-1", "bob-1")]
    assert arc.weight == 2 and dict(arc.kinds) == {"credit": 1, "reply": 1, "mention": 1}


def test_names_that_begin_with_a_digit_are_found(tmp_path: Path) -> None:
    """Runs that begin with a digit (dates) are passed over only where no name begins with one."""
    memory = tmp_path / "memory"
    memory.mkdir()
    (memory / "007-bond.md").write_text("# Bond\n")
    (memory / "ada-1.md").write_text(
        "# Ada\n\n## Frame 1 — 2026-01-01\n- Influenced by: 007-bond, on 2026-01-01\n"
    )
    g = influence(World.open(tmp_path))
    assert list(g.arcs) == [("007-bond", "ada-1")]


def test_graph_json_is_the_text_of_graph_dict(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`graph --json` writes its text from the graph directly (half a million edges are not built
    as dicts): exactly json.dumps(graph_dict(g), indent=2), and printed as emit_json prints the
    dict, for odd names (a registry id with quotes, DEL and a C1 control, which is no node) and
    empty parts."""
    import gc

    from soulscope.cli.output import emit_json
    from soulscope.history.graph import graph_dict, graph_json
    from soulscope.sim.demo import make_demo

    make_demo(tmp_path / "demo", frames=6)
    odd = tmp_path / "odd"
    (odd / "memory").mkdir(parents=True)
    weird = 'we"ird\\-\u00e9\x7f\x9b-1'
    registry = {"agents": {weird: {"name": "Grace Debugger"}, "ada-1": {"name": "Ada"}}}
    (odd / "agents.json").write_text(json.dumps(registry))
    (odd / "memory" / "ada-1.md").write_text(
        "# Ada\n\n## Frame 1 — 2026-01-01\n- Read Grace Debugger's review\n- Influenced by: bob-1\n"
    )
    (odd / "memory" / "bob-1.md").write_text("# Bob\n\n## Frame 1\n- Replied to ada-1\n")
    (tmp_path / "quiet" / "memory").mkdir(parents=True)
    (tmp_path / "quiet" / "memory" / "ada-1.md").write_text("# Ada\n\n## Frame 1\n- alone\n")
    (tmp_path / "empty" / "memory").mkdir(parents=True)
    for name in ("demo", "odd", "quiet", "empty"):
        world = World.open(tmp_path / name)
        for since, until in ((None, None), ("2026-01-01", "2026-01-01"), ("2030-01-01", None)):
            g = influence(world, since, until)
            text = json.dumps(graph_dict(g), ensure_ascii=False, indent=2)
            assert "".join(graph_json(g)) == text, (name, since)
        emit_json(graph_dict(influence(world)))
        expected = capsys.readouterr().out
        assert main(["graph", "-w", str(tmp_path / name), "--json"]) == 0
        assert capsys.readouterr().out == expected, name
        assert gc.isenabled()  # (paused while the graph is built and written, then back)
        if name == "odd":  # the registry's odd id is no agent id: no node, its name no one's
            assert {n["agent"] for n in json.loads(expected)["nodes"]} == {"ada-1", "bob-1"}
            assert "ird" not in expected


def test_cli_json_graphml_and_bad_dates(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from soulscope.sim.demo import make_demo

    make_demo(tmp_path / "w", frames=6)
    w = str(tmp_path / "w")
    assert main(["graph", "-w", w, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert {"nodes", "edges", "groups"} <= set(out)
    assert {"from", "to", "weight", "kinds"} <= set(out["edges"][0])
    assert main(["graph", "-w", w, "--graphml", str(tmp_path / "g.graphml")]) == 0
    g = nx.read_graphml(tmp_path / "g.graphml")
    assert g.number_of_edges() == len(out["edges"])
    e = out["edges"][0]
    assert g[e["from"]][e["to"]]["weight"] == e["weight"]
    assert main(["graph", "-w", w]) == 0
    assert "most influential" in capsys.readouterr().out
    assert main(["graph", "-w", w, "--since", "yesterday"]) == 2
    assert "is not a date" in capsys.readouterr().err
    with pytest.raises(GraphError):
        influence(World.open(tmp_path / "w"), since="2026-02-01", until="2026-01-01")


def test_frame_dates_place_frames_as_the_parser_and_when_do(early_world: Path) -> None:
    from soulscope.history.graph import frame_dates
    from soulscope.soul import when
    from soulscope.soul.parse import parse

    for path in (early_world / "memory").glob("*.md"):
        data = path.read_bytes()
        columns = parse(data).frames.columns
        starts, ends, dates = frame_dates(data)
        assert starts == list(columns.starts) and ends == list(columns.ends)
        assert dates == [m.date for m in when.frame_moments(columns)], path.name
    # odd headings: spaces and a tab before "Frame", "Frames", a date in words, none, a CR
    data = (
        "## Frame 1 — 2026-01-03\n- a\n##  Frame 2\r\n- b\n## Frames 9 — 2026-01-09\n- c\n"
        "## Frame — March 14, 2026\n- d\n## Identity\n- e\n## \tFrame: 2026-01-01 and "
        "2026-02-02\n- f\n## Frame\n- g\n## FrameX 2026-05-05\n## Frame 7 — 2025-12-31 (09:00)"
    ).encode()
    columns = parse(data).frames.columns
    starts, ends, dates = frame_dates(data)
    assert starts == list(columns.starts) and ends == list(columns.ends)
    assert dates == [m.date for m in when.frame_moments(columns)]
    assert frame_dates(b"\n" + data)[0] == [s + 1 for s in starts]


def test_the_same_world_gives_the_same_graph_in_every_process(early_world: Path) -> None:
    """Groups and ranks do not move with Python's hash seed (sets of ids are ordered first)."""
    import subprocess
    import sys

    outs = set()
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        argv = [sys.executable, "-m", "soulscope", "graph", "-w", str(early_world), "--json"]
        outs.add(subprocess.run(argv, env=env, capture_output=True, check=True).stdout)
    assert len(outs) == 1


def test_a_large_world_read_by_several_processes_gives_the_same_graph(
    early_world: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where ``graph`` reads the files in worker processes (a world of many megabytes: here
    every world), the arcs, their order, weights, kinds, dates and cited lines, the frames and
    the files read are those of one process, in a window too."""
    import shutil

    (tmp_path / "memory").mkdir()
    shutil.copy(early_world / "agents.json", tmp_path)
    for path in sorted((early_world / "memory").glob("*.md"))[::4]:
        shutil.copy(path, tmp_path / "memory")
    world = World.open(tmp_path)
    alone = influence(world, measures=False)
    window = influence(world, since="2026-03-15", measures=False)
    monkeypatch.setattr(graph, "PARALLEL_BYTES", 0)
    monkeypatch.setattr(graph, "_BATCH_BYTES", 50_000)  # several batches in flight
    for one, kwargs in ((alone, {}), (window, {"since": "2026-03-15"})):
        many = influence(world, measures=False, workers=2, **kwargs)
        assert list(many.arcs.items()) == list(one.arcs.items())
        assert (many.frames, many.agents, many.unreadable) == (one.frames, one.agents, [])


def test_registry_ids_with_controls_are_no_nodes(tmp_path: Path) -> None:
    """A registry key with a control character or U+FFFF is no agent id (as a file name with one
    is not): it is no node, even where a soul names it by its display name, and
    ``graph --graphml`` writes a file networkx reads back."""
    bad = {
        "ev\x01il-1": "Eve Ill",
        "no\uffffn-2": "Nora Non",
        "ta\tb-3": "Tab Bee",
        "sp ace-4": "Spa Ace",
        "../up-5": "Upton Up",
    }
    registry = {i: {"name": name} for i, name in bad.items()}
    registry["Good-2"] = {"name": "Cy Good"}
    (tmp_path / "memory").mkdir()
    (tmp_path / "agents.json").write_text(json.dumps({"agents": registry}), encoding="utf-8")
    (tmp_path / "memory" / "ada-1.md").write_text(
        "# Ada\n\n## Frame 1 — 2026-01-01\n- Influenced by: Eve Ill, Good-2\n"
        "- Read Nora Non's post, Tab Bee's, Spa Ace's and Upton Up's\n",
        encoding="utf-8",
    )
    out = tmp_path / "g.graphml"
    assert main(["graph", "-w", str(tmp_path), "--graphml", str(out)]) == 0
    g = nx.read_graphml(out)
    assert set(g.nodes) == {"ada-1", "Good-2"}
    assert list(g.edges) == [("Good-2", "ada-1")]
    assert set(World.open(tmp_path).registry()) == {"Good-2"}


def test_worker_processes_never_see_ctrl_c_and_the_parent_loses_none() -> None:
    """A terminal's Ctrl-C goes to every process of the command: a worker still starting would
    print a traceback, and the parent must still stop (``graph._deaf_children``). Played in a
    process of its own: a signal sent here could land in another test."""
    import subprocess
    import sys

    script = """
import os, signal, subprocess, sys
from soulscope.history import graph
got = []
signal.signal(signal.SIGINT, lambda n, frame: got.append(n))
with graph._deaf_children():
    child = subprocess.run(
        [sys.executable, "-c", "import signal; print(signal.SIGINT in "
         "signal.pthread_sigmask(signal.SIG_BLOCK, []))"],
        capture_output=True, text=True, check=True,
    )
    os.kill(os.getpid(), signal.SIGINT)  # meanwhile: held back (or taken by another thread)
print(child.stdout.strip(), got)
"""
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, timeout=60
    )
    assert done.returncode == 0, done.stderr
    # the child started with Ctrl-C blocked; the parent had it once the block ended, not lost
    assert done.stdout.split() == ["True", "[2]"]


HEADINGS = [  # a frame's day as its heading's time in UTC gives it
    "Frame 3 — 2026-03-15 (23:30 -05:00)",
    "Frame 3 — 2026-03-15T23:30-05:00",
    "Frame 3 — 2026-03-16 (01:30 +05:00)",
    "Frame 3 — 2026-03-15 (22:00 GMT-5)",
    "Frame 3 — 2026-03-15 (23:30 UTC −05:00)",
    "Frame 3 — 2026-03-15 (23:30 EST)",
    "Frame 3 — 2026-03-15 (23:30 UTC)",
    "Frame 3 — 2026-03-15 (23:30 UTC sim)",
    "Frame 2026-03-15 (19:20 UTC) — Seed at 12:00",
    "Frame 3 — 2026-03-15 (18:15-18:45)",
    "Frame 3 — 2026-03-15",
]


@pytest.mark.parametrize("heading", HEADINGS)
def test_a_frame_is_in_a_window_by_its_day_in_utc(heading: str, tmp_path: Path) -> None:
    """The graph's windows read headings fast, and as the parser does (``parse_heading``): a
    frame written late on the 15th in New York was on the 16th."""
    from soulscope.soul.parse import parse_heading

    day = parse_heading(heading)[2]
    text = soul("Ada", "ada-01", "Archivist", [f"## {heading}\n- Influenced by: bo-02's audit\n\n"])
    world = World.open(
        write_world(tmp_path / "w", {"ada-01": text, "bo-02": soul("Bo", "bo-02", "D", [])})
    )
    assert graph.frame_dates(text.encode())[2] == [day]
    assert set(influence(world, since=day, until=day).arcs) == {("bo-02", "ada-01")}
    other = "2026-03-16" if day == "2026-03-15" else "2026-03-15"
    assert not influence(world, since=other, until=other).arcs
