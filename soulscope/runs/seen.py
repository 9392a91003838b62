"""What the brain saw: the context a frame's brain was given, as its frame log keeps it.

A frame that soulscope advanced leaves ``frames/N/AGENT.json`` beside the soul files: the brain,
the soul in brief, the community items the agent read, and with the LLM brain the model, the exact
messages (the soul excerpt and the items as the prompt wrote them), the answer and the tokens the
endpoint counted. A frame written elsewhere has no log: what it was given is not known, and is
said so, never guessed.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from soulscope.world import World

FRAMES_DIR = "frames"  # (sim.frame's; the core of reading does not import the simulator)


def log_path(world: World, agent: str, frame: int) -> Path:
    return world.root / FRAMES_DIR / str(frame) / f"{agent}.json"


def seen(world: World, agent: str, frame: int | None) -> dict[str, Any]:
    """What ``agent``'s brain was given in ``frame``: ``known`` False (with ``why``) where no log
    says it."""
    out: dict[str, Any] = {"agent": agent, "frame": frame}
    if frame is None:
        return {**out, "known": False, "why": "this frame has no number, so no frame log names it"}
    path = log_path(world, agent, frame)
    try:
        log = json.loads(path.read_bytes())
    except FileNotFoundError:
        why = (
            f"no {FRAMES_DIR}/{frame}/{agent}.json: the frame was written elsewhere, so what "
            "the agent was given is not known"
        )
        return {**out, "known": False, "why": why}
    except (OSError, ValueError, RecursionError) as exc:
        return {**out, "known": False, "why": f"{path.name} cannot be read ({exc})"}
    if not isinstance(log, dict):
        return {**out, "known": False, "why": f"{path.name} is not a frame log"}
    context = log.get("context")
    if isinstance(context, list):  # a log of an older LLM frame: the messages alone
        context = {"messages": context}
    context = context if isinstance(context, dict) else {}
    return {
        **out,
        "known": True,
        "log": f"{FRAMES_DIR}/{frame}/{agent}.json",
        "brain": log.get("brain"),
        "model": context.get("model"),
        "soul": context.get("soul"),
        "community": {k: context.get(k) or [] for k in ("posts", "replies", "related")},
        "messages": context.get("messages"),
        "answer": log.get("raw"),
        "tokens": context.get("tokens"),
        "error": log.get("error"),
    }
