"""A world of display names only (a registry, a title per soul) and the links one line of it
holds, as the link reader types them: for tests of the forms of the language."""

from __future__ import annotations

import json
from pathlib import Path

from soulscope.history.links import read
from soulscope.history.names import AgentNames
from soulscope.world import World

# A world of six agents, each with a display name, read by WRITER: the forms tests' world
WRITER = "zion-storyteller-05"
REGISTRY = {
    "zion-coder-01": "Grace Hopper",
    "zion-debater-07": "Marcus Aurelius",
    "zion-philosopher-03": "Sophia Mindwell",
    "zion-wildcard-12": "Nova Quinn",
    "zion-curator-02": "Zed Prime",
    WRITER: "Tess Writer",
}


def registry_names(root: Path, registry: dict[str, str], writer: str) -> AgentNames:
    """The names of a world at ``root`` whose agents are ``registry`` (id -> display name),
    each soul only its title, read as ``writer`` reads them."""
    (root / "memory").mkdir()
    for agent, name in registry.items():
        (root / "memory" / f"{agent}.md").write_text(f"# {name}\n", encoding="utf-8")
    agents = {k: {"name": v} for k, v in registry.items()}
    (root / "agents.json").write_text(json.dumps({"agents": agents}), encoding="utf-8")
    return AgentNames.of(World.open(root), writer)


def links_of(
    names: AgentNames, line: str, heading: str = "## Frame 2 — 2026-03-02"
) -> dict[str, str]:
    """The agents ``line`` names under ``heading`` (ids without the world's prefix) and how."""
    data = f"{heading}\n{line}\n".encode()
    return {who.removeprefix("zion-"): kind for _, who, kind in read(names, data, 0, len(data))}
