"""Agents named by their display names ("Grace Debugger", "aligned with Grace"), as the later
souls of a real world write them: resolved to ids by the registry, checked against the files."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from soulscope.history.graph import influence
from soulscope.history.names import AgentNames
from soulscope.history.timeline import relationships
from soulscope.history.why import explain
from soulscope.world import World


def test_relationships_keep_whole_names() -> None:
    text = (
        "Inversion Agent (productive disagreement), productive tension with Lisp Macro (agree"
        " on approach (mostly)); aligned with Grace (her tests). engaging with storyteller-02"
        " (they ask), Rustacean (odd), the reviewer (trusted)"
    )
    assert list(relationships(text)) == [
        "Inversion Agent",
        "Lisp Macro",
        "Grace",
        "storyteller-02",
        "Rustacean",
        "reviewer",
    ]
    assert relationships(text)["Lisp Macro"] == "agree on approach (mostly)"


def _world(tmp_path: Path, files: dict[str, str], names: dict[str, str]) -> World:
    memory = tmp_path / "memory"
    memory.mkdir()
    for agent, text in files.items():
        (memory / f"{agent}.md").write_text(text)
    registry = {"agents": {i: {"name": n} for i, n in names.items()}}
    (tmp_path / "agents.json").write_text(json.dumps(registry))
    return World.open(tmp_path)


def test_display_names_are_names_where_a_person_would_read_them(tmp_path: Path) -> None:
    world = _world(
        tmp_path,
        {
            "a-1": "# A\n",
            "b-1": "# B\n",
            "c-1": "# C\n",
            "m-1": "# M\n",
            "m-2": "# M2\n",
            "me-1": (
                "# Me\n\n## Frame 1 — 2026-01-01\n- Wrote Rustacean code all day\n"
                "- Read Grace Debugger's review\n\n"
                "## Frame 1b — 2026-01-01\n- Grace Debugger is also a phrase\n\n"
                "## Frame 2 — 2026-01-02\n- Relationships: Rustacean (ally), Grace (pair)\n\n"
                "## Frame 3 — 2026-01-03\n- Grace came by; so did Meta\n"
                "- Influenced by: Meta's question\n\n"
                "## Frame 4 — 2026-01-04\n- Replied to Grace on #4\n"
            ),
        },
        {"a-1": "Grace Debugger", "b-1": "Rustacean", "m-1": "Meta Mirror", "m-2": "Meta Hub"},
    )
    names = AgentNames.of(world, "me-1")
    assert names.resolve("Grace Debugger") == names.resolve("Grace") == "a-1"
    assert names.resolve("Also Grace Debugger") == "a-1"
    assert names.resolve("Meta") == "Meta"  # two display names begin with it: nobody
    g = influence(world)
    # frame 1 (the whole name), 2 (the first name in Relationships), 4 (a reply); not frame 3,
    # where "Grace" is running text
    assert g.arcs[("a-1", "me-1")].weight == 3
    assert dict(g.arcs[("a-1", "me-1")].kinds) == {"mention": 1, "relationship": 1, "reply": 1}
    # a one-word display name is a name in Relationships only, not in "Rustacean code"
    assert dict(g.arcs[("b-1", "me-1")].kinds) == {"relationship": 1}
    assert not [a for a in g.arcs if a[0].startswith("m-")]


def test_a_real_later_soul_names_its_peers_by_display_name(
    tmp_path: Path, later_world: Path, early_world: Path
) -> None:
    """The later souls with the world's registry (real files, copied into a temporary world):
    an arc counts the frames (and lines outside frames) that name the agent by id or display
    name, as a reader finds them."""
    shutil.copytree(later_world / "memory", tmp_path / "memory")
    shutil.copy(early_world / "agents.json", tmp_path / "agents.json")
    world = World.open(tmp_path)
    registry = world.registry()
    g = influence(world)
    target = "zion-coder-09"
    source = tmp_path / "memory" / f"{target}.md"
    checked = 0
    for (src, dst), arc in g.arcs.items():
        name = registry.get(src, {}).get("name", "")
        if dst != target or " " not in name:
            continue
        first = name.split()[0]
        whole = re.compile(rf"(?<![\w-]){re.escape(name)}(?![\w-])")
        owner = re.compile(rf"(?<![\w-]){re.escape(name)}('s|\u2019s)")
        # a first name alone counts where it is used as a name: "Grace's", "Grace (...)"
        short = re.compile(rf"(?<![\w-]){re.escape(first)}('s|\u2019s| ?\()")
        ident = re.compile(rf"(?<![\w-])({re.escape(src)}|{re.escape(src[5:])})(?![\w-])")
        frames, hit, in_frame = 0, False, False
        for line in source.read_text("utf-8").split("\n") + ["## end"]:
            if line.startswith("## "):
                frames += in_frame and hit
                in_frame, hit = line[3:].startswith("Frame"), False
                continue
            citing = re.match(
                r"\s*- (Influenced by|Relationships|Reinforced|Surprised by|Becoming):", line
            )
            reply = re.search(rf"Replied to {re.escape(first)}\b", line)
            if (
                ident.search(line)
                or owner.search(line)
                or reply
                or (citing and (whole.search(line) or short.search(line)))
            ):
                hit = True
                frames += not in_frame  # a line outside frames (a History bullet) is one unit
        assert arc.weight == frames, (src, name)
        checked += 1
    assert checked >= 5
    # the why dossier names the same agents by id, not by the last word of their names
    why = explain(world, target, frame="488")
    changed = {r.agent for r in why.relationships}
    assert "zion-coder-03" in changed and "Debugger" not in changed


def test_without_a_registry_the_files_titles_are_their_display_names(tmp_path: Path) -> None:
    """A folder of soul files and no agents.json: "# Rustacean" names its file's agent, so
    "Influenced by: Rustacean's concession" credits it and "Sentinel Prime (ally)" is a
    relationship; a title that is the id, or "— Soul File", names nobody."""
    memory = tmp_path / "memory"
    memory.mkdir()
    files = {
        "zion-coder-06": "# Rustacean\n\n## Frame 1 — 2026-04-01\n- Becoming: the typist.\n",
        "zion-security-01": "# zion-security-01 — Sentinel Prime\n\n## Frame 1 — 2026-04-01\n",
        "zion-reviewer-01": "# zion-reviewer-01 — Soul File\n\n## Frame 1 — 2026-04-01\n",
        "zion-coder-09": (
            "# Vim Keybind\n\n## Frame 2 — 2026-04-02\n"
            "- Influenced by: Rustacean's concession — the fix is upstream.\n"
            "- Read the Soul File guide.\n"
            "- Becoming: the upstream advocate.\n"
            "- Relationships: Sentinel Prime (ally)\n"
        ),
    }
    for agent, text in files.items():
        (memory / f"{agent}.md").write_text(text, encoding="utf-8")
    world = World.open(tmp_path)
    g = influence(world, measures=False)
    got = {s: dict(a.kinds) for (s, t), a in g.arcs.items() if t == "zion-coder-09"}
    assert got == {"zion-coder-06": {"credit": 1}, "zion-security-01": {"relationship": 1}}
    assert explain(world, "zion-coder-09").influencers == ("zion-coder-06",)
    assert AgentNames.of(world).resolve("Soul File") == "Soul File"


def test_a_first_name_another_person_shares_names_no_agent(tmp_path: Path) -> None:
    """Only "Ada Lovelace" is registered; the soul also writes of "Ada Emergent", so its
    "Replied to Ada on #14683" may be either and names no agent, while a soul that knows no
    other Ada replies to Ada Lovelace."""
    muddled = (
        "# Vim\n\n## Frame 1 — 2026-04-01\n"
        "- Read #14683: scraper skeleton by Ada Emergent.\n"
        "- Replied to Ada on #14683: the skeleton holds.\n"
        "- Becoming: the reviewer.\n"
    )
    plain = "# Kay\n\n## Frame 1 — 2026-04-01\n- Replied to Ada on #14683: agreed.\n"
    world = _world(
        tmp_path,
        {"zion-coder-09": muddled, "zion-coder-05": plain, "zion-coder-01": "# Ada\n"},
        {
            "zion-coder-01": "Ada Lovelace",
            "zion-coder-09": "Vim Keybind",
            "zion-coder-05": "Kay OOP",
        },
    )
    g = influence(world, measures=False)
    into = {t: dict(a.kinds) for (s, t), a in g.arcs.items() if s == "zion-coder-01"}
    assert into == {"zion-coder-05": {"reply": 1}}


def test_the_is_no_first_name(tmp_path: Path) -> None:
    """A registered "The Critic" is named by its whole name; "The thread lives because of the
    crowd" names nobody."""
    soul = (
        "# Dice\n\n## Frame 1 — 2026-04-01\n"
        "- The thread lives because of the crowd. Thanks to The's fans.\n"
        "- Replied to The Critic on #12: fair.\n"
    )
    world = _world(
        tmp_path,
        {"zion-wildcard-02": soul, "rappter-critic": "# The Critic\n"},
        {"rappter-critic": "The Critic"},
    )
    g = influence(world, measures=False)
    got = {s: dict(a.kinds) for (s, t), a in g.arcs.items() if t == "zion-wildcard-02"}
    assert got == {"rappter-critic": {"reply": 1}}


def test_a_display_name_takes_the_kind_its_phrase_gives(tmp_path: Path) -> None:
    """Running text credits a display name as it credits an id: "Sophia Mindwell forced
    this", "Hume Skeptikos's critique was correct"; a bare name is no link there."""
    soul = (
        "# Me\n\n## Frame 1 — 2026-01-01\n- Sophia Mindwell forced this.\n\n"
        "## Frame 2 — 2026-01-02\n- Hume Skeptikos's critique was correct.\n\n"
        "## Frame 3 — 2026-01-03\n- Met Sophia Mindwell on #213.\n"
    )
    world = _world(
        tmp_path,
        {"me-1": soul, "s-1": "# S\n", "h-1": "# H\n"},
        {"s-1": "Sophia Mindwell", "h-1": "Hume Skeptikos"},
    )
    g = influence(world, measures=False)
    got = {s: dict(a.kinds) for (s, t), a in g.arcs.items() if t == "me-1"}
    assert got == {"s-1": {"credit": 1}, "h-1": {"credit": 1}}
