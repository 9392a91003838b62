"""The dossier of a statement as values: what ``why.explain`` finds and every face shows.

Kept apart from the code that builds it (``why``) so that the narrative, the JSON export and the
dashboard read a dossier without importing the builder, and the builder calls the narrative.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from soulscope.history.git import Commit
from soulscope.history.links import Link
from soulscope.history.mentions import Place
from soulscope.soul.format import ENTRY_LABELS, cite, cite_section
from soulscope.soul.model import Frame, frame_name
from soulscope.soul.trajectory import Statement, role_key, same_role, shorten
from soulscope.soul.when import Moment

# The frame's labels a reader asks about first, in the order they are shown.
# What a frame says around its statement: every label a brain decides but the arc's own.
CONTEXT_LABELS = tuple(x.label for x in ENTRY_LABELS if x.field not in (None, "becoming"))


def statement_name(st: Statement) -> str:
    """A statement's frame as citations name it (``frame_name``)."""
    return frame_name(st.number, st.suffix, st.date, st.time) or st.frame_label


def statement_citation(agent: str, st: Statement) -> str:
    """How a statement is cited: its frame, or outside frames its section and line."""
    if st.frame_index is None:
        return cite_section(agent, st.heading, st.line)
    return cite(agent, statement_name(st))


@dataclass(frozen=True, slots=True)
class RelationshipChange:
    """One relationship the frame states against the last frame before it (in the file) that
    lists any: new, its nature changed, or listed there and not restated here (which says only
    that the frame did not repeat it, not that the relationship ended)."""

    agent: str  # the world's id where the name resolves to one
    before: str | None  # its nature in the frame compared with, None if absent
    after: str | None  # its nature in this frame, None where not restated
    since: str | None = None  # the frame compared with (its name), None where none lists any
    since_line: int | None = None  # that frame's heading line


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
    own: Place | None = None  # the agent's own first frame before the statement naming it
    # all other agents' frames naming it before the statement, and how many agents wrote them
    # (``mentions`` holds only the closest of them)
    mentions_before: int = 0
    agents_before: int = 0
    # other agents' frames naming it that the headings cannot order against the statement's
    mentions_tied: int = 0

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
    number: int | None = None  # that frame's number
    time: str | None = None
    # without a frame known to come before: its latest frame of the same moment, as far as the
    # headings tell (the same day where one gives no time of day), for a reader to look at
    around_index: int | None = None
    # ``becoming`` is what its memory held above its first frame, which no date places
    undated: bool = False
    # the influencer's latest frame before the statement, where that frame states nothing and
    # ``frame`` (or ``undated``) is the earlier place of its latest statement as of it
    as_of: str | None = None
    # what it wrote before the statement on the threads the frame names, the latest first
    lines: tuple[Place, ...] = ()
    kind: str = "credit"  # how the frame names it (``history.kinds.KINDS``)

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
    # agent ids the statement or its frame credits (``Influenced by:``, "X forced this")
    influencers: tuple[str, ...] = field(default=())
    # the latest statement before this one that states the role its "From Y" names (None where
    # none does, or it names no role): the previous one, or one further back
    came_from: Statement | None = None
    # every line of the frame (or the statement outside frames) naming another agent, typed
    links: tuple[Link, ...] = ()
    posts: tuple[PostInfo, ...] = ()
    influencer_states: tuple[InfluencerState, ...] = ()
    precursors: tuple[Precursor, ...] = ()
    # what the agent itself wrote of others while it held the role before: its credits,
    # replies and comments in those frames (frame index in its file, the link), oldest first
    run_up: tuple[tuple[int, Link], ...] = ()
    # what the others' memories say they answered or commented on of the agent in that time:
    # (frame index in the other's file, the link, whose ``target`` is the other), oldest first
    answered: tuple[tuple[int, Link], ...] = ()
    bulk_note: str | None = None  # the commit brought more than this frame
    # the commit brought many frames at once (an import): it says nothing of when this one was
    # written, and the frame's own heading dates it
    together: bool = False
    # the commit that first wrote the statement's frame, where a later one (``commit``) wrote
    # the statement into it (added or rewrote it); None where ``commit`` wrote the frame too
    frame_commit: Commit | None = None
    moment: Moment | None = None  # the statement's frame in time (``soul.when``)
    thin: str | None = None  # said when the world holds little that comes before the statement
    narrative: str = ""
    narrative_source: str = "offline"  # "offline", or the model that wrote it

    @property
    def frame_name(self) -> str:
        return statement_name(self.statement) if self.frame else self.statement.heading

    @property
    def citation(self) -> str:
        return statement_citation(self.agent_id, self.statement)

    def citations(self) -> dict[str, tuple[str, int | None]]:
        """Every citation the dossier holds -> (agent, frame index in that agent's file)."""
        out: dict[str, tuple[str, int | None]] = {
            self.citation: (self.agent_id, self.statement.frame_index)
        }
        if self.previous is not None:
            prev = self.previous
            out[statement_citation(self.agent_id, prev)] = (self.agent_id, prev.frame_index)
        for post in self.posts:
            if post.citation:
                out.setdefault(post.citation, (post.author or "", post.frame_index))
            for m in (*post.mentions, *([post.own] if post.own else [])):
                out.setdefault(cite(m.agent, m.frame), (m.agent, m.index))
        for state in self.influencer_states:
            if state.citation:
                out.setdefault(state.citation, (state.agent, state.frame_index))
            for m in state.lines:
                out.setdefault(cite(m.agent, m.frame), (m.agent, m.index))
        for p in self.precursors:
            out.setdefault(p.citation, (p.place.agent, p.place.index))
        for i, link in self.run_up:
            out.setdefault(cite(self.agent_id, link.label or ""), (self.agent_id, i))
        out.update({k: v for k, v in self._answered_citations().items() if k not in out})
        return out

    def _answered_citations(self) -> dict[str, tuple[str, int | None]]:
        """The others' frames of ``answered``, as ``citations`` gives them."""
        out: dict[str, tuple[str, int | None]] = {}
        for i, link in self.answered:
            out.setdefault(cite(link.target, link.label or ""), (link.target, i))
        return out


def unknown_credit(why: Why) -> str | None:
    """The frame's own ``Influenced by:`` words, shortened, where they name no agent the world
    knows (a display name without a registry, a thread, an idea): a credit all the same."""
    credits = why.context.get("Influenced by") or []
    return shorten(credits[0], 80) if credits else None


def came_from(why: Why) -> str | None:
    """What to say of where the statement says it comes from ("From Y to Z"), where Y is not
    the role just before it: the earlier statement that held Y, or that none before states it.
    Nothing where Y is the previous role (the arc's own reading may compare another one)."""
    st, came, prev = why.statement, why.came_from, why.previous
    if not st.from_role:
        return None
    if prev is not None and same_role(role_key(prev.role), role_key(st.from_role)):
        return None
    if came is not None:
        where = statement_citation(why.agent_id, came)
        return (
            f'it says it comes from "{st.from_role}": not the role just before it, but one it '
            f"stated earlier, at line {came.line} {where}"
        )
    if st.from_mismatch:
        return f'it says it comes from "{st.from_role}", which no statement above it states'
    return None
