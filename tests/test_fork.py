"""fork: a demo world taken back to a frame, changed, and run on, the original never touched."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from soulscope.sim.demo import make_demo
from soulscope.soul.parse import read_soul
from tests.support.cli import one_sentence, soulscope
from tests.support.repos import git_out

FORK_AT = 34  # the demo starts at frame 24; 20 frames bring it to 44


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_demo(tmp_path_factory.mktemp("demo") / "world", frames=20).root


def everything(root: Path) -> dict[str, bytes]:
    """Every file under ``root``, ``.git`` included."""
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


def world_files(root: Path) -> dict[str, bytes]:
    return {
        k: v
        for k, v in everything(root).items()
        if not k.startswith((".git/", ".soulscope/")) and k != ".git"
    }


def frames_of(path: Path) -> list[int]:
    return [f.number for f in read_soul(path).frames if f.number is not None]


def test_a_plain_fork_replays_ten_frames_identically(demo: Path, tmp_path: Path) -> None:
    before = everything(demo)
    fork = tmp_path / "fork"
    out = soulscope("fork", str(fork), "--at", str(FORK_AT), "--world", str(demo), "--json")
    assert out.returncode == 0, out.stderr
    made = json.loads(out.stdout)
    assert made["frame"] == FORK_AT and made["interventions"] == []
    assert json.loads((fork / "world.json").read_text())["frame"] == FORK_AT
    assert max(frames_of(fork / "memory" / "coder-ines.md")) == FORK_AT
    ran = soulscope("frame", "--world", str(fork), "--steps", "10", "--json")
    assert ran.returncode == 0, ran.stderr
    assert world_files(fork) == world_files(demo)
    # The same seed, the same frames: the very same commits.
    assert git_out(fork, "rev-parse", "HEAD") == git_out(demo, "rev-parse", "HEAD")
    assert git_out(fork, "branch", "--show-current").strip() == f"fork-at-frame-{FORK_AT}"
    assert everything(demo) == before


def test_a_fork_without_an_agent_has_no_frame_of_it_after_the_point(
    demo: Path, tmp_path: Path
) -> None:
    before = everything(demo)
    fork = tmp_path / "fork"
    out = soulscope(
        "fork",
        str(fork),
        "--at",
        f"frame {FORK_AT}",
        "--without",
        "coder-ines",
        "--world",
        str(demo),
    )
    assert out.returncode == 0, out.stderr
    assert "fork: without coder-ines" in out.stdout
    body = git_out(fork, "log", "-1", "--format=%B")
    assert body.startswith("fork: without coder-ines") and "'removed'" in body
    assert git_out(fork, "show", "--name-only", "--format=", "HEAD").split() == ["agents.json"]
    ran = soulscope("frame", "--world", str(fork), "--steps", "5", "--json")
    assert ran.returncode == 0, ran.stderr
    assert [r["agents"] for r in json.loads(ran.stdout)] == [9] * 5
    assert max(frames_of(fork / "memory" / "coder-ines.md")) == FORK_AT
    assert max(frames_of(fork / "memory" / "researcher-kit.md")) == FORK_AT + 5
    for n in range(FORK_AT + 1, FORK_AT + 6):
        assert not (fork / "frames" / str(n) / "coder-ines.json").exists()
    posts = [json.loads(x) for x in (fork / "community" / "posts.jsonl").read_text().splitlines()]
    assert not [p for p in posts if p["author"] == "coder-ines" and p["frame"] > FORK_AT]
    assert everything(demo) == before


def test_drop_post_and_edit_are_one_commit_each(demo: Path, tmp_path: Path) -> None:
    fork = tmp_path / "fork"
    line = (demo / "memory" / "philosopher-oren.md").read_text().splitlines()[4]
    out = soulscope(
        "fork",
        str(fork),
        "--at",
        str(FORK_AT),
        "--drop-post",
        "3",
        "--edit",
        "philosopher-oren:5=**Voice:** curt, and tired of it",
        "--world",
        str(demo),
    )
    assert out.returncode == 0, out.stderr
    subjects = git_out(fork, "log", "-2", "--format=%s").splitlines()
    assert subjects == ["fork: edit memory/philosopher-oren.md line 5", "fork: drop post #3"]
    assert f"- {line}\n+ **Voice:** curt, and tired of it" in git_out(
        fork, "log", "-1", "--format=%B"
    )
    assert (fork / "memory" / "philosopher-oren.md").read_text().splitlines()[4] == (
        "**Voice:** curt, and tired of it"
    )
    community = fork / "community"
    posts = [json.loads(x) for x in (community / "posts.jsonl").read_text().splitlines()]
    comments = [json.loads(x) for x in (community / "comments.jsonl").read_text().splitlines()]
    assert 3 not in {p["id"] for p in posts} and 4 in {p["id"] for p in posts}
    assert not [c for c in comments if c["post"] == 3]
    dropped = git_out(fork, "show", "--stat", "--format=%b", "HEAD~1")
    assert "community/posts.jsonl" in dropped and "comments" in dropped


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--at", "34", "--without", "Coder-Ines"], "no agent 'Coder-Ines'"),
        (["--at", "34", "--edit", "nobody.here:3=x"], "no agent 'nobody.here'"),
        (["--at", "45"], "there is no frame 45"),
        (["--at", "12"], "there is no frame 12"),
        (["--at", "no-such-rev"], "neither a frame number nor a revision"),
        (["--at", "34", "--drop-post", "100000"], "no post #100000"),
        (["--at", "34", "--edit", "coder-ines:100000=x"], "there is no line 100000"),
        (["--at", "34", "--edit", "coder-ines=x"], "not an edit of the form AGENT:LINE=TEXT"),
    ],
)
def test_bad_input_is_refused_in_one_sentence(
    demo: Path, tmp_path: Path, args: list[str], says: str
) -> None:
    before = everything(demo)
    fork = tmp_path / "fork"
    said = one_sentence(soulscope("fork", str(fork), *args, "--world", str(demo)))
    assert says in said
    assert not fork.exists()
    assert everything(demo) == before


def test_a_dirty_world_or_a_used_folder_is_refused(demo: Path, tmp_path: Path) -> None:
    world = tmp_path / "world"
    shutil.copytree(demo, world)
    soul = world / "memory" / "coder-ines.md"
    soul.write_text(soul.read_text() + "\nhand-written\n")
    said = one_sentence(soulscope("fork", str(tmp_path / "f"), "--at", "30", "--world", str(world)))
    assert "uncommitted changes (memory/coder-ines.md)" in said
    assert not (tmp_path / "f").exists()
    used = tmp_path / "used"
    used.mkdir()
    (used / "notes.txt").write_text("mine")
    said = one_sentence(soulscope("fork", str(used), "--at", "30", "--world", str(demo)))
    assert "not empty" in said and (used / "notes.txt").read_text() == "mine"


def test_a_fork_at_the_frame_before_the_first_commit_and_at_a_revision(
    demo: Path, tmp_path: Path
) -> None:
    out = soulscope("fork", str(tmp_path / "a"), "--at", "24", "--world", str(demo), "--json")
    assert out.returncode == 0, out.stderr
    assert git_out(tmp_path / "a", "log", "-1", "--format=%s").startswith("world: ")
    sha = git_out(demo, "rev-parse", "HEAD~3").strip()
    out = soulscope("fork", str(tmp_path / "b"), "--at", sha[:10], "--world", str(demo), "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["frame"] == 41 and json.loads(out.stdout)["point"] == sha


def entries(path: Path) -> dict[int, str]:
    """Each frame's entry of a soul file, by frame number, split on the headings by hand."""
    out = {}
    for part in path.read_text().split("\n## Frame ")[1:]:
        out[int(part.split(" ", 1)[0])] = part
    return out


def unnumbered(entry: str) -> str:
    return re.sub(r"#[0-9]+", "#", entry)


def test_compare_runs_names_where_each_agent_first_diverged(demo: Path, tmp_path: Path) -> None:
    fork = tmp_path / "fork"
    made = soulscope(
        "fork", str(fork), "--at", "34", "--without", "coder-ines", "--world", str(demo)
    )
    assert made.returncode == 0, made.stderr
    assert soulscope("frame", "--world", str(fork), "--steps", "10").returncode == 0
    out = soulscope("compare-runs", str(demo), str(fork), "--json", "--term", "testing")
    assert out.returncode == 0, out.stderr
    found = json.loads(out.stdout)
    assert found["fork_point"] == {
        "commit": git_out(demo, "rev-parse", "HEAD~10").strip(),
        "frame": 34,
    }
    by_agent = {a["agent"]: a for a in found["agents"]}
    assert len(by_agent) == 10
    assert found["first_difference_ignores"] == "post and thread numbers (#N)"
    shifted = []
    ines = by_agent["coder-ines"]
    assert ines["first_difference"]["frame"] == 35
    assert ines["left"]["statements"] == 10 and ines["right"]["statements"] == 0
    for agent, got in by_agent.items():
        left, right = (
            entries(demo / "memory" / f"{agent}.md"),
            entries(fork / "memory" / f"{agent}.md"),
        )
        differ = [n for n in sorted(left) if left[n] != right.get(n)]
        assert got["first_byte_difference"]["frame"] == differ[0], agent
        # Where they part, post numbers aside (a post more in one run shifts every later #N).
        parted = [n for n in sorted(left) if unnumbered(left[n]) != unnumbered(right.get(n, ""))]
        assert got["first_difference"]["frame"] == parted[0], agent
        assert all(left[n] == right[n] for n in left if n < differ[0])
        shifted.append(parted[0] > differ[0])
        if agent != "coder-ines":
            assert 0 <= got["drift"] <= 1
            assert {r["frame"] for r in got["rows"]} <= {str(n) for n in range(35, 45)}
    assert any(shifted)  # some agents only renumbered a post at first
    curves = found["terms"]["testing"]
    spread_left = json.loads(soulscope("spread", "testing", "--world", str(demo), "--json").stdout)
    assert curves["left"] == spread_left["timeline"]
    table = soulscope("compare-runs", str(demo), str(fork))
    assert "fork point: frame 34" in table.stdout and "coder-ines" in table.stdout


def test_compare_runs_finds_an_edit_in_the_header_and_frames_run_only_in_one(
    demo: Path, tmp_path: Path
) -> None:
    fork = tmp_path / "fork"
    soulscope(
        "fork",
        str(fork),
        "--at",
        "40",
        "--edit",
        "welcomer-pell:3=# Pell, edited",
        "--world",
        str(demo),
    )
    found = json.loads(soulscope("compare-runs", str(demo), str(fork), "--json").stdout)
    assert found["fork_point"]["frame"] == 40
    diffs = {a["agent"]: a["first_difference"] for a in found["agents"]}
    assert diffs == {a["agent"]: a["first_byte_difference"] for a in found["agents"]}
    pell = {"frame": None, "heading": None, "line": 3, "in": "left"}
    assert diffs.pop("welcomer-pell") == pell
    # The original ran on to frame 44; the fork was not run: each differs at frame 41, a frame
    # only the original (here on the left, then on the right) has.
    assert {(d["frame"], d["in"]) for d in diffs.values()} == {(41, "left")}
    found = json.loads(soulscope("compare-runs", str(fork), str(demo), "--json").stdout)
    diffs = {a["agent"]: a["first_difference"] for a in found["agents"]}
    assert diffs.pop("welcomer-pell") == pell
    assert {(d["frame"], d["in"]) for d in diffs.values()} == {(41, "right")}


def test_spread_and_graph_without_an_agent(demo: Path) -> None:
    plain = json.loads(soulscope("spread", "archive", "-w", str(demo), "--json").stdout)
    out = soulscope("spread", "archive", "--without", "archivist-hale", "-w", str(demo), "--json")
    assert out.returncode == 0, out.stderr
    found = json.loads(out.stdout)
    others = [a["agent"] for a in plain["agents"] if a["agent"] != "archivist-hale"]
    gone = [a["agent"] for a in found["not_reached"]]
    assert "archivist-hale" not in found["reached"] and sorted(found["reached"] + gone) == sorted(
        others
    )
    assert found["vanished_edges"] == [
        e for e in plain["edges"] if "archivist-hale" in (e["from"], e["to"])
    ]
    graph = json.loads(soulscope("graph", "-w", str(demo), "--json").stdout)
    out = soulscope("graph", "--without", "archivist-hale", "-w", str(demo), "--json")
    found = json.loads(out.stdout)
    touching = [e for e in graph["edges"] if "archivist-hale" in (e["from"], e["to"])]
    assert touching and found["vanished_arcs"] == touching
    assert found["arcs_left"] == len(graph["edges"]) - len(touching)
    said = one_sentence(soulscope("graph", "--without", "Archivist-Hale", "-w", str(demo)))
    assert "no agent 'Archivist-Hale'" in said


def test_who_is_still_reached_follows_the_chains() -> None:
    from soulscope.runs.without import graph_without, spread_without

    answer = {
        "term": "lantern",
        "agents": [
            {"agent": "ann.o", "from": []},
            {"agent": "x", "from": []},
            {"agent": "bo", "from": ["x"]},  # only through x
            {"agent": "cy", "from": ["x", "ann.o"]},  # also through ann.o
            {"agent": "di", "from": ["bo"]},  # through bo, whom only x reached
            {"agent": "ed", "from": []},  # started it alone
        ],
        "edges": [{"from": "x", "to": "bo"}, {"from": "ann.o", "to": "cy"}],
    }
    found = spread_without(answer, {"x"})
    assert found["reached"] == ["ann.o", "cy", "ed"]
    assert [a["agent"] for a in found["not_reached"]] == ["bo", "di"]
    assert found["vanished_edges"] == [{"from": "x", "to": "bo"}]
    graph = {
        "edges": [
            {"from": "x", "to": "bo"},
            {"from": "x", "to": "cy"},
            {"from": "ann.o", "to": "cy"},
        ]
    }
    g = graph_without(graph, {"x"})
    assert g["arcs_left"] == 1 and g["shaped_only_by_them"] == ["bo"]


def test_a_fork_runs_on_with_the_llm_brain_and_keeps_what_it_saw(
    demo: Path, tmp_path: Path
) -> None:
    from tests.support.openai_server import OpenAIServer, valid_answer

    before = everything(demo)
    fork = tmp_path / "fork"
    assert (
        soulscope(
            "fork", str(fork), "--at", "40", "--without", "coder-ines", "-w", str(demo)
        ).returncode
        == 0
    )
    with OpenAIServer(
        answer=lambda agent, body: (200, valid_answer(body)), models=("m",)
    ) as server:
        env = {"OPENAI_BASE_URL": server.base_url, "SOULSCOPE_MODEL": "m"}
        out = soulscope("frame", "-w", str(fork), "--brain", "llm", "--json", env=env)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)[0]["frame"] == 41 and json.loads(out.stdout)[0]["agents"] == 9
    assert len(server.requests) == 9
    assert not any("coder-ines (agent id" in r["messages"][0]["content"] for r in server.requests)
    seen = json.loads(
        soulscope(
            "show", "debater-sable", "--frame", "41", "--context", "--json", "-w", str(fork)
        ).stdout
    )
    assert seen["brain"] == "llm" and seen["messages"] in [r["messages"] for r in server.requests]
    assert "the validated agent" in (fork / "memory" / "debater-sable.md").read_text()
    assert everything(demo) == before


POSTED = """# Ada

## Frame 7 — 2026-03-14
- Posted #95 in c/commons: "Notes on (#87), again"
- Connected: #87, #95

## Frame 8 — 2026-03-15
- Commented on thread #95 by bo: "yes"
- Becoming: %s
"""


def test_a_renumbered_post_is_not_where_memory_parts() -> None:
    from soulscope.runs.compare import first_difference

    left = (POSTED % "the keeper.").encode()
    renumbered = left.replace(b"#95", b"#96")
    assert first_difference(left, renumbered).frame == 7  # the bytes differ from frame 7 on
    assert first_difference(left, renumbered, numbers=False) is None
    other = (POSTED % "the doubter.").replace("#95", "#96").encode()
    parted = first_difference(left, other, numbers=False)
    assert (parted.frame, parted.line) == (8, 9)
    # A number that is not a post's (a frame's, a count's) still counts.
    assert first_difference(left, left.replace(b"Frame 8", b"Frame 9"), numbers=False).line == 7
    grown = left + b"\n## Frame 9 \xe2\x80\x94 2026-03-16\n- Posted #101\n"
    assert first_difference(renumbered, grown, numbers=False).frame == 9


def test_a_world_inside_a_code_repository_is_forked_with_the_whole_repository(
    tmp_path: Path,
) -> None:
    from tests.support.repos import commit, history_world

    world = history_world(tmp_path)  # lantern/state/: frame 1 to 4, one commit each
    code = world.parent
    before = everything(code)
    (code / "README.md").write_text("a simulation, being edited\n")  # outside the world: no matter
    fork = tmp_path / "what if"
    out = soulscope(
        "fork",
        str(fork),
        "--at",
        "2",
        "--edit",
        "ada-01:1=# Ada, edited",
        "-w",
        str(world),
        "--json",
    )
    assert out.returncode == 0, out.stderr
    made = json.loads(out.stdout)
    assert (made["fork"], made["world"], made["frame"]) == (str(fork), str(fork / "state"), 2)
    assert (
        fork / "README.md"
    ).read_text() == "a simulation\n"  # the whole repository, as committed
    assert git_out(fork, "log", "--format=%s", "-1") == "fork: edit memory/ada-01.md line 1\n"
    assert git_out(fork, "show", "--name-only", "--format=", "HEAD") == "state/memory/ada-01.md\n"
    assert git_out(fork, "rev-list", "--count", "HEAD") == "3\n"  # frames 1 and 2, the edit
    assert max(frames_of(fork / "state" / "memory" / "ada-01.md")) == 2
    # `--world` of the fork's folder opens the world inside it, as it does the original's.
    shown = soulscope("agents", "-w", str(fork), "--json")
    assert shown.returncode == 0, shown.stderr
    assert sorted(a["id"] for a in json.loads(shown.stdout)) == ["ada-01", "bo-02", "cy-03"]
    found = json.loads(soulscope("compare-runs", str(code), str(fork), "--json").stdout)
    assert found["fork_point"]["frame"] == 2
    parted = {a["agent"]: a["first_difference"] for a in found["agents"]}
    assert parted["ada-01"] == {"frame": None, "heading": None, "line": 1, "in": "left"}
    assert parted["bo-02"]["frame"] == 3 and parted["cy-03"] is None
    (code / "README.md").write_text("a simulation\n")
    assert everything(code) == before
    # A frame commit of another world in the same repository is none of this one's frames.
    (code / "other").mkdir()
    (code / "other" / "notes.md").write_text("a second world\n")
    commit(code, "frame 9: 1 agents, 0 posts, 0 comments", date="2026-03-09T12:00:00Z")
    said = one_sentence(soulscope("fork", str(tmp_path / "f9"), "--at", "9", "-w", str(world)))
    assert said.endswith("has frames 0 to 4; there is no frame 9 to fork at")
    (world / "memory" / "cy-03.md").write_text("# Cy, unsaved\n")  # inside the world: refused
    said = one_sentence(soulscope("fork", str(tmp_path / "f2"), "--at", "2", "-w", str(world)))
    assert "uncommitted changes (state/memory/cy-03.md)" in said


def test_a_fork_of_a_world_deep_in_a_repository_runs_on_the_same(tmp_path: Path) -> None:
    from soulscope.world import DEMO_WORLD
    from tests.support.repos import commit, init

    code = init(tmp_path / "code")
    (code / "app.py").write_text("print('a simulation')\n")
    world = code / "sims" / "town"
    shutil.copytree(DEMO_WORLD, world)
    commit(code, "the town, as shipped")
    assert soulscope("frame", "-w", str(world), "--steps", "4").returncode == 0
    start = json.loads((world / "world.json").read_text())["frame"] - 4
    fork = tmp_path / "fork"
    out = soulscope("fork", str(fork), "--at", str(start + 2), "-w", str(world))
    assert out.returncode == 0, out.stderr
    assert f"the forked world is {fork / 'sims' / 'town'}" in out.stdout
    assert f"soulscope frame --world {fork / 'sims' / 'town'}" in out.stdout
    ran = soulscope("frame", "-w", str(fork / "sims" / "town"), "--steps", "2")
    assert ran.returncode == 0, ran.stderr
    assert world_files(fork) == world_files(code)  # the same frames, in the same place
    assert git_out(fork, "rev-parse", "HEAD") == git_out(code, "rev-parse", "HEAD")
