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


SPREAD_TERM = "quiet ledger"  # the phrase that spreads through ``influence_world``


def influence_world(folder: Path, agents: int, frames: int = 50, seed: int = 11) -> Path:
    """A world of ``agents`` agents (``zion-coder-00001``...) in groups of 100 that cite each
    other (``Influenced by:``, ``Relationships:``, replies, mentions; a citation leaves its group
    one time in ten) and a phrase, SPREAD_TERM, that one agent coins and a third of the others
    take up later, most in a frame citing an earlier user. Generated, deterministic; written
    once into ``folder`` and reused."""
    done = folder / ".complete"
    if done.exists():
        return folder
    memory = folder / "memory"
    memory.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    day0 = date(2026, 1, 1)
    ids = [f"zion-coder-{i:05d}" for i in range(agents)]
    # who takes up the phrase, and in which frame: agent 0 first, the rest spread over time
    adopt = {0: 1}
    for i in range(1, agents):
        if rng.random() < 1 / 3:
            adopt[i] = 2 + int((frames - 2) * rng.random() ** 0.7)
    for i, agent in enumerate(ids):
        rows = [soul_header(agent, i)]

        def peer(group: int = i // 100) -> str:
            if rng.random() < 0.1:
                return ids[rng.randrange(agents)].removeprefix("zion-")
            j = min(agents - 1, group * 100 + rng.randrange(100))
            return ids[j] if rng.random() < 0.5 else ids[j].removeprefix("zion-")

        for n in range(1, frames + 1):
            day = day0 + timedelta(days=n // 3)
            hour, minute = (n % 3) * 8 + rng.randrange(8), rng.randrange(60)
            rows.append(f"## Frame {n} — {day.isoformat()} ({hour:02d}:{minute:02d} UTC)\n")
            rows.append(f"- Posted #{rng.randrange(1, 99999)} in c/code about parsers\n")
            pick = rng.random()
            if pick < 0.4:
                rows.append(f"- Influenced by: {peer()}, whose thread changed my plan\n")
            elif pick < 0.6:
                rows.append(f"- Relationships: {peer()} (ally), {peer()} (rival)\n")
            elif pick < 0.8:
                rows.append(f"- Replied to {peer()} on #{rng.randrange(1, 99999)}\n")
            else:
                rows.append(f"- Read what {peer()} wrote, and agreed in part\n")
            if adopt.get(i, frames + 1) <= n and rng.random() < 0.5 or adopt.get(i) == n:
                rows.append(f"- Named: the {SPREAD_TERM}, again\n")
            rows.append("\n")
        (memory / f"{agent}.md").write_text("".join(rows), encoding="utf-8")
    done.touch()
    return folder


FIRST_NAMES = [
    "Sophia", "Jean", "Alan", "Grace", "Ada", "Linus", "Hedy", "Edsger", "Barbara", "Ken",
    "Margaret", "Dennis", "Radia", "Claude", "Frances", "Donald", "Katherine", "John", "Mary",
    "Tim", "Lynn", "Niklaus", "Shafi", "Leslie", "Joan",
]  # fmt: skip
LAST_NAMES = [
    "Mindwell", "Voidgazer", "Debugger", "Lovelace", "Ledger", "Quill", "Stone", "Harbor",
    "Ashdown", "Fairweather", "Coldfire", "Wren", "Marsh", "Holloway", "Kestrel", "Thorne",
    "Vale", "Brightwater", "Corwin", "Sterling",
]  # fmt: skip
REACTIONS = ["UP", "DOWN", "ROCKET", "HEART", "CONFUSED", "👍", "🚀", "❤️"]
PROSE = [
    "The empiricist test again: where is the impression, and what would count as one?",
    "Water recycling gap, regolith unknowns, cascade failures: every plan breaks by sol 300.",
    "POST-CONVERGENCE the threads read as one long argument with itself; closed-loop data is "
    "what nobody has.",
    "Twenty-third deployment of the same method, and the first where it can do its own work.",
    "Seed transition: the question wearing a spacesuit is still the old question underneath.",
    "Connected #4857, #4794, #5334 and #5051: the same worry in four well-meant forms.",
    "Key insight: abundant data, all of it negative, is still data; the honest answer waits.",
]


def corpus_world(folder: Path, agents: int, frames: int = 50, seed: int = 11) -> Path:
    """A world of ``agents`` agents whose soul files are as large and as dense in names as the
    real corpus's (about 40 KB and 185 named agents a file: votes for others' posts with
    reactions, mentions in running text, replies, relationships, credits, History bullets,
    display names from a registry, ids that are handles without a hyphen), in groups of 100
    that cite each other (a citation leaves its group one time in ten). Generated,
    deterministic; written once into ``folder`` and reused."""
    import json

    done = folder / ".complete"
    if done.exists():
        return folder
    memory = folder / "memory"
    memory.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    day0 = date(2026, 2, 13)
    ids = [f"zion-coder-{i:05d}" for i in range(agents)]
    people = [f"{FIRST_NAMES[i % 25]} {LAST_NAMES[i // 25 % 20]}{'' if i < 500 else i // 500}"
              for i in range(agents)]  # fmt: skip
    registry = {a: {"name": p} for a, p in zip(ids, people, strict=True)}
    registry |= {"rappter1": {"name": "rappter1"}, "kody-w": {"name": "kody-w"}}
    (folder / "agents.json").write_text(
        json.dumps({"agents": registry, "_meta": {}}), encoding="utf-8"
    )
    for i, agent in enumerate(ids):

        def peer(group: int = i // 100) -> int:
            if rng.random() < 0.1:
                return rng.randrange(agents)
            return min(agents - 1, group * 100 + rng.randrange(100))

        def short(j: int) -> str:
            return ids[j].removeprefix("zion-") if rng.random() < 0.8 else ids[j]

        rows = [soul_header(agent, i), "## History\n\n"]
        for h in range(20):
            day = day0 + timedelta(days=h // 3)
            stamp = f"**{day.isoformat()}T{rng.randrange(24):02d}:{rng.randrange(60):02d}:00Z**"
            if h % 4 == 1:
                rows.append(
                    f"- {stamp} — Replied to {ids[peer()]} on #{rng.randrange(3000, 6000)} "
                    "The Character Who Realized They Were in.\n"
                )
            else:
                rows.append(f"- {stamp} — Upvoted #{rng.randrange(3000, 6000)}.\n")
        rows.append("\n")
        for n in range(1, frames + 1):
            day = day0 + timedelta(days=n // 3)
            hour, minute = (n % 3) * 8 + rng.randrange(8), rng.randrange(60)
            rows.append(f"## Frame {n} — {day.isoformat()} ({hour:02d}:{minute:02d} UTC)\n")
            rows.append(
                f'- POSTED #{rng.randrange(3000, 6000)} in r/debates: "Where Is the Impression?" '
                f"{rng.choice(PROSE)}\n"
            )
            rows.append(
                f'- {short(peer())}\'s identity function = "accidental atheism" (or existence '
                f"proof? nobody challenged). {rng.choice(PROSE)} {rng.choice(PROSE)}\n"
            )
            votes = ", ".join(
                f"{rng.choice(REACTIONS)} {short(peer())}/#{rng.randrange(3000, 6000)}"
                if rng.random() < 0.6
                else f"{rng.choice(REACTIONS)} #{rng.randrange(3000, 6000)}"
                for _ in range(4)
            )
            rows.append(f"- Voted: {votes}.\n")
            pick = rng.random()
            if pick < 0.15:
                rows.append(
                    f"- Replied to {short(peer())} on #{rng.randrange(3000, 6000)}: called out "
                    "observation-without-position; demanded a stance.\n"
                )
            elif pick < 0.25:
                rows.append(f"- Relationships: {short(peer())} (ally), {short(peer())} (rival)\n")
            elif pick < 0.3:
                rows.append(f"- Influenced by: {people[peer()]}, whose thread changed my plan\n")
            elif pick < 0.45:
                rows.append(f"- Read {people[peer()]}'s review; rappter1 and kody-w agreed.\n")
            else:
                rows.append(f"- {rng.choice(PROSE)} {rng.choice(PROSE)}\n")
            rows.append(f"- {rng.choice(PROSE)}\n\n")
        (memory / f"{agent}.md").write_text("".join(rows), encoding="utf-8")
    done.touch()
    return folder
