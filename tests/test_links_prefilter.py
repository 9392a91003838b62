"""The link reader's fast paths (``history.links``) give the answers of the straightforward
reading: every whole run of a file looked up (``AgentNames.runs``), every run of capitalised
words tried as a display name (``CAPITALISED_BYTES``). Hand-made files hold the forms a fast path
could get wrong: handles without a hyphen in any case and glued to other characters, names at a
stretch's very edges, display names after other capitalised words, ids that begin with a digit,
and worlds with and without a registry, with few and with many handles."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from soulscope.history import links
from soulscope.history.graph import graph_text, influence
from soulscope.history.names import CAPITALISED_BYTES, AgentNames
from soulscope.world import World
from tests.support.bigworld import corpus_world

LINES = [
    "- Voted: UP rappter1/#51, ROCKET Rappter1 #52, 👍 RAPPTER1, DOWN abeginner22/#9",
    "rappter1 opened the thread; system replied to rappter1 and Abeginner22.",
    "- Relationships: system (host), rappter1 (ally), Pratik_Rath (rival), 7up-fan (odd)",
    "Not names: rappter12 rappter1x xrappter1 rappter1-fan pre-rappter1 rappter1_x ecosystem",
    "Glued: @rappter1, 'rappter1', (rappter1), rappter1's, rappter1., ärappter1, rappter1ä",
    "- Influenced by: Grace O'Neil, whose tests I borrowed; thanks to Lin Park",
    "Met Grace O'Neil's review; x-Grace said less. GRACE, Grace's, Lin's and Lin Park's notes.",
    "- Replied to coder-07 on #4 and Coder-05; CODER-05 answered Zion-Coder-07 back.",
    "Borrowed debater-06's method, which 2go-team and 2GO-TEAM used; dr.who-1 and DR.WHO-1 too.",
    "-coder-05 and --coder-07 are no runs; coder-05- and coder-05--x neither; 9coder-05 either.",
    "Ode Maker replied to my post; Vault Keeper's audit after Data Digger's census. System.",
    "debater-06's framing was right; Coder-07 changed  my mind; rappter1 (host) answered; my me",
    "coder-05 replied, coder-07\tWROTE back to me, Abeginner22's two big ideas proved correct.",
]
REGISTRY = {
    "zion-coder-05": {"name": "Grace O'Neil"},
    "zion-coder-07": {"name": "Lin Park"},
    "zion-debater-06": {"name": "Ode Maker"},
    "zion-security-01": {"name": "Vault Keeper"},
    "zion-researcher-05": {"name": "Data Digger"},
    "rappter1": {"name": "rappter1"},
    "Abeginner22": {"name": "Abeginner22"},
    "Pratik_Rath": {"name": "Pratik Rath"},
    "2go-team": {"name": "Two Go"},
    "dr.who-1": {"name": "The Doctor"},
}


def soul(agent: str, lines: list[str]) -> str:
    frames = "".join(
        f"## Frame {n} — 2026-03-{n:02d}\n{line}\n\n" for n, line in enumerate(lines, 1)
    )
    return f"# {agent}\n\n## History\n\n- **2026-02-01T10:00:00Z** — {lines[1]}\n\n{frames}"


def write_world(folder: Path, registry: dict | None, souls: dict[str, str]) -> World:
    (folder / "memory").mkdir(parents=True)
    for agent, text in souls.items():
        (folder / "memory" / f"{agent}.md").write_text(text, encoding="utf-8")
    if registry is not None:
        (folder / "agents.json").write_text(json.dumps({"agents": registry}), encoding="utf-8")
    return World.open(folder)


def straightforward(monkeypatch: pytest.MonkeyPatch) -> None:
    """The reader without its fast paths: every run looked up, every capitalised run tried,
    every phrase pattern a line's words call for tried."""

    def every_run(names: AgentNames, data: bytes, start: int, end: int) -> Iterator:
        return names.runs.finditer(data, start, end)

    def every_capitalised(starts: frozenset, data: bytes, start: int, end: int) -> Iterator:
        return CAPITALISED_BYTES.finditer(data, start, end)

    monkeypatch.setattr(links, "_TAILS", {})
    monkeypatch.setattr(links, "_runs", every_run)
    monkeypatch.setattr(links, "_capitalised", every_capitalised)


def all_links(world: World) -> list[tuple[str, int, str, str]]:
    """Every link of every file, of the whole file and of stretches that begin and end at
    every line (names at a stretch's edges)."""
    names = AgentNames.of(world, words=False)
    out = []
    for a, data in world.sources([]):
        out += [(a.id, *x) for x in links.read(names, data, 0, len(data), a.id)]
        cuts = [0, *(i + 1 for i, b in enumerate(data) if b == 10)]
        for s, e in zip(cuts, cuts[2:], strict=False):
            out += [(a.id, s, *x) for x in links.read(names, data, s, e, a.id)]  # type: ignore[arg-type]
        out += [(a.id, -1, *x) for x in links.read(names, data, 5, len(data) - 3, a.id)]  # type: ignore[arg-type]
    return out


def variants(tmp_path: Path) -> Iterator[World]:
    souls = {
        "zion-coder-05": soul("zion-coder-05", LINES),
        "zion-coder-07": soul("zion-coder-07", LINES[::-1]),
        "system": soul("system", LINES[3:] + LINES[:3]),
        "rappter1": "rappter1 and Rappter1 and Grace O'Neil's note, at the very end: rappter1",
    }
    yield write_world(tmp_path / "registry", REGISTRY, souls)
    yield write_world(tmp_path / "no-registry", None, souls)
    many = REGISTRY | {f"handle{i}": {"name": f"handle{i}"} for i in range(80)}
    many_souls = souls | {"zion-x-1": "handle3, Handle7, HANDLE79 and handle80; handle1x\n"}
    yield write_world(tmp_path / "many-handles", many, many_souls)


def test_fast_paths_read_as_the_straightforward_reading(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for world in variants(tmp_path):
        fast = all_links(world)
        with monkeypatch.context() as m:
            straightforward(m)
            plain = all_links(world)
        assert fast == plain, world.root
        named = {who for _, *rest in fast for who in rest[-2:-1]}
        # not a test that cannot fail: the handles and display names are found
        assert {"rappter1", "zion-coder-07"} <= named, world.root
        if world.root.name != "no-registry":
            assert {"Abeginner22", "zion-coder-05", "zion-researcher-05"} <= named


def test_a_corpus_like_graph_is_the_straightforward_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    world = World.open(corpus_world(tmp_path / "w", 40, 6))
    fast = graph_text(influence(world))
    with monkeypatch.context() as m:
        straightforward(m)
        plain = graph_text(influence(world))
    assert fast == plain
    assert '"kind": "vote"' in fast and '"from": "rappter1"' in fast


def test_the_tree_of_words_finds_what_their_alternation_finds() -> None:
    """The words that choose a line's phrase patterns are looked for as a tree of letters; it
    finds, word for word, what the alternation of the words longest first finds, also where
    words run into each other ("answeredback", "commentedright")."""
    import random
    import re

    words = sorted(links._WANTS, key=len, reverse=True)
    alternation = re.compile(b"|".join(re.escape(w) for w in words))
    rng = random.Random(5)
    pieces = [*words, b" ", b"e", b"d", b"x", b"-"]
    lines = [b"".join(rng.choice(pieces) for _ in range(rng.randint(1, 9))) for _ in range(20000)]
    lines += [line.lower().encode() for line in LINES]
    assert any(len(alternation.findall(x)) > 2 for x in lines)
    for x in lines:
        assert [m.span() for m in links._TRIGGER.finditer(x)] == [
            m.span() for m in alternation.finditer(x)
        ], x
    # words that are prefixes of others
    small = re.compile(links.trie([b"ab", b"abc", b"b", b"bcd"]))
    assert small.findall(b"abcd abd bc bcd") == [b"abc", b"ab", b"b", b"bcd"]


def test_runs_found_from_their_hyphens_are_the_patterns_runs() -> None:
    """``_hyphen_runs`` finds, from each hyphen, the runs its pattern finds, in every stretch
    of a line of odd forms (runs that begin with a hyphen, a digit, an underscore; hyphens
    doubled and last; bytes that are not ASCII; a stretch that cuts a run)."""
    from soulscope.history.names import HYPHEN_RUN, HYPHEN_RUN_LETTERED

    text = "-abc x-y 9a-b a9-b _x-y --a- a-- é-x x-é ab-cd-ef 2026-01-02 -9x q- -".encode()
    for digits, pattern in ((True, HYPHEN_RUN), (False, HYPHEN_RUN_LETTERED)):
        for s in range(len(text)):
            for e in range(s, len(text) + 1):
                got = [m.span() for m in links._hyphen_runs(text, s, e, digits)]
                assert got == [m.span() for m in pattern.finditer(text, s, e)], (s, e)
