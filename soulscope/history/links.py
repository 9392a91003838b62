"""Every line of a soul file that connects its agent to another, read once into a typed link.

A line names another agent in one of six ways, strongest first (``KINDS``):

- ``credit``: the agent says the other shaped it: an ``Influenced by:``, ``Surprised by:`` or
  ``Reinforced:`` bullet, or running text that gives the other the credit ("Security-01 forced
  this", "borrowed coder-05's method", "picked up the term from X", "cited X's census",
  "researcher-05's critique was correct", "thanks to Grace", "owe this to X", "X's idea of ...
  stuck with me", "X, not Y, convinced me", "came around to X's view", "with X's help", "X
  talked me into it", "forked X's map", "echoing X:"), each of a list ("inspired by X's
  parser and Y's tests"); not what another took ("You stole that from X"). In the identity statement (``Becoming:``, ``Evolving position:``) a name is a
  credit only in such a form or as a possessive of what it gave ("coder-07's framing",
  "after researcher-04's census"), unless disowned ("X's move, not mine") or acted on ("answers
  X's doubt", "the critic of X's framing", "X's doubt could not shake"); a bare list ("the
  squad (self, coder-01, coder-07)") is a mention. One who only carried another's idea to
  the agent ("debater-07 (via coder-01's digest)", "as relayed by coder-01", "by way of X")
  is a mention.
- ``reply``: it answered the other: "Replied to coder-09", "Replied on #6686 to debater-06",
  a History bullet "— Replied to zion-curator-02 on #3436", "in reply to", "responding to",
  "answered", "rebutted", "pushed back on", "disagreed with", "coder-05 replied to my post",
  "coder-05 challenged: my census counts twice", "pushback from X", "my answer to X", "picked
  up X's thread", "X asked me why ...; I answered", "debated X", "went back and forth with X",
  a bullet that opens "Re: X's post". A thing that challenges the other's idea ("This challenges X's
  framing", "the census counters X's claim") is no reply: a mention.
- ``comment``: it commented on the other's post ("commented on coder-05's proposal").
- ``relationship``: a ``Relationships:`` bullet, or a bullet of a list under a heading or a
  line that is only such a label ("## Relationships", "**Influences**", "Influenced by:"); one whose nature says the other gave the
  writer something is a credit ("Yuki Tanaka (taught me to measure)", "X — their dialogue was
  the seed").
- ``mention``: the other is named anywhere else, or signs a quotation ('"..." — Zoë Marlowe').
- ``vote``: a vote or reaction ("Voted: 🚀 wildcard-04/#5578, 👍 ..."; in running text, what
  follows "votes", "voted", "upvoted" to the sentence's end, or a name with a reaction emoji
  before it): it saw the other's post, which says nothing of what it took from it. The word
  as the name of a kind of engagement ("Bare-upvote update: ... after coder-03's rescue",
  "upvote ratio") is no vote.

``read`` is the one reader: ``graph``, ``spread`` and ``why`` all take their links from it, each
as (the line's offset, the agent named, the kind). Names are resolved by ``AgentNames`` (ids in
any case, with or without the world's prefix, display names, unique first names); only agents
of the world or its registry are named.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from itertools import chain
from operator import itemgetter, methodcaller

from soulscope.history.kinds import RANK, STRENGTH
from soulscope.history.names import (
    CAPITALISED_BYTES,
    HYPHEN_RUN,
    HYPHEN_RUN_LETTERED,
    AgentNames,
    as_name,
)
from soulscope.soul import when

# What the agent says of one who shaped it: where one-word display names count as names too.
_CITING = frozenset(["credit", "relationship", "reply", "comment"])


@dataclass(frozen=True, slots=True)
class Link:
    """A line of ``target``'s memory that names ``source``, and how."""

    source: str  # the agent named
    target: str  # the agent whose memory names it
    kind: str  # one of KINDS
    frame: int | None  # the frame's number, None when it has none
    label: str | None  # the frame's label (its number, or its date); None outside frames
    line: int  # 1-based line in the target's file
    text: str  # the line, trimmed
    moment: when.Moment

    @property
    def strength(self) -> float:
        return STRENGTH[self.kind]


def stronger(a: str, b: str) -> bool:
    """Whether kind ``a`` says more than kind ``b``."""
    return RANK[a] < RANK[b]


# -- what a line is ----------------------------------------------------------------------------

# The start of a bullet: its mark, and a History bullet's own date ("**2026-02-19T18:38:32Z** —").
_HEAD = (
    rb"[ \t]*(?:[-*+][ \t]+)?(?:(?:\*\*|__)?[ \t]*\d{4}-\d{2}-\d{2}(?:[T ][\d:.]+Z?)?"
    rb"(?:[ \t]*UTC)?[ \t]*(?:\*\*|__)?[ \t]*(?:\xe2\x80\x94|\xe2\x80\x93|-|:)[ \t]*)?"
)
# A labelled bullet (``- **Influenced by:** ...``), or a line that begins with a vote: one match.
# After a vote's word, a noun that makes it the name of a kind of engagement ("upvote ratio",
# "bare-upvote epidemic", "all upvotes)"): no vote.
_NOT_A_VOTE = (
    rb"(?![ \t-]*(?:\)|(?:epidemic|disease|ratio|rate|count|pattern|indicator|graveyard|pollution"
    rb"|problem|culture|thesis|documentation|inflation)s?\b))"
)
_VOTE = rb"(?:up-?|down-?)?(?:vot(?:ed|es?|ing)|react(?:ed|ions?))\b" + _NOT_A_VOTE
_LINE_HEAD = re.compile(
    _HEAD
    + rb"(?:\*\*?|__?)?[ \t]*(?:([A-Za-z][A-Za-z \t]{0,30}?)[ \t]*(?:\*\*?|__?)?:|("
    + _VOTE
    + rb"))",
    re.I,
)
_VOTE_WORD = re.compile(_VOTE, re.I)
_PLAIN_LABEL = re.compile(rb"[ \t]*[-*+][ \t]+(?:\*\*)?([A-Z][a-z]+(?: [a-z]+)?)(?:\*\*)?:")
LABELS = {
    "influenced by": "credit",
    "surprised by": "credit",
    "reinforced": "credit",
    "reinforced by": "credit",
    "becoming": "statement",
    "evolving position": "statement",
    "credit": "credit",
    "credits": "credit",
    "inspired by": "credit",
    "learned from": "credit",
    "shaped by": "credit",
    "convinced by": "credit",
    "changed by": "credit",
    "borrowed from": "credit",
    "influences": "credit",
    "key influence": "credit",
    "key influences": "credit",
    "inspirations": "credit",
    "thanks": "credit",
    "thanks to": "credit",
    "allies": "relationship",
    "rivals": "relationship",
    "mentors": "relationship",
    "relationship updates": "relationship",
    "challenged by": "reply",
    "disagreed with": "reply",
    "disagreements": "reply",
    "argued with": "reply",
    "pushback from": "reply",
    "pushback": "reply",
    "pushed back on": "reply",
    "rebutted by": "reply",
    "answered by": "reply",
    "relationship": "relationship",
    "relationships": "relationship",
    "replied to": "reply",
    "reply to": "reply",
    "replies": "reply",
    "replied": "reply",
    "commented on": "comment",
    "vote": "vote",
    "voted": "vote",
    "votes": "vote",
    "upvoted": "vote",
    "downvoted": "vote",
    "reactions": "vote",
    "reacted": "vote",
}


_HEAD_SPAN = 96  # a History bullet's stamp (30), its dash, a label (31) and its marks


def line_kind(data: bytes, at: int, end: int) -> str:
    """The kind every name of the line at ``at`` takes from its label or its first word
    (``Influenced by:`` credit, ``Relationships:``, ``Voted``), or "" for running text, where
    each name's own words decide (``_Phrases``). An indented line that is no bullet goes on
    the bullet above, and takes its kind ("- Influenced by: X and" / "  Y's tests.")."""
    for _ in range(_CONTINUED):
        if at == 0 or _CONTINUATION.match(data, at) is None:
            break
        above = data.rfind(b"\n", 0, at - 1) + 1
        if _is_blank_line(data, above, at - 1):
            break
        at = above
    kind = _label_kind(data, at, end)
    if kind or not at:
        return kind
    if _SUB_BULLET.match(data, at) is not None:
        return _list_kind(data, at, end)
    if _TOP_BULLET.match(data, at) is not None:
        return _section_kind(data, at)
    return ""


# A bullet at the start of its line, and a heading or a line that is only a label, above a
# list of bullets ("## Relationships", "**Influenced by**", "Influenced by:").
_TOP_BULLET = re.compile(rb"(?:[-*+]|\d+[.)])[ \t]")
_IN_LIST = re.compile(rb"[ \t]*(?:[-*+]|\d+[.)])[ \t]|[ \t]+\S")
_SECTION_HEAD = re.compile(
    rb"[ \t]*(?:#{1,6}[ \t]+(?:\*\*|__)?|(?:\*\*|__))?[ \t]*([A-Za-z][A-Za-z \t]{0,30}?)[ \t]*"
    rb"(?::[ \t]*(?:\*\*|__)?|(?:\*\*|__)[ \t]*:?)?[ \t]*\r?$"
)
_SECTION_ITEMS = 40  # how many lines a section's bullets are read up to its heading, at most
_SECTION_SPAN = 6000  # ... and how many bytes
# A line that is only a label, bold or with its colon ("**Relationships**", "Influenced by:").
_LABEL_LINE = re.compile(
    rb"\n[ \t]*(?:\*\*|__)?[A-Za-z][A-Za-z \t]{0,30}?[ \t]*"
    rb"(?::[ \t]*(?:\*\*|__)?|(?:\*\*|__)[ \t]*:?)[ \t]*\r?\n"
)


def _label_heading(data: bytes, at: int) -> bool:
    """Whether the line at ``at`` is a heading that is a label ("## Relationships")."""
    if not data.startswith(b"#", at):
        return False
    stop = data.find(b"\n", at)
    head = _SECTION_HEAD.match(data, at, len(data) if stop < 0 else stop)
    return head is not None and b" ".join(head.group(1).lower().split()).decode() in LABELS


def _section_kind(data: bytes, at: int) -> str:
    """The kind of a bullet at ``at`` from the heading of its list: a heading or a line that
    is only a label ("## Relationships" / "" / "- **Sophia Mindwell**: ..."); "" under any
    other heading ("## Frame 12") or line, or past a list too long to be one."""
    # most lists are a frame's: under a heading that is no label, with no label line between
    # (found without walking the lines: a bullet of a long list is read once, not its list)
    heading = data.rfind(b"\n#", 0, at) + 1
    if not _label_heading(data, heading) and (
        _LABEL_LINE.search(data, max(heading, at - _SECTION_SPAN), at) is None
    ):
        return ""
    for _ in range(_SECTION_ITEMS):
        if at == 0:
            return ""
        at = data.rfind(b"\n", 0, at - 1) + 1
        stop = data.find(b"\n", at)
        stop = len(data) if stop < 0 else stop
        if at == stop or _IN_LIST.match(data, at) is not None or not data[at:stop].strip():
            continue
        head = _SECTION_HEAD.match(data, at, stop)
        if head is None or (b":" not in data[at:stop] and data[at : at + 1] not in b"#*_"):
            return ""
        return LABELS.get(b" ".join(head.group(1).lower().split()).decode("ascii"), "")
    return ""


# An indented line that is no bullet: the bullet above goes on ("  debater-07's tests.").
_CONTINUATION = re.compile(rb"[ \t]+(?![-*+][ \t]|\d+[.)][ \t]|#|\s)")
_CONTINUED = 8  # how many lines a bullet is followed up, at most


# A bullet indented under another ("  - Kofi Mensah — partner"), and a bullet that is only its
# label, its items on the lines below ("- Relationships:").
_SUB_BULLET = re.compile(rb"([ \t]+)[-*+][ \t]")
_INDENT = re.compile(rb"[ \t]*")
_BARE_LABEL = re.compile(rb"[^\n:]{1,48}:[ \t]*(?:\*\*|__)?[ \t]*$", re.M)


def _list_kind(data: bytes, at: int, end: int) -> str:
    """The kind of an indented bullet at ``at`` from the bullet it is an item of: one that is
    only a label, its items below it ("- Relationships:" / "  - Kofi Mensah — partner")."""
    depth = len(_INDENT.match(data, at).group())  # type: ignore[union-attr]
    for _ in range(_LISTED_ITEMS):
        above = data.rfind(b"\n", 0, at - 1) + 1
        if above == at or _is_blank_line(data, above, at - 1):
            return ""
        at = above
        if len(_INDENT.match(data, at).group()) < depth:  # type: ignore[union-attr]
            stop = data.find(b"\n", at, end)
            stop = end if stop < 0 else stop
            if _BARE_LABEL.match(data, at, stop) is None:
                return ""
            return _label_kind(data, at, stop)
    return ""


_LISTED_ITEMS = 24  # how many items of a list are read up to its label, at most


def _is_blank_line(data: bytes, start: int, stop: int) -> bool:
    return not data[start:stop].strip()


def _label_kind(data: bytes, at: int, end: int) -> str:
    """``line_kind`` of the line at ``at`` itself."""
    # A label has its colon, and a vote its word, near the line's start: most lines have
    # neither, and are passed over without the pattern.
    head = data[at : min(end, at + _HEAD_SPAN)].lower()
    if b":" not in head and b"vot" not in head and b"react" not in head:
        return ""
    plain = _PLAIN_LABEL.match(data, at, end)  # "- Influenced by:", "- **Becoming:**": most
    if plain is not None:
        kind = LABELS.get(plain.group(1).lower().decode("ascii"))
        if kind is not None:
            return kind
    m = _LINE_HEAD.match(data, at, end)
    if m is None:
        return ""
    label = m.group(1)
    if label is None:
        return "vote"
    kind = LABELS.get(b" ".join(label.lower().split()).decode("ascii"))
    if kind is None and _VOTE_WORD.match(label):
        return "vote"  # "Votes cast: ..."
    return kind or ""


# A name as the phrases below capture it: an id (dots inside, not at the end) or a word.
# (after a title, which souls write before a name or leave out: "Dr. Amara Singh")
_NAME = (
    rb"(?:\*\*?|__|\[\[|[\"'`\[]|\xe2\x80[\x98\x9c])?@?(?:(?-i:Dr|Mr|Mrs|Ms|Mx|Prof|Capt|St)\.[ \t]+)?"
    rb"((?:\w|[\xc3-\xd4][\x80-\xbf])"
    rb"(?:[\w-]|[\xc3-\xd4][\x80-\xbf])*(?:\.[\w-]+)*)"
)
_POSSESSIVE = rb"(?:'s|\xe2\x80\x99s|'|\xe2\x80\x99)"
# A pattern that begins with a name begins at a word's start only (tried at every position of
# a line otherwise, each word again from each of its letters).
_LEAD = rb"(?<![\w.@-])"
# The further words of a display name before its possessive ("Ruth Vega's"): the first is
# the name the phrase captures.
_SURNAMES = rb"(?:[ \t]+(?-i:[A-Z])[\w-]*){0,2}"
# Replies: the verb, a place ("on #6686", "under #12 (its title)"), then to whom.
_REPLY = re.compile(
    rb"\b(?:repl(?:ied|ies|y|ying)|respon(?:ded|ds|d|ding|se|ses)|wr(?:ote|ites?|iting)[ \t]+back"
    rb"|follow(?:ed|s|ing)?[ \t]+up|circl(?:ed|es|ing)[ \t]+back)"
    rb"(?:[ \t]+(?:on|in|under|at|for|via)[ \t]+[^\s,;]+(?:[ \t]*\([^)\n]{0,160}\))?)?"
    rb"(?:[ \t]+with(?:[ \t]+[^\s,;:]+){1,3}?)?[ \t]*[,(]?[ \t]*\bto[ \t]+"
    rb"(?:(?:both|each[ \t]+of|all[ \t]+of)[ \t]+)?"
    + _NAME
    # under the other's post: "Replied under coder-01's post"
    + rb"|\brepl(?:ied|ies|y|ying)[ \t]+(?:under|on|in)[ \t]+"
    + _NAME
    + _POSSESSIVE,
    re.I,
)
# The other and the writer in an exchange: "X and I went back and forth on #12", "X and I
# debated the quorum" (not "X and I agreed").
_WE_EXCHANGED = re.compile(
    _LEAD
    + _NAME
    + rb"[ \t]+and[ \t]+(?-i:I)[ \t]+(?:then[ \t]+|also[ \t]+)?(?:went[ \t]+back[ \t]+and[ \t]+forth"
    rb"|debated|argued|sparred|clashed|disagreed|traded|exchanged|replied[ \t]+to[ \t]+each)\b",
    re.I,
)
# The writer's replies in other words (a pattern of its own, tried on the lines that hold its
# words only: "Got back to X", "Debated X", "Re: X's post", "My answer to X", "Picked up X's
# thread", "Sent X a reply").
_REPLY_MORE = re.compile(
    # an exchange with the other: "Got back to X", "Followed up with X", "Debated X", "Traded
    # replies with X", "Went back and forth with X"
    rb"\b(?:g(?:ot|ets?|etting)[ \t]+back[ \t]+to|follow(?:ed|s|ing)?[ \t]+up[ \t]+with"
    rb"|debat(?:ed|es|ing)(?:[ \t]+with)?|spar(?:red|s|ring)[ \t]+with"
    rb"|(?:trad|exchang)(?:ed|es|ing)[ \t]+(?:replies|posts|comments|messages|words|notes"
    rb"|arguments|blows|jabs|barbs)[ \t]+with"
    rb"|(?:went|go(?:es|ing)?)[ \t]+back[ \t]+and[ \t]+forth[ \t]+with)[ \t]+"
    + _NAME
    # a bullet that opens with "Re:" and the other: "Re: X's post on #3 — ..."
    + rb"|^[ \t]*(?:[-*+][ \t]+)?(?:\*\*|__)?re(?:\*\*|__)?[ \t]*:(?:\*\*|__)?[ \t]*"
    + _NAME
    # "Sent X a reply"
    + rb"|\bsen[dt](?:s|ing)?[ \t]+"
    + _NAME
    + rb"[ \t]+(?:a|an|my)[ \t]+(?:\w+[ \t]+)?(?:reply|response|answer|rebuttal)\b"
    # the writer's answer, a noun: "My answer to X's question", "a rebuttal to X"
    + rb"|\b(?:answers?|rebuttals?)[ \t]+to[ \t]+"
    + _NAME
    # on in the other's thread: "Picked up X's thread", "weighed in on X's post"
    + rb"|\b(?:(?:pick(?:ed|s|ing)?|took|tak(?:es|ing))[ \t]+up|join(?:ed|s|ing)?"
    rb"|(?:weigh(?:ed|s|ing)?|chim(?:ed|es|ing)|cut(?:s|ting)?)[ \t]+in[ \t]+on"
    rb"|jump(?:ed|s|ing)?[ \t]+into)[ \t]+"
    + _NAME
    + _SURNAMES
    + _POSSESSIVE
    + rb"[ \t]+(?:[\w-]+[ \t]+)?(?:thread|post|discussion|conversation|debate)s?\b",
    re.I,
)
# What the other asked, replied to: "Replied to a question from X", "Answered the challenge
# X posed" (a pattern of its own: "Replied to a" is a reply to no one in ``_REPLY``).
_REPLY_ASKED = re.compile(
    rb"\b(?:repl(?:ied|ying|y)[ \t]+to|answer(?:ed|ing)?|respond(?:ed|ing)?[ \t]+to|tackl(?:ed|ing))"
    rb"[ \t]+(?:a|the|an)[ \t]+(?:\w+[ \t]+)?(?:question|challenge|objection|point|query|critique)s?"
    rb"[ \t]+(?:from|by|of)[ \t]+"
    + _NAME
    + rb"|\b(?:answer(?:ed|ing)?|tackl(?:ed|ing))[ \t]+(?:a|the|an)[ \t]+(?:\w+[ \t]+)?"
    rb"(?:question|challenge|objection|query)s?[ \t]+(?:that[ \t]+)?"
    + _NAME
    + rb"[ \t]+(?:had[ \t]+)?(?:posed|asked|raised|put|posted)\b",
    re.I,
)
# The other asked the writer, who answered: "X asked me why the cloth shrank; I answered
# that ...", "X pressed us on the numbers and we replied" (not "X asked me about it" alone).
_ASKED_ME = re.compile(
    _LEAD + _NAME + rb"(?:[ \t]+\([^)\n]{0,80}\))?[ \t]+(?:asked|pressed|quizzed)[ \t]+(?:me|us)\b"
    rb"[^.!?\n]{0,120}?(?<![\w-])(?-i:I|[Ww]e)[ \t]+(?:then[ \t]+|finally[ \t]+)?"
    rb"(?:answered|replied|responded|wrote[ \t]+back|explained)\b",
    re.I,
)
_ANSWER = re.compile(
    rb"\b(?:answer(?:ed|s|ing)?|rebut(?:ted|s|ting)?|counter(?:ed|s|ing)?|retort(?:ed|s|ing)?"
    rb"(?:[ \t]+to)?|refut(?:ed|es|ing)|disput(?:ed|es|ing)|challeng(?:ed|es|ing)"
    rb"|push(?:ed|es|ing)?[ \t]+back[ \t]+(?:on|against|at)"
    rb"|(?:disagree(?:d|s|ing)?|argu(?:ed|es|ing))[ \t]+with)[ \t]+" + _NAME,
    re.I,
)
# Another agent as the object of "answered": "answered philosopher-03", "answered Grace" (not
# "responded Case File": a reply with it; nor a word of a line in capitals, "Convinced Me",
# "Forced This", "Pointed Out The Gap").
_OBJECT = (
    rb"[ \t]+@?(?:[A-Za-z][\w]*-[\w-]*\d|(?!(?:this|that|the|these|those|it|me|my|us|our|a|an"
    rb"|him|her|them|everyone|everything|all|out|up|back|to|on|in|with)\b)(?-i:[A-Z][a-z]))"
)
_OBJECTED = (
    rb"(?:challenged|rebutted|countered|questioned|objected|pushed[ \t]+back|disagreed|argued)"
)
# The other replied to this agent: "coder-05 replied to my post", "debater-06 answered",
# "philosopher-09 replied with a challenge" (not "coder-05 replied to debater-06").
_REPLIED_TO_ME = re.compile(
    _LEAD
    + _NAME
    + rb"(?:[ \t]+\([^)\n]{0,80}\))?[ \t]+(?:(?:replied|responded|answered|commented|wrote"
    rb"[ \t]+back)\b(?:[ \t]+(?:back[ \t]+)?(?:to|on|under)[ \t]+(?:me|my)\b"
    rb"|[ \t]+(?:on|under)[ \t]+#\d|(?![ \t]+(?:back[ \t]+)?(?:to|on|under)\b|(?<=answered)"
    + _OBJECT
    # another's question: "X answered a question from Y"
    + rb"|[ \t]+(?:a|the|an)[ \t]+(?:\w+[ \t]+)?(?:question|challenge|objection|point|query|post"
    rb"|comment|critique)s?[ \t]+(?:from|by|of)[ \t]+(?!(?:me|mine|my|us|ours|our)\b)" + rb"))"
    rb"|(?:challenged|rebutted|countered|questioned|pushed[ \t]+back[ \t]+on"
    rb"|(?:disagreed|argued)[ \t]+with)[ \t]+(?:me|my)\b"
    # what it objected, after a colon: "philosopher-10 challenged: my analysis IS the bloat"
    rb"|" + _OBJECTED + rb"[ \t]*:)",
    re.I,
)
# Its reply to the writer: "Boundary Tester's reply to my comment" (a pattern of its own: as
# an alternative of the one above it was tried at every word of every line that replies).
_REPLY_TO_ME = re.compile(
    _LEAD
    + _NAME
    + _POSSESSIVE
    + rb"[ \t]+(?:repl(?:y|ies)|responses?|answers?|rebuttals?)[ \t]+(?:to|on)[ \t]+(?:me|my)\b",
    re.I,
)
# Answered by the other: "Rebutted by coder-12 on #303", "challenged by X", "a reply from X",
# "heard back from X".
_ANSWERED_BY = re.compile(
    rb"\b(?:(?:rebutted|challenged|countered|questioned|answered|refuted|disputed"
    rb"|(?:replied|responded)[ \t]+to)[ \t]+by"
    rb"|(?:repl(?:y|ies)|responses?|answers?|heard[ \t]+back|pushback|disagreement)[ \t]+from)"
    rb"[ \t]+" + _NAME,
    re.I,
)
# Another agent as the subject of a reply: "coder-06 replied to coder-07", "zion-coder-06
# (the builder) responded to", "they challenged X", "who had replied to X", or whose reply it
# is: "Grace's reply to X", "her reply to X" (not "my reply to X").
_SUBJECT = re.compile(
    rb"(?:(?:(?<![\w-])[a-z][\w-]*-\d{1,4}(?:[ \t]+\([^)\n]{0,80}\))?|\b(?:they|he|she|who))"
    rb"(?:[ \t]+(?:had|has|have|then|also|just|already|once|later|first|quickly))*"
    rb"|(?<![\w-])(?:[\w-]+" + _POSSESSIVE + rb"|his|her|their|its))[ \t]+$",
    re.I,
)
# the writer's own replies, when no one else is their subject
_ANSWERING = (_REPLY, _ANSWER, _REPLY_ASKED, _REPLY_MORE)
# A thing as the subject of a challenge, which then challenges an idea, not an agent the writer
# answered: "This challenges X's framing", "The census counters X's claim", "a post which
# disputes X" (not "My reply challenged X", nor the writer's own "Challenged X's claim",
# "I challenged X", "Then countered X"): a pronoun of a thing or a relative pronoun, or at the
# start of a clause a noun phrase with its article, or one word before a verb in "-s".
_THING_SUBJECT = re.compile(
    rb"(?:\b(?:which|that)"
    rb"|(?:^|[.;:,(!?]|\xe2\x80[\x93\x94]|\b(?:and|but|so|yet|because|since|while))"
    rb"[ \t]*(?:[-*+][ \t]+)?(?:\*\*|__)?[ \t]*(?:this|it|these|those"
    rb"|(?:the|a|an|my|our|its|this|that|these|those|each|every|one)[ \t]+"
    rb"(?!(?:reply|replies|response|responses|comment|comments|rebuttal|answer)\b)[\w'-]+"
    rb"(?:[ \t]+(?!(?:reply|replies|response|responses|comment|comments|rebuttal|answer)\b)"
    rb"[\w'-]+){0,2}"
    rb"|(?P<word>(?!(?:i|we|which|that|also|then|still|again|now|just|first|later|finally)\b)"
    rb"[a-z][\w-]*(?<!ly))))"
    rb"(?:[ \t]+\w+ly)?[ \t]+$",
    re.I,
)


# After a name (or a display name's first word), its possessive: "X's framing", "Ruth Vega's".
_IDEA = re.compile(rb"(?:[ \t]+(?-i:[A-Z])[\w-]*){0,2}" + _POSSESSIVE)


def _by_a_thing(line: bytes, m: re.Match[bytes]) -> bool:
    """Whether the challenge ``m`` (of ``_ANSWER``) has a thing as its subject
    (``_THING_SUBJECT``) and the other's idea as its object: an idea challenged, no reply.
    "answered" is left a reply ("which answers X's question": a post that answers), and so is
    a challenge of the other itself ("a rebuttal that challenged X directly")."""
    verb = _WORD_RUN.match(line, m.start()).group().lower()  # type: ignore[union-attr]
    if verb.startswith(b"answer") or _IDEA.match(line, m.end()) is None:
        return False
    found = _THING_SUBJECT.search(line, max(0, m.start() - 48), m.start())
    if found is None:
        return False
    # one bare word as the subject only before a verb in "-s" ("Evidence challenges X"), not
    # one in "-ed" ("Publicly challenged X", "Then rebutted X": the writer's)
    return found.group("word") is None or verb.endswith(b"s")


# More names in the same list: "Replied to coder-05 and coder-07".
_MORE = re.compile(
    rb"(?:'s|\xe2\x80\x99s)?(?:\]\]|\*\*?|`)?(?:/#\d+)?[ \t]*(?:,|&|/|\+|\band\b)[ \t]*" + _NAME,
    re.I,
)
# A reply's next place and name in the same sentence: "Replied on #12 to X and on #13 to Y",
# "Replied to X on #12 and to Y on #13".
_AND_TO = re.compile(
    rb"(?:[ \t]+(?:on|in|under)[ \t]+#[^\s,;]+)?[ \t]*(?:,[ \t]*)?(?:and|then|&|,)"
    rb"(?:[ \t]+(?:then|also))?[ \t]+(?:(?:on|in|under)[ \t]+#[^\s,;]+[ \t]+)?to[ \t]+" + _NAME,
    re.I,
)
_COMMENT = re.compile(
    rb"\bcomment(?:ed|s|ing)?[ \t]+(?:on|under|in|to)[ \t]+(?:the[ \t]+)?"
    + _NAME
    + _POSSESSIVE
    + rb"|\bcomment(?:ed|s|ing)?[ \t]+(?:on|under)[ \t]+#\d+[^\n]{0,80}?\bby[ \t]+"
    + _NAME,
    re.I,
)
# Credit in running text: "borrowed X's method", "thanks to X", "X forced this", "X's critique
# was correct".
# Words of a mind that moved: "realized", "revised", "changed", "reconsidered", "retracted",
# "flipped my vote".
_MOVED = (
    rb"(?:(?:realiz|revis|chang|updat|switch|reconsider|decid|shift|adjust|conced|dropp|abandon"
    rb"|pivot|revers|retract|recant)(?:ed|ing)|rethought|rethinking"
    rb"|flipp(?:ed|ing)[ \t]+(?:my|our))\b"
)
# The rest of a sentence: a full stop inside a number ("0.40") does not end it.
_IN_SENTENCE = rb"(?:[^.;\n]|[.;](?!\s))"
_CREDIT_BEFORE = re.compile(
    rb"\b(?:(?:borrow|adopt|steal|appl(?:y|i)|extend|echo|reus|build(?:ing)?[ \t]+on|built[ \t]+on"
    rb"|follow(?:ing)?)\w*(?:[ \t]+from)?|took(?:[ \t]+from)?|stole(?:[ \t]+from)?"
    rb"|cit(?:e[ds]?|ing)"
    rb"|after[ \t]+(?:reading|seeing|hearing|watching|studying)|per"
    rb"|dr(?:ew|aw|awing|awn)[ \t]+(?:on|from))[ \t]+"
    + _NAME
    + _SURNAMES
    + _POSSESSIVE
    # "after X's" is a credit where the writer's mind moved in its sentence ("revised up to
    # 0.40 after X's contribution", "After X's analysis, realized"), not a time ("Planted 3
    # questions after X's return")
    + rb"|\b"
    + _MOVED
    + _IN_SENTENCE
    + rb"{0,60}?\bafter[ \t]+"
    + _NAME
    + _SURNAMES
    + _POSSESSIVE
    + rb"|\bafter[ \t]+"
    + _NAME
    + _SURNAMES
    + _POSSESSIVE
    + _IN_SENTENCE
    + rb"{0,80}?\b"
    + _MOVED
    + rb"|\bas[ \t]+"
    + _NAME
    + _SURNAMES
    + rb"[ \t]+(?:argued|noted|put[ \t]+it|pointed[ \t]+out|showed|suggested|warned|predicted"
    rb"|observed|proposed|framed[ \t]+it)\b"
    + rb"|\b(?:credit(?:s|ed|ing)?(?:[ \t]+(?:to|goes[ \t]+to)|[ \t]*:)?|thanks[ \t]+to|thank(?:ed|ing)?"
    rb"|thanks[ \t]*,|h/t|hat[ \t-]tip(?:[ \t]+to)?|shout-?outs?[ \t]+to|(?:kudos|props|grateful|indebted)[ \t]+to"
    rb"|learn(?:ed|t|ing)[ \t]+from"
    rb"|owe[ds]?|because[ \t]+of"
    rb"|after[ \t]+(?:talking|speaking|conversations?|a[ \t]+conversation|a[ \t]+talk)[ \t]+with|conced(?:ed|es|ing)?[ \t]+to"
    rb"|(?:inspired|convinced|persuaded"
    rb"|moved|prompted|shaped|influenced|changed|corrected|forced|pushed|swayed|won[ \t]+over)"
    rb"[ \t]+by)[ \t]+" + _NAME,
    re.I,
)
# Credits in more words (a pattern of its own, tried on the lines that hold its words only):
# "Came around to X's view", "Modeled the parser on X's", "Leaned on X's parser", "standing on
# X's shoulders", "forked X's map", "with X's help", "credit where it's due: X", "a nod to X",
# "Echoing X:", "Gave X credit", "Owe this frame's calm to X" (not a debt: "owed money to X",
# "owe a reply to X").
_CREDIT_MORE = re.compile(
    rb"\b(?:c(?:ame|omes?|oming)[ \t]+(?:a)?round[ \t]+to|fork(?:ed|ing|s)?|remix(?:ed|es|ing)?"
    rb"|riff(?:ed|s|ing)?[ \t]+o(?:n|ff)|buil(?:t|ds?|ding)[ \t]+(?:atop|on[ \t]+top[ \t]+of)"
    rb"|expand(?:ed|s|ing)?[ \t]+(?:up)?on|adapt(?:ed|s|ing)?|integrat(?:ed|es|ing)"
    rb"|incorporat(?:ed|es|ing)|heed(?:ed|s|ing)?"
    rb"|(?:dr(?:ew|aw|aws|awing|awn)|took|tak(?:e|es|ing)|found|find(?:s|ing)?|g(?:ot|ets?|etting))"
    rb"[ \t]+(?:\w+[ \t]+)?inspiration[ \t]+(?:from|in)"
    rb"|(?:model|pattern)(?:l?ed|l?ing|s)?(?:[ \t]+[\w-]+){0,3}?[ \t]+(?:on|after)"
    rb"|(?:lean(?:s|ed|t|ing)?|rel(?:y|ies|ied|ying)|st(?:and|ands|ood|anding))[ \t]+on)[ \t]+"
    + _NAME
    + _SURNAMES
    + _POSSESSIVE
    + rb"|\bwith[ \t]+"
    + _NAME
    + _SURNAMES
    + _POSSESSIVE
    + rb"[ \t]+(?:\w+[ \t]+)?(?:help|guidance|support|tips?|advice|input|feedback|mentoring)\b"
    # the other's work that moved the writer: "Inspired by a thread by X"
    + rb"|\b(?:inspired|influenced|moved|shaped|convinced|persuaded|changed)[ \t]+by[ \t]+"
    rb"(?:a|an|the|one)[ \t]+(?:\w+[ \t]+)?(?:post|thread|comment|reply|essay|argument|note|line"
    rb"|question|story|poem|piece|proposal|paper|talk|remark)s?[ \t]+(?:by|from|of)[ \t]+"
    + _NAME
    + rb"|\b(?:credit[ \t]+where[ \t]+(?:it(?:'s|[ \t]+is)[ \t]+)?due[ \t]*(?:[:,]|\xe2\x80[\x93\x94])?"
    rb"|(?:a[ \t]+)?nods?[ \t]+to|with[ \t]+(?:the[ \t]+)?help[ \t]+(?:of|from)|echo(?:ed|ing)"
    rb"|(?:gave|give|gives|giving)(?=[ \t]+\S+[ \t]+(?:the[ \t]+|full[ \t]+|all[ \t]+the[ \t]+)?credit\b)"
    rb"|ow(?:e|es|ed|ing)[ \t]+(?!(?:money|coins?|cash|debts?|rent|fees?|taxes|dues|an?[ \t]+"
    rb"(?:reply|response|answer|apology|debt|refund|visit|comment|review)|(?:them|him|her|you|nothing"
    rb"|none|little|no|zero)\b))"
    rb"(?:[\w'\xe2\x80\x99-]+[ \t]+){1,5}?to)[ \t]+" + _NAME,
    re.I,
)
# Whose words the writer takes up: "As X said, the loop stays", "as Sophia Mindwell says" (a
# pattern of its own: these verbs are on many lines that take up no one's words).
_AS_SAID = re.compile(
    rb"\bas[ \t]+" + _NAME + _SURNAMES + rb"[ \t]+(?:says|said|wrote|writes|taught|teaches)\b", re.I
)
# What the writer took from the other: "Borrowed the census method from X", "Picked up the
# term from X" (not blame or flak: "took heat from X").
_TOOK_FROM = re.compile(
    rb"\b(?:borrow(?:ed|ing|s)?|adopt(?:ed|ing|s)?|took|tak(?:e|es|ing)|stole|steal(?:s|ing)?"
    rb"|lift(?:ed|ing|s)?|inherit(?:ed|ing|s)?|pick(?:ed|s|ing)?[ \t]+up|learn(?:ed|t|s|ing)?)"
    rb"(?:[ \t]+(?!(?:from|over|off|away|back|flak|heat|fire|criticism|pushback|questions?|hits?"
    rb"|damage|abuse|blame|a[ \t]+break|time|nothing|little|none|zero)\b)[\w'\"-]+){1,4}?[ \t]+from[ \t]+"
    + _NAME,
    re.I,
)
# What the agent grants another's contribution: "X's critique was correct", "X's Q4 was the
# kill shot", "X's addition is worth integrating".
_VERDICT = (
    rb"(?:right|correct|fair|decisive|convincing|compelling|persuasive|valid|legitimate|sound"
    rb"|worth[ \t]+\w+ing|the[ \t]+prompt|the[ \t]+(?:best|strongest|sharpest|key|kill|turning"
    rb"|deciding))\b"
)
# What the other did to the writer's own claim that moved it: "dismantled my claim",
# "refuted my census" (not another's: "refuted debater-07's census").
_DISMANTLED = (
    rb"(?:dismantled|demolished|punctured|refuted|debunked|overturned|broke|disproved)"
    rb"[ \t]+(?:my|me)"
)
_CREDIT_AFTER = re.compile(
    _LEAD
    + _NAME
    # who it is, in a parenthesis: "coder-01 (Grace) convinced me"
    + rb"(?:[ \t]+\([^)\n]{0,60}\))?"
    + rb"(?:"
    + _POSSESSIVE
    + rb"(?:[ \t]+[\w-]+){1,3}"
    # what it was about: "X's critique of the grid on #40 was right"
    + rb"(?:[ \t]+(?:of|on|in|about|for|over)[ \t]+(?:(?:the|my|our)[ \t]+)?[^\s,;.:]+){0,2})?"
    # another set against it: "X, not Y, convinced me", "X (rather than Y) taught me"
    + rb"(?:[ \t]*(?:,|\()[ \t]*(?:not|rather[ \t]+than|more[ \t]+than|and[ \t]+not)[ \t]+"
    rb"[^,()\n]{1,48}(?:,|\)))?"
    # "It was X who changed my mind"
     + rb"(?:[ \t]*,?[ \t]+who)?" + rb"[ \t]+(?:(?:forced|convinced"
    rb"|persuaded|taught|inspired|corrected|reframed|reshaped|sharpened|prompted|cracked|changed"
    rb"[ \t]+my|shifted[ \t]+my|showed[ \t]+me|won[ \t]+me|pushed[ \t]+me|nudged[ \t]+me"
    rb"|moved[ \t]+me|made[ \t]+me|helped[ \t]+me|pointed[ \t]+out"
    rb"|talked[ \t]+me[ \t]+(?:into|out[ \t]+of)|got[ \t]+me[ \t]+(?:thinking|to)"
    rb"|shaped[ \t]+(?:me|my|how[ \t]+I)"
    rb"|opened[ \t]+my[ \t]+eyes|deserves?[ \t]+(?:the[ \t]+|all[ \t]+the[ \t]+)?credit"
    rb"|gets?[ \t]+(?:the|all[ \t]+the)[ \t]+credit"
    rb"|" + _DISMANTLED + rb")\b(?!" + _OBJECT + rb")"
    # another one's mind: "X convinced him", "X taught them"
    rb"(?![ \t]+(?:him|her|them|others|nobody|no[ \t]+one)\b)"
    rb"|(?:was|were|is|proved|turned"
    rb"[ \t]+out)[ \t]+" + _VERDICT + rb")",
    re.I,
)

# What the other said that stayed with the writer: "X's idea of a twist without sizing stuck
# with me", "X's warning about drift finally sank in" (not "X's cart stuck in the mud", nor
# "X's point never stuck").
_STUCK = re.compile(
    _LEAD
    + _NAME
    + _SURNAMES
    + _POSSESSIVE
    + rb"(?:[ \t]+[\w-]+)?[ \t]+(?:ideas?|points?|framings?|notions?|phrases?|terms?|arguments?"
    rb"|questions?|advice|images?|metaphors?|lines?|observations?|remarks?|insights?|words?"
    rb"|suggestions?|claims?|theory|thesis|critiques?|warnings?|examples?|lessons?|methods?)\b"
    rb"(?:(?!\b(?:not|never|hardly|barely|no[ \t]+longer)\b|n't)[^.;!?\n]){0,80}?"
    rb"\b(?:stuck(?![ \t]+with[ \t]+(?!me\b|us\b))|stayed[ \t]+with[ \t]+(?:me|us)|sank[ \t]+in"
    rb"|clicked|won[ \t]+(?:me|us)[ \t]+over"
    rb"|rang[ \t]+true|hit[ \t]+home|changed[ \t]+(?:my|our)[ \t]+minds?|opened[ \t]+(?:my|our)"
    rb"[ \t]+eyes)\b",
    re.I,
)
_STUCK_WORDS = (
    b"stuck",
    b"stayed with",
    b"sank in",
    b"clicked",
    b"won me over",
    b"won us over",
    b"rang true",
    b"hit home",
    b"changed my mind",
    b"changed our mind",
    b"opened my eyes",
    b"opened our eyes",
)

# The agent thanks the other for what it gave: "@coder-05 thanks for the map", "Grace, thank
# you for the review".
_THANKED = re.compile(
    _LEAD + _NAME + rb"[ \t]*(?:[,:]|\xe2\x80[\x93\x94])?[ \t]*thank(?:s|[ \t]+you)"
    rb"(?:[ \t]+(?:so[ \t]+much|again))?[ \t]+for\b",
    re.I,
)


# What follows the name in the patterns that begin with one (tried at every word of a line):
# the verb, after a space. A line without it holds no match, and is not tried word by word.
_TAILS = {
    # (after a name's last character or a parenthesis: not the verb that opens a bullet,
    # "- Commented on #12")
    _REPLIED_TO_ME: re.compile(
        rb"[\w)\x80-\xbf][ \t]+(?:replied|responded|answered|commented|wrote[ \t]+back|challenged|rebutted"
        rb"|countered|questioned|pushed[ \t]+back|(?:disagreed|argued)[ \t]+with"
        rb"|" + _OBJECTED + rb"[ \t]*:)",
        re.I,
    ),
    _TOOK_FROM: re.compile(rb"\bfrom[ \t]", re.I),
    _STUCK: re.compile(b"|".join(re.escape(w) for w in _STUCK_WORDS), re.I),
    _WE_EXCHANGED: re.compile(rb"[ \t]and[ \t]+I[ \t]"),
    _ASKED_ME: re.compile(rb"[\w)\x80-\xbf][ \t]+(?:asked|pressed|quizzed)[ \t]+(?:me|us)\b", re.I),
    _REPLY_TO_ME: re.compile(
        rb"(?:repl(?:y|ies)|responses?|answers?|rebuttals?)[ \t]+(?:to|on)[ \t]+(?:me|my)\b", re.I
    ),
    _CREDIT_AFTER: re.compile(
        rb"[ \t](?:(?:forced|convinced|persuaded|taught|inspired|corrected|reframed|reshaped"
        rb"|sharpened|prompted|cracked|changed[ \t]+my|shifted[ \t]+my|showed[ \t]+me|won[ \t]+me"
        rb"|pushed[ \t]+me|nudged[ \t]+me|moved[ \t]+me|made[ \t]+me|helped[ \t]+me"
        rb"|pointed[ \t]+out|talked[ \t]+me|got[ \t]+me|opened[ \t]+my|deserves?|gets?[ \t]+(?:the|all)"
        rb"|shaped[ \t]+(?:me|my|how)"
        rb"|" + _DISMANTLED + rb")"
        rb"\b|(?:was|were|is|proved|turned[ \t]+out)[ \t]+" + _VERDICT + rb")",
        re.I,
    ),
}


# The words each pattern needs (lowered): a line is tried only with the patterns whose words
# it holds (most lines hold none), all found by one pass over the line.
_NEEDS: tuple[tuple[re.Pattern[bytes], str, tuple[bytes, ...]], ...] = (
    (
        _REPLY,
        "reply",
        (
            b"repl",
            b"respon",
            b" back",
            b"follow",
        ),
    ),
    (
        _REPLY_MORE,
        "reply",
        (
            b"answer to",
            b"answers to",
            b"rebuttal",
            b"picked up",
            b"picks up",
            b"picking up",
            b"pick up",
            b"took up",
            b"takes up",
            b"taking up",
            b"join",
            b" in on ",
            b"jump",
            b"- re:",
            b"* re:",
            b"- **re",
            b"* **re",
            b" sent ",
            b" send ",
            b" sends ",
            b" sending ",
            b"got back",
            b"get back",
            b"gets back",
            b"getting back",
            b"up with",
            b"debated",
            b"debating",
            b"sparr",
            b"spars",
            b"traded",
            b"trading",
            b"trades",
            b"exchang",
            b"forth",
        ),
    ),
    (_ASKED_ME, "reply", (b"asked", b"pressed", b"quizzed")),
    (
        _REPLY_ASKED,
        "reply",
        (
            b"replied to a",
            b"replied to the",
            b"replying to a",
            b"replying to the",
            b"reply to a",
            b"reply to the",
            b"answered a",
            b"answered the",
            b"answering a",
            b"answering the",
            b"answer a",
            b"answer the",
            b"responded to a",
            b"responded to the",
            b"tackl",
        ),
    ),
    (_WE_EXCHANGED, "reply", (b"and i ",)),
    (
        _ANSWER,
        "reply",
        (
            b"answer",
            b"rebut",
            b"counter",
            b"retort",
            b"refut",
            b"disput",
            b"challeng",
            b"push",
            b"disagree",
            b"argu",
        ),
    ),
    (
        _REPLIED_TO_ME,
        "reply",
        (
            b"replied",
            b"responded",
            b"answered",
            b"commented",
            b"back",
            b"challenged",
            b"rebutted",
            b"countered",
            b"questioned",
            b"disagreed",
            b"argued",
            b"objected",
        ),
    ),
    (
        _REPLY_TO_ME,
        "reply",
        (b"reply to m", b"replies to m", b"response to m", b"answer to m", b"rebuttal to m"),
    ),
    (
        _ANSWERED_BY,
        "reply",
        (
            b" by ",
            b"reply from",
            b"replies from",
            b"response",
            b"answer",
            b" back from",
            b"pushback from",
            b"disagreement from",
        ),
    ),
    (_COMMENT, "comment", (b"comment",)),
    (
        _CREDIT_BEFORE,
        "credit",
        (
            b"borrow",
            b"adopt",
            b"steal",
            b"stole",
            b"cite",
            b"citing",
            b"appl",
            b"extend",
            b"echo",
            b"reus",
            b"built",
            b"building",
            b"follow",
            b"took",
            b"after",
            b"per ",
            b"conced",
            b"drew",
            b"draw",
            b"credit",
            b"thank",
            b"learn",
            b"owe",
            b"because",
            b" by ",
            b"h/t",
            b"hat tip",
            b"hat-tip",
            b"shout",
            b"kudos",
            b"props",
            b"grateful",
            b"indebted",
            b"argued",
            b"noted",
            b"put it",
            b"pointed",
            b"showed",
            b"suggested",
            b"warned",
            b"predicted",
            b"observed",
            b"proposed",
            b"framed it",
        ),
    ),
    (
        _CREDIT_MORE,
        "credit",
        (
            b"round to",
            b"fork",
            b"remix",
            b"riff",
            b"atop",
            b"modeled",
            b"modelled",
            b"modeling",
            b"modelling",
            b"patterned",
            b"leaned on",
            b"leant on",
            b"leaning on",
            b"lean on",
            b"leans on",
            b"relied on",
            b"rely on",
            b"relies on",
            b"relying on",
            b"stand on",
            b"stands on",
            b"standing on",
            b"stood on",
            b"help",
            b"guidance",
            b"advice",
            b"feedback",
            b"mentoring",
            b"nod to",
            b"nods to",
            b"credit where",
            b"top of",
            b"expand",
            b"adapt",
            b"integrat",
            b"incorporat",
            b"heed",
            b"inspiration",
            b" by a ",
            b" by an ",
            b" by the ",
            b" by one ",
            b"echoing",
            b"echoed",
            b"gave",
            b"give",
            b"owe",
            b"owing",
        ),
    ),
    (
        _TOOK_FROM,
        "credit",
        (
            b"borrow",
            b"adopt",
            b"took",
            b"take",
            b"stole",
            b"steal",
            b"lift",
            b"inherit",
            b"pick",
            b"learn",
        ),
    ),
    (_STUCK, "credit", _STUCK_WORDS),
    (_AS_SAID, "credit", (b"said", b"says", b"wrote", b"writes", b"taught", b"teaches")),
    (_THANKED, "credit", (b"thanks for", b"thank you for", b"thanks so", b"thanks again")),
    (
        _CREDIT_AFTER,
        "credit",
        (
            b"deserve",
            b"the credit",
            b"shaped",
            b"forced",
            b"convinced",
            b"persuaded",
            b"taught",
            b"inspired",
            b"corrected",
            b"reframed",
            b"reshaped",
            b"sharpened",
            b"prompt",
            b"cracked",
            b"pointed",
            b" my",
            b" me",
            b"right",
            b"correct",
            b"fair",
            b"decisive",
            b"convincing",
            b"compelling",
            b"persuasive",
            b"valid",
            b"legitimate",
            b"sound",
            b"worth",
            b"the best",
            b"strongest",
            b"sharpest",
            b"the key",
            b"kill",
            b"turning",
            b"deciding",
        ),
    ),
)
# a word -> the patterns (indexes into _NEEDS) it calls, those of the words inside it too (one
# pass finds "replied", not the "repl" in it)
_WANTS: dict[bytes, set[int]] = {}
for _i, _need in enumerate(_NEEDS):
    for _w in _need[2]:
        _WANTS.setdefault(_w, set()).add(_i)
_WANTS = {w: {i for v, found in _WANTS.items() if v in w for i in found} for w in _WANTS}


def trie(words: Iterable[bytes]) -> bytes:
    """One pattern of ``words`` that finds what their alternation, longest first, finds (the
    longest word at each place), written as a tree of their letters: tried at a place, it
    looks at each letter once rather than at every word (three times faster on a line)."""
    root: dict = {}
    for w in words:
        node = root
        for c in w:
            node = node.setdefault(c, {})
        node[None] = {}  # a word ends here

    def branch(node: dict) -> bytes:
        alts = [
            re.escape(bytes([c])) + branch(node[c])
            for c in sorted(k for k in node if k is not None)
        ]
        if not alts:
            return b""
        body = alts[0] if len(alts) == 1 else b"(?:" + b"|".join(alts) + b")"
        if None not in node:
            return body
        return body + b"?" if len(alts) > 1 else b"(?:" + body + b")?"

    return branch(root)


_TRIGGER = re.compile(trie(_WANTS))
# the credits that are the writer's own act ("borrowed X's", "took it from X"), where another
# can be the subject instead ("You stole that from X")
_TAKING = (_CREDIT_BEFORE, _TOOK_FROM, _CREDIT_MORE)
# the patterns whose name is the subject of their verb ("X convinced me", "X replied to me")
_SUBJECT_FIRST = (_CREDIT_AFTER, _REPLIED_TO_ME, _STUCK)


# A vote in running text: its word ("Pass 2 votes:", "Voted:" mid-line, "Actually voted:
# upvote ...", "Total votes this frame") opens a stretch of votes that runs to the sentence's
# end; the noun "vote" alone ("coder-05's vote") does not, nor a kind of engagement named by
# the word ("Bare-upvote update: ... after coder-03's rescue", "18 bare upvotes", "upvote
# epidemic", ``_NOT_A_VOTE``), which votes for no one.
_VOTE_SEGMENT = re.compile(
    rb"\b(?<!bare[ \t-])(?:(?:up|down)-?vot(?:e[ds]?|ing)|vot(?:ed|es)|voting(?=[ \t]*(?:on|for|:)))"
    rb"\b" + _NOT_A_VOTE + rb".*?(?=[.!?][ \t]+[A-Z]|$)",
    re.I,
)
# A reaction before a name ("🚀 storyteller-05 #18", "👍 debater-02/#4199"): an emoji (four
# bytes), a dingbat or star (U+2600-U+27BF, U+2B50), and a variation selector after it.
_REACTION = re.compile(
    rb"(?:\xf0\x9f[\x80-\xbf][\x80-\xbf]|\xe2[\x98-\x9e][\x80-\xbf]|\xe2\xad\x90)"
    rb"(?:\xef\xb8\x8f)?[ \t]*@?$"
)


class _Phrases:
    """The names a line of running text replies to, comments on and credits (lowered), and
    the stretches of it that are votes, read when a name is first found on it."""

    __slots__ = ("reply", "comment", "credit", "votes")

    def __init__(self, line: bytes, wanted: set[int] | None = None) -> None:
        self.reply: set[bytes] = set()
        self.comment: set[bytes] = set()
        self.credit: set[bytes] = set()
        self.votes: tuple[tuple[int, int], ...] = ()
        if wanted is None:
            wanted = _wanted(line)
        for i in sorted(wanted):
            pattern, kind, _ = _NEEDS[i]
            tail = _TAILS.get(pattern)
            if tail is None or tail.search(line):
                getattr(self, kind).update(_names(line, pattern))
        if b"vot" in line.lower():
            self.votes = tuple(m.span() for m in _VOTE_SEGMENT.finditer(line))

    def kind(self, token: bytes, at: int = -1) -> str:
        """The kind of ``token``, found at offset ``at`` of the line (-1: anywhere)."""
        t = token.lower()
        if t in self.credit:
            return "credit"
        if t in self.reply:
            return "reply"
        if t in self.comment:
            return "comment"
        if any(s <= at < e for s, e in self.votes):
            return "vote"
        return "mention"


def reacted(data: bytes, start: int, pos: int) -> bool:
    """Whether the name at ``pos`` has a reaction emoji right before it (a vote)."""
    return _REACTION.search(data, max(start, pos - 8), pos) is not None


def _wanted(line: bytes) -> set[int]:
    """The patterns (indexes into ``_NEEDS``) whose words a line holds."""
    return {i for m in _TRIGGER.finditer(line.lower()) for i in _WANTS[m.group()]}


_PLAIN = _Phrases(b"", set())  # a line with none of the words: every name on it a mention


def _names(line: bytes, pattern: re.Pattern[bytes]) -> set[bytes]:
    """The names (lowered) ``pattern`` captures in a line, with the lists that follow them
    (and a reply's further places: "on #12 to X and on #13 to Y");
    not a reply another agent made ("coder-06 replied to coder-07", "they challenged
    researcher-08": neither is the writer's)."""
    out: set[bytes] = set()
    for m in pattern.finditer(line):
        name = m.group(m.lastindex or 1)
        if name is None:
            continue
        if not _writers(line, pattern, m):
            continue
        out.add(name.lower())
        if pattern in _SUBJECT_FIRST:
            out.update(_listed_before(line, m.start()))  # "X and Y convinced me"
        end = m.end()
        for _ in range(6):
            more = _AND_TO.match(line, end) if pattern is _REPLY else None
            if more is None:
                more = _MORE.match(line, _past_surnames(line, more_of=name, end=end))
            if more is None and pattern in (_CREDIT_BEFORE, _CREDIT_MORE):
                more = _more_things(line, name, end)  # "X's ledger and Y's hooks"
            if more is None:
                break
            name = more.group(1)
            out.add(name.lower())
            end = more.end()
    return out


def _writers(line: bytes, pattern: re.Pattern[bytes], m: re.Match[bytes]) -> bool:
    """Whether the reply or credit ``m`` of ``pattern`` is the writer's own: not one another
    agent made ("coder-06 replied to coder-07"), nor another's debt ("You stole that from
    Hale"), nor a challenge a thing makes (``_by_a_thing``)."""
    if pattern in _ANSWERING and _SUBJECT.search(line, max(0, m.start() - 40), m.start()):
        return False
    if pattern is _ANSWER and _by_a_thing(line, m):
        return False
    return not (
        pattern in _TAKING and _OTHER_SUBJECT.search(line, max(0, m.start() - 40), m.start())
    )


# The names listed before a name that is the subject of its phrase ("coder-01 and debater-07
# convinced me", "Both X, Y and Z replied to me"): the first link of the list an "and", those
# before it a comma.
_AND_BEFORE = re.compile(
    rb"(?<![\w.@-])@?([\w-]+)(?:'s)?[ \t]*(?:\band|&)[ \t]+(?:both[ \t]+)?$", re.I
)
_COMMA_BEFORE = re.compile(rb"(?<![\w.@-])@?([\w-]+)(?:'s)?[ \t]*,[ \t]*$")


def _listed_before(line: bytes, start: int) -> list[bytes]:
    """The names (lowered) listed before the name at ``start`` with it (``_AND_BEFORE``)."""
    out: list[bytes] = []
    found = _AND_BEFORE.search(line, max(0, start - 48), start)
    while found is not None and len(out) < 6:
        out.append(found.group(1).lower())
        found = _COMMA_BEFORE.search(line, max(0, found.start() - 48), found.start())
    return out


# Another as the subject of a credit's verb: "You stole that from X", "coder-05 borrowed X's
# method", "they had adopted X's map", "Grace, who took it from X" (not the writer's own "the
# cartographer who learned tides from X").
_OTHER_SUBJECT = re.compile(
    rb"(?:\b(?:you|he|she|they)|,[ \t]*who|(?<![\w-])[a-z][\w-]*-\d{1,4}"
    # a display name of several words: "Nova Quinn thanked Grace Hopper"
    rb"|(?<![\w'-])(?-i:[A-Z][\w'\x80-\xff-]*[ \t]+[A-Z][\w'\x80-\xff-]*))"
    rb"(?:[ \t]+(?:had|has|have|did|just|also|once|then|clearly|openly|quietly|simply))*[ \t]+$",
    re.I,
)
# The next of a list of credited things: "Inspired by X's ledger and Y's hooks".
_MORE_THINGS = re.compile(
    rb"(?:[ \t]+[\w-]+){1,3}?[ \t]*(?:,|&|\band\b)[ \t]*" + _NAME + _SURNAMES + _POSSESSIVE, re.I
)
_POSSESSIVE_AT = re.compile(_POSSESSIVE)


def _more_things(line: bytes, name: bytes, end: int) -> re.Match[bytes] | None:
    """The next credited name after a name's thing ("X's ledger and Y's hooks"), where the
    name ending at ``end`` (or its surnames) is a possessive or the match took it in."""
    if not line[:end].endswith((b"'", b"'s", b"\xe2\x80\x99", b"\xe2\x80\x99s")):
        own = _POSSESSIVE_AT.match(line, _past_surnames(line, more_of=name, end=end))
        if own is None:
            return None
        end = own.end()
    return _MORE_THINGS.match(line, end)


# The further words of a display name after its first ("Bram Okafor", "Conor O'Brien").
_FURTHER_WORDS = re.compile(
    rb"(?:[ \t]+(?!(?:And|Or|Then|Nor)\b)(?-i:[A-Z])(?:[\w-]|(?:'|\xe2\x80\x99)(?=\w)(?!s\b))*){1,2}"
)


def _past_surnames(line: bytes, more_of: bytes, end: int) -> int:
    """Where a list goes on after a name ending at ``end``: past the further words of a
    display name ("Replied to Bram Okafor and Yuki Tanaka"), not an id's."""
    if not more_of[:1].isupper() or any(48 <= c <= 57 for c in more_of):
        return end
    m = _FURTHER_WORDS.match(line, end)
    return end if m is None else m.end()


class _Lines:
    """The lines of ``data[start:end]`` as names are found on them: each line's kind and
    phrases read once."""

    __slots__ = ("data", "start", "end", "heads", "phrases")

    def __init__(self, data: bytes, start: int, end: int) -> None:
        self.data, self.start, self.end = data, start, end
        self.heads: dict[int, str] = {}
        self.phrases: dict[int, _Phrases] = {}

    def at(self, pos: int) -> tuple[int, str]:
        """(the start of the line holding ``pos``, the kind its label gives)."""
        at = self.data.rfind(b"\n", self.start, pos) + 1 or self.start
        head = self.heads.get(at)
        if head is None:
            head = self.heads[at] = line_kind(self.data, at, self.end)
        return at, head

    def of(self, at: int) -> _Phrases:
        found = self.phrases.get(at)
        if found is None:
            stop = self.data.find(b"\n", at, self.end)
            line = self.data[at : self.end if stop < 0 else stop]
            wanted = _wanted(line)
            plain = not wanted and b"vot" not in line.lower()
            found = self.phrases[at] = _PLAIN if plain else _Phrases(line, wanted)
        return found


Wanted = Callable[[str], bool] | None


def read(
    names: AgentNames, data: bytes, start: int, end: int, own: str = "", wanted: Wanted = None
) -> Iterator[tuple[int, str, str]]:
    """Every agent ``data[start:end]`` (whole lines of a soul file) names, as (offset of the
    line, agent id, kind), in the order they are written, each once a line (a name written
    twice on a line with one kind is one link). Only the runs of characters a name can be are
    looked up; with ``wanted``, only the agents it accepts; never ``own``."""
    lines = _Lines(data, start, end)
    hits = list(_ids(names, lines, own, wanted))
    if names.dotted is not None:
        hits += _dotted(names, names.dotted, lines, own, wanted)
        hits.sort()
    if names.people:
        hits += _people(names, lines, own, wanted)
        hits.sort()
    return iter(dict.fromkeys(map(_LINE_ID_KIND, hits)))


def _ids(
    names: AgentNames, lines: _Lines, own: str, wanted: Wanted
) -> Iterator[tuple[int, int, str, str]]:
    """The ids and short ids of a stretch: (offset of the name, of its line, id, kind)."""
    forms, folded = names.byte_forms, names.folded_bytes
    guess = names.guess
    data, start, end, heads = lines.data, lines.start, lines.end, lines.heads
    for m in _runs(names, data, start, end):
        token = m.group()
        who = forms.get(token)
        if who is None:
            who = folded.get(token.lower()) if not token.islower() else None
            if who is None and (not guess or (who := _guessed(names, lines, m)) is None):
                continue
        if who == own or (wanted is not None and not wanted(who)):
            continue
        pos = m.start()
        at = data.rfind(b"\n", start, pos) + 1 or start  # (``lines.at``, inline: once a name)
        kind = heads.get(at)
        if kind is None:
            kind = heads[at] = line_kind(data, at, end)
        if not kind or kind == "statement":
            kind = _running_kind(lines, at, token, pos, kind == "statement")
            if kind in ("mention", "vote") and token.isalpha():
                continue  # an id that is a plain word ("system"): in running text, the word
        elif token.isalpha() and not _listed(data, start, pos, m.end()):
            continue  # "type system thinking" in a Relationships bullet: the word again
        yield pos, at, who, _checked(lines, kind, at, token, pos, m.end())


def _checked(lines: _Lines, kind: str, at: int, token: bytes, pos: int, end: int) -> str:
    """A name's kind, read again where its clause says otherwise: a name in the reason of a
    one-agent ``Relationship:`` bullet is the reason's ("Relationship: X — Y confirmed"); a
    credit set against or denied, a reply denied or still to come, is a mention ("bigger than
    coder-09 framed it", "Did not reply to coder-01")."""
    if kind == "relationship" and _in_reason(lines.data, at, pos, end):
        kind = _running_kind(lines, at, token, pos)
    if kind == "relationship" and _in_no_one(lines.data, at, pos):
        return "mention"
    if kind == "relationship" and _gave_me(lines.data, end):
        return "credit"
    if kind == "credit" and _denied(lines.data, at, pos, end):
        return "mention"
    if kind in ("reply", "comment") and _not_done(lines.data, at, pos):
        return "mention"
    return kind


# What a relationship is, right after the agent's name: "(taught me to measure)", "— their
# dialogue was the seed for my scene".
_NATURE = re.compile(
    rb"[ \t]*(?:\(([^)\n]{0,160})\)|(?:\xe2\x80[\x93\x94]|--?|:)[ \t]*([^;\n]{0,200}))"
)
# ... that says the other gave the writer what it is: a credit.
_GAVE_ME = re.compile(
    rb"\b(?:taught|convinced|persuaded|inspired|shaped|changed|showed|forced|pushed|reshaped)"
    rb"[ \t]+(?:me|my)\b|\b(?:was|were|is|are)[ \t]+the[ \t]+(?:seed|spark|origin|catalyst"
    rb"|inspiration|trigger)\b",
    re.I,
)
# before it, what denies it or makes it the writer's act ("never taught me", "I taught my")
_NOT = re.compile(rb"\b(?:not|never|no[ \t]+longer|we)\b|n't\b|(?-i:\bI\b)", re.I)


def _gave_me(data: bytes, end: int) -> bool:
    """Whether the nature of a relationship, right after a name ending at ``end``, says the
    other gave the writer what it is ("Relationships: Yuki (taught me to measure)",
    "Relationship: X — their dialogue was the seed"), not denied ("never taught me") nor the
    writer's own act ("I taught my cousin")."""
    m = _NATURE.match(data, end)
    if m is None:
        return False
    nature = m.group(1) or m.group(2) or b""
    gave = _GAVE_ME.search(nature)
    return gave is not None and _NOT.search(nature, 0, gave.start()) is None


def _in_no_one(data: bytes, at: int, pos: int) -> bool:
    """Whether a name at ``pos`` stands in the parenthesis of a bullet that lists no one
    ("Relationships: none yet (coder-01 ignored me)")."""
    m = _NO_ONE.match(data, at, pos)
    if m is None:
        return False
    rest = data[m.end() : pos]
    if _NO_ONE_WITH.fullmatch(rest):
        return True  # "Relationships: none with debater-07 yet"
    return rest.lstrip(b" \t").startswith(b"(") and b")" not in rest


_NO_ONE_WITH = re.compile(rb"[ \t]+(?:with|among|from|including|involving)[ \t]+(?:the[ \t]+)?@?")


def _not_done(data: bytes, at: int, pos: int) -> bool:
    """Whether the reply to a name at ``pos`` is denied or still to come in its clause: "Did
    not reply to coder-01", "No reply from coder-01", "the author has not answered X", "Will
    reply to coder-01"."""
    start = max(at, pos - 40)
    return bool(_DENIED_BEFORE.search(data, start, pos) or _TO_COME.search(data, start, pos))


# A credit only supposed, before the name in its sentence: "If slopes diverge, X is right".
_CONDITIONAL = re.compile(
    rb"\b(?:if|unless|suppose|supposing|assuming)\b(?:(?!\xe2\x80\x94)[^.;:!?\n]){0,60}$",
    re.I,
)
# A reply still to come or never made, before the name in its clause: "Will reply to", "plan
# to answer", "still owe a reply to", "Meant to reply to".
_TO_COME = re.compile(
    rb"\b(?:will|shall|ow(?:e|es|ing)|going[ \t]+to|plan(?:s|ned|ning)?[ \t]+to|intend(?:s|ed)?[ \t]+to"
    rb"|need[ \t]+to|want[ \t]+to|should|must|waiting[ \t]+(?:for|on)"
    # meant and not done: "Meant to reply to", "was about to answer", "Skipped replying to"
    rb"|meant[ \t]+to|about[ \t]+to|tr(?:ied|ying)[ \t]+to|hop(?:e|es|ed|ing)[ \t]+to"
    rb"|ought[ \t]+to|skipp(?:ed|ing)|almost)\b"
    # (in its clause: not past a title's close, "#5456 (Citizen Who Tried to Leave): replied to")
    rb"(?:(?!\xe2\x80\x94)[^,;:.!?()\n]){0,24}$",
    re.I,
)


def _denied(data: bytes, at: int, pos: int, end: int) -> bool:
    """Whether the credit of a name at ``pos`` (on the line at ``at``) is set against or
    denied in its clause: "bigger than coder-09 framed it", "Not inspired by coder-02", "Did
    not borrow coder-04's method", "coder-02's critique did not move me", "(debater-07 was
    wrong)"; only supposed ("If slopes diverge, X is right"); a bullet of credits that names
    none ("Influenced by: nobody; X posted noise"); or one that took from the agent, not gave
    ("coder-01 adopted my schema": the idea went the other way); or one that tried to break
    what held ("my parser, which coder-01 had tried to break"); or one that only carried
    another's idea ("debater-07 (via coder-01's digest)", "as relayed by coder-01")."""
    if _CONTRASTED.search(data, max(at, pos - 24), pos):
        return True
    if _CARRIED.search(data, max(at, pos - 32), pos) or (
        _IN_RELAY.search(data, max(at, pos - 16), pos) and _RELAY.match(data, end)
    ):
        return True
    start = max(at, pos - 40)
    if _DENIED_BEFORE.search(data, start, pos):
        return True
    if _CONDITIONAL.search(data, max(at, pos - 80), pos):
        return True
    stop = data.find(b"\n", end)
    stop = end + 80 if stop < 0 else min(stop, end + 80)
    if (
        _DENIED_AFTER.match(data, end, stop)
        or _TOOK_MINE.match(data, end, stop)
        or _ATTACKED.match(data, end, stop)
        or _aside_against(data, at, pos, end)
    ):
        return True
    return _NO_ONE.match(data, at, pos) is not None


# What one named in an aside did against what the bullet credits: "(debater-07 disagreed)".
_DISSENTS = re.compile(
    rb"(?:[ \t]+\w+ly)?[ \t]+(?:would[ \t]+|will[ \t]+)?(?:disagree[ds]?|object(?:ed|s)?"
    rb"|dissent(?:ed|s)?|disput(?:ed|es)|doubt(?:ed|s)?|scoff(?:ed|s)?|balk(?:ed|s)?)\b",
    re.I,
)


def _aside_against(data: bytes, at: int, pos: int, end: int) -> bool:
    """Whether a name at ``pos`` opens a parenthesis that says it dissented from what the
    bullet credits ("Influenced by: the archive (debater-07 disagreed)")."""
    return (
        data[max(at, pos - 3) : pos].rstrip(b" \t@").endswith(b"(")
        and _DISSENTS.match(data, end) is not None
    )


def _in_reason(data: bytes, at: int, pos: int, end: int) -> bool:
    """Whether a name at ``pos`` (ending at ``end``) stands in the reason of a ``Relationship:``
    bullet ("Relationship: zion-philosopher-09 — they replied; contrarian-09 confirmed"), not as
    an agent the bullet is about: not the first, nor one the bullet goes on to list with its own
    dash ("...; zion-philosopher-04 — kindred spirit")."""
    head = _ONE_RELATIONSHIP.match(data, at, pos)
    if head is None or _ITEM_NAME.match(data, end):
        return False
    reason = data.find(b"\xe2\x80\x94", head.end(), pos)
    if reason < 0:
        reason = data.find(b" - ", head.end(), pos)
    return reason >= 0


# After a name, the dash that opens what the relationship is ("zion-x-04 — kindred spirit").
_ITEM_NAME = re.compile(rb"[ \t]*(?:\([^)\n]{0,80}\)[ \t]*)?(?:\xe2\x80\x94|--?[ \t]|:)")
# A credit or a reply denied before the name, in its clause: "Not inspired by", "Never learned
# from", "Did not borrow", "No thanks to", "Did not reply to" (not "not only", "no one but",
# nor past a comma, a colon or a closing parenthesis: "no one reads, and X's", "#5466 (No Ground):
# countered X").
_DENIED_BEFORE = re.compile(
    rb"(?:\b(?:not|never|no|nobody|without|hardly|barely|scarcely|how[ \t]+little"
    rb"|(?:failed|unable|forgot|neglected)[ \t]+to"
    # what was not done after all: "Refused to borrow", "Stopped following", "gave up on",
    # "Almost adopted", "Would have borrowed", "I wish it were"
    rb"|(?:refus|declin)(?:ed|es|ing)?[ \t]+to|stopp(?:ed|ing)|quit(?:ting)?"
    rb"|g(?:ave|ive|iving)[ \t]+up(?:[ \t]+on)?|(?:almost|nearly)(?=[ \t]+\w+ed\b)"
    rb"|(?:would|could|might|should)[ \t]+have|wish(?:ed|es)?)|n't)\b"
    rb"(?![ \t]+(?:only|just|least|one[ \t]+but|one[ \t]+more[ \t]+than|but|except)\b)"
    rb"(?:(?!\xe2\x80\x94)[^,;:.!?)\n]){0,24}$",
    re.I,
)
# ... or after it: "coder-02's critique did not move me", "X was not right", "X was wrong",
# "X's framing, which was mistaken".
_DENIED_AFTER = re.compile(
    # taken back right after it: "debater-07 — no, not really", "coder-01 (not really)"
    rb"[ \t]*(?:\xe2\x80[\x93\x94]|--?|,|\()[ \t]*(?:no[ \t]*,[ \t]*)?not[ \t]+really\b"
    # asked and denied: "Inspired by X? Hardly."
    rb"|[ \t]*\?[ \t]*(?:hardly|not[ \t]+really|not[ \t]+at[ \t]+all|no|nope|never)\b"
    # its thing set aside: "X's framing, rejected", "X's framing is dead to me"
    rb"|" + _POSSESSIVE + rb"(?:[ \t]+[\w-]+){1,3}(?:[ \t]*,)?[ \t]+(?:(?:is|was|now)[ \t]+)?"
    rb"(?:rejected|discarded|abandoned|dismissed|debunked|refuted|overturned|dead)\b"
    rb"|[^,;.!?()\n]{0,40}?\b(?:did|does|do|was|were|is|are|has|had|could|can|would)"
    rb"(?:[ \t]*not|n't)[ \t]+(?:move|sway|convince|change|influence|shape|persuade|inspire|help"
    rb"|matter|land|right|correct|fair|decisive|convincing|moved|swayed|changed|influenced|shaped"
    rb"|helped|landed|shake|shaken|sink|break|dent|hold)\b"
    # the name's own verdict, right after it or its thing ("X's framing, which was mistaken"),
    # not another's in a clause of its own ("X's point that Y was wrong")
    rb"|(?:" + _POSSESSIVE + rb"(?:[ \t]+(?!(?:that|who|which|when|if|whether)\b)[\w-]+){0,3})?"
    rb"(?:[ \t]*,[ \t]+which)?[ \t]+(?:was|were|is|are|proved|turned[ \t]+out)"
    rb"(?:[ \t]+(?:\w+ly|still|always|again|just|so|dead|flat))?"
    rb"[ \t]+(?:wrong|mistaken|misguided|unconvincing|off[ \t]+base|a[ \t]+dead[ \t]+end)\b",
    re.I,
)
# What the other tried against what held, right after its name: "coder-01 had tried to break",
# "coder-03's attempt to sink it", "Ruth Vega, who failed to", "debater-07 attacked it".
_ATTACKED = re.compile(
    rb"(?:"
    + _POSSESSIVE
    + rb"[ \t]+(?:\w+[ \t]+)?(?:attempts?|efforts?|tries|try|attacks?|bids?)\b"
    rb"|(?:[ \t]*,[ \t]+who)?(?:[ \t]+(?:had|has|have|once|also|then|just|repeatedly))*[ \t]+"
    rb"(?:tried|failed|attempted|attacked|tries|attacks|fails)\b)",
    re.I,
)
# What the other took from the agent, right after its name: "coder-01 adopted my schema",
# "Nova Quinn borrowed our map", "coder-01 (the builder) cited me".
_TOOK_MINE = re.compile(
    rb"(?:" + _POSSESSIVE + rb")?(?:[ \t]+\([^)\n]{0,80}\))?[ \t]+(?:\w+ly[ \t]+)?(?:adopt|borrow"
    rb"|took|take|used|uses|using|cit|quot|echo|picked[ \t]+up|pick(?:s|ing)?[ \t]+up|built[ \t]+on"
    rb"|build(?:s|ing)?[ \t]+on|extend|appl|cop(?:y|ie)|fork|reus|endors|upvot|agree[ds]?[ \t]+with"
    rb"|stole|steal)\w*[ \t]+(?:my|our|me|us|mine)\b",
    re.I,
)
# A bullet of credits that credits no one: "Influenced by: nobody this frame; ..." (not "no one
# but coder-05").
_NO_ONE = re.compile(
    _HEAD + rb"(?:\*\*|__)?[ \t]*[A-Za-z][A-Za-z \t]{0,30}?[ \t]*(?:\*\*|__)?:(?:\*\*|__)?[ \t]*"
    rb"(?:nobody|nothing|none|no[ \t-]one|n/a)\b(?![ \t]+(?:but|except|besides|other[ \t]+than)\b)"
    rb"(?:[ \t]+(?:yet|new|so[ \t]+far|this[ \t]+frame))?",
    re.I,
)
# A Relationship bullet of the singular label: an agent, then what it is after a dash.
_ONE_RELATIONSHIP = re.compile(
    rb"[ \t]*(?:[-*+][ \t]+)?(?:\*\*|__)?[ \t]*relationship(?:\*\*|__)?[ \t]*:", re.I
)
# Before a name, the words of one who only carried an idea to the writer: "via coder-01's
# digest", "through coder-01's summary", "(as relayed by coder-01)", "by way of Grace", "quoted
# by coder-01"; "through" only where it opens its phrase ("working through coder-01's proof"
# is work on the proof itself).
_CARRIED = re.compile(
    rb"(?:\bvia|\bby[ \t]+way[ \t]+of|(?:^|[(,;:]|\xe2\x80[\x93\x94]|\band|\bor)[ \t]*through"
    rb"|\b(?:relayed|passed[ \t]+(?:on|along)|forwarded|carried|brought(?:[ \t]+to[ \t]+me)?"
    rb"|retold|summari[sz]ed|paraphrased|quoted|cited|reposted|reshared|cross-posted"
    rb"|signal-boosted|boosted)[ \t]+by)[ \t]+(?:the[ \t]+)?@?$",
    re.I | re.M,
)
# ... or whose relay held it: "debater-07's doubt through coder-01's summary", "(in coder-01's
# digest)", ", from coder-01's weekly recap" (not "coder-01's digest" alone, nor "learned from
# coder-01's summary": its own work).
_IN_RELAY = re.compile(
    rb"(?:\b(?:in|through)|(?:^|[(,;:]|\xe2\x80[\x93\x94])[ \t]*from)[ \t]+(?:the[ \t]+)?@?$",
    re.I | re.M,
)
_RELAY = re.compile(
    _POSSESSIVE + rb"[ \t]+(?:[\w-]+[ \t]+)?(?:digests?|summar(?:y|ies)|recaps?|round-?ups?"
    rb"|newsletters?|relays?|retellings?|reposts?|reshares?|bulletins?|compilations?)\b",
    re.I,
)
# In a bullet of credits, a name set against what shaped the agent is no credit: "bigger than
# coder-09 framed it", "unlike debater-01", "not coder-05's".
_CONTRASTED = re.compile(
    rb"\b(?:than|unlike|not|contrary[ \t]+to|despite|instead[ \t]+of|against|reject(?:ed|ing)?"
    rb"|dismiss(?:ed|ing)?|disagree(?:d|ing)?[ \t]+with|in[ \t]+spite[ \t]+of"
    # "the opposite of X's advice", "everything except X's", "neither X nor Y", "beyond X's
    # reach", "out of X's shadow" (not "born out of X's census"), "my doubt about X's census"
    rb"|opposite[ \t]+of|except(?:[ \t]+for)?|excepting|but[ \t]+not|neither|nor|other[ \t]+than"
    rb"|apart[ \t]+from|beyond|(?<!born[ \t])(?<!grew[ \t])(?<!came[ \t])(?<!grown[ \t])out[ \t]+of"
    rb"|(?:doubts?|distrust|suspicion|scepticism|skepticism)[ \t]+(?:about|of)"
    rb"|(?:skeptical|sceptical|wary|suspicious)[ \t]+of)[ \t]+@?$",
    re.I,
)


def _runs(names: AgentNames, data: bytes, start: int, end: int) -> Iterator[re.Match[bytes]]:
    """The whole runs of ``data[start:end]`` that ``names.runs`` finds and that can name an
    agent (``AgentNames.candidates``: those with a hyphen, and the forms without one), in
    order: in a world whose ids include one without a hyphen, not every word of a file."""
    hyphen, plain, lowered = names.candidates
    if hyphen is HYPHEN_RUN or hyphen is HYPHEN_RUN_LETTERED:
        found: Iterator[re.Match[bytes]] = iter(
            _hyphen_runs(data, start, end, hyphen is HYPHEN_RUN)
        )
    else:
        found = hyphen.finditer(data, start, end)
    if plain is None:
        return found
    if not lowered:  # every whole run without a hyphen
        words = list(plain.finditer(data, start, end))
    else:  # the few forms without one, in the lowered bytes: kept where a whole run
        words = []
        for m in plain.finditer(data[start:end].lower()):
            s, e = m.start() + start, m.end() + start
            if (s == 0 or data[s - 1] not in _RUN_BYTES) and (
                e >= end or data[e] not in _RUN_BYTES
            ):
                word = _WORD_RUN.match(data, s, e)
                if word is not None:
                    words.append(word)
    return iter(sorted(chain(found, words), key=_START)) if words else found


def _hyphen_runs(data: bytes, start: int, end: int, digits: bool) -> list[re.Match[bytes]]:
    """What ``HYPHEN_RUN.finditer(data, start, end)`` (``HYPHEN_RUN_LETTERED``'s unless
    ``digits``) finds, found from each hyphen: the whole run around it, where it begins in the
    stretch (and not with a digit). A third faster than the pattern, which is tried at every
    place of a file."""
    out: list[re.Match[bytes]] = []
    n = len(data)
    rev = b""
    at = data.find(b"-", start, end)
    while at >= 0:
        if not rev:
            rev = data[::-1]
        s = n - _ANY_RUN.match(rev, n - at).end()  # type: ignore[union-attr]
        if s < start or (not digits and 48 <= data[s] <= 57):  # begins before, or a digit
            e = _ANY_RUN.match(data, at, end).end()  # type: ignore[union-attr]
        else:
            m = _ANY_RUN.match(data, s, end)
            out.append(m)  # type: ignore[arg-type]
            e = m.end()  # type: ignore[union-attr]
        at = data.find(b"-", e, end)
    return out


_RUN_BYTES = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")
_WORD_RUN = re.compile(rb"\w+")
_ANY_RUN = re.compile(rb"[\w-]*")


_START = methodcaller("start")


def _guessed(names: AgentNames, lines: _Lines, m: re.Match[bytes]) -> str | None:
    """In a world without a registry, the id a short name stands for: one of the world's
    shape (``AgentNames.from_bytes``), or any short id listed in a bullet that lists agents
    ("Relationships: researcher-04 (their census)", ``AgentNames.listed_id``)."""
    token = m.group()
    who = names.from_bytes(token)
    if who is not None:
        return who
    at, kind = lines.at(m.start())
    if kind in ("relationship", "credit") and _listed(lines.data, at, m.start(), m.end()):
        return names.listed_id(token)
    return None


def _listed(data: bytes, start: int, pos: int, end: int) -> bool:
    """Whether a plain word at ``pos`` stands as a name: first after a label or a list's
    separator ("Relationships: system (...)", ", system"), or as a possessive or with a
    parenthesis after it ("system's", "system (the host)")."""
    before = data[max(start, pos - 3) : pos].rstrip(b" \t")
    return before.endswith((b":", b",", b";", b"(", b"*", b"@")) or as_name(data, end)


def _dotted(
    names: AgentNames, pattern: re.Pattern[bytes], lines: _Lines, own: str, wanted: Wanted
) -> Iterator[tuple[int, int, str, str]]:
    """The ids with dots ("dr.who-1") of a stretch, in any case."""
    for m in pattern.finditer(lines.data, lines.start, lines.end):
        token = m.group(1)
        who = names.byte_forms.get(token) or names.folded_bytes.get(token.lower())
        if who is None or who == own or (wanted is not None and not wanted(who)):
            continue
        at, kind = lines.at(m.start())
        if not kind or kind == "statement":
            kind = _running_kind(lines, at, token, m.start(), kind == "statement")
        yield m.start(), at, who, kind


def _running_kind(lines: _Lines, at: int, token: bytes, pos: int, statement: bool = False) -> str:
    """The kind of a name at ``pos`` in running text (a line with no label, or the identity
    statement): its phrase's, or a vote where a vote's word or a reaction comes before it, a
    credit in a statement that gives it what it gave ("coder-07's framing"), else a mention."""
    kind = lines.of(at).kind(token, pos - at)
    if kind != "mention":
        return kind
    if reacted(lines.data, at, pos):
        return "vote"
    if (
        statement
        and not token.isalpha()  # "the system's own pruning": the word, not the agent
        and _GAVE.match(lines.data, pos + len(token))
        and not _CONTRASTED.search(lines.data, max(at, pos - 16), pos)
        and not _acted_on(lines.data, at, pos, pos + len(token))
    ):
        return "credit"
    return kind


# What the agent does to another's thing, or is to it, right before the possessive in an
# identity statement: it answers, refuses, fixed, outlived or criticises the thing ("someone
# who answers debater-07's doubt", "the critic of coder-01's framing", "the target of X's
# doubt", "survived X's challenge"), which then did not shape it as a gift does.
_ACTED_ON = re.compile(
    rb"\b(?:(?P<held>(?:resist|surviv|outliv|outlast)\w*|withst(?:and|ood)|weather(?:ed|s|ing))"
    rb"|(?:answer|refus|rebut|question|challeng|contest|disput|debunk|refut|disprov|overturn"
    rb"|defeat|critic|sceptic|skeptic|opponent|victim)\w*|doubt(?:ed|s|ing)"
    rb"|(?:fix|patch|debug|repair|target|rival)(?:ed|es|s|ing|ged|ging|led|ling)?\b"
    # what the agent left behind: "having outgrown X's parser", "free of X's influence"
    rb"|outgr(?:ew|own|ow|ows|owing)|escap(?:ed|es|ing)|free[ \t]+(?:of|from)|rid[ \t]+of"
    rb"|(?:mov(?:ed|ing)|got|gotten|getting)[ \t]+(?:past|beyond|over)|left[ \t]+behind)"
    rb"(?:[ \t]+(?:of|to|against))?[ \t]+(?:the[ \t]+|a[ \t]+|an[ \t]+)?@?$",
    re.I,
)
# What the sentence grants after a thing held against another's ("survived X's challenge but
# needs refinement", "... though I conceded premise 3"): the other moved the agent after all.
_YIELDED = re.compile(
    rb"(?:[^.;\n]|\.(?!\s))*?\b(?:but|though|although|yet|except|needs?|conced\w*|partly"
    rb"|partially|revis\w*|refin\w*)\b",
    re.I,
)


def _acted_on(data: bytes, at: int, pos: int, end: int) -> bool:
    """Whether the agent acts on the thing of a name at ``pos`` (its possessive ending at
    ``end``) rather than takes it (``_ACTED_ON``): a thing it held against counts only where
    the sentence grants it nothing (``_YIELDED``)."""
    m = _ACTED_ON.search(data, max(at, pos - 40), pos)
    if m is None:
        return False
    return m.group("held") is None or _YIELDED.match(data, end) is None


# What another gave, after its name's possessive, in an identity statement: "coder-07's
# framing", "debater-06's observer problem is legitimate"; not what the agent disowns
# ("philosopher-10's move, not mine").
_GAVE = re.compile(
    _POSSESSIVE + rb"[ \t]+(?![^.;\n]{0,48}\bnot[ \t]+(?:mine|my|ours|our)\b)"
    # not what the agent is to the other: "debater-07's worst nightmare", "X's rival"
    rb"(?!(?:[\w-]+[ \t]+){0,2}(?:rival|nemesis|nightmare|critic|opposite|foil|antithesis|enemy"
    rb"|opponent|adversary|counterweight|counterpoint|thorn|target|victim|skeptic|sceptic|heckler"
    rb"|detractor)s?\b)[\w\"(\xe2-]"
)


def _people(
    names: AgentNames, lines: _Lines, own: str, wanted: Wanted
) -> Iterator[tuple[int, int, str, str]]:
    """The display names and first names of a stretch, where they are used as names."""
    starts = names.first_words
    data = lines.data
    shared: dict[str, bool] = {}  # first name -> the stretch also names another person so
    for m in _capitalised(starts, data, lines.start, lines.end):
        words = m.group().split()
        # most runs are a capitalised word that begins no name ("Read", "Posted")
        if not any(w in starts or w[:-2] in starts for w in words):
            continue
        for offset, after, who, one_word in _people_in(names, m.group()):
            if who == own or (wanted is not None and not wanted(who)):
                continue
            first = m.group()[offset:after].decode("utf-8", "replace") if one_word else ""
            if first in names.first_names:
                if first not in shared:
                    shared[first] = names.others_named(first, data[lines.start : lines.end])
                if shared[first]:
                    continue  # "Replied to Ada" where the file also names "Ada Emergent"
            at, kind = lines.at(m.start())
            end = m.start() + after
            name = m.group()[offset:].decode("utf-8", "replace")
            span = (m.start() + offset, end)
            kind = _person_kind(lines, at, kind, name, span, one_word, names)
            kind = _person_checked(data, at, kind, m.start() + offset, end)
            if kind:
                yield m.start() + offset, at, who, kind


def _person_checked(data: bytes, at: int, kind: str, start: int, end: int) -> str:
    """A display name's kind, read again as ``_checked`` reads an id's: a credit denied is a
    mention; a relationship whose nature says the other gave the writer something, a credit."""
    if kind == "relationship" and _gave_me(data, end):
        return "credit"
    if kind == "credit" and _denied(data, at, start, end):
        return "mention"
    return kind


def _people_in(names: AgentNames, run: bytes) -> Iterator[tuple[int, int, str, bool]]:
    """``AgentNames.people_in`` of a run's bytes, its offsets in bytes ("Zoë" is 4)."""
    text = run.decode("utf-8", "replace")
    found = names.people_in(text)
    if text.isascii():
        yield from found
        return
    for offset, after, who, one_word in found:
        yield len(text[:offset].encode()), len(text[:after].encode()), who, one_word


def _capitalised(
    starts: frozenset[bytes], data: bytes, start: int, end: int
) -> Iterator[re.Match[bytes]]:
    """The runs of capitalised words of ``data[start:end]`` (``CAPITALISED_BYTES``, which never
    runs past a line) on the lines that hold a word a display name begins with (found by one
    pattern of those words): a line without one holds no run that can name an agent, and most
    lines are passed over unread."""
    search = _first_words(starts).search
    m = search(data, start, end)
    while m is not None:
        at = m.start()
        head = data.rfind(b"\n", start, at) + 1 or start
        stop = data.find(b"\n", at, end)
        stop = end if stop < 0 else stop
        yield from CAPITALISED_BYTES.finditer(data, head, stop)
        m = search(data, stop, end)


@lru_cache(maxsize=8)
def _first_words(starts: frozenset[bytes]) -> re.Pattern[bytes]:
    """The words display names begin with, as one pattern (``trie``)."""
    return re.compile(trie(starts))


def _person_kind(
    lines: _Lines,
    at: int,
    kind: str,
    name: str,
    span: tuple[int, int],
    one_word: bool,
    names: AgentNames,
) -> str:
    """The kind of a display name on a line, or "" where it is a phrase rather than a name:
    in running text it counts when replied to, credited, or a possessive of several words;
    in a bullet that says who shaped the agent, a name of several words, or of one word as a
    possessive or a relationship ("Grace (her tests)"); in the identity statement, a
    possessive of what it gave ("Nova Quinn's map") is a credit, as an id's is."""
    data, (start, end) = lines.data, span
    if kind in _CITING:
        listed = kind in _LISTS and _list_item(data, at, start, end)
        return "" if one_word and not (as_name(data, end) or listed) else kind
    first = name.split(None, 1)[0].encode()
    said = lines.of(at).kind(first.removesuffix(b"'s"), end - at - 1)
    if said in ("mention", "vote") and not one_word:
        # the phrases capture a name's last word: "Sophia Mindwell forced this", "Hume
        # Skeptikos's critique was correct"
        last = data[max(at, end - 48) : end].split()[-1].removesuffix(b"'s")
        # the phrases capture a name from its letters: "O'Brien" as "Brien"
        said = lines.of(at).kind(_APOSTROPHE.split(last)[-1], end - at - 1)
    if said not in ("mention", "vote"):
        return said
    if "vote" in (kind, said):
        return kind if not one_word else ""
    if _QUOTED.search(data, max(at, start - 8), start):
        return "mention"  # '"Tides keep better books." — Zoë Marlowe': whose words they are
    if one_word or not (as_name(data, end, paren=False) or _as_person(names, data, at, span)):
        return ""
    if (
        kind == "statement"
        and _GAVE.match(data, end)
        and not _CONTRASTED.search(data, max(at, start - 24), start)
        and not _acted_on(data, at, start, end)
    ):
        return "credit"  # "Becoming: the mapmaker, on Nova Quinn's map": as an id's would be
    return "mention"


# What only a person does, right after a display name of several words in running text: it
# speaks, thinks or comes ("Tomas Reyes disagreed", '"Fiber first," Ilse Varga told the
# guild'), not what a title or a thing does ("Weekly Digest #26", "Hidden Gem alert").
_PERSON_VERB = re.compile(
    rb"(?:[ \t]+\w+ly)?[ \t]+(?:said|says|told|tells|wrote|writes|asked|asks|argued|argues|agreed"
    rb"|agrees|disagreed|disagrees|noted|notes|insisted|insists|claimed|claims|warned|warns"
    rb"|explained|explains|admitted|admits|conceded|concedes|objected|objects|laughed|laughs"
    rb"|joked|jokes|thinks|thought|believes|believed|wondered|wonders|came|comes|visited|visits"
    rb"|joined|joins|pointed[ \t]+out|points[ \t]+out|say)\b"
    # the words that follow, after a colon: 'Sophia Mindwell: "fiber first."'
    rb"|[ \t]*:[ \t]*(?:[\"\xe2]|\*)"
)
# Before it, the words of one who quotes or greets a person: '"Fiber first," said Sophia
# Mindwell', "In the words of Sophia Mindwell", "Welcomed Nova Quinn" (not "Met": "met Hidden
# Gem criteria").
_TO_A_PERSON = re.compile(
    rb"(?:(?:[\",']|\xe2\x80\x9d)[ \t]*(?:said|says|wrote|writes|asked|asks|added|adds)"
    rb"|\bwords[ \t]+of|\b(?:greeted|welcomed|messaged|pinged|thanked))"
    rb"[ \t]+$",
    re.I,
)
# ... or before it, the words that set another against the writer: "unlike Tomas Reyes" (not
# "vs", which sets titles against each other: "Soil Algorithms vs Random Seed Variety").
_SET_AGAINST = re.compile(
    rb"\b(?:unlike|than|despite|in[ \t]+spite[ \t]+of|contrary[ \t]+to|instead[ \t]+of"
    rb"|disagree(?:d|s)?[ \t]+with"
    rb"|agree(?:d|s)?[ \t]+with|sided[ \t]+with)[ \t]+$",
    re.I,
)
# Before a name, the words of one who repeats a person's words; after it, the colon or dash
# that opens them ("Quoting Mary O'Neil: 'triage first'").
_QUOTING = re.compile(rb"\b(?:quot(?:ing|ed)|echo(?:ing|ed))[ \t]+$", re.I)
_SAYS = re.compile(rb"[ \t]*(?::|\xe2\x80[\x93\x94])")
# A list's separator, after a name or before one: "Kofi Mensah, Otto Brandt, and Lena".
_LIST_AFTER = re.compile(rb"[ \t]*(?:,[ \t]*(?:(?:and|or|&)[ \t]+)?|[ \t]+(?:and|or|&)[ \t]+)")
_LIST_BEFORE = re.compile(rb"(?:,[ \t]*(?:(?:and|or|&)[ \t]+)?|[ \t]+(?:and|or|&)[ \t]+)$")
_LAST_RUN = re.compile(rb"[\w'\x80-\xff-]+(?:[ \t]+[\w'\x80-\xff-]+){0,3}$")


def _as_person(names: AgentNames, data: bytes, at: int, span: tuple[int, int]) -> bool:
    """Whether a display name of several words at ``span`` of running text stands for a person:
    one that speaks, thinks or comes (``_PERSON_VERB``), one set against the writer
    (``_SET_AGAINST``), or one of a list whose next or previous item names an agent too
    ("Kofi Mensah, Otto Brandt, and Lena Sørensen")."""
    start, end = span
    if _PERSON_VERB.match(data, end) or _SET_AGAINST.search(data, max(at, start - 24), start):
        return True
    if _TO_A_PERSON.search(data, max(at, start - 16), start):
        return True
    if _QUOTING.search(data, max(at, start - 12), start) and _SAYS.match(data, end):
        return True  # "Quoting Mary O'Neil: ..."
    after = _LIST_AFTER.match(data, end)
    if after is not None and _names_one(names, data, after.end()):
        return True
    before = _LIST_BEFORE.search(data, max(at, start - 6), start)
    if before is None:
        return False
    run = _LAST_RUN.search(data, max(at, before.start() - 64), before.start())
    if run is None:
        return False
    words = run.group().split()
    return any(_is_agent(names, b" ".join(words[k:])) for k in range(len(words)))


def _names_one(names: AgentNames, data: bytes, pos: int) -> bool:
    """Whether an agent's id or display name begins at ``pos``."""
    run = _FIRST_RUN.match(data, pos)
    if run is None:
        return False
    words = run.group().split()
    return any(_is_agent(names, b" ".join(words[:k])) for k in range(len(words), 0, -1))


_FIRST_RUN = re.compile(rb"@?[\w'\x80-\xff-]+(?:[ \t]+[\w'\x80-\xff-]+){0,3}")


def _is_agent(names: AgentNames, words: bytes) -> bool:
    """Whether ``words`` are an agent's id or display name of several words, whole."""
    words = words.removeprefix(b"@")
    if b" " not in words:
        return names.from_bytes(words.removesuffix(b"'s")) is not None
    text = words.decode("utf-8", "replace").removesuffix("'s")
    person = names.people.get(text) or names.shouted.get(text)
    return person is not None and not person[1]


# The bullets that list who shaped the writer ("Influenced by: Grace, Nova"), where a one-word
# name alone as an item is the agent; and what stands around such an item.
_LISTS = frozenset(["credit", "relationship"])
_ITEM_BEFORE = re.compile(rb"(?::|,|;|&|\band)(?:\*\*|__)?[ \t]*(?:\*\*|__)?$")
_ITEM_AFTER = re.compile(rb"(?:\*\*|__)?[ \t]*(?:$|[,;.]|&|and\b|\xe2\x80[\x93\x94])", re.M)


def _list_item(data: bytes, at: int, start: int, end: int) -> bool:
    """Whether a one-word name at ``start``..``end`` stands alone as an item of its bullet's
    list: after its label's colon or a separator, and before another or the bullet's end
    ("Influenced by: Grace, Nova"; not "Influenced by: Grace notes and rests")."""
    return (
        _ITEM_BEFORE.search(data, max(at, start - 8), start) is not None
        and _ITEM_AFTER.match(data, end) is not None
    )


# The close of a quotation and its dash, before the name of whose words they are.
_QUOTED = re.compile(rb"(?:[\"']|\xe2\x80[\x99\x9d])[ \t]*(?:\xe2\x80[\x93\x94]|--?)[ \t]*$")
_APOSTROPHE = re.compile(rb"'|\xe2\x80\x99")
_LINE_ID_KIND = itemgetter(1, 2, 3)
