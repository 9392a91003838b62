"""The offline brain: seeded, no network, grounded in the agent's soul and what it read.

Every choice draws from ``random.Random("offline:SEED:AGENT:FRAME")`` (string seeds are hashed
the same way in every process), so a seed gives the same world byte for byte. Sentences are
composed from the agent's own convictions, interests and voice and from the posts it read: real
thread numbers, real authors. Its Becoming holds a role until influences accumulate, then shifts
as "the X. From Y to Z."
"""

from __future__ import annotations

import functools
import hashlib
import json
import random
import re
from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass, field

from soulscope.sim.brain import (
    Decision,
    DecisionError,
    Outcome,
    Progress,
    Request,
    context_of,
    validate,
)
from soulscope.sim.community import Comment, Post
from soulscope.soul.model import Soul
from soulscope.soul.trajectory import ArcReading, arc_label, iter_arc

_WORD = re.compile(r"[A-Za-z][A-Za-z'-]{3,}")
_STOP = frozenset(
    [
        "about",
        "above",
        "after",
        "again",
        "against",
        "also",
        "among",
        "another",
        "around",
        "because",
        "been",
        "before",
        "being",
        "below",
        "between",
        "both",
        "cannot",
        "could",
        "does",
        "doing",
        "down",
        "during",
        "each",
        "even",
        "every",
        "from",
        "further",
        "have",
        "having",
        "here",
        "into",
        "itself",
        "just",
        "like",
        "made",
        "make",
        "more",
        "most",
        "much",
        "must",
        "only",
        "other",
        "over",
        "same",
        "should",
        "some",
        "such",
        "than",
        "that",
        "their",
        "them",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "through",
        "under",
        "until",
        "very",
        "what",
        "when",
        "where",
        "which",
        "while",
        "will",
        "with",
        "would",
        "your",
        "yours",
        "really",
        "thing",
        "things",
        "never",
        "always",
        "still",
        "first",
        "since",
        "less",
        "least",
        "ever",
        "whose",
        "who's",
        "it's",
        "that's",
        "don't",
        "isn't",
    ]
)
_TERSE = ("terse", "short", "blunt", "minimal", "precise", "clipped", "dry", "laconic")
_NOUNS = ("test", "ledger", "paradox", "threshold", "debt", "signal", "drift", "contract", "loop")
_ROLES = ("skeptic", "builder", "synthesist", "advocate", "cartographer", "tester", "critic")
_SHIFT_VERBS = ("arguing for", "testing", "building on", "questioning", "mapping", "defending")


@functools.lru_cache(maxsize=65536)
def _words(text: str) -> tuple[str, ...]:
    """Content words, lower case, possessives cut (``kit's`` -> ``kit``).

    Cached: every agent that reads a post, and every topic test, asks for the same texts.
    """
    out = []
    for w in _WORD.findall(text):
        w = w.lower().removesuffix("'s").removesuffix("’s").strip("'-")
        if len(w) >= 4 and w not in _STOP:
            out.append(w)
    return tuple(out)


def _lc(text: str) -> str:
    """A sentence made into a clause: first letter lowered (not for acronyms), no final stop."""
    text = text.strip().rstrip(".!")
    if len(text) > 1 and not text[1].isupper() and not text.startswith("I "):
        text = text[0].lower() + text[1:]
    return text


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


_ARTICLE = re.compile(r"^(?:the|a|an)\s+", re.I)


def _bare(phrase: str) -> str:
    """A phrase without its leading article, for places that bring their own ("the X test")."""
    return _ARTICLE.sub("", phrase.strip())


def _held(text: str) -> str:
    """The role a statement holds as it was written: its first sentence, whole."""
    return text.strip().split(". ", 1)[0].rstrip(".")


@dataclass(frozen=True)
class _Self:
    """The agent as its soul file describes it."""

    name: str
    archetype: str
    terse: bool
    convictions: tuple[str, ...]
    interests: tuple[str, ...]
    vocabulary: frozenset[str]

    @classmethod
    def of(cls, soul: Soul, agent: str) -> _Self:
        identity = soul.identity
        interests = soul.interests
        convictions = tuple(c for c in soul.items("Convictions") if c.strip())
        voice = (identity.get("Voice") or "").lower()
        archetype = (identity.get("Archetype") or "agent").strip().lower() or "agent"
        return cls(
            name=soul.name or agent,
            archetype=archetype,
            terse=any(t in voice for t in _TERSE),
            convictions=convictions or (f"a {archetype} earns trust by showing the work",),
            interests=interests or (archetype,),
            vocabulary=frozenset(_words(" ".join(interests + convictions))),
        )


@dataclass
class _Known:
    """What the brain knows of one agent's arc, kept from frame to frame: the file as it was read
    (its length and digest), where the arc's reading got to, and what a Becoming line needs of it."""

    size: int
    digest: bytes
    sections: int
    label: str
    reading: ArcReading
    last: str | None = None  # the latest statement
    shifted_at: int | None = None  # the frame of the latest shift
    influenced: list[int] = field(default_factory=list)  # frames with an "Influenced by" line


def _grew(known: _Known, soul: Soul, label: str) -> bool:
    """Whether ``soul`` can be what ``known`` read with frames appended (its bytes aside)."""
    data, columns, frames = soul.data, soul.frames.columns, known.reading.frames
    return (
        known.label == label
        and known.sections == len(soul.sections)
        and len(data) >= known.size
        and (
            len(data) == known.size
            or (  # the next frame starts where the file ended, after blank lines at most
                len(columns.starts) > frames >= 0
                and columns.starts[frames] >= known.size
                and not data[known.size : columns.starts[frames]].strip()
            )
        )
    )


class _Arcs:
    """Each agent's arc as far as a frame needs it, read on from where the last frame left it
    when the soul only grew by frames appended at its end: a frame's cost does not grow with the
    world's age. Anything else (an edit, a new section) and the arc is read again from the start."""

    def __init__(self) -> None:
        self._known: dict[str, _Known] = {}

    def of(self, agent: str, soul: Soul) -> _Known:
        data = soul.data
        label = arc_label(soul)
        known = self._known.get(agent)
        # The file hashed once: what was read before (to tell it is unchanged), then the rest.
        read, digest = memoryview(data), hashlib.sha256()
        if known is not None and _grew(known, soul, label):
            digest.update(read[: known.size])
        if known is None or not _grew(known, soul, label) or digest.digest() != known.digest:
            known = _Known(0, b"", len(soul.sections), label, ArcReading())
            digest = hashlib.sha256()
        start = max(known.reading.frames, 0)
        for s in iter_arc(soul, label, known.reading):
            known.last = s.text
            if s.shift:
                known.shifted_at = s.frame_index
        for frame in soul.frames[start:]:
            if frame.get("Influenced by"):
                known.influenced.append(frame.index)
        digest.update(read[known.size :])
        known.size, known.digest = len(data), digest.digest()
        self._known[agent] = known
        return known


class OfflineBrain:
    """Decides without a model: deterministic for a seed."""

    name = "offline"

    def __init__(self) -> None:
        self._arcs = _Arcs()

    def decide(
        self, requests: Sequence[Request], progress: Progress | None = None
    ) -> list[Outcome]:
        out = []
        for i, request in enumerate(requests):
            answer = _Composer(request, self._arcs).answer()
            raw = json.dumps(answer, ensure_ascii=False)
            try:
                out.append(Outcome(validate(answer, request), raw, context_of(request)))
            except DecisionError as exc:  # one agent's failure is that agent's alone
                why = f"invalid answer: {exc}"
                out.append(Outcome(Decision.lurk(), raw, context_of(request), error=why))
            if progress and (i % 25 == 0 or i == len(requests) - 1):
                progress(i + 1, len(requests))
        return out


class _Composer:
    def __init__(self, request: Request, arcs: _Arcs | None = None) -> None:
        self.r = request
        self.arcs = arcs or _Arcs()
        self.rng = random.Random(f"offline:{request.seed}:{request.agent}:{request.frame}")
        self.me = _Self.of(request.soul, request.agent)
        self._topics: dict[int, str] = {}
        self.agents = request.feed.agents

    # -- reading --------------------------------------------------------------------------
    def _score(self, post: Post) -> float:
        overlap = len(self.me.vocabulary.intersection(_words(f"{post.title} {post.body}")))
        return overlap + self.rng.random() * 0.5

    def _topic(self, text: str, fallback: str) -> str:
        """What ``text`` is about, for this agent: one of its interests it touches, else an
        interest of the world's that it names or touches, else ``fallback`` (never a topic the
        text does not touch)."""
        lowered = text.lower()
        words = {w for w in _words(text) if w not in self.agents}  # a name is who, not what
        touched = [i for i in self.me.interests if words.intersection(_words(i))]
        if touched:
            return self._pick(touched).lower()
        named = [t for t in self.r.feed.topics if re.search(rf"\b{re.escape(t)}\b", lowered)]
        if named:
            return self._pick(named)
        shared = [t for t in self.r.feed.topics if words.intersection(_words(t))]
        return self._pick(shared) if shared else fallback

    def _about(self, post: Post) -> str:
        """What a post is about for this agent; the same answer every time it is asked."""
        if post.id not in self._topics:
            # A post that touches nothing the agent knows is about what its title says.
            title = post.title.strip().rstrip(".!?") or f"#{post.id}"
            self._topics[post.id] = self._topic(f"{post.title} {post.body}", f"“{title}”")
        return self._topics[post.id]

    def _pick(self, items: Sequence[str]) -> str:
        return self.rng.choice(list(items))

    # -- writing --------------------------------------------------------------------------
    def _post(self, read: Post | None) -> dict:
        me, rng = self.me, self.rng
        interest = self._pick(me.interests)
        other = self._pick([i for i in me.interests if i != interest] or [me.archetype])
        conviction = self._pick(me.convictions)
        titles = [
            f"The case for {interest} over {other}",
            f"Why {_lc(conviction)}",
            f"On {interest}, again",
            f"A small experiment in {interest}",
            f"Is {interest} worth what it costs?",
            f"What {other} taught me about {interest}",
        ]
        if read is not None:
            topic = self._about(read)
            titles += [
                f"Notes on {topic} after #{read.id}",
                f"What {read.author} gets right about {topic}",
            ]
        openers = [
            f"{_cap(_lc(conviction))}.",
            f"I keep coming back to one idea: {_lc(conviction)}.",
            f"My position has not moved: {_lc(conviction)}.",
        ]
        middles = [
            f"Most of what passes for {interest} here is {other} wearing a costume.",
            f"Take {interest}: nobody measures it, everybody argues about it.",
            f"I tried to apply this to {interest} this week and it held up.",
        ]
        if read is not None:
            middles += [
                f"{read.author}'s #{read.id} makes the opposite bet, and I want to see it tested.",
                f"#{read.id} by {read.author} is the closest anyone has come to saying it.",
            ]
        closers = [
            f"Who here has tried {interest} on a real problem?",
            "Show me a counterexample and I will change my mind.",
            "Next frame I will report what broke.",
            f"If you disagree, bring {other} numbers, not adjectives.",
        ]
        parts = [self._pick(openers), self._pick(middles)]
        if not me.terse:
            parts.append(self._pick(closers))
        channel = self._pick(self.r.channels)
        return {
            "type": "post",
            "channel": channel,
            "title": rng.choice(titles),
            "body": " ".join(parts),
        }

    def _comment(self, post: Post, agree: bool) -> dict:
        topic = self._about(post)
        conviction = _lc(self._pick(self.me.convictions))
        interest = self._pick(self.me.interests)
        if agree:
            options = [
                f"Agreed: {conviction}, and your point about {topic} is the evidence.",
                f"This lands. {_cap(topic)} is exactly where {interest} pays off.",
                f"Yes. I would go further: {conviction}.",
                f"Saving this. {post.author} put {topic} better than I have.",
                f"Same conclusion from where I stand, on {interest}: {conviction}.",
            ]
        else:
            options = [
                f"I am not convinced {topic} survives contact with {interest}.",
                f"Where is the test for this? {_cap(conviction)}.",
                f"Counterpoint: {conviction}. The argument about {topic} skips that.",
                f"Half right. {_cap(topic)} matters, but not the way #{post.id} says.",
                f"What would change your mind about {topic}? Mine changes with {interest}.",
            ]
        body = self._pick(options)
        if not self.me.terse and self.rng.random() < 0.5:
            body += f" (Re #{post.id}: {self._pick(['worth a follow-up', 'I will come back to this', 'bookmarked'])}.)"
        return {"type": "comment", "post": post.id, "parent": None, "body": body}

    def _reply(self, comment: Comment) -> dict:
        topic = self._topic(comment.body, "this")
        conviction = _lc(self._pick(self.me.convictions))
        options = [
            f"{comment.author}, fair. But {conviction}.",
            f"Good catch, {comment.author}: I had not weighed {topic}.",
            f"{comment.author}, we agree on {topic} and disagree on everything after it.",
            f"Noted, {comment.author}. I will test that against {self._pick(self.me.interests)}.",
            f"That is the part I got wrong, {comment.author}. {_cap(conviction)} still stands.",
            f"{comment.author}: say more about {topic}. I think it cuts the other way.",
        ]
        return {
            "type": "comment",
            "post": comment.post,
            "parent": comment.id,
            "body": self._pick(options),
        }

    def _becoming(self, engaged: Post | None) -> str:
        soul, me, rng = self.r.soul, self.me, self.rng
        known = self.arcs.of(self.r.agent, soul)
        if known.last is None:
            interest = self._pick(me.interests)
            return (
                f"the {_bare(interest)} {me.archetype}. Starting from one conviction: "
                f"{_lc(self._pick(me.convictions))}."
            )
        role = _held(known.last)
        if engaged is None:
            return self._pick(
                [
                    f"{role}. Holding steady; nothing this frame moved it.",
                    f"{role}. A quiet frame, spent on {self._pick(me.interests)}.",
                    f"{role}. Unchanged, and {_lc(self._pick(me.convictions))}.",
                ]
            )
        # Influences since the role last changed (frames with an "Influenced by" line).
        first = 0 if known.shifted_at is None else known.shifted_at + 1
        influences = 1 + len(known.influenced) - bisect_left(known.influenced, first)
        threshold = 3 + random.Random(f"threshold:{self.r.seed}:{self.r.agent}").randint(0, 2)
        topic = self._about(engaged)
        if influences < threshold:
            return self._pick(
                [
                    f"{role}. Still that, with #{engaged.id} as new evidence.",
                    f"{role}. Same ground, firmer: {_lc(self._pick(me.convictions))}.",
                    f"{role}. {engaged.author}'s #{engaged.id} is pulling at it, not yet moving it.",
                ]
            )
        noun = rng.choice([n for n in (*_ROLES, me.archetype) if n not in role] or _ROLES)
        if topic.startswith("“"):
            # A post known only by its title names no field to be "the critic of": the agent's own.
            topic = self._pick(me.interests).lower()
        new_role = f"the {noun} {'for' if noun == 'advocate' else 'of'} {topic}"
        before = _bare(role)
        verb = rng.choice([v for v in _SHIFT_VERBS if topic not in v])
        return f"{new_role}. From {before} to {verb} {topic} with {engaged.author}."

    def answer(self) -> dict:  # noqa: C901 (one of the five allowed)
        r, rng, me = self.r, self.rng, self.me
        scored = sorted(((self._score(p), p) for p in r.feed.posts), key=lambda x: (-x[0], x[1].id))
        matches = [p for s, p in scored if s >= 1]
        actions: list[dict] = []
        engaged: Post | None = None
        talked: dict[str, str] = {}
        if r.feed.replies and rng.random() < 0.8:
            reply = r.feed.replies[0]
            actions.append(self._reply(reply))
            talked[reply.author] = f"answered me on #{reply.post}"
        if matches and rng.random() < 0.75:
            engaged = matches[0]
            agree = rng.random() < 0.7
            actions.append(self._comment(engaged, agree))
            talked.setdefault(
                engaged.author,
                f"{'allies on' if agree else 'debating'} {self._about(engaged)}",
            )
        for p in matches[:2]:
            if rng.random() < 0.8:
                actions.append({"type": "vote", "post": p.id, "value": 1})
                engaged = engaged or p
        others = [p for s, p in scored if s < 1]
        if others and rng.random() < 0.15:
            actions.append({"type": "vote", "post": others[-1].id, "value": -1})
        if not r.feed.posts or rng.random() < 0.45:
            actions.append(self._post(engaged or (scored[0][1] if scored else None)))
        if engaged is not None and rng.random() < 0.35:
            actions.append({"type": "follow", "agent": engaged.author})
            talked.setdefault(engaged.author, f"following their posts on {self._about(engaged)}")
        # Only agents that still exist: an author whose soul file was removed is read, never
        # followed or related to.
        actions = [a for a in actions if a["type"] != "follow" or a["agent"] in r.feed.agents]
        talked = {a: why for a, why in talked.items() if a in r.feed.agents}
        if not actions:
            actions.append({"type": "lurk"})

        answer: dict = {"actions": actions[:6]}
        influenced = ""
        if engaged is not None:
            topic = self._about(engaged)
            influenced = f"{engaged.author}'s #{engaged.id} on {topic}"
            if r.feed.replies and r.feed.replies[0].author != engaged.author:
                influenced += f"; {r.feed.replies[0].author}'s reply on #{r.feed.replies[0].post}"
        named = ""
        if engaged is not None and rng.random() < 0.5 and not self._about(engaged).startswith("“"):
            topic = self._about(engaged)
            named = (
                f"“The {_bare(topic).strip('“”').title()} {rng.choice(_NOUNS).title()}”: "
                f"{_lc(self._pick(me.convictions))}, and #{engaged.id} made it concrete."
            )
        surprised = ""
        if r.feed.replies and rng.random() < 0.35:
            c = r.feed.replies[0]
            surprised = f"{c.author} answering on #{c.post} before anyone else did."
        elif engaged is not None and engaged.author not in talked and rng.random() < 0.25:
            surprised = f"how much {engaged.author} cares about {self._about(engaged)}."
        elif scored and rng.random() < 0.1:
            p = scored[-1][1]
            surprised = f"finding {self._about(p)} in c/{p.channel}, of all places."
        conviction = self._pick(me.convictions)
        reinforced = (
            f"{_lc(conviction)}; #{engaged.id} is one more case." if engaged else _lc(conviction)
        )
        answer.update(
            named=named,
            influenced_by=influenced,
            surprised_by=surprised,
            reinforced=_cap(reinforced),
            becoming=self._becoming(engaged if influenced else None),
            relationships=[{"agent": a, "nature": n} for a, n in list(talked.items())[:3]],
        )
        return answer
