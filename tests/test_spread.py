"""``soulscope spread``: who used a term in order of first use, from whom, and the curve.

On the real world the answers are checked against an independent reading of the files (a plain
scan of each line under its ``## Frame`` heading); terms are sampled from the corpus at run time.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest

from soulscope.cli import main
from soulscope.history.spread import spread, spread_dict, tied_flags
from soulscope.soul import when
from soulscope.soul.terms import Term
from soulscope.world import World
from tests.support.cli import soulscope

_DATE = re.compile(r"(\d{4}-\d{2}-\d{2})")
_TIME = re.compile(r"(?<![\d:])(\d{1,2}):(\d{2})")
_WORD = re.compile(r"[a-z]{7,}")
_DATED_BULLET = re.compile(r"\s*- \*\*(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}):\d{2}Z\*\* ")
AGENT_KEYS = {"agent", "frame", "date", "time", "heading", "line", "text", "uses", "from"}


def sampled_terms(memory: Path, count: int = 5) -> list[str]:
    """Words that 6 to 30 of the world's files hold, picked evenly from the rarest to the most
    common: not chosen by hand."""
    df: Counter[str] = Counter()
    for path in sorted(memory.glob("*.md")):
        df.update(set(_WORD.findall(path.read_text("utf-8", "replace").lower())))
    words = sorted((n, w) for w, n in df.items() if 6 <= n <= 30 and w != "sortition")
    step = len(words) // count
    return [words[i * step + step // 2][1] for i in range(count)]


def independent(path: Path, word: str) -> list[tuple[int, str | None, str | None]]:
    """(line, date, time) of every line of a file holding ``word`` (as a word, any case), the
    date and time read from the ``## Frame`` heading above it; outside frames, those a History
    bullet gives itself (``- **2026-02-13T01:26:59Z** — ...``), else None."""
    pattern = re.compile(rf"(?<!\w){re.escape(word)}(?!\w)", re.IGNORECASE)
    out = []
    date = time = None
    in_frame = False
    for n, line in enumerate(path.read_text("utf-8", "replace").split("\n"), 1):
        if line.startswith("## "):
            date = time = None
            in_frame = line[3:].startswith("Frame")
            if in_frame:
                d, t = _DATE.search(line), _TIME.search(line)
                date = d.group(1) if d else None
                time = f"{int(t.group(1)):02d}:{t.group(2)}" if (t and d) else None
        if pattern.search(line):
            own = None if in_frame else _DATED_BULLET.match(line)
            if own is not None:
                out.append((n, own.group(1), own.group(2)))
            else:
                out.append((n, date, time))
    return out


@pytest.fixture(scope="module")
def early() -> Path:
    from tests.support.paths import corpus_dir

    return corpus_dir("rappterbook")


def test_spread_on_the_real_world_agrees_with_the_files(early: Path) -> None:
    world = World.open(early)
    for word in sampled_terms(early / "memory"):
        s = spread(world, Term(word))
        found = {p.stem: independent(p, word) for p in (early / "memory").glob("*.md")}
        holders = {agent for agent, lines in found.items() if lines}
        assert {a.agent_id for a in s.adopters} == holders, word
        timed = []
        for a in s.adopters:
            lines = found[a.agent_id]
            assert a.first.line in {n for n, _, _ in lines}, (word, a.agent_id)
            minute = sorted((d, t) for _, d, t in lines if d and t)
            m = a.first.moment
            if m.time and not m.inferred:
                # its first use is the earliest its frames' times give
                assert (m.date, m.time) == minute[0], (word, a.agent_id)
                timed.append((a, (m.date, m.time)))
        # adopters placed to the minute come in the order of their times; a shared minute is a tie
        for (a, t_a), (b, t_b) in zip(timed, timed[1:], strict=False):
            assert t_a <= t_b, (word, a.agent_id, b.agent_id)
            if t_a == t_b:
                assert a.tied and b.tied, (word, a.agent_id, b.agent_id)
        # the curve counts every dated adopter once, by the date of its first use
        # (a first use outside frames is undated: its neighbour frame's date is not its own)
        dated = Counter(
            a.first.moment.date
            for a in s.adopters
            if a.first.moment.date and not a.first.moment.inferred
        )
        assert s.undated == len(s.adopters) - sum(dated.values())
        assert s.timeline[-1][1] == sum(dated.values())
        assert [d for d, _ in s.timeline] == sorted(dated)


# What a line that credits another agent says, and a vote line, as a reader spots them.
CREDIT_LINE = re.compile(
    r"^\W*(influenced by|surprised by|reinforced|becoming|evolving position)\W*:"
    r"|forced|convinced|borrow|thanks|credit|correct|right|taught|inspired|learn|after \S+'s",
    re.I,
)
VOTE_LINE = re.compile(r"^\W*(\*\*[^*]+\*\*\W*)?(up|down)?vot", re.I)


def test_chains_cite_real_bullets_at_or_before_the_first_use(early: Path) -> None:
    world = World.open(early)
    checked = 0
    for word in sampled_terms(early / "memory", 3):
        s = spread(world, Term(word))
        order = [a.agent_id for a in s.adopters]
        for e in s.edges:
            target = early / "memory" / f"{e.target}.md"
            line = target.read_text("utf-8", "replace").split("\n")[e.line - 1]
            short = e.source.removeprefix("zion-")
            assert e.source in line.lower() or short in line.lower(), (word, e)
            assert e.kind != "vote" and not VOTE_LINE.match(line), (word, e)
            if e.kind == "credit":
                assert CREDIT_LINE.search(line), (word, e)
            # the source adopted before the target, and the bullet's frame is no later than
            # the target's first use
            assert order.index(e.source) < order.index(e.target)
            first = s.adopter(e.target).first.moment
            assert e.moment.key <= first.key
            assert e.moment.position <= first.position or when.ordered(e.moment, first)
            assert when.ordered(s.adopter(e.source).first.moment, first)
            checked += 1
    assert checked > 0


def test_chains_follow_the_influenced_by_bullets(tmp_path: Path) -> None:
    """A world without git: ada coins a word, bob is influenced by her, cy names bob in a
    reply, dee names nobody; eve is influenced by ada only after she used the word herself."""

    def soul(name: str, frames: list[tuple[str, list[str]]]) -> None:
        body = "".join(
            f"## Frame {n} — {d}\n" + "".join(f"- {b}\n" for b in bullets) + "\n"
            for n, (d, bullets) in enumerate(frames, 1)
        )
        (tmp_path / "memory").mkdir(exist_ok=True)
        (tmp_path / "memory" / f"{name}.md").write_text(f"# {name}\n\n{body}")

    soul("ada", [("2026-01-01 (09:00 UTC)", ["Named: the quiet ledger"])])
    soul(
        "bob",
        [
            ("2026-01-01 (10:00 UTC)", ["Influenced by: ada, her post"]),
            ("2026-01-02 (08:00 UTC)", ["Posted about the Quiet  Ledger"]),
        ],
    )
    soul(
        "cy",
        [("2026-01-03 (08:00 UTC)", ["Replied to bob on #4: a quiet ledger is still a ledger"])],
    )
    soul("dee", [("2026-01-03 (08:00 UTC)", ["Wrote: the quiet ledger, again"])])
    soul(
        "eve",
        [
            ("2026-01-04 (07:00 UTC)", ["Thought about the quiet ledgers"]),
            ("2026-01-05 (07:00 UTC)", ["Influenced by: ada"]),
        ],
    )
    s = spread(World.open(tmp_path), Term("quiet ledger"))
    assert [a.agent_id for a in s.adopters] == ["ada", "bob", "cy", "dee"]
    by = {a.agent_id: a for a in s.adopters}
    assert by["bob"].sources == ["ada"] and by["bob"].links[0].kind == "credit"
    assert by["bob"].links[0].line == 4 and by["bob"].uses == 1
    assert by["cy"].sources == ["bob"] and by["cy"].links[0].kind == "reply"
    assert by["dee"].sources == [] and by["cy"].tied and by["dee"].tied
    assert not by["ada"].tied and [a.agent_id for a in s.started] == ["ada"]
    assert s.timeline == (("2026-01-01", 1), ("2026-01-02", 2), ("2026-01-03", 4))
    # stemmed, eve's "ledgers" counts; her influence came after, so it is no link
    st = spread(World.open(tmp_path), Term("quiet ledger", "stem"))
    assert st.adopter("eve") is not None and st.adopter("eve").sources == []


def test_demo_world_chains_are_its_influences(tmp_path: Path) -> None:
    from soulscope.sim.demo import make_demo

    make_demo(tmp_path / "w", frames=12)
    world = World.open(tmp_path / "w")
    s = spread(world, Term("bridge"))
    assert s.edges
    registry = world.registry()
    for e in s.edges:
        line = (tmp_path / "w" / "memory" / f"{e.target}.md").read_text().split("\n")[e.line - 1]
        first_name = registry[e.source]["name"].split()[0]
        # (the reply that says "I did steal it from Hale" credits Hale Brennan)
        took = f"steal it from {first_name}" in line
        assert e.source in line or f"{first_name}'s" in line or f"{first_name} (" in line or took
        if e.kind == "credit":
            assert line.startswith(("- Influenced by:", "- Becoming:")) or took


def test_ties_follow_when_ordered() -> None:
    M = when.Moment
    moments = [
        M("2026-01-01", "09:00", 0),
        M("2026-01-01", "09:00", 3),  # same minute, another file
        M("2026-01-01", "10:00", 1),
        M("2026-01-02", None, 0, 7),  # day only, numbered
        M("2026-01-02", None, 2, 8),  # day only, another number: ordered apart
        M("2026-01-03", None, 0),  # day only, no number
        M("2026-01-03", "12:00", 5),
        M("2026-01-04", "12:00", 1, inferred="after"),  # any time after
        M("2026-01-05", "12:00", 2),
    ]
    slow = [any(not when.ordered(m, o) for o in moments if o is not m) for m in moments]
    assert tied_flags(moments) == slow
    assert slow == [True, True, False, False, False, True, True, True, True]


def test_cli_json_shape_and_text(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from soulscope.sim.demo import make_demo

    make_demo(tmp_path / "w", frames=6)
    assert main(["spread", "river", "-w", str(tmp_path / "w"), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert {"term", "agents", "edges", "timeline"} <= set(out)
    assert out["term"] == "river" and out["agents"]
    for a in out["agents"]:
        assert set(a) >= AGENT_KEYS and "tied" in a
        assert a["frame"] is None or isinstance(a["frame"], int)
        assert "river" in a["text"].lower()
    for e in out["edges"]:
        assert {"from", "to", "frame"} <= set(e)
    assert out["timeline"][-1]["agents"] == sum(1 for a in out["agents"] if a["date"])
    assert main(["spread", "river", "-w", str(tmp_path / "w"), "--stem"]) == 0
    text = capsys.readouterr().out
    assert "by its stem" in text and "adoption" in text
    assert main(["spread", "zzqqy", "-w", str(tmp_path / "w")]) == 1
    assert "never appears" in capsys.readouterr().err


def test_spread_json_is_stable_for_a_term(tmp_path: Path) -> None:
    (tmp_path / "memory").mkdir()
    (tmp_path / "memory" / "a.md").write_text("# a\n\n## Frame 3 — 2026-02-01\n- word\n")
    d = spread_dict(spread(World.open(tmp_path), Term("word")))
    assert d["agents"][0]["frame"] == 3 and d["agents"][0]["from"] == []
    assert d["timeline"] == [{"date": "2026-02-01", "agents": 1}]


def test_headings_alone_give_the_columns_parse_gives(early: Path) -> None:
    """``frame_columns`` (spread's and graph's quick read) agrees with ``parse`` on every real
    file and on headings of every shape the parser knows."""
    from soulscope.soul.parse import frame_columns, parse
    from tests.support.paths import corpus_dir

    later = corpus_dir("rappterbook-later")
    odd = (
        b"# x\n\n## Frame 12 \xe2\x80\x94 2026-01-05 (08:33 UTC)\n- a\n## Notes\n- b\n"
        b"## Frame 2026-01-06 (9:05 UTC) \xe2\x80\x94 12:00 call\n- c\n"
        b"## Frame 2026-01-07 \xe2\x80\x94 title\r\n- d\r\n## Frame 492\n## Frame March 8, 2026\n"
        b"## Framework\n## Frame 500b solo \xe2\x80\x94 2026-01-09\n- e"
    )
    files = [*(early / "memory").glob("*.md"), *(later / "memory").glob("*.md")]
    for data in [odd, *(p.read_bytes() for p in files)]:
        a, b = parse(data).frames.columns, frame_columns(data)
        for name in ("starts", "ends", "lines", "end_lines", "numbers", "suffixes", "dates"):
            assert list(getattr(a, name)) == list(getattr(b, name)), name
        assert list(a.times) == list(b.times)


def test_an_unreadable_soul_is_said_not_dropped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """spread and graph name a soul file they could not read, and answer from the others."""
    memory = tmp_path / "w" / "memory"
    memory.mkdir(parents=True)
    entry = "## Frame 1 — 2026-03-01\n- Lit a lantern.\n- Becoming: the lamplighter.\n"
    for agent in ("aa", "bb", "zz"):
        (memory / f"{agent}.md").write_text(f"# {agent}\n\n" + entry)
    read_bytes = Path.read_bytes

    def refused(self: Path) -> bytes:  # as chmod 000 does for anyone but root
        if self.name == "zz.md":
            raise PermissionError(13, "Permission denied", str(self))
        return read_bytes(self)

    monkeypatch.setattr(Path, "read_bytes", refused)
    found = spread(World.open(tmp_path / "w"), Term("lantern"))
    assert [a.agent_id for a in found.adopters] == ["aa", "bb"]
    assert [p.endswith("zz.md: Permission denied") for p in found.unreadable] == [True]
    assert main(["spread", "lantern", "-w", str(tmp_path / "w"), "--json"]) == 0
    out = capsys.readouterr()
    assert json.loads(out.out)["term"] == "lantern" and "zz.md: Permission denied" in out.err
    assert main(["graph", "-w", str(tmp_path / "w")]) == 0
    assert "skipped: cannot read" in capsys.readouterr().err


def test_a_history_bullet_is_placed_by_its_own_time(tmp_path: Path, early: Path) -> None:
    """Early souls log actions before their frames as ``- **2026-02-10T08:00:00Z** — ...``: a use
    there happened then, not at some time before the file's first frame."""
    memory = tmp_path / "memory"
    memory.mkdir()
    (memory / "ada.md").write_text(
        "# ada\n\n## History\n- **2026-02-10T08:00:00Z** — Poked the lanternfish thread.\n"
        "- Undated: the lanternfish again.\n\n"
        "## Frame 2026-03-01 (09:00 UTC)\n- Named: the lanternfish, once more\n"
    )
    (memory / "bob.md").write_text(
        "# bob\n\n## Frame 2026-02-20 (12:00 UTC)\n- Saw the lanternfish on the board.\n"
    )
    s = spread(World.open(tmp_path), Term("lanternfish"))
    ada, bob = s.adopters
    assert (ada.agent_id, ada.first.line, ada.tied) == ("ada", 4, False)
    assert (ada.first.moment.date, ada.first.moment.time) == ("2026-02-10", "08:00")
    assert spread_dict(s)["agents"][0]["section"] == "before" and not bob.tied
    assert s.timeline == (("2026-02-10", 1), ("2026-02-20", 2))
    # ``first`` agrees
    out = json.loads(soulscope("first", "lanternfish", "--world", str(tmp_path), "--json").stdout)
    assert (out["agent"], out["line"], out["date"], out["time"]) == (
        "ada",
        4,
        "2026-02-10",
        "08:00",
    )
    # On the real world: every adopter whose first use is a History bullet has that bullet's time
    s = spread(World.open(early), Term("poked"))
    from_history = [a for a in s.adopters if a.first.label is None and a.first.moment.time]
    assert len(from_history) > 20
    for a in from_history:
        line = (
            (early / "memory" / f"{a.agent_id}.md").read_text("utf-8").split("\n")[a.first.line - 1]
        )
        m = _DATED_BULLET.match(line)
        assert m is not None and (m.group(1), m.group(2)) == (
            a.first.moment.date,
            a.first.moment.time,
        )


def test_a_from_is_never_dated_before_the_source_used_the_term(tmp_path: Path) -> None:
    """bob replied to ada weeks before she used the word, and praised her in a frame of the
    same day but before her use: neither line can have carried it; his later credit can."""
    memory = tmp_path / "memory"
    memory.mkdir()
    (memory / "ada.md").write_text(
        "# ada\n\n## Frame 2026-03-13 (14:15 UTC)\n- Posted: Rice's Theorem, plainly\n"
    )
    (memory / "bob.md").write_text(
        "# bob\n\n## History\n- **2026-02-16T06:52:03Z** — Replied to Ada on #3258 the paradox.\n\n"
        "## Frame 2026-03-13 (09:00 UTC)\n- Relationships: ada (a rival)\n\n"
        "## Frame 2026-03-14 (10:00 UTC)\n- Read the feed.\n\n"
        "## Frame 2026-03-15 (10:00 UTC)\n- Used rice's theorem on the DSL.\n"
    )
    (memory / "cy.md").write_text(
        "# cy\n\n## Frame 2026-03-12 (08:00 UTC)\n- Replied to ada on #1.\n\n"
        "## Frame 2026-03-16 (08:00 UTC)\n- Relationships: ada (her post)\n- Rice's theorem again.\n"
    )
    s = spread(World.open(tmp_path), Term("Rice's theorem"))
    by = {a.agent_id: a for a in s.adopters}
    assert [a.agent_id for a in s.adopters] == ["ada", "bob", "cy"]
    assert by["bob"].sources == []
    assert [(link.source, link.kind, link.line) for link in by["cy"].links] == [
        ("ada", "relationship", 7)
    ]
