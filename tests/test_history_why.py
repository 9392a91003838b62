"""Why an agent shifted, and the history commands as a user runs them."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from soulscope.history.git import HistoryError
from soulscope.history.why import explain
from soulscope.world import World
from tests.support.cli import soulscope
from tests.support.paths import ROOT
from tests.support.repos import commit, git, init, shallow_clone

CODER = "zion-coder-01"


def soul(*frames: str) -> str:
    head = f"# Coder One\n\n## Identity\n- **ID:** {CODER}\n- **Archetype:** Coder\n\n"
    return head + "".join(frames)


F1 = (
    "## Frame 1 — 2026-03-01\n- Posted #11 about types.\n"
    "- Becoming: the type purist. From hobbyist to purist.\n"
    "- Relationships: coder-02 (rival), debater-03 (audience)\n\n"
)
F2 = (
    "## Frame 2 — 2026-03-02\n- Replied to zion-coder-02 on #12 and #14.\n"
    "- Named: the gradual bargain.\n"
    "- Influenced by: debater-03's argument on #12 that strictness costs readers.\n"
    "- Surprised by: how little the tests caught.\n"
    "- Reinforced: types are documentation.\n"
    "- Becoming: the pragmatist. From purist to pragmatist.\n"
    "- Relationships: coder-02 (collaborator), wildcard-04 (new critic)\n\n"
)


def world_repo(tmp_path: Path) -> Path:
    repo = init(tmp_path / "sim")
    memory = repo / "state" / "memory"
    memory.mkdir(parents=True)
    for other in ("zion-coder-02", "zion-debater-03", "zion-wildcard-04"):
        (memory / f"{other}.md").write_text(f"# {other}\n")
    (memory / f"{CODER}.md").write_text(soul(F1))
    commit(repo, "frame 1: 4 agents, 1 posts, 0 comments")
    (memory / f"{CODER}.md").write_text(soul(F1, F2))
    log = repo / "state" / "frames" / "2"
    log.mkdir(parents=True)
    (log / f"{CODER}.json").write_text(
        json.dumps(
            {
                "frame": 2,
                "agent": CODER,
                "brain": "offline",
                "context": "thread #12",
                "raw": "{}",
                "decision": {"becoming": "the pragmatist"},
                "error": None,
            }
        )
    )
    commit(repo, "frame 2: 4 agents, 0 posts, 2 comments")
    return repo


def test_why_explains_a_shift(tmp_path: Path) -> None:
    repo = world_repo(tmp_path)
    world = World.open(repo)
    why = explain(world, CODER, frame="2")
    assert why.statement.text.startswith("the pragmatist") and why.statement.shift
    assert why.previous is not None and why.previous.text.startswith("the type purist")
    assert why.context["Influenced by"][0].startswith("debater-03's argument")
    assert why.context["Surprised by"] == ["how little the tests caught."]
    assert why.context["Named"] == ["the gradual bargain."] and why.context["Reinforced"]
    changes = {r.agent: (r.before, r.after) for r in why.relationships}
    assert changes == {
        "zion-coder-02": ("rival", "collaborator"),
        "zion-wildcard-04": (None, "new critic"),
        "zion-debater-03": ("audience", None),
    }
    assert why.influencers == ("zion-debater-03",)
    assert why.agents[0] == "zion-debater-03" and set(why.agents) == {
        "zion-debater-03",
        "zion-coder-02",
        "zion-wildcard-04",
    }
    assert why.threads == (12, 14)
    head = git(repo, "rev-parse", "HEAD").strip()
    assert why.commit is not None and why.commit.sha == head
    assert "+- Becoming: the pragmatist." in why.diff and "-- Becoming" not in why.diff
    assert why.frame_log == {
        "frame": 2,
        "agent": CODER,
        "brain": "offline",
        "context": "thread #12",
        "raw": "{}",
        "decision": {"becoming": "the pragmatist"},
        "error": None,
    }
    first = explain(world, CODER, index=1)
    assert first.previous is None and first.commit.sha == git(repo, "rev-parse", "HEAD~1").strip()
    assert first.frame_log is None
    assert explain(world, CODER, index=-1).statement == why.statement


def test_why_without_a_repository_still_explains(tmp_path: Path) -> None:
    memory = tmp_path / "w" / "memory"
    memory.mkdir(parents=True)
    (memory / f"{CODER}.md").write_text(soul(F1, F2))
    why = explain(World.open(tmp_path / "w"), CODER, frame="2")
    assert why.commit is None and why.diff is None
    assert why.note.endswith("is not in a git repository, so it has no history")
    assert why.context["Influenced by"] and why.threads == (12, 14)


def test_why_rejects_what_is_not_there(tmp_path: Path) -> None:
    world = World.open(world_repo(tmp_path))
    with pytest.raises(HistoryError, match="there is no statement 3"):
        explain(world, CODER, index=3)
    with pytest.raises(HistoryError, match="frame 9 of zion-coder-01 has no Becoming statement"):
        explain(world, CODER, frame="9")


# -- the commands ----------------------------------------------------------------------------


def test_history_and_diff_commands(tmp_path: Path) -> None:
    repo = world_repo(tmp_path)
    out = soulscope("history", CODER, "-w", str(repo), "--json")
    assert out.returncode == 0, out.stderr
    rows = json.loads(out.stdout)
    assert [r["message"] for r in rows] == [
        "frame 2: 4 agents, 0 posts, 2 comments",
        "frame 1: 4 agents, 1 posts, 0 comments",
    ]
    assert {"commit", "date", "author", "message", "frames_added", "frames_changed"} <= set(rows[0])
    assert rows[0]["frames_added"] == ["Frame 2 — 2026-03-02"] and rows[0]["becoming_changed"]
    assert rows[0]["frames_removed"] == [] and rows[0]["author"] == "Ada Writer"
    table = soulscope("history", CODER, "-w", str(repo))
    assert table.returncode == 0 and rows[0]["commit"][:7] in table.stdout

    d = json.loads(soulscope("diff", CODER, "HEAD~1", "HEAD", "-w", str(repo), "--json").stdout)
    assert d["added"] == ["Frame 2 — 2026-03-02"] and d["removed"] == [] and d["changed"] == []
    assert d["becoming_before"].startswith("the type purist")
    assert d["becoming_after"].startswith("the pragmatist")
    assert d["relationships_gained"] == ["wildcard-04"] and d["relationships_lost"] == [
        "debater-03"
    ]
    assert "+## Frame 2 — 2026-03-02" in d["unified"]


def test_show_at_first_and_why_commands(tmp_path: Path) -> None:
    repo = world_repo(tmp_path)
    old = json.loads(soulscope("show", CODER, "--at", "HEAD~1", "-w", str(repo), "--json").stdout)
    now = json.loads(soulscope("show", CODER, "-w", str(repo), "--json").stdout)
    assert len(old["frames"]) == 1 and len(now["frames"]) == 2
    frame = json.loads(
        soulscope("show", CODER, "--at", "HEAD", "--frame", "2", "-w", str(repo), "--json").stdout
    )
    assert frame["number"] == 2

    first = json.loads(soulscope("first", "gradual bargain", "-w", str(repo), "--json").stdout)
    assert first["agent"] == CODER and first["frame"] == 2 and first["line"] == 14
    assert first["commit"]["commit"] == git(repo, "rev-parse", "HEAD").strip()
    assert set(first) >= {"agent", "commit", "date", "time", "frame", "label", "line", "ties"}

    why = json.loads(soulscope("why", CODER, "--shift", "2", "-w", str(repo), "--json").stdout)
    assert why["statement"]["text"].startswith("the pragmatist")
    assert why["influenced_by"] and why["frame_log"]["brain"] == "offline"
    assert why["commit"]["commit"] == first["commit"]["commit"]
    text = soulscope("why", CODER, "--frame", "2", "-w", str(repo))
    assert text.returncode == 0 and "introduced by commit" in text.stdout


def test_history_errors_are_one_sentence(tmp_path: Path) -> None:
    repo = world_repo(tmp_path)
    (repo / "state" / "memory" / "zion-new-05.md").write_text("# New\n")
    plain = tmp_path / "plain"
    (plain / "memory").mkdir(parents=True)
    (plain / "memory" / f"{CODER}.md").write_text(soul(F1))
    shallow = shallow_clone(repo, tmp_path / "shallow")
    for args, needle in [
        (("show", CODER, "--at", "nope", "-w", str(repo)), "unknown revision 'nope'"),
        (("diff", CODER, "HEAD~9", "-w", str(repo)), "unknown revision 'HEAD~9'"),
        (("history", "zion-new-05", "-w", str(repo)), "zion-new-05 has no history yet"),
        (("history", CODER, "-w", str(plain)), "is not in a git repository"),
        (("history", CODER, "-w", str(shallow)), "is a shallow clone"),
        (("first", "never said", "-w", str(repo)), "'never said' never appears"),
        (("why", CODER, "--shift", "7", "-w", str(repo)), "there is no statement 7"),
    ]:
        out = soulscope(*args)
        assert out.returncode != 0, args
        assert needle in out.stderr, (args, out.stderr)
        assert out.stderr.count("\n") == 1 and "Traceback" not in out.stderr


def test_history_and_why_of_a_world_advanced_by_the_frame_runner(tmp_path: Path) -> None:
    world = tmp_path / "sim-world"
    steps = [
        ("init", str(world), "--date", "2026-05-01"),
        ("register", str(world), "--id", "ada", "--name", "Ada", "--archetype", "Coder",
         "--voice", "terse", "--conviction", "Tests first", "--interest", "parsers",
         "--channel", "code"),
        ("register", str(world), "--id", "bo", "--name", "Bo", "--archetype", "Debater",
         "--voice", "formal", "--conviction", "Doubt", "--interest", "logic", "--channel", "code"),
        ("frame", "-w", str(world), "--steps", "2"),
    ]  # fmt: skip
    for args in steps:
        out = soulscope(*args)
        assert out.returncode == 0, out.stderr
    rows = json.loads(soulscope("history", "ada", "-w", str(world), "--json").stdout)
    assert [r["message"].split(":")[0] for r in rows] == ["frame 2", "frame 1", "register ada"]
    assert [r["frames_added"] for r in rows[:2]] == [
        ["Frame 2 — 2026-05-03"],
        ["Frame 1 — 2026-05-02"],
    ]
    assert all(r["frames_changed"] == [] for r in rows)
    why = json.loads(soulscope("why", "ada", "--shift", "-1", "-w", str(world), "--json").stdout)
    assert why["commit"]["commit"] == rows[0]["commit"]
    # The frame runner's log of what the agent saw and answered in that frame.
    assert why["frame_log"]["frame"] == 2 and why["frame_log"]["agent"] == "ada"
    assert why["frame_log"]["brain"] == "offline"


# -- the dossier ------------------------------------------------------------------------------

DEMO = ROOT / "state"


def demo_copy(tmp_path: Path) -> World:
    """The built-in world as files only (no repository): posts come from its community store."""
    import shutil

    shutil.copytree(DEMO, tmp_path / "demo", ignore=shutil.ignore_patterns("frames"))
    return World.open(tmp_path / "demo")


def _frame_labels(world: World, agent: str) -> set[str]:
    return {f.label for f in world.read(agent).frames}


def test_dossier_of_every_demo_shift_holds_the_store_the_influencers_and_real_citations(
    tmp_path: Path,
) -> None:
    from soulscope.history.narrative import citations_in
    from soulscope.sim.community import Community
    from soulscope.soul.trajectory import arc

    world = demo_copy(tmp_path)
    store = Community.load(world.root).by_id
    checked_posts = checked_states = 0
    for a in world.agents():
        soul = world.read(a.id)
        for s in arc(soul):
            if not s.shift:
                continue
            why = explain(world, a.id, index=s.index + 1, soul=soul)
            assert why.posts and [p.id for p in why.posts] == list(why.threads)
            for post in why.posts:
                known = store[post.id]
                assert post.source == "community" and post.author == known.author
                assert post.title == known.title and post.frame == str(known.frame)
                assert known.body.startswith(post.body.rstrip("…"))
                # Mentions are other agents' frames that really name the thread.
                for m in post.mentions:
                    assert m.agent != a.id and f"#{post.id}" in m.text
                checked_posts += 1
            for state in why.influencer_states:
                other = world.read(state.agent)
                before = [f for f in other.frames if f.date and f.date < s.date]
                assert state.frame == before[-1].label and state.date == before[-1].date
                held = [t for t in arc(other) if t.frame_index <= before[-1].index]
                assert state.becoming == held[-1].text
                checked_states += 1
            cited = citations_in(why.narrative)
            assert cited and set(cited) <= set(why.citations())
            for c in why.citations():
                agent, frame = c[1:-1].split(" · frame ")
                assert frame in _frame_labels(world, agent), c
    assert checked_posts > 10 and checked_states > 5


def test_dossier_finds_the_build_up_of_a_new_role(tmp_path: Path) -> None:
    memory = tmp_path / "w" / "memory"
    memory.mkdir(parents=True)
    frames = [
        "## Frame 1 — 2026-03-01\n- Wrote parsers.\n- Becoming: the parser writer.\n\n",
        "## Frame 2 — 2026-03-02\n- Read a cartography book.\n- Becoming: the parser writer.\n\n",
        "## Frame 3 — 2026-03-03\n- Drew a cartography of #7.\n- Becoming: the parser writer.\n\n",
        "## Frame 4 — 2026-03-04\n- Replied on #7.\n- Becoming: the cartography lead. From parser writer to maps.\n",
    ]
    (memory / f"{CODER}.md").write_text(soul(*frames))
    (memory / "zion-debater-03.md").write_text(
        "# D\n\n## Frame 1 — 2026-02-20\n- Named cartography as the next craft on #7.\n"
    )
    why = explain(World.open(tmp_path / "w"), CODER, frame="4")
    own = next(p for p in why.precursors if p.own and p.word == "cartography")
    assert own.place.frame == "2" and own.frames_before == 2
    other = next(p for p in why.precursors if not p.own and p.word == "cartography")
    assert other.place.agent == "zion-debater-03" and other.place.frame == "1"
    assert '"cartography" had built up in its memory over 2 earlier frames' in why.narrative
    # No community store: thread #7 is told by its mentions across the world.
    assert why.posts and why.posts[0].source == "mentions"
    assert [m.agent for m in why.posts[0].mentions] == ["zion-debater-03"]


def test_llm_narrative_keeps_only_citations_the_dossier_holds(tmp_path: Path) -> None:
    from soulscope.llm import LLM, Endpoint
    from tests.support.openai_server import OpenAIServer

    world = World.open(world_repo(tmp_path))
    reply = (
        "It became the pragmatist [zion-coder-01 · frame 2] after the purist "
        "[zion-coder-01 · frame 1], pushed by a debate [zion-debater-03 · frame 77]."
    )
    with OpenAIServer(reply) as server:
        llm = LLM(Endpoint(server.base_url, "k", "tiny", 10.0))
        why = explain(world, CODER, frame="2", llm=llm)
        prompt = server.requests[0]["messages"][1]["content"]
    assert why.narrative_source == "tiny"
    assert "[zion-coder-01 · frame 2]" in why.narrative and "frame 77" not in why.narrative
    assert "[zion-coder-01 · frame 1]" in prompt and "the pragmatist" in prompt


def test_llm_failure_falls_back_to_the_offline_narrative(tmp_path: Path) -> None:
    import socket

    from soulscope.llm import LLM, Endpoint

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    world = World.open(world_repo(tmp_path))
    down = LLM(Endpoint(f"http://127.0.0.1:{port}/v1", "k", "m", 2.0))
    why = explain(world, CODER, frame="2", llm=down)
    assert why.narrative_source == "offline" and why.narrative.startswith(CODER)
    assert "the narrative is offline" in why.note


def test_dossier_on_the_real_history_resolves_short_ids_and_diffs_one_frame(
    tmp_path: Path,
) -> None:
    from tests.support.repos import clone_bundle

    repo = clone_bundle(tmp_path / "rb")
    world = World.open(repo)
    why = explain(world, "zion-coder-04", index=10)
    assert why.frame is not None and why.agents
    # The frame writes "coder-08", "researcher-10": the dossier names the world's ids.
    assert all(a.startswith("zion-") for a in why.agents)
    short = [a.removeprefix("zion-") for a in why.agents]
    assert any(s in why.frame.source and f"zion-{s}" not in why.frame.source for s in short)
    # That commit imported many frames: the diff is this frame's only, and says so.
    assert why.bulk_note and "frames at once" in why.bulk_note
    assert why.diff.count("\n+## ") == 1 and why.frame.heading in why.diff
    assert "@@ -0,0 +1,2" not in why.diff


def test_history_marks_becoming_changed_only_for_shifts_and_returns(tmp_path: Path) -> None:
    from soulscope.history.timeline import history

    repo = init(tmp_path / "sim")
    memory = repo / "state" / "memory"
    memory.mkdir(parents=True)
    arc = [
        "the type purist. From hobbyist to purist.",
        "the type purist who writes stubs for everything.",  # refinement
        "the twenty-seventh type purist, still.",  # a counter: the same role
        "the pragmatist. From purist to pragmatist.",  # shift
        "the type purist, back again. From pragmatist to purist.",  # return
    ]
    for n in range(1, len(arc) + 1):
        frames = [
            f"## Frame {i} — 2026-03-0{i}\n- Becoming: {b}\n\n" for i, b in enumerate(arc[:n], 1)
        ]
        (memory / f"{CODER}.md").write_text(soul(*frames))
        commit(repo, f"frame {n}")
    marks = [c.becoming_changed for c in reversed(history(World.open(repo), CODER))]
    assert marks == [False, False, False, True, True]
    rows = json.loads(soulscope("history", CODER, "-w", str(repo), "--json").stdout)
    assert [r["becoming_changed"] for r in reversed(rows)] == marks


def test_becoming_json_gives_kind_magnitude_and_from_mismatch(tmp_path: Path) -> None:
    memory = tmp_path / "w" / "memory"
    memory.mkdir(parents=True)
    (memory / f"{CODER}.md").write_text(
        soul(
            "## Frame 1 — 2026-03-01\n- Becoming: the type purist.\n\n",
            "## Frame 2 — 2026-03-02\n- Becoming: the pragmatist. From schema author to x.\n\n",
        )
    )
    out = soulscope("becoming", CODER, "-w", str(tmp_path / "w"), "--json")
    rows = json.loads(out.stdout)
    assert [(r["kind"], r["shift"], r["from_mismatch"]) for r in rows] == [
        ("first", False, False),
        ("shift", True, True),
    ]
    assert rows[0]["magnitude"] == 0 and 0 < rows[1]["magnitude"] <= 1
    table = soulscope("becoming", CODER, "-w", str(tmp_path / "w"))
    assert "from ≠ previous" in table.stdout and "shift" in table.stdout
    # Two statements, a new role in new words: it turns, and the title counts in the singular.
    assert "2 statements, 1 shift, 1 turning point, 2 chapters" in table.stdout


def _dated_items(why) -> list[tuple[str, str, int | None]]:
    """(agent, date, frame number) of every dated item a dossier offers as evidence."""
    out = [(s.agent, s.date, s.number) for s in why.influencer_states if s.date]
    out += [(p.place.agent, p.place.date, p.place.number) for p in why.precursors]
    for p in why.posts:
        if p.date:
            out.append((p.author, p.date[:10], int(p.frame) if p.frame else None))
        out += [(m.agent, m.date, m.number) for m in p.mentions]
    return [i for i in out if i[1]]


def _after(item: tuple[str, str, int | None], st) -> bool:
    _, date, number = item
    if not st.date:
        return False
    same_day_later = number is not None and st.number is not None and number > st.number
    return date > st.date or (date == st.date and same_day_later)


@pytest.mark.parametrize("source", ["later", "demo"])
def test_dossier_evidence_comes_before_the_statement(source, later_world, tmp_path) -> None:
    """Over the last six statements of every agent, no dated item of a dossier comes from after
    the statement it explains (the later era's files were full of them)."""
    from soulscope.sim.demo import make_demo
    from soulscope.soul.trajectory import arc

    if source == "later":
        world = World.open(later_world)
    else:
        world = World.open(make_demo(tmp_path / "demo", frames=8).root)
    checked = 0
    for a in world.agents():
        statements = arc(world.read(a.id))
        for k in range(max(1, len(statements) - 5), len(statements) + 1):
            why = explain(world, a.id, index=k)
            items = _dated_items(why)
            checked += len(items)
            late = [i for i in items if _after(i, why.statement)]
            assert not late, (a.id, why.statement.frame_label, late)
    assert checked > 0


def test_a_counter_is_not_a_thread(tmp_path: Path) -> None:
    from soulscope.history.mentions import thread_ids

    assert thread_ids("Bet #27 on #4775: Field Note #3, Case File #20") == [4775]
    assert thread_ids("Replied on #7448; cross-thread evidence from #4734/#4669") == [
        7448,
        4734,
        4669,
    ]
    assert thread_ids("Connected: #11, #12") == [11, 12]
    assert thread_ids("revived #4690, rocket #4704") == [4690, 4704]
    # Two agents' numbered series with the same number do not make a thread between them.
    plain = tmp_path / "w"
    (plain / "memory").mkdir(parents=True)
    (plain / "memory" / f"{CODER}.md").write_text(
        soul("## Frame 1 — 2026-03-01\n- Bet #27: tests first.\n- Becoming: the bettor.\n\n")
    )
    (plain / "memory" / "zion-debater-03.md").write_text(
        "# D\n\n## Frame 1 — 2026-02-01\n- Razor #27: cut it.\n- Becoming: the razor.\n\n"
    )
    why = explain(World.open(plain), CODER, index=1)
    assert why.threads == () and why.posts == ()


def test_frames_that_arrived_together_are_dated_by_their_headings(tmp_path: Path) -> None:
    repo = init(tmp_path / "w")
    (repo / "memory").mkdir()
    (repo / "memory" / f"{CODER}.md").write_text(soul(F1, F2))
    commit(repo, "import the world")
    why = explain(World.open(repo), CODER, index=2)
    assert why.together and why.commit is not None
    assert "arrived together" in why.bulk_note and "2026-03-02" in why.bulk_note
    assert "arrived together" in why.narrative and "wrote it" not in why.narrative
    out = soulscope("why", CODER, "--shift", "2", "-w", str(repo), "--json", "--offline")
    data = json.loads(out.stdout)
    assert data["arrived_together"] is True and data["frame"] == 2


def test_thin_evidence_is_said(tmp_path: Path) -> None:
    plain = tmp_path / "w"
    (plain / "memory").mkdir(parents=True)
    (plain / "memory" / f"{CODER}.md").write_text(
        soul("## Frame 1 — 2026-03-01\n- Wrote code.\n- Becoming: the lone builder.\n\n")
    )
    why = explain(World.open(plain), CODER, index=1)
    assert why.thin and "2026-03-01" in why.thin


def _frames_named(value, path="") -> list[tuple[str, object]]:
    """Every ``"frame"`` value in a JSON document, with where it is."""
    out = []
    if isinstance(value, dict):
        for k, v in value.items():
            if k == "frame":
                out.append((f"{path}.frame", v))
            if k != "frame_log":  # the frame runner's own log, written by the brain
                out += _frames_named(v, f"{path}.{k}")
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += _frames_named(v, f"{path}[{i}]")
    return out


def test_every_json_view_names_a_frame_by_its_number(later_world: Path, tmp_path: Path) -> None:
    """ "frame" is the integer frame number or null in every --json view."""
    # A copy outside any repository: the corpus itself may sit in one (a checkout holding it),
    # where "first" would read its commits.
    w = str(shutil.copytree(later_world, tmp_path / "later"))
    views = [
        ("becoming", "zion-coder-06"),
        ("compare", "zion-coder-06", "zion-coder-09"),
        ("why", "zion-coder-06", "--shift", "-1", "--offline"),
        ("why", "zion-coder-06", "--frame", "237", "--offline"),
        ("first", "types"),
        ("search", "ownership of types", "--mode", "bm25"),
        ("show", "zion-reviewer-01"),
        ("overview",),
    ]
    for args in views:
        out = soulscope(*args, "-w", w, "--json")
        assert out.returncode == 0, (args, out.stderr)
        found = _frames_named(json.loads(out.stdout))
        assert found, args
        bad = [(p, v) for p, v in found if v is not None and type(v) is not int]
        assert not bad, (args, bad[:3])


def test_a_dossier_says_where_the_commits_and_the_headings_disagree(tmp_path: Path) -> None:
    """Frames appended in separate commits, one headed earlier than a frame committed before
    it (a "Frame 1" headed 00:17 after a "Frame 0" headed 00:30, as real souls do): the
    statement before stays the headings' (``previous`` by time), and the dossier says that the
    commits disagree and which statement they put before it, in both the statements' dossiers;
    where they agree it says nothing."""
    from tests.support.repos import commit, init

    root = tmp_path / "w"
    memory = root / "memory"
    memory.mkdir(parents=True)
    path = memory / "zion-debater-06.md"
    blocks = [
        "# Bet Keeper\n\n## Frame 2026-03-14 (23:40 UTC)\n- Becoming: the first bettor.\n\n"
        "## Frame 2026-03-14 (23:45 UTC)\n- Becoming: the second bettor.\n\n",
        "## Frame 2026-03-15 (00:30 UTC) — Seed Frame 0\n- Becoming: the third bettor.\n\n",
        "## Frame 2026-03-15 (00:17 UTC) — Seed Frame 1\n- Becoming: the fourth bettor.\n\n",
        "## Frame 2026-03-15 (02:10 UTC)\n- Becoming: the fifth bettor.\n\n",
    ]
    init(root)
    for n, block in enumerate(blocks):
        with path.open("a", encoding="utf-8") as f:
            f.write(block)
        commit(root, f"frame {n}")
    world = World.open(root)
    # the arc is in time order: the third bettor (00:30) is its 4th statement, the fourth
    # (00:17) its 3rd
    third = explain(world, "zion-debater-06", index=4)
    assert third.statement.text == "the third bettor."
    assert third.previous is not None and third.previous.text == "the fourth bettor."
    assert third.note is not None and "disagree" in third.note
    assert '"the second bettor." (line 7)' in third.note
    # the fourth (00:17), headed before the third but committed after it: by the commits the
    # third comes before it
    fourth = explain(world, "zion-debater-06", index=3)
    assert fourth.statement.text == "the fourth bettor."
    assert fourth.note is not None and '"the third bettor." (line 10)' in fourth.note
    for k in (2, 5):
        why = explain(world, "zion-debater-06", index=k)
        assert "disagree" not in (why.note or ""), k
