"""Why an agent shifted: one Becoming statement explained by its frame, its neighbours and its commit."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from soulscope.history.git import Commit, HistoryError
from soulscope.history.timeline import Change, Timeline, live_world, relationships, timeline_for
from soulscope.soul.model import Frame, Soul, clean
from soulscope.soul.trajectory import Statement, arc, arc_label
from soulscope.world import World

_THREAD = re.compile(r"(?<![\w&])#(\d{1,9})\b")
# The frame's labels a reader asks about first, in the order they are shown.
CONTEXT_LABELS = ("Named", "Influenced by", "Surprised by", "Reinforced", "Relationships")


@dataclass(frozen=True, slots=True)
class RelationshipChange:
    agent: str
    before: str | None  # the nature of the relationship in the previous frame, None if absent
    after: str | None


@dataclass(frozen=True)
class Why:
    """The explanation of one identity statement."""

    agent_id: str
    statement: Statement
    previous: Statement | None
    frame: Frame | None
    context: dict[str, list[str]]  # CONTEXT_LABELS -> texts in the frame
    relationships: tuple[RelationshipChange, ...]  # gained, lost or changed vs the previous frame
    agents: tuple[str, ...]  # agent ids the frame names, influencers first
    threads: tuple[int, ...]  # post ids (#N) the frame names
    commit: Commit | None = None  # the commit that introduced the statement
    diff: str | None = None  # that commit's diff of this agent's soul file
    frame_log: dict[str, Any] | None = None  # frames/{N}/{agent}.json at that commit
    note: str | None = None  # why commit or log are missing, one sentence
    influencers: tuple[str, ...] = field(default=())  # agent ids named in "Influenced by"


def pick_statement(
    soul: Soul, frame: str | None = None, index: int | None = None, label: str | None = None
) -> Statement:
    """A statement of the arc by frame (number, label or date) or by its 1-based position.

    A negative position counts from the end (-1 is the latest statement). ``label`` is the arc's
    label when it is not the default (Becoming, else Evolving position).
    """
    statements = arc(soul, label)
    label = arc_label(soul, label)
    if not statements:
        raise HistoryError(f"{soul.agent_id} has no {label} statements")
    if index is not None:
        if index == 0 or abs(index) > len(statements):
            raise HistoryError(
                f"there is no statement {index}: {soul.agent_id} has {len(statements)} "
                f"{label} statements (1 to {len(statements)})"
            )
        return statements[index - 1 if index > 0 else index]
    if frame is None:
        return statements[-1]
    spec = frame.strip()
    frames = {f.index for f in soul.find_frames(spec)} or {
        f.index for f in soul.frames if f.date == spec
    }
    found = [s for s in statements if s.frame_index in frames]
    if not found:
        raise HistoryError(f"frame {spec} of {soul.agent_id} has no {label} statement")
    return found[-1]


def explain(
    world: World,
    agent_id: str,
    frame: str | None = None,
    index: int | None = None,
    soul: Soul | None = None,
    label: str | None = None,
) -> Why:
    """Why the agent holds a statement: its frame's context and the commit that brought it.

    Works without a repository too; then ``note`` says why the commit is unknown.
    """
    soul = soul if soul is not None else world.read(agent_id)
    st = pick_statement(soul, frame, index, label)
    f = soul.frames[st.frame_index] if st.frame_index is not None else None
    known = _known_agents(world, agent_id)
    context = {label: f.get(label) for label in CONTEXT_LABELS} if f else {}
    influencers = _agents_in(" ".join(context.get("Influenced by", [])), known)
    named = _agents_in(f.source if f else st.text, known)
    rel_now = relationships(" ".join(context.get("Relationships", [])))
    for name in rel_now:
        resolved = _resolve(name, known)
        if resolved not in named and resolved != agent_id:
            named.append(resolved)
    agents = tuple(dict.fromkeys([*influencers, *named]))
    why = Why(
        agent_id=agent_id,
        statement=st,
        previous=arc(soul, label)[st.index - 1] if st.index > 0 else None,
        frame=f,
        context=context,
        relationships=_relationship_changes(soul, f),
        agents=agents,
        threads=tuple(dict.fromkeys(int(n) for n in _THREAD.findall(f.source if f else st.text))),
        influencers=tuple(influencers),
    )
    try:
        timeline = timeline_for(world)
        change = introduced_by(timeline, agent_id, st, f)
    except HistoryError as exc:
        return _replace(why, note=str(exc))
    if change is None:
        return _replace(why, note="no commit holds this statement yet (it is not committed)")
    log, log_note = _frame_log(timeline, live_world(world), agent_id, f, change.commit)
    return _replace(
        why,
        commit=change.commit,
        diff=timeline.change_diff(change),
        frame_log=log,
        note=log_note,
    )


def introduced_by(
    timeline: Timeline, agent_id: str, st: Statement, frame: Frame | None
) -> Change | None:
    """The oldest commit whose version of the file holds the statement in the same frame."""
    key = " ".join(frame.heading.split()) if frame else None
    for change in reversed(timeline.history(agent_id)):
        version = timeline.version(change.new_blob)
        for block in version.blocks:
            if key is not None and block.key != key:
                continue
            if _holds(block.text, st.text):
                return change
    return None


def _holds(source: str, text: str) -> bool:
    # Multi-line statements are joined by the parser; compare with whitespace folded.
    return " ".join(text.split()) in " ".join(clean(source).split())


def _frame_log(
    timeline: Timeline, world: World, agent_id: str, frame: Frame | None, commit: Commit
) -> tuple[dict[str, Any] | None, str | None]:
    if frame is None or frame.number is None:
        return None, None
    rel = f"{timeline.git.relpath(world.root)}/frames/{frame.number}/{agent_id}.json"
    rel = rel.removeprefix("./")
    blob = timeline.git.blob_id(commit.sha, rel)
    if blob is None:
        return None, None
    data = timeline.git.blob(blob)
    try:
        value = json.loads(data)
    except ValueError:
        return {"raw": data.decode("utf-8", "replace")}, f"{rel} is not valid JSON"
    return (value if isinstance(value, dict) else {"value": value}), None


def _relationship_changes(soul: Soul, frame: Frame | None) -> tuple[RelationshipChange, ...]:
    """Relationships gained, lost or changed against the previous frame that lists them."""
    if frame is None or not frame.get("Relationships"):
        return ()
    now = relationships(" ".join(frame.get("Relationships")))
    before: dict[str, str] = {}
    for prev in reversed(soul.frames[: frame.index]):
        if prev.get("Relationships"):
            before = relationships(" ".join(prev.get("Relationships")))
            break
    out = [RelationshipChange(a, before.get(a), n) for a, n in now.items() if before.get(a) != n]
    out += [RelationshipChange(a, n, None) for a, n in before.items() if a not in now]
    return tuple(out)


def _known_agents(world: World, agent_id: str) -> dict[str, str]:
    """Every way the world's agents are written (``zion-coder-09``, ``coder-09``) -> their id."""
    ids = {a.id for a in world.agents()} | set(world.registry())
    forms: dict[str, str] = {}
    for i in ids:
        forms[i] = i
        _, _, short = i.partition("-")
        # Souls often drop the world's prefix: "coder-09" for "zion-coder-09".
        if short and "-" in short:
            forms.setdefault(short, i)
    return {form: i for form, i in forms.items() if i != agent_id}


def _resolve(name: str, known: dict[str, str]) -> str:
    return known.get(name, name)


def _agents_in(text: str, known: dict[str, str]) -> list[str]:
    if not known or not text:
        return []
    pattern = re.compile(
        r"(?<![\w-])("
        + "|".join(re.escape(k) for k in sorted(known, key=len, reverse=True))
        + r")(?![\w-])"
    )
    return list(dict.fromkeys(known[m.group(1)] for m in pattern.finditer(text)))


def _replace(why: Why, **changes: Any) -> Why:
    from dataclasses import replace

    return replace(why, **changes)
