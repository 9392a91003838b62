"""The community store as anyone may leave it: records with fields of the wrong type, ids that are
text or floats, lines that are no records, a torn last line that was committed. A frame and the
why dossier skip each bad record, say so, and never give a post a wrong id."""

from __future__ import annotations

import json
from pathlib import Path

from soulscope.sim.community import Community
from tests.faults.conftest import Run
from tests.support.repos import git_out
from tests.support.simworld import make_world

BAD_POSTS = [
    {"author": ["x"]},
    {"id": "abc"},
    {"id": 1e308},
    {"id": 7.0},
    {"id": True},
    {"id": -4},
    {"id": 2**70},
    {"title": None},
    {"frame": "1"},
    {"body": {"text": "x"}},
    {"channel": 3},
]


def committed_world(tmp_path: Path, soulscope: Run) -> Path:
    root = make_world(tmp_path / "w", agents=4)
    code, _, err = soulscope("frame", "-w", str(root), "--steps", "2")
    assert code == 0, err
    return root


def posts(root: Path) -> list[dict]:
    """Every line of the posts file that is a JSON object (the bad ones as None)."""
    out: list[dict | None] = []
    for line in (root / "community" / "posts.jsonl").read_bytes().splitlines():
        try:
            value = json.loads(line)
        except (ValueError, RecursionError):
            value = None
        out.append(value if isinstance(value, dict) else None)
    return out


def test_bad_records_are_skipped_and_said_and_ids_stay_whole_numbers(
    tmp_path: Path, soulscope: Run
) -> None:
    root = committed_world(tmp_path, soulscope)
    store = root / "community" / "posts.jsonl"
    good = posts(root)
    assert good, "the offline frames wrote posts"
    template = good[0]
    lines = [json.dumps({**template, **bad}) for bad in BAD_POSTS]
    lines += ["[1, 2]", '"a post"', "[" * 5000 + "]" * 5000, json.dumps({"id": 99})]
    with open(store, "a") as f:
        f.write("".join(line + "\n" for line in lines))
    with open(root / "community" / "votes.jsonl", "a") as f:
        f.write(json.dumps({"frame": 1, "voter": "zion-coder-01", "post": "1", "value": 1}) + "\n")
    git_out(root, "commit", "-qam", "lines from elsewhere")
    community = Community.load(root)
    assert [p.id for p in community.posts] == [p["id"] for p in good]
    assert len(community.problems) == 2 and "posts.jsonl" in community.problems[0]
    for _ in range(2):
        code, out, err = soulscope("frame", "-w", str(root))
        assert code == 0 and "Traceback" not in err, err
        assert "posts.jsonl: skipped 15 bad records" in err and "votes.jsonl" in err
    new = [p for p in posts(root)[len(good) + len(lines) :]]
    assert new, "frames 3 and 4 wrote posts"
    ids = [p["id"] for p in good] + [p["id"] for p in new]
    assert all(type(i) is int for i in ids) and len(set(ids)) == len(ids)
    assert new[0]["id"] == max(p["id"] for p in good) + 1
    # Every bad line is still there, as it was: nothing of the user's is lost.
    kept = store.read_text().splitlines()
    assert kept[len(good) : len(good) + len(lines)] == lines
    for agent in ("zion-coder-01", "zion-philosopher-02"):
        code, out, err = soulscope("why", agent, "--shift", "-1", "-w", str(root), "--offline")
        assert code in (0, 2) and "Traceback" not in err, err


def test_a_committed_torn_last_line_stays_and_the_frame_goes_on(
    tmp_path: Path, soulscope: Run
) -> None:
    root = committed_world(tmp_path, soulscope)
    store = root / "community" / "posts.jsonl"
    torn = b'{"id": 40, "frame": 2, "author": "zion-coder-01", "tit'
    with open(store, "ab") as f:
        f.write(torn)
    git_out(root, "commit", "-qam", "a torn line, committed")
    code, out, err = soulscope("frame", "-w", str(root))
    assert code == 0, err
    assert git_out(root, "status", "--porcelain") == ""
    data = store.read_bytes()
    assert torn + b"\n" in data  # the user's bytes, kept whole on a line of their own
    assert all(
        type(json.loads(line)["id"]) is int for line in data.split(torn + b"\n")[1].splitlines()
    )
    assert "posts.jsonl: skipped 1 bad record (line" in Community.load(root).problems[0]


def test_an_uncommitted_torn_line_is_still_cut(tmp_path: Path, soulscope: Run) -> None:
    root = committed_world(tmp_path, soulscope)
    store = root / "community" / "posts.jsonl"
    before = store.read_bytes()
    with open(store, "ab") as f:
        f.write(b'{"id": 40, "fra')
    code, out, err = soulscope("frame", "-w", str(root))
    assert code == 0, err
    assert store.read_bytes().startswith(before) and b'"fra{' not in store.read_bytes()
    assert git_out(root, "status", "--porcelain") == ""
