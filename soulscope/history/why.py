"""Why an agent shifted: one identity statement explained as a dossier.

Everything a person would otherwise dig out by hand, each item citable as ``[agent · frame N]``:
the frame's own context, the previous statement, the threads it names (their posts from the
world's community store or the frame log, else their mentions across the world), what each
influencer was at the time, where the new role's words first appeared, the commit and its diff
for this frame only, and a narrative built from these facts alone.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from soulscope.history.git import Commit, HistoryError
from soulscope.history.mentions import (
    THREAD,
    WORD,
    MentionIndex,
    Place,
    index_for,
    place_of,
    trim,
)
from soulscope.history.timeline import Change, Timeline, live_world, relationships, timeline_for
from soulscope.soul.model import Frame, Soul, clean
from soulscope.soul.trajectory import Statement, arc, arc_label, role_of
from soulscope.world import World

# The frame's labels a reader asks about first, in the order they are shown.
CONTEXT_LABELS = ("Named", "Influenced by", "Surprised by", "Reinforced", "Relationships")
BODY_LIMIT = 400  # characters of a post's body kept in the dossier
MAX_MENTIONS = 12  # mentions of one thread across the world, the earliest first
MAX_PRECURSOR_WORDS = 4
_SHORT_ID = re.compile(r"(?<![\w-])([a-z]+-\d{1,4})(?![\w-])")
_STOP_ROLE_WORDS = frozenset(
    [
        "the",
        "and",
        "for",
        "who",
        "with",
        "from",
        "into",
        "more",
        "less",
        "than",
        "that",
        "this",
        "one",
        "agent",
        "someone",
        "new",
    ]
)


def cite(agent: str, frame: str) -> str:
    """The citation of one frame of one agent, as every dossier item and the narrative write it."""
    return f"[{agent} · frame {frame}]"


@dataclass(frozen=True, slots=True)
class RelationshipChange:
    agent: str  # the world's id where the name resolves to one
    before: str | None  # the nature of the relationship in the previous frame, None if absent
    after: str | None


@dataclass(frozen=True, slots=True)
class PostInfo:
    """A thread the frame names, as far as the world tells it."""

    id: int
    source: str  # "community" (the world's store), "frame log" (what the agent saw), "mentions"
    author: str | None = None
    title: str | None = None
    body: str | None = None  # trimmed to BODY_LIMIT
    frame: str | None = None  # the frame it was posted in
    date: str | None = None
    mentions: tuple[Place, ...] = ()  # other agents' frames naming the thread, time order
    frame_index: int | None = None  # that frame in the author's file, when the world has it

    @property
    def citation(self) -> str | None:
        return cite(self.author, self.frame) if self.author and self.frame else None


@dataclass(frozen=True, slots=True)
class InfluencerState:
    """What an influencer was at the time: its own frame nearest before the statement."""

    agent: str
    present: bool  # the world has this agent's soul file
    frame: str | None = None
    date: str | None = None
    frame_index: int | None = None
    line: int | None = None
    becoming: str | None = None  # its identity statement as of that frame

    @property
    def citation(self) -> str | None:
        return cite(self.agent, self.frame) if self.frame else None


@dataclass(frozen=True, slots=True)
class Precursor:
    """Where one of the new role's distinctive words first appeared."""

    word: str
    place: Place
    own: bool  # in this agent's memory (else the earliest in anyone else's)
    frames_before: int  # how many of that agent's frames before the statement hold the word
    commit: str | None = None  # the commit that first wrote it there, when history knows

    @property
    def citation(self) -> str:
        return cite(self.place.agent, self.place.frame)


@dataclass(frozen=True)
class Why:
    """The dossier of one identity statement."""

    agent_id: str
    statement: Statement
    previous: Statement | None
    frame: Frame | None
    context: dict[str, list[str]]  # CONTEXT_LABELS -> texts in the frame
    relationships: tuple[RelationshipChange, ...]  # gained, lost or changed vs the previous frame
    agents: tuple[str, ...]  # agent ids the frame names, influencers first
    threads: tuple[int, ...]  # post ids (#N) the frame names
    commit: Commit | None = None  # the commit that introduced the statement
    diff: str | None = None  # that commit's diff of this agent's soul file (this frame only)
    frame_log: dict[str, Any] | None = None  # frames/{N}/{agent}.json at that commit
    note: str | None = None  # why commit or log are missing, one sentence
    influencers: tuple[str, ...] = field(default=())  # agent ids named in "Influenced by"
    posts: tuple[PostInfo, ...] = ()
    influencer_states: tuple[InfluencerState, ...] = ()
    precursors: tuple[Precursor, ...] = ()
    bulk_note: str | None = None  # the commit brought more than this frame
    narrative: str = ""
    narrative_source: str = "offline"  # "offline", or the model that wrote it

    @property
    def frame_name(self) -> str:
        return self.statement.frame_label if self.frame else self.statement.heading

    @property
    def citation(self) -> str:
        return cite(self.agent_id, self.frame_name)

    def citations(self) -> dict[str, tuple[str, int | None]]:
        """Every citation the dossier holds -> (agent, frame index in that agent's file)."""
        out: dict[str, tuple[str, int | None]] = {
            self.citation: (self.agent_id, self.statement.frame_index)
        }
        if self.previous is not None:
            prev = self.previous
            out[
                cite(
                    self.agent_id,
                    prev.frame_label if prev.frame_index is not None else prev.heading,
                )
            ] = (
                self.agent_id,
                prev.frame_index,
            )
        for post in self.posts:
            if post.citation:
                out.setdefault(post.citation, (post.author or "", post.frame_index))
            for m in post.mentions:
                out.setdefault(cite(m.agent, m.frame), (m.agent, m.index))
        for state in self.influencer_states:
            if state.citation:
                out.setdefault(state.citation, (state.agent, state.frame_index))
        for p in self.precursors:
            out.setdefault(p.citation, (p.place.agent, p.place.index))
        return out


def pick_statement(
    soul: Soul,
    frame: str | None = None,
    index: int | None = None,
    label: str | None = None,
    statements: Sequence[Statement] | None = None,
) -> Statement:
    """A statement of the arc by frame (number, label or date) or by its 1-based position.

    A negative position counts from the end (-1 is the latest statement). ``label`` is the arc's
    label when it is not the default (Becoming, else Evolving position).
    """
    statements = statements if statements is not None else arc(soul, label)
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
    llm: Any = None,
    mentions: MentionIndex | None = None,
) -> Why:
    """The dossier of the statement: its frame, threads, influencers, build-up and commit.

    Works without a repository too; then ``note`` says why the commit is unknown. ``llm`` (a
    ``soulscope.chat.llm.LLM``) writes the narrative from the dossier; without one, or when it
    fails, the narrative is a deterministic summary of the same facts.
    """
    index_ = mentions or index_for(world, label)
    entry = index_.agents.get(agent_id) if soul is None else None
    if entry is None:
        entry = index_.put(agent_id, soul if soul is not None else world.read(agent_id))
    soul, statements = entry.soul, entry.statements
    st = pick_statement(soul, frame, index, label, statements)
    f = soul.frames[st.frame_index] if st.frame_index is not None else None
    names = AgentNames.of(world, agent_id)
    context = {name: f.get(name) for name in CONTEXT_LABELS} if f else {}
    influencers = names.find(" ".join(context.get("Influenced by", [])))
    named = names.find(f.source if f else st.text)
    rel_now = relationships(" ".join(context.get("Relationships", [])))
    for name in rel_now:
        resolved = names.resolve(name)
        if resolved not in named and resolved != agent_id:
            named.append(resolved)
    threads = tuple(dict.fromkeys(int(n) for n in THREAD.findall(f.source if f else st.text)))
    why = Why(
        agent_id=agent_id,
        statement=st,
        previous=statements[st.index - 1] if st.index > 0 else None,
        frame=f,
        context=context,
        relationships=_relationship_changes(soul, f, names),
        agents=tuple(dict.fromkeys([*influencers, *named])),
        threads=threads,
        influencers=tuple(influencers),
        influencer_states=tuple(_state_of(index_, a, st) for a in influencers),
        precursors=_precursors(index_, agent_id, statements, st),
    )
    why = _with_history(world, why, soul, f)
    posts, problems = _posts(world, index_, why)
    why = replace(why, posts=posts)
    if problems:  # records of the community store that were skipped: said, not hidden
        said = "; ".join(problems)
        why = replace(why, note=f"{why.note}; {said}" if why.note else said)
    return with_narrative(why, llm)


def _with_history(world: World, why: Why, soul: Soul, f: Frame | None) -> Why:
    """The commit that brought the statement, its diff (this frame only) and the frame log."""
    st = why.statement
    try:
        timeline = timeline_for(world)
        change = introduced_by(timeline, why.agent_id, st, f)
    except HistoryError as exc:
        return replace(why, note=str(exc))
    if change is None:
        return replace(why, note="no commit holds this statement yet (it is not committed)")
    log, log_note = _frame_log(timeline, live_world(world), why.agent_id, f, change.commit)
    brought = len(change.frames_added) + len(change.frames_changed)
    diff, bulk = timeline.change_diff(change), None
    if f is not None and brought > 1:
        diff = _frame_diff(timeline, change, f)
        bulk = (
            f"commit {change.commit.short} brought {brought} frames at once; "
            f"the diff shows {f.heading} only"
        )
    own = [p for p in why.precursors if p.own]
    if own:
        own = [_with_commit(timeline, why.agent_id, p) for p in own]
        why = replace(why, precursors=(*own, *(p for p in why.precursors if not p.own)))
    return replace(
        why, commit=change.commit, diff=diff, frame_log=log, note=log_note, bulk_note=bulk
    )


def _with_commit(timeline: Timeline, agent_id: str, p: Precursor) -> Precursor:
    """The commit that first wrote the word into the agent's memory (git's pickaxe)."""
    term = _as_written(p.place.text, p.word)
    try:
        found = timeline.first_mention(term, agent_id) if term else None
    except HistoryError:
        return p
    return replace(p, commit=found.commit.sha) if found else p


def _as_written(text: str, word: str) -> str | None:
    m = re.search(rf"(?<![\w-]){re.escape(word)}(?![\w-])", text, re.I)
    return m.group(0) if m else None


def _frame_diff(timeline: Timeline, change: Change, frame: Frame) -> str:
    """The commit's diff of one frame: its block before and after, as a unified diff."""
    key = " ".join(frame.heading.split())

    def block(blob: str | None) -> list[str]:
        found = next((b for b in timeline.version(blob).blocks if b.key == key), None)
        return found.text.splitlines(keepends=True) if found else []

    lines = difflib.unified_diff(
        block(change.old_blob),
        block(change.new_blob),
        f"a/{change.old_path or change.path}",
        f"b/{change.path}",
    )
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


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
    except RecursionError:
        return None, f"{rel} is nested too deep to read"
    except ValueError:
        return {"raw": data.decode("utf-8", "replace")}, f"{rel} is not valid JSON"
    return (value if isinstance(value, dict) else {"value": value}), None


def _relationship_changes(
    soul: Soul, frame: Frame | None, names: AgentNames
) -> tuple[RelationshipChange, ...]:
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
    return tuple(replace(r, agent=names.resolve(r.agent)) for r in out)


@dataclass(frozen=True)
class AgentNames:
    """The ways a world's agents are written (``zion-coder-09``, ``coder-09``) -> their ids.

    Souls drop the world's prefix ("coder-06" for "zion-coder-06"), also for agents whose file
    this folder lacks; a short name of the world's shape (an archetype and a number) gets the
    world's prefix.
    """

    forms: dict[str, str]  # written form -> id, the agent itself left out
    present: frozenset[str]  # ids with a soul file here
    prefix: str  # "zion-": shared by most ids, "" when none is
    archetypes: frozenset[str]  # "coder", "debater": the first word after the prefix

    @classmethod
    def of(cls, world: World, agent_id: str) -> AgentNames:
        present = frozenset(a.id for a in world.agents())
        ids = present | set(world.registry())
        prefix = _common_prefix(ids)
        forms: dict[str, str] = {}
        archetypes: set[str] = set()
        for i in sorted(ids):
            forms[i] = i
            short = i[len(prefix) :] if prefix and i.startswith(prefix) else i.partition("-")[2]
            if short and "-" in short:
                forms.setdefault(short, i)
            if prefix and i.startswith(prefix):
                m = re.fullmatch(r"([a-z]+)-\d{1,4}", short)
                if m:
                    archetypes.add(m.group(1))
        forms = {form: i for form, i in forms.items() if i != agent_id}
        return cls(forms, present, prefix, frozenset(archetypes))

    def resolve(self, name: str) -> str:
        name = name.strip()
        if name in self.forms:
            return self.forms[name]
        if _SHORT_ID.fullmatch(name) and self._id_shaped(name):
            return self.prefix + name
        return name

    def _id_shaped(self, name: str) -> bool:
        """A short name that reads as one of this world's ids: a known archetype and a number,
        or any word and two digits ("archivist-08") where the world's ids look like that."""
        if not self.prefix:
            return False
        word, _, number = name.partition("-")
        return word in self.archetypes or (len(word) > 3 and len(number) == 2)

    def find(self, text: str) -> list[str]:
        """The agents a text names, resolved, in order of first mention."""
        if not text:
            return []
        hits: list[tuple[int, str]] = []
        if self.forms:
            pattern = re.compile(
                r"(?<![\w-])("
                + "|".join(re.escape(k) for k in sorted(self.forms, key=len, reverse=True))
                + r")(?![\w-])"
            )
            hits += [(m.start(), self.forms[m.group(1)]) for m in pattern.finditer(text)]
        own = set(self.forms.values())
        for m in _SHORT_ID.finditer(text):
            name = m.group(1)
            if name not in self.forms and self._id_shaped(name):
                resolved = self.prefix + name
                if resolved not in own:
                    hits.append((m.start(), resolved))
        return list(dict.fromkeys(i for _, i in sorted(hits)))


def _common_prefix(ids: set[str]) -> str:
    """The first word and hyphen most ids share ("zion-"), or "" when under half do."""
    counts: dict[str, int] = {}
    for i in ids:
        head, sep, rest = i.partition("-")
        if sep and "-" in rest:
            counts[head + "-"] = counts.get(head + "-", 0) + 1
    if not counts:
        return ""
    best = max(counts, key=counts.get)
    return best if counts[best] * 2 > len(ids) else ""


def _state_of(index: MentionIndex, agent: str, st: Statement) -> InfluencerState:
    """The influencer's own frame nearest before the statement's date (or number)."""
    entry = index.agents.get(agent)
    if entry is None:
        return InfluencerState(agent, present=False)
    soul = entry.soul
    best = None
    for f in soul.frames:
        if _frame_before(f, st) and (best is None or _when(f) >= _when(best)):
            best = f
    if best is None:
        return InfluencerState(agent, present=True)
    held = [
        s for s in entry.statements if s.frame_index is not None and s.frame_index <= best.index
    ]
    latest = held[-1] if held else None
    return InfluencerState(
        agent=agent,
        present=True,
        frame=best.label,
        date=best.date,
        frame_index=best.index,
        line=latest.line if latest else best.line,
        becoming=latest.text if latest else None,
    )


def _when(f: Frame) -> tuple:
    return (f.date or "", f.time or "", f.number if f.number is not None else -1, f.index)


def _precursors(
    index: MentionIndex, agent_id: str, statements: Sequence[Statement], st: Statement
) -> tuple[Precursor, ...]:
    """Where the new role's distinctive words first appeared, here and in others' memory."""
    if st.frame_index is None:
        return ()
    earlier = {w for s in statements[: st.index] for w in _terms(s.role)}
    words = [w for w in _terms(role_of(st.text)) if w not in earlier][:MAX_PRECURSOR_WORDS]
    entry = index.agents.get(agent_id)
    if entry is None:
        return ()
    soul = entry.soul
    out: list[Precursor] = []
    for word in words:
        own = entry.words.get(word, ())
        if own:
            first = own[0]
            before = sum(1 for i in own if i < st.frame_index)
            out.append(Precursor(word, _place(agent_id, soul, first, word), True, before))
        other = _first_elsewhere(index, agent_id, word)
        if other is not None:
            a = index.agents[other.agent]
            count = sum(1 for i in a.words.get(word, ()) if _frame_before(a.soul.frames[i], st))
            out.append(Precursor(word, other, False, count))
    return tuple(out)


def _terms(role: str) -> list[str]:
    """A role's words as the index holds them: hyphenated compounds whole, then their parts."""
    out: list[str] = []
    for token in WORD.findall(role.lower()):
        for w in (token, *token.split("-")) if "-" in token else (token,):
            if len(w) > 3 and w not in _STOP_ROLE_WORDS and w not in out:
                out.append(w)
    return out


def _frame_before(f: Frame, st: Statement) -> bool:
    """Whether another agent's frame came before the statement: by date, then frame number."""
    numbered = st.number is not None and f.number is not None
    if st.date and f.date:
        return f.date < st.date or (f.date == st.date and numbered and f.number < st.number)
    return numbered and f.number < st.number


def _first_elsewhere(index: MentionIndex, agent_id: str, word: str) -> Place | None:
    best: Place | None = None
    for other, entry in index.agents.items():
        if other == agent_id:
            continue
        found = entry.words.get(word)
        if not found:
            continue
        place = _place(other, entry.soul, found[0], word)
        if best is None or place.order < best.order:
            best = place
    return best


def _place(agent: str, soul: Soul, frame_index: int, word: str) -> Place:
    f = soul.frames[frame_index]
    for offset, raw in enumerate(f.source.splitlines()):
        if word in raw.lower():
            return place_of(agent, soul, frame_index, f.line + offset, raw)
    return place_of(agent, soul, frame_index, f.line, f.heading)


def _posts(
    world: World, index: MentionIndex, why: Why
) -> tuple[tuple[PostInfo, ...], tuple[str, ...]]:
    """Each thread the frame names: the community store's post, what the frame log showed the
    agent, or (worlds without a store) the thread's mentions across the world; and the store's
    problems (bad records skipped)."""
    if not why.threads:
        return (), ()
    from soulscope.sim.community import Community

    community = Community.load(live_world(world).root)
    store = community.by_id
    seen = _seen_in_log(why.frame_log)
    out: list[PostInfo] = []
    for n in why.threads:
        mentions = tuple(m for m in index.mentions(n) if m.agent != why.agent_id)[:MAX_MENTIONS]
        post = store.get(n)
        if post is not None:
            author = index.agents.get(post.author)
            found = author.soul.find_frames(str(post.frame)) if author else []
            out.append(
                PostInfo(
                    n,
                    "community",
                    post.author,
                    post.title,
                    trim(post.body, BODY_LIMIT),
                    str(post.frame),
                    post.date,
                    mentions,
                    found[0].index if found else None,
                )
            )
        elif n in seen:
            item = seen[n]
            out.append(
                PostInfo(
                    n,
                    "frame log",
                    item.get("author"),
                    item.get("title"),
                    trim(str(item.get("body") or ""), BODY_LIMIT),
                    None,
                    None,
                    mentions,
                )
            )
        else:
            out.append(PostInfo(n, "mentions", mentions=mentions))
    return tuple(out), community.problems


def _seen_in_log(log: dict[str, Any] | None) -> dict[int, dict[str, Any]]:
    context = (log or {}).get("context")
    if not isinstance(context, dict):
        return {}
    items = [*(context.get("posts") or []), *(context.get("related") or [])]
    return {i["post"]: i for i in items if isinstance(i, dict) and isinstance(i.get("post"), int)}


def with_narrative(why: Why, llm: Any = None) -> Why:
    """The dossier with its narrative: the LLM's when one is given and answers, else offline."""
    from soulscope.history.narrative import narrate

    text, source, note = narrate(why, llm)
    if note:
        why = replace(why, note=f"{why.note}; {note}" if why.note else note)
    return replace(why, narrative=text, narrative_source=source)
