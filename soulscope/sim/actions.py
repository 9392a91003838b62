"""The frame runner's action kinds, one entry each: what a brain may answer, how an answer is
checked against the world the agent saw, what it does to the world, and what the prompt says.

The decision schema (``brain.DECISION_SCHEMA``), the answer's check (``brain.validate``), the LLM
brain's rules sentence and the frame's effects (``frame.apply``) all read this table, so a new
kind is one ``ActionKind`` in ``KINDS`` (and, for the seeded offline brain, the dicts it writes).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from soulscope.errors import SoulscopeError
from soulscope.sim.community import Comment, Community, Follow, Post, Vote, channel_name

if TYPE_CHECKING:
    from soulscope.sim.brain import Request

MAX_ACTIONS = 6


class DecisionError(SoulscopeError):
    """An answer that is not a valid decision; the message says what is wrong, for a repair."""


@dataclass(frozen=True, slots=True)
class Action:
    kind: str  # a key of KINDS
    channel: str = ""
    title: str = ""
    body: str = ""
    post: int | None = None
    parent: int | None = None
    value: int = 0
    agent: str = ""


@dataclass
class Turn:
    """One agent's actions being applied in a frame: what they add to the world and its entry.
    Ids run on from agent to agent (``next_post``, ``next_comment``)."""

    frame: int
    date: str
    agent: str
    community: Community
    following: set[str]  # whom the agent follows, as the frame goes
    next_post: int
    next_comment: int
    records: list[Post | Comment | Vote | Follow] = field(default_factory=list)
    bullets: list[str] = field(default_factory=list)  # the entry's action lines
    threads: list[int] = field(default_factory=list)  # the posts it touched (Connected:)
    voted: set[int] = field(default_factory=set)
    counts: dict[str, int] = field(default_factory=dict)  # kind -> actions that took effect

    def took(self, kind: str, record: Post | Comment | Vote | Follow, bullet: str) -> None:
        self.records.append(record)
        self.bullets.append(bullet)
        self.counts[kind] = self.counts.get(kind, 0) + 1


@dataclass(frozen=True)
class ActionKind:
    """One kind of action: its fields (JSON schema), its check, its effect and its rule."""

    name: str
    fields: dict[str, Any]  # JSON schema properties of its fields, beside "type"
    check: Callable[[dict[str, Any], Request, str], Action]  # raises DecisionError
    effect: Callable[[Turn, Action], None]
    rule: str  # what the prompt tells the agent about it ("" for none)


def quote(text: str, limit: int = 90) -> str:
    """Text for an entry's action line, on one line, cut between words."""
    text = " ".join(text.split())
    if len(text) > limit:
        cut = text[: limit - 1]
        text = (cut.rsplit(" ", 1)[0] if " " in cut else cut).rstrip(" ,;:") + "…"
    return f"“{text}”"


def text_of(obj: dict[str, Any], key: str) -> str:
    value = obj.get(key, "")
    if value is None:
        return ""
    if not isinstance(value, str):
        raise DecisionError(f"'{key}' must be a string")
    return value.strip()


def int_of(obj: dict[str, Any], key: str, where: str) -> int:
    value = obj.get(key)
    if isinstance(value, bool) or not isinstance(value, int):
        raise DecisionError(f"{where}: '{key}' must be an integer")
    return value


# -- post -----------------------------------------------------------------------------------------


def _check_post(a: dict[str, Any], request: Request, where: str) -> Action:
    channel = channel_name(text_of(a, "channel"))
    if channel not in request.channels:
        raise DecisionError(
            f"{where}: 'channel' must be one of {', '.join(request.channels) or '(none)'}"
        )
    title, body = text_of(a, "title"), text_of(a, "body")
    if not title or not body:
        raise DecisionError(f"{where}: a post needs a 'title' and a 'body'")
    return Action("post", channel=channel, title=title, body=body)


def _post(t: Turn, a: Action) -> None:
    post = Post(t.next_post, t.frame, t.date, t.agent, a.channel, a.title, a.body)
    t.took("post", post, f"Posted #{post.id} in c/{a.channel}: {quote(a.title)}")
    t.threads.append(post.id)
    t.next_post += 1


# -- comment --------------------------------------------------------------------------------------


def _check_comment(a: dict[str, Any], request: Request, where: str) -> Action:
    post = int_of(a, "post", where)
    if post not in request.thread_ids:
        raise DecisionError(f"{where}: post #{post} is not one the agent read")
    parent = a.get("parent")
    if parent is not None and (isinstance(parent, bool) or not isinstance(parent, int)):
        raise DecisionError(f"{where}: 'parent' must be a comment id or null")
    body = text_of(a, "body")
    if not body:
        raise DecisionError(f"{where}: a comment needs a 'body'")
    return Action("comment", post=post, parent=parent, body=body)


def _comment(t: Turn, a: Action) -> None:
    if a.post is None:
        return
    record = Comment(t.next_comment, a.post, a.parent, t.frame, t.date, t.agent, a.body)
    parent = t.community.comment_by_id.get(a.parent) if a.parent is not None else None
    if parent is not None:
        bullet = f"Replied to {parent.author} on #{a.post}: {quote(a.body)}"
    else:
        post = t.community.by_id.get(a.post)
        whose = f" by {post.author}" if post else ""
        bullet = f"Commented on #{a.post}{whose}: {quote(a.body)}"
    t.took("comment", record, bullet)
    t.threads.append(a.post)
    t.next_comment += 1


# -- vote -----------------------------------------------------------------------------------------


def _check_vote(a: dict[str, Any], request: Request, where: str) -> Action:
    post = int_of(a, "post", where)
    value = int_of(a, "value", where)
    if post not in request.thread_ids or value not in (1, -1):
        raise DecisionError(f"{where}: a vote needs a post the agent read and value 1 or -1")
    return Action("vote", post=post, value=value)


def _vote(t: Turn, a: Action) -> None:
    if a.post is None or a.post in t.voted:
        return  # one vote per post and frame
    t.voted.add(a.post)
    post = t.community.by_id.get(a.post)
    title = f" ({quote(post.title, 60)} by {post.author})" if post else ""
    verb = "Upvoted" if a.value > 0 else "Downvoted"
    t.took("vote", Vote(t.frame, t.agent, a.post, a.value), f"{verb} #{a.post}{title}")
    t.threads.append(a.post)


# -- follow ---------------------------------------------------------------------------------------


def _check_follow(a: dict[str, Any], request: Request, where: str) -> Action:
    agent = text_of(a, "agent")
    if agent not in request.feed.agents or agent == request.agent:
        raise DecisionError(f"{where}: '{agent}' is not another agent of this world")
    return Action("follow", agent=agent)


def _follow(t: Turn, a: Action) -> None:
    if a.agent in t.following:
        return
    t.following.add(a.agent)
    t.took("follow", Follow(t.frame, t.agent, a.agent), f"Followed {a.agent}")


# -- lurk -----------------------------------------------------------------------------------------


def _check_lurk(a: dict[str, Any], request: Request, where: str) -> Action:
    return Action("lurk")


def _lurk(t: Turn, a: Action) -> None:
    """Nothing: an entry without action lines says the agent lurked (``frame.apply``)."""


KINDS: dict[str, ActionKind] = {
    k.name: k
    for k in (
        ActionKind(
            "post",
            {
                "channel": {"type": "string"},
                "title": {"type": "string"},
                "body": {"type": "string"},
            },
            _check_post,
            _post,
            "post only in your channels ({channels})",
        ),
        ActionKind(
            "comment",
            {
                "post": {"type": "integer"},
                "parent": {"type": ["integer", "null"]},
                "body": {"type": "string"},
            },
            _check_comment,
            _comment,
            "comment on only the posts listed below, by their number",
        ),
        ActionKind(
            "vote",
            {"post": {"type": "integer"}, "value": {"type": "integer", "enum": [1, -1]}},
            _check_vote,
            _vote,
            "vote on only the posts listed below, by their number",
        ),
        ActionKind(
            "follow",
            {"agent": {"type": "string"}},
            _check_follow,
            _follow,
            "follow only agent ids listed below",
        ),
        ActionKind("lurk", {}, _check_lurk, _lurk, ""),
    )
}
ACTION_KINDS = tuple(KINDS)


def item_schema() -> dict[str, Any]:
    """The JSON schema of one action: every kind's fields, merged."""
    properties: dict[str, Any] = {"type": {"type": "string", "enum": list(ACTION_KINDS)}}
    for kind in KINDS.values():
        properties.update(kind.fields)
    return {"type": "object", "required": ["type"], "properties": properties}


def check(a: Any, request: Request, where: str) -> Action:
    """One answered action, checked against the world the agent saw."""
    name = a.get("type") if isinstance(a, dict) else None
    kind = KINDS.get(name) if isinstance(name, str) else None
    if kind is None:
        raise DecisionError(f"{where}: 'type' must be one of {', '.join(ACTION_KINDS)}")
    return kind.check(a, request, where)


def rules(channels: str) -> str:
    """The kinds' rules for the prompt, in one clause (``channels``: the agent's, listed)."""
    return "; ".join(k.rule.format(channels=channels) for k in KINDS.values() if k.rule)
