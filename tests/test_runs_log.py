"""The world log (``soulscope log``): every frame of every agent in the frames' own time, each with
the commit that brought it; on the real history and on worlds made by hand with plain git."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.support.cli import one_sentence, soulscope
from tests.support.paths import corpus_dir
from tests.support.repos import clone_bundle, commit, git, init


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return clone_bundle(tmp_path_factory.mktemp("bundle") / "rappterbook")


def log_json(*args: str) -> list[dict]:
    done = soulscope("log", *args, "--json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_the_history_log_has_every_frame_agents_counts_in_time_order(bundle: Path) -> None:
    agents = json.loads(soulscope("agents", "--world", str(bundle), "--json").stdout)
    log = log_json("--world", str(bundle))
    assert len(log) == sum(a["frames"] for a in agents) == 289
    for a in agents:  # each agent's frames, each once
        mine = [e for e in log if e["agent"] == a["id"]]
        assert len(mine) == a["frames"]
        assert len({e["line"] for e in mine}) == a["frames"]
    dates = [e["date"] for e in log]
    assert dates == sorted(dates)
    # frames that give their minute come in the order of their minutes
    timed = [(e["date"], e["time"]) for e in log if e["precision"] == "minute"]
    assert timed == sorted(timed)


def test_each_frame_names_the_commit_that_brought_its_heading(bundle: Path) -> None:
    log = log_json("--world", str(bundle))
    assert all(e["commit"] for e in log)
    for e in log[::23]:
        path = f"state/memory/{e['agent']}.md"
        at = git(bundle, "show", f"{e['commit']}:{path}")
        assert e["heading"] in at
        before = subprocess.run(
            ["git", "show", f"{e['commit']}^:{path}"], cwd=bundle, capture_output=True, text=True
        )
        # the parent held fewer frames with that heading (none, or the other copies)
        heading_line = f"## {e['heading']}"
        assert before.stdout.count(heading_line) < at.count(heading_line)


def test_from_and_to_cut_the_log_by_date(bundle: Path) -> None:
    whole = log_json("--world", str(bundle))
    cut = log_json("--world", str(bundle), "--from", "2026-03-14", "--to", "2026-03-14")
    expected = [e for e in whole if e["date"] == "2026-03-14"]
    assert cut == expected and len(cut) > 10
    evening = log_json("--world", str(bundle), "--from", "2026-03-15 19:00")
    timed = [e for e in evening if e["time"]]
    assert timed == [
        e for e in whole if e["time"] and (e["date"], e["time"]) >= ("2026-03-15", "19:00")
    ]
    # zion-coder-04.md:970 gives only its date, between its file's 19:20 and 19:50 frames
    assert ("zion-coder-04", 970) in {(e["agent"], e["line"]) for e in evening}


def _lines(entries: list[dict]) -> set[tuple[str, int]]:
    return {(e["agent"], e["line"]) for e in entries}


def test_a_date_only_frame_is_cut_by_the_timed_frames_around_it_in_its_file(bundle: Path) -> None:
    w = ("--world", str(bundle))
    night = _lines(log_json(*w, "--from", "2026-03-15", "--to", "2026-03-15 01:40"))
    # date-only frames their files place after 01:40: coder-04:970 between its 19:20 and 19:50,
    # 1006 and 1011 after its 21:00; debater-06:285 between two 02:00 frames, 308 after 02:00
    later = {("zion-coder-04", n) for n in (970, 1006, 1011)}
    later |= {("zion-debater-06", 285), ("zion-debater-06", 308)}
    assert not night & later
    # philosopher-07:143 lies between its file's 00:20 and 00:55 frames: inside
    assert ("zion-philosopher-07", 143) in night
    # philosopher-07:171 lies between 01:35 and 03:10: on both sides of 01:40, in neither cut
    assert ("zion-philosopher-07", 171) not in night
    rest = _lines(log_json(*w, "--from", "2026-03-15 01:40", "--to", "2026-03-15"))
    assert later <= rest and ("zion-philosopher-07", 171) not in rest
    assert ("zion-philosopher-07", 143) not in rest


def test_date_cuts_of_a_hand_made_world_keep_date_only_frames_where_their_file_puts_them(
    tmp_path: Path,
) -> None:
    memory = tmp_path / "w" / "memory"
    memory.mkdir(parents=True)
    (memory / "ada_lovelace-1.md").write_text(
        SOUL.format(name="Ada", id="ada_lovelace-1")
        + "## Frame 1 — 2026-04-01 (23:50 UTC)\n- Read.\n\n"
        + "## Frame 2 — 2026-04-02T08:05:00Z\n- Wrote.\n\n"
        + "## Frame 3 — 2026-04-02\n- Between 08:05 and 08:40.\n\n"
        + "## Frame 4 — 2026-04-02 (08:40 UTC)\n- Posted.\n\n"
        + "## Frame 5 — 2026-04-02 — Late Thoughts\n- Between 08:40 and 11:15.\n\n"
        + "## Frame 6 — 2026-04-02T06:15:00-05:00\n- At 11:15 UTC.\n\n"
    )
    (memory / "Bo.Rivers-2.md").write_text(
        SOUL.format(name="Bo", id="Bo.Rivers-2") + "## Frame 7 — 2026-04-02\n- Any time.\n\n"
    )
    w = ("--world", str(tmp_path / "w"))

    def frames(*points: str) -> list[int]:
        return sorted(e["frame"] for e in log_json(*w, *points))

    # 5 may be after 09:00 (08:40 to 11:15), 7 anywhere in its day: in neither cut at 09:00
    assert frames("--to", "2026-04-02 09:00") == [1, 2, 3, 4]
    assert frames("--from", "2026-04-02 09:00") == [6]
    assert frames("--from", "2026-04-02 08:30") == [4, 5, 6]
    assert frames("--from", "2026-04-02 08:05", "--to", "2026-04-02 08:40") == [2, 3, 4]
    assert frames("--to", "2026-04-02") == [1, 2, 3, 4, 5, 6, 7]
    assert frames("--from", "2026-04-02") == [2, 3, 4, 5, 6, 7]


def test_the_real_world_without_git_has_no_commits() -> None:
    world = corpus_dir("rappterbook")
    agents = json.loads(soulscope("agents", "--world", str(world), "--json").stdout)
    done = soulscope("log", "--world", str(world), "--json")
    assert done.returncode == 0 and done.stderr == ""
    log = json.loads(done.stdout)
    assert len(log) == sum(a["frames"] for a in agents)
    assert {e["commit"] for e in log} == {None}
    dates = [e["date"] for e in log]
    assert dates == sorted(dates)


SOUL = "# {name}\n\n## Identity\n- **ID:** {id}\n\n"


def _world(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """Two agents whose frames were committed out of their time order, one not yet committed."""
    root = init(tmp_path / "w")
    memory = root / "memory"
    memory.mkdir()
    late = memory / "Storyteller.02.md"  # punctuation and capitals in an id
    early = memory / "ada_lovelace-1.md"
    late.write_text(
        SOUL.format(name="Story", id="Storyteller.02")
        + "## Frame 12 — 2026-03-05 (18:00 UTC)\n- Posted #12.\n\n"
    )
    shas = {"late": commit(root, "late first", "2026-03-06T00:00:00+00:00")}
    early.write_text(
        SOUL.format(name="Ada", id="ada_lovelace-1")
        + "## Frame 10 — 2026-03-01T09:30:00Z\n- Read #3.\n\n"
        + "## Frame 11 — 2026-03-03\n- Becoming: a reader.\n\n"
    )
    shas["early"] = commit(root, "early second", "2026-03-07T00:00:00+00:00")
    with late.open("a") as f:
        f.write("## Frame 13 — 2026-03-08 (07:15 UTC)\n- Becoming: a teller.\n\n")
    return root, shas


def test_a_hand_made_world_in_git_is_ordered_by_its_frames_not_its_commits(tmp_path: Path) -> None:
    root, shas = _world(tmp_path)
    log = log_json("--world", str(root))
    assert [(e["agent"], e["frame"], e["commit"]) for e in log] == [
        ("ada_lovelace-1", 10, shas["early"]),
        ("ada_lovelace-1", 11, shas["early"]),
        ("Storyteller.02", 12, shas["late"]),
        ("Storyteller.02", 13, None),  # not committed yet
    ]
    assert log[0]["time"] == "09:30" and log[0]["line"] == 6
    assert log[1]["precision"] == "day"


def test_points_name_frames_and_revisions(tmp_path: Path) -> None:
    root, shas = _world(tmp_path)
    w = ("--world", str(root))
    assert [e["frame"] for e in log_json(*w, "--from", "11", "--to", "frame 12")] == [11, 12]
    # up to a revision: the frames it held; from one: those it brought and after
    assert [e["frame"] for e in log_json(*w, "--to", shas["late"])] == [12]
    assert [e["frame"] for e in log_json(*w, "--from", shas["early"][:8])] == [10, 11, 13]
    assert [e["frame"] for e in log_json(*w, "--agent", "Storyteller.02")] == [12, 13]
    text = soulscope("log", *w, "--from", "2026-03-02").stdout
    assert "2026-03-03" in text and "2026-03-01" not in text
    assert "Storyteller.02" in text and "frames of 2 agents" in text


def test_bad_points_and_agents_are_one_sentence(tmp_path: Path) -> None:
    root, _ = _world(tmp_path)
    w = ("--world", str(root))
    assert "not a date of the calendar" in one_sentence(
        soulscope("log", *w, "--from", "2026-02-30")
    )
    assert "numbered 10 to 13" in one_sentence(soulscope("log", *w, "--from", "99"))
    assert "no agent 'nobody'" in one_sentence(soulscope("log", *w, "--agent", "nobody"))
    said = one_sentence(soulscope("log", *w, "--to", "no-such-branch"))
    assert "not a date, a frame number nor a revision" in said
    plain = tmp_path / "plain"
    (plain / "memory").mkdir(parents=True)
    (plain / "memory" / "ada.md").write_text("# Ada\n\n## Frame 1 — 2026-03-01\n- Hi.\n")
    said = one_sentence(soulscope("log", "--world", str(plain), "--to", "HEAD~1"))
    assert "not a date, a frame number nor a revision" in said


def test_a_frame_dropped_and_put_back_keeps_the_commit_that_first_brought_it(
    tmp_path: Path,
) -> None:
    """A sync drops a frame and a later one restores it (as the real history does): the log
    names the commit that first wrote the frame, as ``first`` does."""
    root = init(tmp_path / "w")
    (root / "memory").mkdir()
    path = root / "memory" / "ada-01.md"
    a = "# Ada\n\n## Frame 1 — 2026-03-01 (10:00 UTC)\n- Becoming: the first.\n\n"
    b = "## Frame 2 — 2026-03-01 (11:00 UTC)\n- Wrote the tidewater ledger.\n\n"
    path.write_text(a, encoding="utf-8")
    commit(root, "frame 1")
    path.write_text(a + b, encoding="utf-8")
    wrote = commit(root, "frame 2")
    path.write_text(a, encoding="utf-8")
    commit(root, "sync: dropped")
    path.write_text(a + b, encoding="utf-8")
    commit(root, "sync: restored")
    done = soulscope("log", "--world", str(root), "--json")
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)
    entries = rows if isinstance(rows, list) else rows["entries"]
    assert [e["commit"] for e in entries if e["frame"] == 2] == [wrote]
    first = json.loads(soulscope("first", "tidewater", "--world", str(root), "--json").stdout)
    assert first["commit"]["commit"] == wrote


def test_a_frame_without_a_date_shows_the_date_it_is_placed_by_marked(tmp_path: Path) -> None:
    (tmp_path / "memory").mkdir()
    (tmp_path / "memory" / "hed-01.md").write_text(
        "# Hed\n\n## Identity\n- **ID:** hed-01\n\n"
        "## Frame 11 — 2026-03-03\n- A.\n\n## Frame 14\n- B.\n\n## Frame 15 — 2026-03-06\n- C.\n"
    )
    done = soulscope("log", "--world", str(tmp_path))
    assert done.returncode == 0, done.stderr
    rows = done.stdout.splitlines()
    assert rows[1].startswith("~2026-03-03 ") and rows[1].endswith("Frame 14")
    assert rows[0].startswith("2026-03-03 ") and "~: no date in its heading" in rows[-1]
