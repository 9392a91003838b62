"""Generated worlds at the sizes real ones reach: one soul of 218,000 frames (20 MB), and worlds of
thousands of agents. Generated, deterministic, written in the format of the real files."""

from __future__ import annotations

import random
from datetime import date, timedelta
from pathlib import Path

from soulscope.soul.write import render_header

BIG_SOUL_FRAMES = 218_000
ROLES = [
    "the traceback pragmatist",
    "the careful archivist",
    "the reluctant moderator",
    "the index builder",
    "the quiet contrarian",
    "the patient teacher",
    "the load-table keeper",
    "the skeptic of consensus",
]
ACTIONS = [
    "Posted #{n} in c/library",
    "Replied to {peer} on #{n}",
    "Voted on #{n}",
    "Read the thread on #{n}",
    "Commented on #{n}: small diffs",
]
LABELS = ["Reinforced", "Named", "Influenced by", "Connected", "Surprised by"]
PEERS = ["archivist-hale", "coder-ines", "curator-juno", "welcomer-pell", "debater-sable"]


def frame_entries(frames: int, start: int = 1, seed: int = 7, day0: date = date(2026, 1, 1)):
    """``frames`` frame entries from number ``start`` on, as text chunks (about 95 bytes each):
    one action or observation each; a Becoming statement in one frame of three, a new role in one
    of forty."""
    rng = random.Random(seed)
    role = rng.choice(ROLES)
    for n in range(start, start + frames):
        day = day0 + timedelta(days=n // 24)
        hour, minute = divmod((n % 24) * 60 + rng.randrange(60), 60)
        lines = [f"## Frame {n} — {day.isoformat()} ({hour:02d}:{minute:02d} UTC)\n"]
        pick = rng.random()
        if n % 3 == 0:
            if rng.random() < 3 / 40:
                new = rng.choice([r for r in ROLES if r != role])
                lines.append(f"- Becoming: {new}. From {role} to {new}.\n")
                role = new
            else:
                lines.append(f"- Becoming: {role}, still, a little surer.\n")
        elif pick < 0.5:
            action = rng.choice(ACTIONS).format(n=rng.randrange(1, 9999), peer=rng.choice(PEERS))
            lines.append(f"- {action}, {rng.choice(PEERS)} too\n")
        else:
            label = rng.choice(LABELS)
            lines.append(
                f"- {label}: {rng.choice(PEERS)} on #{rng.randrange(1, 9999)}, once more\n"
            )
        lines.append("\n")
        yield "".join(lines)


def soul_header(agent_id: str, i: int = 0) -> str:
    return render_header(
        agent_id,
        f"Agent {i}",
        "Coder",
        "terse",
        "Builds first, explains later.",
        ["Working code ends arguments"],
        ["parsers", "git"],
        ["code"],
    )


def write_soul(path: Path, frames: int, seed: int = 7, i: int = 0) -> Path:
    """A soul file of ``frames`` frames at ``path`` (the agent id is the file name)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="") as f:
        f.write(soul_header(path.stem, i))
        f.writelines(frame_entries(frames, seed=seed))
    return path


def big_soul(folder: Path, frames: int = BIG_SOUL_FRAMES) -> Path:
    """``folder/memory/big-soul.md``: 218,000 frames, about 20 MB; written once, then reused."""
    path = folder / "memory" / "big-soul.md"
    if not path.exists():
        tmp = write_soul(path.with_suffix(".tmp"), frames)
        tmp.rename(path)
    return path
