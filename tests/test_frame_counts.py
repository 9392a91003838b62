"""Frame numbers order frames of one day across files only where they count one clock of the
world (``Frame 237`` of a world's frame runner). Where each agent counts its own frames (a frame
12 on March 4 beside another agent's frame 3 on March 5), frame 12 is not known to come after
another agent's frame 1 of the same day: ``first`` and ``spread`` say the tie."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.cli import soulscope
from tests.support.repos import commit, init


def _soul(agent: str, frames: list[tuple[int, str, str]]) -> str:
    head = f"# {agent}\n\n## Identity\n- **ID:** {agent}\n\n"
    return head + "".join(f"## Frame {n} — {d}\n- {text}\n\n" for n, d, text in frames)


# Each agent counts its own frames: aa-01 is on its twelfth, bb-02 on its third a day later.
OWN_COUNTS = {
    "aa-01": _soul("aa-01", [(11, "2026-03-03", "Quiet."), (12, "2026-03-04", "Found zephyr.")]),
    "bb-02": _soul("bb-02", [(3, "2026-03-05", "Zephyr, after aa-01.")]),
    "ee-05": _soul("ee-05", [(1, "2026-03-04", "A zephyr of my own.")]),
}
# One clock for the world: frame 216 came before frame 220 of the same day.
ONE_CLOCK = {
    "aa-01": _soul("aa-01", [(220, "2026-03-22", "Found zephyr.")]),
    "bb-02": _soul("bb-02", [(240, "2026-03-23", "Zephyr, after aa-01.")]),
    "ee-05": _soul("ee-05", [(216, "2026-03-22", "A zephyr of my own.")]),
}


def _world(root: Path, souls: dict[str, str], git: bool) -> Path:
    (root / "memory").mkdir(parents=True)
    for agent, text in souls.items():
        (root / "memory" / f"{agent}.md").write_text(text)
    if git:
        init(root)
        commit(root, "import", date="2026-03-06T10:00:00Z")
    return root


@pytest.fixture(scope="module", params=["git", "files"])
def worlds(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory):
    base = tmp_path_factory.mktemp(request.param)
    git = request.param == "git"
    return _world(base / "own", OWN_COUNTS, git), _world(base / "clock", ONE_CLOCK, git)


def _json(*args: str) -> dict:
    done = soulscope(*args, "--json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_first_ties_a_day_where_each_agent_counts_its_own_frames(worlds) -> None:
    own, clock = worlds
    got = _json("first", "zephyr", "--world", str(own))
    assert {got["agent"], *(t["agent"] for t in got["ties"])} == {"aa-01", "ee-05"}
    got = _json("first", "zephyr", "--world", str(clock))
    assert (got["agent"], got["ties"]) == ("ee-05", [])


def test_spread_ties_a_day_where_each_agent_counts_its_own_frames(worlds) -> None:
    own, clock = worlds
    tied = {a["agent"]: a["tied"] for a in _json("spread", "zephyr", "--world", str(own))["agents"]}
    assert tied == {"aa-01": True, "ee-05": True, "bb-02": False}
    got = _json("spread", "zephyr", "--world", str(clock))["agents"]
    assert [(a["agent"], a["tied"]) for a in got] == [
        ("ee-05", False),
        ("aa-01", False),
        ("bb-02", False),
    ]
