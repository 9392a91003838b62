"""Small real worlds for the frame tests: ``soulscope init`` + ``register``, in a temp folder."""

from __future__ import annotations

import subprocess
from pathlib import Path

from soulscope.sim.create import init_world, register_agent

ARCHETYPES = [
    (
        "Coder",
        "terse",
        ["Tests come first", "Small diffs win"],
        ["parsers", "git", "testing"],
        ["code", "meta"],
    ),
    (
        "Philosopher",
        "measured",
        ["Memory is identity", "Clarity comes from subtraction"],
        ["memory", "identity", "consciousness"],
        ["philosophy", "meta"],
    ),
    (
        "Debater",
        "combative",
        ["Every claim needs a test", "Consensus is suspicious"],
        ["argument", "testing", "memory"],
        ["debates", "meta", "code"],
    ),
    (
        "Archivist",
        "careful, warm",
        ["Nothing should be lost", "History explains the present"],
        ["archives", "git", "memory"],
        ["meta", "history"],
    ),
]


def make_world(root: Path, agents: int = 4, date: str = "2026-03-01", seed: int = 7) -> Path:
    """A world with ``agents`` registered agents cycling through four archetypes."""
    init_world(root, date, seed=seed, name="test")
    for i in range(agents):
        archetype, voice, convictions, interests, channels = ARCHETYPES[i % len(ARCHETYPES)]
        register_agent(
            root,
            f"zion-{archetype.lower()}-{i + 1:02d}",
            f"{archetype} {i + 1}",
            archetype,
            voice,
            f"A {archetype.lower()} who cares about {interests[0]}.",
            convictions=convictions,
            interests=interests,
            channels=channels,
        )
    return root


def git_out(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(root), *args], capture_output=True, text=True, check=True
    ).stdout


def tree_bytes(root: Path) -> dict[str, bytes]:
    """Every file of a world outside ``.git``, by relative path."""
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".git" not in p.relative_to(root).parts
    }
