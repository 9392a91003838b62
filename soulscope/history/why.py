"""Why an agent shifted: one identity statement explained as a dossier.

Everything a person would otherwise dig out by hand, each item citable as ``[agent · frame N]``:
the frame's own context, the previous statement, the threads it names (their posts from the
world's community store or the frame log, else their mentions across the world), what each
influencer was at the time, where the new role's words first appeared, the commit and its diff
for this frame only, and a narrative built from these facts alone.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any, cast

from soulscope.history.dossier import (
    CONTEXT_LABELS,
    InfluencerState,
    PostInfo,
    Precursor,
    RelationshipChange,
    Why,
    unknown_credit,
)
from soulscope.history.git import Commit, HistoryError
from soulscope.history.links import Link, line_kind, read
from soulscope.history.mentions import (
    WORD,
    MentionIndex,
    Place,
    index_for,
    place_of,
    thread_ids,
    trim,
)
from soulscope.history.names import AgentNames
from soulscope.history.timeline import Change, Timeline, live_world, relationships, timeline_for
from soulscope.soul import when
from soulscope.soul.model import Frame, Soul, clean, frame_name
from soulscope.soul.terms import Term
from soulscope.soul.trajectory import (
    Statement,
    arc,
    arc_label,
    names_role,
    role_key,
    role_of,
    same_role,
)
from soulscope.soul.when import Moment
from soulscope.world import World

BODY_LIMIT = 400  # characters of a post's body kept in the dossier
MAX_MENTIONS = 12  # mentions of one thread across the world, the closest before it first
MAX_INFLUENCER_LINES = 3  # an influencer's lines on the frame's threads, the latest first
MAX_PRECURSOR_WORDS = 4
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
    frames = _frames_of(soul, spec)
    found = _of_frames(statements, frames)
    if not found:
        raise HistoryError(f"frame {spec} of {soul.agent_id} has no {label} statement")
    return found[-1]


def _frames_of(soul: Soul, spec: str) -> set[int]:
    """The frames ``--frame`` names: by number or label, and a date's every frame, numbered
    or not ("## Frame 488 — 2026-04-14" as well as "## Frame 2026-04-14 (09:00 UTC)")."""
    return {f.index for f in soul.find_frames(spec)} | {
        f.index for f in soul.frames if f.date == spec
    }


def _of_frames(statements: Sequence[Statement], frames: set[int]) -> list[Statement]:
    return [s for s in statements if s.frame_index in frames]


def picked_note(soul: Soul, statements: Sequence[Statement], frame: str | None) -> str | None:
    """What to say when ``--frame`` names several statements (a date of many frames, a frame
    that states twice): how many, which one was taken, and how to pick another."""
    if frame is None:
        return None
    spec = frame.strip()
    frames = _frames_of(soul, spec)
    found = _of_frames(statements, frames)
    if len(found) < 2:
        return None
    first, last = found[0], found[-1]
    return (
        f"frame {spec} names {len(found)} statements (statements {first.index + 1} to "
        f"{last.index + 1}, lines {first.line} to {last.line}); the latest, line {last.line}, "
        f"was taken: pick another with --shift N"
    )


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
    ``soulscope.llm.LLM``) writes the narrative from the dossier; without one, or when it
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
    moment = entry.moments[st.frame_index] if st.frame_index is not None else None
    links = frame_links(names, agent_id, st, f, moment, soul)
    influencers = list(dict.fromkeys(link.source for link in links if link.kind == "credit"))
    named = [link.source for link in links]
    for name in relationships("; ".join(relationship_items(f) if f else [])):
        resolved = names.resolve(name, listed=True)
        if resolved != agent_id and _is_agent(names, resolved):
            named.append(resolved)
    threads = tuple(thread_ids(_written_by(f.source, moment) if f else _unit_text(soul, st)))
    why = Why(
        agent_id=agent_id,
        statement=st,
        previous=_previous(statements, entry.moments, st),
        came_from=_came_from(statements, st),
        frame=f,
        context=context,
        relationships=_relationship_changes(soul, f, names),
        agents=tuple(dict.fromkeys([*influencers, *named])),
        threads=threads,
        influencers=tuple(influencers),
        links=links,
        influencer_states=tuple(_state_of(index_, a, moment, threads) for a in influencers),
        precursors=_precursors(index_, agent_id, statements, st, moment),
        run_up=_run_up(names, agent_id, soul, statements, entry.moments, st),
        answered=_answered(
            index_,
            AgentNames.of(world),
            agent_id,
            entry.moments,
            _role_start(statements, entry.moments, st),
            st,
        ),
        moment=moment,
    )
    why = _with_history(world, why, soul, f, (statements, entry.moments))
    picked = picked_note(soul, statements, frame) if index is None else None
    if picked:
        why = replace(why, note=f"{picked}; {why.note}" if why.note else picked)
    posts, problems = _posts(world, index_, why)
    why = replace(why, posts=posts)
    if problems:  # records of the community store that were skipped: said, not hidden
        said = "; ".join(problems)
        why = replace(why, note=f"{why.note}; {said}" if why.note else said)
    why = replace(why, thin=_thin(why, _own_earlier(index_, why)))
    return with_narrative(why, llm)


# What the agent's own earlier frames say of another that can carry an idea to it.
_EXCHANGES = frozenset(["credit", "reply", "comment"])
MAX_RUN_UP = 12


def _run_up(
    names: AgentNames,
    agent_id: str,
    soul: Soul,
    statements: Sequence[Statement],
    moments: Sequence[Moment],
    st: Statement,
) -> tuple[tuple[int, Link], ...]:
    """The credits, replies and comments of the agent's own frames while it held the role
    before the statement: after the frame where that role was first stated (from the file's
    first frame where it states none before) up to the statement's frame, the latest
    ``MAX_RUN_UP``;
    not the credits of an earlier statement itself ("Becoming: ..., after X's map").
    A cause a frame before the shift states ("Learned from X", "Replied to X") is found
    here, where the shift's frame alone does not name it."""
    start = _role_start(statements, moments, st)
    if start is None or st.frame_index is None:
        return ()
    out: list[tuple[int, Link]] = []
    # after the frame that first stated the role before: what that frame names is its cause
    here = moments[st.frame_index]
    since = moments[start] if start >= 0 else None
    for i in range(start + 1, st.frame_index):
        if not _before(moments[i], here):
            continue  # a frame the headings place after it (committed before it, or not)
        if since is not None and _before(moments[i], since):
            continue  # below the role's first statement in the file, before it by the headings
        fr = soul.frames[i]
        for link in frame_links(names, agent_id, st, fr, moments[i]):
            # a credit in an earlier statement is that statement's cause, not this one's
            if link.kind in _EXCHANGES and not _is_statement(link.text.encode()):
                out.append((i, link))
    return tuple(out[-MAX_RUN_UP:])


def _role_start(
    statements: Sequence[Statement], moments: Sequence[Moment], st: Statement
) -> int | None:
    """The frame (index in the file) that first stated the role held before the statement,
    -1 where none was stated before it; None where the statement or that role stands outside
    frames."""
    if st.frame_index is None:
        return None
    prev = _previous(statements, moments, st)
    if prev is not None and prev.frame_index is None:
        return None
    start = -1
    if prev is not None:
        start = cast(int, prev.frame_index)
        held = [s for s in statements if s.frame_index is not None and s.index < prev.index]
        for s in reversed(held):
            if _first_sentence(s.text) != _first_sentence(prev.text):
                break
            start = cast(int, s.frame_index)
    return start


def _answered(
    index: MentionIndex,
    names: AgentNames,
    agent_id: str,
    moments: Sequence[Moment],
    start: int | None,
    st: Statement,
) -> tuple[tuple[int, Link], ...]:
    """What the others' memories say they answered or commented on of the agent while it
    held the role before the statement (``_role_start``): their replies and comments, each
    (frame index in the other's file, the link, its ``target`` the other), oldest first.
    Only frames the headings place before the statement, and not before that role began;
    found by the words of the agent's names in each file's index, read only there."""
    if start is None or st.frame_index is None:
        return ()
    here = moments[st.frame_index]
    since = moments[start] if start >= 0 else None
    words = _name_words(names, agent_id)
    found: list[tuple[int, Link]] = []
    for other, entry in index.agents.items():
        if other == agent_id:
            continue
        frames = sorted({i for w in words for i in entry.words.get(w, ())})
        for i in frames:
            m = entry.moments[i]
            if not _before(m, here) or (since is not None and _before(m, since)):
                continue
            fr = entry.soul.frames[i]
            data = fr.source.encode("utf-8", "surrogateescape")
            label = frame_name(fr.number, fr.suffix, fr.date, fr.time)
            for start_, stop in _lines_naming(data, words):
                for at, _, kind in read(names, data, start_, stop, other, agent_id.__eq__):
                    if kind not in ("reply", "comment"):
                        continue
                    raw = data[at:stop].decode("utf-8", "surrogateescape")
                    line = fr.line + data.count(b"\n", 0, at)
                    link = Link(agent_id, other, kind, fr.number, label, line, trim(raw), m)
                    found.append((i, link))
    found.sort(key=lambda il: (il[1].moment.key, il[1].target, il[1].line))
    return tuple(found[-MAX_RUN_UP:])


def _lines_naming(data: bytes, words: frozenset[str]) -> list[tuple[int, int]]:
    """The (start, end) of each line of ``data`` that holds one of ``words`` (lowered)."""
    lowered = data.lower()
    starts: set[int] = set()
    for w in words:
        b = w.encode("utf-8", "surrogateescape")
        at = lowered.find(b)
        while at >= 0:
            starts.add(lowered.rfind(b"\n", 0, at) + 1)
            at = lowered.find(b, at + len(b))
    out = []
    for start in sorted(starts):
        stop = data.find(b"\n", start)
        out.append((start, len(data) if stop < 0 else stop))
    return out


def _name_words(names: AgentNames, agent_id: str) -> frozenset[str]:
    """The words (``mentions.WORD``, lowered) the agent's names begin with in the others'
    files: its id and short id, a display name's first word."""
    out = {form.lower() for form, who in names.forms.items() if who == agent_id}
    out |= {name.split()[0].lower() for name, (who, _) in names.people.items() if who == agent_id}
    out.add(agent_id.lower())
    return frozenset(w for w in out if w)


def _first_sentence(text: str) -> str:
    """A statement's role as written ("the librarian of loud shelves"), lowered, without
    its "From Y to Z" sentence: a repeat states the same."""
    return text.split(". ", 1)[0].strip().rstrip(".").lower()


def _is_agent(names: AgentNames, who: str) -> bool:
    """Whether a resolved name is one of the world's agents: an id its files or registry hold,
    or in a world without a registry an id of its shape, as the link reader decides
    ("governance-01" of a Relationships bullet is no agent where the registry lacks it)."""
    if who in names.ids or who in names.present:
        return True
    return names.guess and names.from_bytes(who.encode()) is not None


def _previous(
    statements: Sequence[Statement], moments: Sequence[Moment], st: Statement
) -> Statement | None:
    """The statement before ``st`` by time (``when.latest_before``), not by place in the file;
    within one frame, and outside frames, the file's order decides; where no framed statement
    comes before it, the latest one outside frames above it in the file."""
    if st.frame_index is None:
        return statements[st.index - 1] if st.index > 0 else None
    same = [s for s in statements if s.frame_index == st.frame_index and s.index < st.index]
    if same:
        return same[-1]
    placed = [moments[s.frame_index] if s.frame_index is not None else None for s in statements]
    i = when.latest_before(placed, moments[st.frame_index])
    if i is not None:
        return statements[i]
    # No framed statement comes before it: one outside frames above it in the file does.
    above = [s for s in statements if s.frame_index is None and s.line < st.line]
    return above[-1] if above else None


def _came_from(statements: Sequence[Statement], st: Statement) -> Statement | None:
    """The latest statement above ``st`` that states the role its "From Y" names."""
    if st.position or not st.from_role or not names_role(st.from_role):
        return None
    key = role_key(st.from_role)
    return next(
        (s for s in reversed(statements[: st.index]) if same_role(role_key(s.role), key)), None
    )


def _commits_disagree(
    timeline: Timeline,
    why: Why,
    soul: Soul,
    statements: Sequence[Statement],
    moments: Sequence[Moment],
) -> str | None:
    """What to say where the statement before ``why``'s by the headings' times (``previous``)
    is not the one before it by the commits: the frames arrived in different commits, and the
    one the headings place first came in a later commit (a "Frame 1" headed 00:17 committed
    after a "Frame 0" headed 00:30). None where they agree or cannot tell."""
    st, prev = why.statement, why.previous
    if st.frame_index is None or prev is None or prev.frame_index in (None, st.frame_index):
        return None
    shas = timeline.frame_commits(why.agent_id, [fr.heading for fr in soul.frames])
    order = {c.commit.sha: i for i, c in enumerate(reversed(timeline.history(why.agent_id)))}
    last = len(order)  # a frame no commit brought yet comes after every commit

    def rank(s: Statement) -> int:
        sha = shas[cast(int, s.frame_index)]
        return order.get(sha, last) if sha is not None else last

    mine = rank(st)
    framed = [s for s in statements if s.frame_index not in (None, st.frame_index)]
    earlier = [s for s in framed if rank(s) < mine]
    if rank(prev) <= mine:
        return _placed_after(st, earlier, moments, shas, rank)
    late = shas[cast(int, prev.frame_index)]
    said = (
        f'the headings and the commits disagree: "{_short(prev.text)}", which its heading '
        f"places before this statement, arrived in a later commit ({late[:7] if late else 'not committed'})"
    )
    if earlier:
        by_commits = max(
            earlier, key=lambda s: (rank(s), moments[cast(int, s.frame_index)].key, s.index)
        )
        said += f'; by the commits the statement before is "{_short(by_commits.text)}" (line {by_commits.line})'
    return said


def _placed_after(
    st: Statement,
    earlier: Sequence[Statement],
    moments: Sequence[Moment],
    shas: Sequence[str | None],
    rank: Callable[[Statement], int],
) -> str | None:
    """What to say where a statement that the headings place after ``st`` arrived in an
    earlier commit (a "Frame 0" headed 00:30 committed before the "Frame 1" headed 00:17):
    by the commits it is the statement before. None where there is none."""
    here = moments[cast(int, st.frame_index)].key
    after = [s for s in earlier if moments[cast(int, s.frame_index)].key > here]
    if not after:
        return None
    by_commits = max(after, key=lambda s: (rank(s), moments[cast(int, s.frame_index)].key, s.index))
    sha = shas[cast(int, by_commits.frame_index)]
    return (
        f'the headings and the commits disagree: "{_short(by_commits.text)}" (line '
        f"{by_commits.line}), which its heading places after this statement, arrived in an "
        f"earlier commit ({sha[:7] if sha else '?'}); by the commits it is the statement before"
    )


def _short(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def frame_links(
    names: AgentNames,
    agent_id: str,
    st: Statement,
    f: Frame | None,
    moment: Moment | None,
    soul: Soul | None = None,
) -> tuple[Link, ...]:
    """Every line of the statement's frame that names another agent, typed by the link reader
    (``history.links``), in the order written. A statement outside frames is read with its
    unit: the lines around it up to a blank line or a heading (its ``Influenced by:`` and
    ``Relationships:`` bullets), each typed the same way."""
    if f is not None:
        data = f.source.encode("utf-8", "surrogateescape")
        first, start, end = f.line, 0, len(data)
    elif soul is not None:
        data = soul.data
        start, end, first = statement_unit(data, st.line)
    else:
        data = st.text.encode("utf-8", "surrogateescape")
        first, start, end = st.line, 0, len(data)
    number = f.number if f is not None else None
    label = frame_name(f.number, f.suffix, f.date, f.time) if f is not None else None
    out: list[Link] = []
    for at, who, kind in read(names, data, start, end, agent_id):
        stop = data.find(b"\n", at, end)
        raw = data[at : end if stop < 0 else stop].decode("utf-8", "surrogateescape")
        line = first + data.count(b"\n", start, at)
        out.append(Link(who, agent_id, kind, number, label, line, trim(raw), moment or _NO_TIME))
    return tuple(out)


def statement_unit(data: bytes, line: int) -> tuple[int, int, int]:
    """The unit of the statement on 1-based ``line`` of a file: (its start, its end, its first
    line), the lines around it up to a blank line, a heading, a comment or another statement.
    A ``## Recent Experience`` list holds several statements, each closing the bullets it sums
    up: those before it are its own, and of those after it only the ``Relationships:`` and
    credit bullets right after it where another statement follows (the rest lead to that one)."""
    lines = data.split(b"\n")
    lo = hi = line - 1

    def inside(i: int) -> bool:
        text = lines[i].strip()
        return bool(text) and not text.startswith((b"#", b"<!--")) and not _is_statement(lines[i])

    while lo > 0 and inside(lo - 1):
        lo -= 1
    while hi + 1 < len(lines) and inside(hi + 1):
        hi += 1
    if hi + 1 < len(lines) and _is_statement(lines[hi + 1]):  # another statement follows
        hi = line - 1
        while hi + 1 < len(lines) and _line_kind(lines[hi + 1]) in ("relationship", "credit"):
            hi += 1
    start = sum(len(x) + 1 for x in lines[:lo])
    end = start + sum(len(x) + 1 for x in lines[lo : hi + 1]) - 1
    return start, min(end, len(data)), lo + 1


def _line_kind(line: bytes) -> str:
    """The kind a line's label gives (``links.line_kind``): "statement" for ``Becoming:`` and
    ``Evolving position:``, "relationship", "credit", ...; "" for running text."""
    return line_kind(line, 0, len(line))


def _is_statement(line: bytes) -> bool:
    """Whether a line is an identity statement's bullet (``Becoming:``, ``Evolving position:``)."""
    return _line_kind(line) == "statement"


def _unit_text(soul: Soul, st: Statement) -> str:
    """A statement outside frames read with its unit (``statement_unit``), as its links are."""
    start, end, _ = statement_unit(soul.data, st.line)
    return soul.data[start:end].decode("utf-8", "surrogateescape")


def _unit_lines(data: bytes, line: int) -> tuple[int, int]:
    """The first and last 1-based lines of the statement's unit (``statement_unit``)."""
    start, end, first = statement_unit(data, line)
    return first, first + data.count(b"\n", start, end)


_HUNK = re.compile(r"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def diff_around(diff: str, lo: int, hi: int, context: int = 3) -> str:
    """A unified ``diff`` cut to its lines within ``context`` lines of the new file's lines
    ``lo``..``hi`` (1-based), each remaining stretch under its own recounted hunk header: a
    commit that wrote a whole file shows the statement's lines, not the file."""
    lines = diff.splitlines(keepends=True)
    head = 0
    while head < len(lines) and not lines[head].startswith("@@"):
        head += 1
    kept: list[tuple[int, int, int, str]] = []  # (position, old line, new line, the line)
    old = new = 0
    for i, ln in enumerate(lines[head:]):
        m = _HUNK.match(ln)
        if m:
            old = int(m.group(1)) + (m.group(2) == "0")
            new = int(m.group(3)) + (m.group(4) == "0")
            continue
        tag = ln[:1]
        if tag not in "+- " or not ln:
            continue  # "\\ No newline at end of file"
        if lo - context <= new <= hi + context:
            kept.append((i, old, new, ln))
        old += tag != "+"
        new += tag != "-"
    out = lines[:head]
    run: list[tuple[int, int, int, str]] = []
    for item in [*kept, (-1, 0, 0, "")]:
        if run and item[0] != run[-1][0] + 1:
            olds = sum(ln[:1] != "+" for *_, ln in run)
            news = sum(ln[:1] != "-" for *_, ln in run)
            o, n = run[0][1] - (olds == 0), run[0][2] - (news == 0)
            out.append(f"@@ -{o},{olds} +{n},{news} @@\n")
            out += [ln if ln.endswith("\n") else ln + "\n" for *_, ln in run]
            run = []
        run.append(item)
    return "".join(out)


_NO_TIME = Moment(None, None, -1)


def _own_earlier(index: MentionIndex, why: Why) -> list[tuple[int, Place]]:
    """The agent's own frames before the statement's that name its threads, the first of each
    thread (what ``_thin`` says it did find)."""
    entry = index.agents.get(why.agent_id)
    if entry is None or why.moment is None:
        return []
    out: list[tuple[int, Place]] = []
    for n in why.threads:
        own = [
            p
            for p in entry.threads.get(n, ())
            if p.index != why.statement.frame_index
            and p.moment is not None
            and p.moment.key < why.moment.key
        ]
        if own:
            out.append((n, min(own, key=lambda p: (p.order, p.line))))
    return out


def _thin(why: Why, own: Sequence[tuple[int, Place]] = ()) -> str | None:
    """One sentence when nothing in the world before the statement speaks to it: no influencer's
    earlier frame, no other agent's mention of its threads before it, no word of its role used
    before; the agent's own earlier frames that name its threads are said."""
    states = [s for s in why.influencer_states if s.frame]
    posts = [p for p in why.posts if p.source != "mentions" or p.mentions]
    if states or posts or why.precursors or why.relationships:
        return None
    if why.moment is None:
        return "the evidence is thin: the statement is outside any frame, so nothing is dated"
    said = (
        "the evidence is thin: nothing in other agents' memory from before this frame "
        f"({why.moment.text}) names its influences or threads, and no frame before it uses "
        "its role's distinctive words (plain words, the world's common ones and those of its "
        "own names left out)"
    )
    if own:
        lines = ", ".join(f"#{n} (line {p.line})" for n, p in own)
        said += f"; only its own earlier frames name its threads: {lines}"
    if not why.influencers and (credit := unknown_credit(why)):
        said += f'; its frame credits "{credit}", naming no agent this world knows'
    return said


def _with_history(
    world: World,
    why: Why,
    soul: Soul,
    f: Frame | None,
    arc_: tuple[Sequence[Statement], Sequence[Moment]],
) -> Why:
    """The commit that brought the statement, its diff (this frame only) and the frame log;
    said where the commits disagree with the headings on the statement before it."""
    st = why.statement
    try:
        timeline = timeline_for(world)
        change, arrival = introductions(timeline, why.agent_id, st, f, soul)
        disagree = _commits_disagree(timeline, why, soul, *arc_)
    except HistoryError as exc:
        return replace(why, note=str(exc))
    if change is None:
        return replace(why, note="no commit holds this statement yet (it is not committed)")
    log, log_note = _frame_log(timeline, live_world(world), why.agent_id, f, change.commit)
    brought = len(change.frames_added) + len(change.frames_changed)
    diff, bulk = timeline.change_diff(change), None
    rewritten = arrival is not None and arrival.commit.sha != change.commit.sha
    together = brought > 1 and not rewritten
    if f is not None and rewritten:
        assert arrival is not None
        diff = _frame_diff(timeline, change, soul, f, diff) if brought > 1 else diff
        bulk = (
            f"commit {change.commit.short} wrote the statement as it reads now into a frame that "
            f"commit {arrival.commit.short} first wrote ({when.utc(arrival.commit.timestamp)} "
            f"{when.ZONE}: {arrival.commit.message})"
        )
    elif f is not None and together:
        diff = _frame_diff(timeline, change, soul, f, diff)
        dated = why.moment.text if why.moment is not None else "undated"
        bulk = (
            f"the frames arrived together: commit {change.commit.short} brought {brought} of "
            f"this soul's frames "
            f"at once, so it does not say when this one was written; its heading does ({dated}). "
            f"The diff shows {f.heading} only"
        )
    elif f is None:
        first, last = _unit_lines(soul.data, st.line)
        around = diff_around(diff, first, last)
        if around != diff:
            diff = around
            bulk = (
                f"commit {change.commit.short} changed more of the file; the diff shows "
                f"the lines around the statement (lines {first}-{last}) only"
            )
    own = [p for p in why.precursors if p.own]
    if own:
        own = [_with_commit(timeline, why.agent_id, p) for p in own]
        why = replace(why, precursors=(*own, *(p for p in why.precursors if not p.own)))
    return replace(
        why,
        commit=change.commit,
        diff=diff,
        frame_log=log,
        note="; ".join(n for n in (why.note, log_note, disagree) if n) or None,
        bulk_note=bulk,
        together=together,
        frame_commit=arrival.commit if rewritten and arrival is not None else None,
    )


def _with_commit(timeline: Timeline, agent_id: str, p: Precursor) -> Precursor:
    """The commit that first wrote the word into the agent's memory (git's pickaxe)."""
    term = _as_written(p.place.text, p.word)
    try:
        found = timeline.first_mention(Term(term), agent_id) if term else None
    except HistoryError:
        return p
    return replace(p, commit=found.commit.sha) if found and found.commit else p


def _as_written(text: str, word: str) -> str | None:
    m = re.search(rf"(?<![\w-]){re.escape(word)}(?![\w-])", text, re.I)
    return m.group(0) if m else None


def _frame_diff(timeline: Timeline, change: Change, soul: Soul, frame: Frame, diff: str) -> str:
    """The commit's ``diff`` of the file cut to one frame's lines, under hunk headers that
    number the file's lines (the frame's block as the commit left it)."""
    key, nth = _block_key(soul, frame)
    version = timeline.version(change.new_blob)
    blocks = version.blocks
    found = _nth_block(blocks, key, nth)
    if found is None:
        return ""
    at = blocks.index(found)
    preamble = version.size - sum(len(b.source) for b in blocks)
    first = 1 + version.header[:preamble].count(b"\n")
    first += sum(b.source.count(b"\n") for b in blocks[:at])
    last = first + found.source.rstrip(b"\n").count(b"\n")
    return diff_around(diff, first, last, context=0)


def introduced_by(
    timeline: Timeline, agent_id: str, st: Statement, frame: Frame | None, soul: Soul | None = None
) -> Change | None:
    """The oldest commit whose version of the file holds the statement in the same frame: the
    frame found by its place among the frames of its heading (a file may repeat a heading,
    "## Frame 216 — 2026-03-22" three times), not by its heading alone."""
    return introductions(timeline, agent_id, st, frame, soul)[0]


def introductions(
    timeline: Timeline, agent_id: str, st: Statement, frame: Frame | None, soul: Soul | None = None
) -> tuple[Change | None, Change | None]:
    """(``introduced_by``'s commit, the oldest commit whose version holds the statement's frame
    at all): the second is older where a later commit wrote the statement into a frame written
    before (added it, or made "Form teller" "From teller"); None for a statement outside
    frames."""
    key, nth = _block_key(soul, frame) if frame is not None and soul is not None else (None, 0)
    arrival: Change | None = None
    for change in reversed(timeline.history(agent_id)):
        blocks = timeline.version(change.new_blob).blocks
        if key is not None:
            found = _nth_block(blocks, key, nth)
            if found is not None and arrival is None:
                arrival = change
            if found is not None and _holds(found.text, st.text):
                return change, arrival
        elif any(_holds(block.text, st.text) for block in blocks):
            return change, None
    return None, arrival


def _block_key(soul: Soul, frame: Frame) -> tuple[str, int]:
    """A frame's heading as blocks key it, and how many frames above it share that heading."""
    key = " ".join(frame.heading.split())
    columns = soul.frames.columns
    nth = sum(" ".join(columns.heading(i).split()) == key for i in range(frame.index))
    return key, nth


def _nth_block(blocks: Sequence[Any], key: str, nth: int) -> Any:
    """The ``nth`` block (0: the first) of a version with the heading ``key``, or None."""
    found = [b for b in blocks if b.key == key]
    return found[nth] if nth < len(found) else None


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
    """The frame's relationships against the last frame above it that lists any: new, changed,
    or listed there and not restated here; each names the frame compared with."""
    if frame is None or not (listed := relationship_items(frame)):
        return ()
    now = _resolved(relationships("; ".join(listed)), names)
    before: dict[str, str] = {}
    since: str | None = None
    since_line: int | None = None
    for prev in reversed(soul.frames[: frame.index]):
        if items := relationship_items(prev):
            before = _resolved(relationships("; ".join(items)), names)
            since, since_line = (
                frame_name(prev.number, prev.suffix, prev.date, prev.time),
                prev.line,
            )
            break
    pairs: list[tuple[str, str | None, str | None]]
    pairs = [(a, before.get(a), n) for a, n in now.items() if before.get(a) != n]
    pairs += [(a, n, None) for a, n in before.items() if a not in now]
    return tuple(RelationshipChange(a, b, n, since, since_line) for a, b, n in pairs)


def relationship_items(frame: Frame) -> list[str]:
    """The texts of a frame's ``Relationships:`` bullets, and the items of a list such a label
    heads, one a line ("- Relationships:" / "  - Kofi Mensah — partner", "### Relationships" /
    "- coder-01 (ally)"), as the link reader types them."""
    items = [t for t in frame.get("Relationships") if t.strip()]
    data = frame.source.encode("utf-8", "surrogatepass")
    pos = 0
    while pos < len(data):
        stop = data.find(b"\n", pos)
        stop = len(data) if stop < 0 else stop
        item = _LIST_ITEM.match(data, pos, stop)
        if (
            item is not None
            and not line_kind(data[pos:stop], 0, stop - pos)  # a label of its own
            and line_kind(data, pos, len(data)) == "relationship"
        ):
            items.append(data[item.end() : stop].decode("utf-8", "replace").strip())
        pos = stop + 1
    return items


_LIST_ITEM = re.compile(rb"[ \t]*(?:[-*+]|\d+[.)])[ \t]+")


def _resolved(found: dict[str, str], names: AgentNames) -> dict[str, str]:
    """Relationships by the agent each name stands for: "coder-01 (stranger)" then "Grace
    Hopper (mentor)" is one relationship that changed, not one lost and one gained. A name of
    no agent is left out ("none yet (coder-01 ignored me)" holds none; "the community (warm)"
    is no agent of the world)."""
    out: dict[str, str] = {}
    for name, nature in found.items():
        who = names.resolve(name, listed=True)
        if _is_agent(names, who):
            out.setdefault(who, nature)
    return out


def _before(other: Moment, moment: Moment | None) -> bool:
    """Whether another agent's frame is known to come before the statement's (``soul.when``):
    frames the headings cannot tell apart from it are not evidence it could have seen."""
    return moment is not None and when.ordered(other, moment) and other.key < moment.key


def _state_of(
    index: MentionIndex, agent: str, moment: Moment | None, threads: Sequence[int] = ()
) -> InfluencerState:
    """The influencer's own frame latest before the statement's, what it held then, and what
    it wrote before it on the threads the statement's frame names."""
    entry = index.agents.get(agent)
    if entry is None:
        return InfluencerState(agent, present=False)
    state = _held(index, agent, moment)
    # a line naming two of the threads is one line ("Connected #4738 ..., #4734 ...")
    found = {
        p.line: p
        for n in threads
        for p in entry.threads.get(n, ())
        if p.moment is not None and _before(p.moment, moment)
    }
    lines = sorted(found.values(), key=lambda p: (p.order, p.line), reverse=True)
    return replace(state, lines=tuple(lines[:MAX_INFLUENCER_LINES]))


def _held(index: MentionIndex, agent: str, moment: Moment | None) -> InfluencerState:
    """The influencer's own frame latest before the statement's, and what it held then."""
    entry = index.agents[agent]
    soul = entry.soul
    before = [i for i, m in enumerate(entry.moments) if _before(m, moment)]
    header = _header_statement(entry.statements, soul)
    if not before:
        # No frame known to come before it; the latest one the headings cannot order against it
        # (the same day without a time of day) is where a reader looks, said as such; else what
        # its memory held above its first frame (undated: said as such).
        tied = [i for i, m in enumerate(entry.moments) if moment and not when.ordered(m, moment)]
        around = max(tied, key=lambda i: entry.moments[i].key) if tied else None
        if around is None and header is not None:
            return InfluencerState(
                agent, present=True, line=header.line, becoming=header.text, undated=True
            )
        return InfluencerState(agent, present=True, around_index=around)
    best = soul.frames[max(before, key=lambda i: entry.moments[i].key)]
    held = [
        s for s in entry.statements if s.frame_index is not None and s.frame_index <= best.index
    ]
    latest = held[-1] if held else header
    as_of = frame_name(best.number, best.suffix, best.date, best.time)
    if latest is None:  # no statement yet: the frame is what a reader looks at
        return _at_frame(agent, best, best.line, None)
    if latest.frame_index is None:  # what its memory held above its first frame
        return InfluencerState(
            agent, present=True, line=latest.line, becoming=latest.text, undated=True, as_of=as_of
        )
    # Cited to the frame that holds the statement; the later frame is what it was as of.
    state = _at_frame(agent, soul.frames[latest.frame_index], latest.line, latest.text)
    return replace(state, as_of=as_of if latest.frame_index != best.index else None)


def _at_frame(agent: str, f: Frame, line: int, becoming: str | None) -> InfluencerState:
    return InfluencerState(
        agent=agent,
        present=True,
        frame=frame_name(f.number, f.suffix, f.date, f.time),
        date=f.date,
        frame_index=f.index,
        line=line,
        becoming=becoming,
        number=f.number,
        time=f.time,
    )


def _header_statement(statements: Sequence[Statement], soul: Soul) -> Statement | None:
    """The latest identity statement above a file's first frame (its header's sections)."""
    starts = soul.frames.columns.lines
    first = starts[0] if len(starts) else None
    above = [s for s in statements if s.frame_index is None and (first is None or s.line < first)]
    return above[-1] if above else None


def _precursors(
    index: MentionIndex,
    agent_id: str,
    statements: Sequence[Statement],
    st: Statement,
    moment: Moment | None,
) -> tuple[Precursor, ...]:
    """Where the new role's distinctive words first appeared before the statement, in this
    agent's memory (its frames before it by time) and in others' (frames known to come before
    it)."""
    entry = index.agents.get(agent_id)
    if st.frame_index is None or entry is None:
        return ()
    at = entry.moments[st.frame_index].key
    before = {i for i, m in enumerate(entry.moments) if m.key < at}
    held = [
        s
        for s in statements
        if s.frame_index in before or (s.frame_index == st.frame_index and s.index < st.index)
    ]
    soul = entry.soul
    earlier = {w for s in held for w in _terms(s.role)} | _common(index) | _own_names(soul)
    words = [w for w in _terms(role_of(st.text)) if w not in earlier][:MAX_PRECURSOR_WORDS]
    out: list[Precursor] = []
    for word in words:
        own = sorted(
            (i for i in entry.words.get(word, ()) if i in before),
            key=lambda i: entry.moments[i].key,
        )
        if own:
            place = _place(agent_id, soul, own[0], word, entry.moments[own[0]])
            out.append(Precursor(word, place, True, len(own)))
        other = _first_elsewhere(index, agent_id, word, moment)
        if other is not None:
            a = index.agents[other.agent]
            count = sum(1 for i in a.words.get(word, ()) if _before(a.moments[i], moment))
            out.append(Precursor(word, other, False, count))
    return tuple(out)


# Words too plain to say where a role came from, whatever the world: a precursor made of them
# ("made", "condition") points at nothing.
_PLAIN_WORDS = frozenset(
    [
        "about",
        "above",
        "after",
        "again",
        "against",
        "also",
        "always",
        "because",
        "been",
        "before",
        "being",
        "between",
        "both",
        "come",
        "comes",
        "condition",
        "could",
        "does",
        "doing",
        "done",
        "down",
        "each",
        "even",
        "every",
        "first",
        "from",
        "give",
        "given",
        "goes",
        "going",
        "good",
        "have",
        "having",
        "here",
        "itself",
        "just",
        "keep",
        "kind",
        "last",
        "like",
        "made",
        "make",
        "makes",
        "making",
        "many",
        "more",
        "most",
        "much",
        "must",
        "need",
        "next",
        "now",
        "only",
        "other",
        "over",
        "part",
        "place",
        "point",
        "same",
        "should",
        "show",
        "since",
        "some",
        "such",
        "take",
        "taken",
        "than",
        "that",
        "their",
        "them",
        "then",
        "there",
        "these",
        "they",
        "thing",
        "things",
        "think",
        "this",
        "those",
        "through",
        "time",
        "under",
        "until",
        "upon",
        "very",
        "want",
        "well",
        "were",
        "what",
        "when",
        "where",
        "which",
        "while",
        "will",
        "with",
        "without",
        "work",
        "would",
        "year",
        "yet",
        "your",
    ]
)
_COMMON_SHARE = 0.5  # a word in more than this share of a world's souls is common there
_MIN_SOULS = 6  # a world of fewer souls says nothing of how common a word is


_NAME_FIELDS = ("id", "name", "archetype")


def _own_names(soul: Soul) -> set[str]:
    """The words of the agent's own names: its id, its title, its card's name and archetype.
    A role that says what the agent was called from the start ("reviewer" of zion-reviewer-01,
    archetype Reviewer) owes that word to no build-up."""
    names = [soul.agent_id or "", soul.name or ""]
    names += [v for k, v in soul.identity.items() if k.strip().lower() in _NAME_FIELDS]
    return {w for name in names for w in _terms(name)}


def _common(index: MentionIndex) -> frozenset[str]:
    """The plain words, and the words most of the world's souls use (a world of a few files
    counts the plain words only)."""
    agents = index.agents
    if len(agents) < _MIN_SOULS:
        return _PLAIN_WORDS
    counts: dict[str, int] = {}
    for entry in agents.values():
        for w in entry.words:
            counts[w] = counts.get(w, 0) + 1
    limit = _COMMON_SHARE * len(agents)
    return _PLAIN_WORDS | {w for w, n in counts.items() if n > limit}


_STAMP = re.compile(r"^\W*(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})")


def _written_by(source: str, moment: Moment | None) -> str:
    """A frame's text without the lines whose own stamp is later than the statement's moment
    ("- **2026-03-30T21:22:56Z** — Upvoted #12712." in an earlier frame): what was written by
    then."""
    if moment is None or moment.date is None:
        return source
    at = (moment.date, moment.time or "23:59")
    kept = []
    for line in source.split("\n"):
        m = _STAMP.match(line)
        if m is None or (m.group(1), m.group(2)) <= at:
            kept.append(line)
    return "\n".join(kept)


def _terms(role: str) -> list[str]:
    """A role's words as the index holds them: hyphenated compounds whole, then their parts."""
    out: list[str] = []
    for token in WORD.findall(role.lower()):
        for w in (token, *token.split("-")) if "-" in token else (token,):
            if len(w) > 3 and w not in _STOP_ROLE_WORDS and w not in out:
                out.append(w)
    return out


def _first_elsewhere(
    index: MentionIndex, agent_id: str, word: str, moment: Moment | None
) -> Place | None:
    """The earliest frame of another agent that holds ``word`` and comes before ``moment``."""
    best: tuple[tuple, Place] | None = None
    for other, entry in index.agents.items():
        if other == agent_id:
            continue
        found = [i for i in entry.words.get(word, ()) if _before(entry.moments[i], moment)]
        if not found:
            continue
        first = min(found, key=lambda i: entry.moments[i].key)
        key = (entry.moments[first].key[:3], other)
        if best is None or key < best[0]:
            best = (key, _place(other, entry.soul, first, word, entry.moments[first]))
    return best[1] if best else None


def _place(agent: str, soul: Soul, frame_index: int, word: str, moment: Moment) -> Place:
    f = soul.frames[frame_index]
    for offset, raw in enumerate(f.source.splitlines()):
        if word in raw.lower():
            return place_of(agent, soul, frame_index, f.line + offset, raw, moment)
    return place_of(agent, soul, frame_index, f.line, f.heading, moment)


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
        earlier = [
            m for m in index.mentions(n) if m.moment is not None and _before(m.moment, why.moment)
        ]
        own = next((m for m in earlier if m.agent == why.agent_id), None)
        before = [m for m in earlier if m.agent != why.agent_id]
        mentions = tuple(reversed(before[-MAX_MENTIONS:]))  # the closest before it first
        total, agents = len(before), len({m.agent for m in before})
        tied = _tied(index, n, why)
        post = store.get(n)
        if post is not None and why.moment is not None:
            posted = Moment(str(post.date)[:10] or None, None, 0, post.frame)
            if when.ordered(why.moment, posted) and why.moment.key < posted.key:
                post = None  # posted after the statement: not what the agent saw
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
                    own,
                    mentions_before=total,
                    agents_before=agents,
                    mentions_tied=tied,
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
                    own=own,
                    mentions_before=total,
                    agents_before=agents,
                    mentions_tied=tied,
                )
            )
        else:
            out.append(
                PostInfo(
                    n,
                    "mentions",
                    mentions=mentions,
                    own=own,
                    mentions_before=total,
                    agents_before=agents,
                    mentions_tied=tied,
                )
            )
    return tuple(out), community.problems


def _tied(index: MentionIndex, thread: int, why: Why) -> int:
    """Other agents' frames naming the thread that the headings cannot order against the
    statement's: neither evidence it saw them nor proof that none came before."""
    moment = why.moment
    if moment is None:
        return 0
    return sum(
        1
        for m in index.mentions(thread)
        if m.agent != why.agent_id and m.moment is not None and not when.ordered(m.moment, moment)
    )


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
