"""What a brain is given, what it answers, and how an answer is checked.

A ``Brain`` turns a batch of ``Request`` (one agent in one frame: its soul and what it read) into
one ``Outcome`` each: a validated ``Decision``, the raw answer and the context it saw. Two brains
exist: ``soulscope.sim.offline.OfflineBrain`` (seeded, no network) and
``soulscope.sim.llm.LlmBrain`` (an OpenAI-compatible endpoint).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from soulscope.sim.actions import (
    MAX_ACTIONS,
    Action,
    DecisionError,
    check,
    item_schema,
    text_of,
)
from soulscope.sim.community import Comment, Post
from soulscope.soul.format import TEXT_LABELS
from soulscope.soul.model import Soul

__all__ = ["Action", "DecisionError", "MAX_ACTIONS"]  # the action kinds live in sim.actions

TEXT_FIELDS = tuple(x.field for x in TEXT_LABELS if x.field)  # the decision's one-string labels


class AgentIds(tuple[str, ...]):
    """Every agent id of a world, in order, with the membership test of a set (a frame asks
    "is this an agent?" for each of thousands of agents: one set for all of them)."""

    members: frozenset[str]

    def __new__(cls, ids: Iterable[str]) -> AgentIds:
        self = super().__new__(cls, ids)
        self.members = frozenset(self)
        return self

    def __contains__(self, agent: object) -> bool:
        return agent in self.members


@dataclass(frozen=True, slots=True)
class Feed:
    """What an agent reads in a frame (all of it from before the frame started)."""

    posts: tuple[Post, ...] = ()  # recent posts in its channels, by others
    replies: tuple[Comment, ...] = ()  # recent comments on its posts or answering its comments
    related: tuple[Post | Comment, ...] = ()  # what agents it follows or relates to did lately
    agents: tuple[str, ...] = ()  # every agent id in the world (an ``AgentIds`` in a frame)
    topics: tuple[str, ...] = ()  # the interests of the agents acting this frame, lower case


@dataclass(frozen=True)
class Request:
    agent: str
    frame: int
    date: str
    seed: int
    soul: Soul
    feed: Feed
    channels: tuple[str, ...]  # bare channel names it may post in

    @property
    def thread_ids(self) -> set[int]:
        """Posts it may comment on or vote on: the ones it read."""
        ids = {p.id for p in self.feed.posts}
        ids.update(c.post for c in self.feed.replies)
        ids.update(x.id if isinstance(x, Post) else x.post for x in self.feed.related)
        return ids


@dataclass(frozen=True)
class Decision:
    actions: tuple[Action, ...]
    # The one-string labels (``TEXT_FIELDS``, from ``soul.format``'s table): field -> text. A new
    # label in that table is a new key here, with nothing to add to this class.
    texts: Mapping[str, str] = field(default_factory=dict)
    relationships: tuple[tuple[str, str], ...] = ()  # (agent id, nature)

    def text(self, name: str) -> str:
        """The text the brain gave for a one-string label ("" when it gave none)."""
        return self.texts.get(name, "")

    @classmethod
    def lurk(cls) -> Decision:
        return cls(actions=(Action("lurk"),))


@dataclass(frozen=True)
class Outcome:
    decision: Decision
    raw: str  # the brain's answer as it came
    context: dict[str, Any] | list[Any] | str  # what the brain was given
    error: str | None = None  # why the agent lurks instead, when its answer was unusable


Progress = Callable[[int, int], None]


class Brain(Protocol):
    name: str  # "offline" or "llm", written into frame logs

    def decide(
        self, requests: Sequence[Request], progress: Progress | None = None
    ) -> list[Outcome]:
        """One outcome per request, in the same order. Never raises for one agent's failure."""
        ...


def _item(x: Post | Comment, limit: int = 400) -> dict[str, Any]:
    body = x.body if len(x.body) <= limit else x.body[: limit - 1] + "…"
    if isinstance(x, Post):
        return {
            "post": x.id,
            "author": x.author,
            "channel": x.channel,
            "title": x.title,
            "body": body,
        }
    return {"comment": x.id, "post": x.post, "parent": x.parent, "author": x.author, "body": body}


def context_of(request: Request) -> dict[str, Any]:
    """What the agent was given, as the frame log keeps it: its soul in brief and what it read."""
    soul = request.soul
    last = soul.last_frame
    # The latest Becoming line, from the end: a frame's log does not read the whole soul.
    latest = soul.latest("Becoming")
    return {
        "soul": {
            "path": f"memory/{request.agent}.md",
            "bytes": len(soul.render()),
            "frames": len(soul.frames),
            "last_frame": last.heading if last else None,
            "becoming": latest[-1] if latest else None,
        },
        "identity": {k: soul.identity[k] for k in soul.identity},
        "channels": list(request.channels),
        "posts": [_item(p) for p in request.feed.posts],
        "replies": [_item(c) for c in request.feed.replies],
        "related": [_item(x) for x in request.feed.related],
    }


# The JSON an LLM brain must answer with; also sent as ``response_format`` where supported.
DECISION_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["actions", *TEXT_FIELDS, "relationships"],
    "properties": {
        "actions": {
            "type": "array",
            "maxItems": MAX_ACTIONS,
            "items": item_schema(),
        },
        **{name: {"type": "string"} for name in TEXT_FIELDS},
        "relationships": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["agent", "nature"],
                "properties": {"agent": {"type": "string"}, "nature": {"type": "string"}},
            },
        },
    },
}


def validate(obj: Any, request: Request) -> Decision:
    """Check an answer against the schema and against the world the agent saw."""
    if not isinstance(obj, dict):
        raise DecisionError("the answer must be a JSON object")
    raw_actions = obj.get("actions")
    if not isinstance(raw_actions, list) or not raw_actions:
        raise DecisionError("'actions' must be a non-empty list")
    if len(raw_actions) > MAX_ACTIONS:
        raise DecisionError(f"at most {MAX_ACTIONS} actions per frame")
    actions = [check(a, request, f"action {i + 1}") for i, a in enumerate(raw_actions)]
    relationships: list[tuple[str, str]] = []
    rels = obj.get("relationships") or []
    if not isinstance(rels, list):
        raise DecisionError("'relationships' must be a list")
    for r in rels:
        if not isinstance(r, dict):
            raise DecisionError("each relationship is an object with 'agent' and 'nature'")
        agent, nature = text_of(r, "agent"), text_of(r, "nature")
        if agent not in request.feed.agents or agent == request.agent:
            raise DecisionError(f"relationship with '{agent}': not another agent of this world")
        relationships.append((agent, nature))
    return Decision(
        actions=tuple(actions),
        relationships=tuple(relationships),
        texts={name: text_of(obj, name) for name in TEXT_FIELDS},
    )
