"""Creating worlds and agents: ``soulscope init`` and ``soulscope register``."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from soulscope.atomic import write_atomic
from soulscope.sim import repo
from soulscope.sim.clock import Clock, check_date, read_clock, write_clock
from soulscope.sim.community import channel_name, paths
from soulscope.sim.jsonfile import read_json
from soulscope.sim.lock import STATE_DIR, WorldLock
from soulscope.soul.write import one_line, render_header
from soulscope.world import WorldError, check_id

REGISTRY_FILE = "agents.json"


def registry_bytes(agents: dict[str, dict]) -> bytes:
    """``agents.json`` in the shape of the real registry: ``{"agents": {...}, "_meta": {...}}``."""
    data = {"agents": agents, "_meta": {"count": len(agents)}}
    return (json.dumps(data, ensure_ascii=False, indent=2) + "\n").encode("utf-8")


def read_registry(root: Path) -> dict[str, dict]:
    """``agents.json`` as ``{id: fields}``; a file that is no registry is refused in one sentence."""
    path = root / REGISTRY_FILE
    data = read_json(path)
    if data is None:
        return {}
    agents = data.get("agents", {}) if isinstance(data, dict) else None
    if not isinstance(agents, dict) or not all(isinstance(v, dict) for v in agents.values()):
        raise WorldError(f"{path} needs an 'agents' object holding one object per agent")
    return agents


def init_world(root: Path, date: str, seed: int = 0, name: str | None = None) -> Clock:
    """Create an empty world in a new (or empty) folder, with its own git repository."""
    check_date(date)
    if root.exists() and (not root.is_dir() or any(root.iterdir())):
        what = "a world" if (root / "world.json").exists() else "not empty"
        raise WorldError(f"{root} is {what}; choose a new folder")
    root.mkdir(parents=True, exist_ok=True)
    clock = Clock(name or root.resolve().name, 0, date, seed)
    (root / "memory").mkdir()
    (root / "frames").mkdir()
    for path in paths(root).values():
        write_atomic(path, b"")
    write_atomic(root / REGISTRY_FILE, registry_bytes({}))
    write_clock(root, clock)
    write_atomic(root / ".gitignore", f"{STATE_DIR}/\n".encode())
    # An empty folder is invisible to git; the keep files hold the layout in the first commit.
    for folder in ("memory", "frames"):
        write_atomic(root / folder / ".gitkeep", b"")
    repo.init(root, date, f"world: {clock.name}")
    return clock


def register_agent(
    root: Path,
    agent_id: str,
    name: str,
    archetype: str,
    voice: str,
    personality: str,
    convictions: Sequence[str] = (),
    interests: Sequence[str] = (),
    channels: Sequence[str] = (),
) -> Path:
    """Write a new agent's identity header and registry entry, and commit them.

    The id is validated; an agent that already has a soul file or a registry entry is refused,
    never overwritten.
    """
    check_id(agent_id)
    for label, value in (("name", name), ("archetype", archetype), ("voice", voice)):
        if not one_line(value):
            raise WorldError(f"an agent needs a {label}")
    top = repo.toplevel(root)
    with WorldLock(root):
        soul_path = root / "memory" / f"{agent_id}.md"
        agents = read_registry(root)
        if soul_path.exists() or agent_id in agents:
            raise WorldError(
                f"agent '{agent_id}' already exists in {root}; it is never overwritten"
            )
        clock = read_clock(root)
        chans = [f"c/{channel_name(c)}" for c in channels if channel_name(c)]
        header = render_header(
            agent_id, name, archetype, voice, personality, convictions, interests, chans
        )
        agents[agent_id] = {
            "name": one_line(name, 200),
            "archetype": one_line(archetype, 200),
            "voice": one_line(voice, 200),
            "status": "active",
            "joined": clock.date,
            "subscribed_channels": [channel_name(c) for c in chans],
        }
        write_atomic(soul_path, header.encode("utf-8"))
        write_atomic(root / REGISTRY_FILE, registry_bytes(agents))
        repo.commit(top, [soul_path, root / REGISTRY_FILE], f"register {agent_id}", clock.date)
    return soul_path
