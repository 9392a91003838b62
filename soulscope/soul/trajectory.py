"""Becoming arcs: the identity statements of a soul in the order of their frames' times
(``when.FileTimes``; the file's order among frames of one time), their roles and shifts.

A statement's *role* is the identity noun phrase it opens with ("the integration testing
advocate who writes test code" holds the role "integration testing advocate"): articles,
counters ("twenty-seventh", "15th", "#3"), numbers and trailing qualifiers ("who ...", "with
...") do not make a different role. Each statement is first classified against the ones before it
(``classify``):

- ``first``: the arc's first statement;
- ``repeat``: the same text as the previous statement (counter prefixes aside);
- ``refinement``: the same role as the previous statement, said differently;
- ``return``: a role held earlier in the arc, but not by the previous statement;
- ``shift``: a role not held before.

An ``Arc`` then settles each kind with its turning points (``settle``): a turning point is a
``shift`` (a ``return`` where its role was held before), and a statement that is not one is
never a shift: a new role in words where the arc does not turn (an arc that says "From X to Y"
in every statement) is a ``refinement``. So ``kind`` means one thing in every era, and
``Statement.shift`` is true exactly at the turning points.

Early-era ``Evolving position:`` statements are positions, not roles ("the Bayesian method now
prices comparative claims"): one shifts only when it claims a change of the agent's own stance
("the bridge role has shifted from post-hoc mapping to real-time facilitation", "conceded ...").
"""

from __future__ import annotations

import re
from array import array
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from itertools import compress
from typing import TYPE_CHECKING, NamedTuple, overload

from soulscope.soul import when
from soulscope.soul.counters import is_counter, strip_counters
from soulscope.soul.format import DASH_LABELS
from soulscope.soul.model import FrameColumns, Section, Soul, frame_label, label_key
from soulscope.soul.parse import frame_observations as observations

if TYPE_CHECKING:
    from soulscope.soul.chapters import Outline


def _words_in(text: str) -> list[str]:
    return text.split()


DEFAULT_LABEL = "Becoming"
FALLBACK_LABEL = "Evolving position"
KINDS = ("first", "repeat", "refinement", "return", "shift")
SHIFT_KINDS = frozenset({"shift", "return"})
# Each kind's code (its index in KINDS) to 1 for the shifts, 0 for the others (``bytes.translate``).
_SHIFT_CODES = bytes(int(i < len(KINDS) and KINDS[i] in SHIFT_KINDS) for i in range(256))
_FIRST, _REPEAT, _REFINEMENT, _RETURN, _SHIFT = range(len(KINDS))
# Each kind's code to what it settles to (``settle``): at a turning point, and elsewhere.
_AT_TURN = bytes(c if c in (_FIRST, _RETURN) else _SHIFT for c in range(256))
_NOT_TURN = bytes(_REFINEMENT if c in (_RETURN, _SHIFT) else c for c in range(256))

_FROM_TO = re.compile(r"\bfrom\s+(.+?)\s+to\s+(.+?)(?:[.;]\s|[.;]?$)", re.I | re.S)
_FIRST_CLAUSE = re.compile(r"^(.+?)(?:[.;:!?][\"”’']*(?:\s|$)|\s[—–-]+\s|,\s|\s\(|$)", re.S)

_ARTICLES = frozenset(_words_in("the a an my our this that its their his her now still"))
# Words that end the noun phrase: what follows qualifies the role, it does not name another.
_QUALIFIERS = frozenset(
    _words_in(
        "who whose whom that which where when while because with without than for from in on "
        "at by between of to into onto through across after before about like as not rather "
        "instead beyond over under against toward towards via and or but than — –"
    )
)
# Heads too vague to be a role alone: "the agent who patches before proposing" keeps its clause.
_GENERIC_HEADS = frozenset(
    _words_in("agent one someone person entity being kind type figure thing")
)
_LESS_MORE = re.compile(r"^(?:less|not)\s+.+?,?\s+(?:more|but)\s+(.+)$", re.I)
# A statement that opens on the change itself names its role after it: "From listener to
# builder." is the builder; "No longer the listener; now the builder." too.
_OPENS_ON_CHANGE = re.compile(
    r"^(?:from\s+.+?\s+(?:to|into)|no\s+longer\s+.+?[,;:—–]\s*(?:(?:now|but|instead)\s+)?)"
    r"\s*(?!$)(.+)$",
    re.I | re.S,
)
_QUOTES = "*_\"'`“”‘’ "
_STOP = frozenset(
    _words_in(
        "the a an and or but of to in on at by for from with without is are was were be been it "
        "its this that these those as not no just only than then now still more less who whose "
        "which what when where how i my me we our they their them he she his her you your so if "
        "into about over also very same one"
    )
)

# Early-era positions: what makes one claim a change of the agent's own stance.
_CHANGE_FROM_TO = re.compile(
    r"\b(?P<subject>[\w'-]+)\s+(?:has\s+|have\s+|is\s+|are\s+|was\s+|been\s+)*"
    r"(?:shift(?:ed|ing|s)?|mov(?:e|ed|ing|es)|pivot(?:ed|ing|s)?|turn(?:ed|ing|s)?|"
    r"evolv(?:e|ed|ing|es)|chang(?:e|ed|ing|es)|transition(?:ed|ing)|upgrad(?:e|ed|ing|es)|"
    r"graduat(?:e|ed|ing|es)|switch(?:ed|ing|es)?)\s+from\s+(?!\d)\S.*?\s+to\s+\S",
    re.I,
)
# A change that happened around the agent, not to it: the world's seed, the room's mood.
_NOT_SELF = frozenset(
    _words_in(
        "seed seeds vibe mood weather conversation conversations thread threads debate topic "
        "platform community market prices word"
    )
)
_ARROW = re.compile(r"^[^.→]{1,60}?\s→\s[^.→]{1,60}?(?:\.|$)")
_CONCESSION = re.compile(
    r"(?:^|\b(?:i|we)\s+(?:must\s+|have\s+to\s+|had\s+to\s+|now\s+)?"
    r"|\bthe\s+[\w-]+\s+(?:must|has\s+to|had\s+to|now)\s+)"
    r"(?:conced(?:e|ed|es)|accept(?:ed|s)?|admit(?:ted|s)?|retract(?:ed|s)?)\b"
    r"|\b(?:i\s+was|i\s+had\s+been)\s+wrong\b|\bchanged\s+my\s+mind\b"
    r"|\bno\s+longer\s+(?!just\b|only\b|merely\b|simply\b)"
    r"|(?<!\bof\s)(?<!\bno\s)(?<!\bwithout\s)\brevis(?:ion|ed|e)\b"
    r"|\b(?:i|we|have|has|had)\s+abandoned\b|(?<!\bwithout\s)\babandon(?:ing)?\s+(?:the|my|our|this|that)\b",
    re.I,
)
# A claim that the position reaches further is a refinement, whatever else it says.
_EXTENSION = re.compile(
    r"\b(?:extends?|extended|extending|expand(?:s|ed|ing)?|scales?|scaled|appl(?:y|ies|ied)\s+"
    r"(?:to|naturally)|now\s+(?:covers|includes|applies)|covers)\b",
    re.I,
)


@dataclass(frozen=True, slots=True)
class Statement:
    """One identity statement of an arc."""

    index: int  # position in the arc
    text: str
    line: int
    heading: str  # the frame heading, or the section title for statements outside frames
    frame_index: int | None  # index into soul.frames; None outside frames
    number: int | None
    suffix: str
    date: str | None
    time: str | None  # HH:MM when the frame heading gives one
    role: str  # "traceback pragmatist": the identity noun phrase, for comparing
    from_role: str | None  # "From Y to Z": Y
    to_role: str | None  # "From Y to Z": Z
    kind: str  # one of KINDS: settled with the turning points in an ``Arc`` (``settle``)
    magnitude: float  # 0..1, how far it moved from the previous statement (``magnitude``)
    from_mismatch: bool  # "From Y to Z" names a Y that is not the previous role
    duplicate_frame: bool  # its frame heading repeats an earlier frame's
    position: bool = False  # an early-era position: a statement, not a role
    # Against the whole arc (``chapters.outline``): known to an ``Arc``'s statements, not to
    # those ``iter_arc`` streams (turning point False, chapter 0).
    turning_point: bool = False  # the identity really moved here
    chapter: int = 0  # 1..C, the stretch of one identity it belongs to

    @property
    def headline(self) -> str:
        """What the statement is, in a line: its role, or a position's own words (a position has
        no role: its opening words are a fragment, "bet" of "twenty-third bet. ...")."""
        if not self.position:
            return self.role
        return shorten(strip_counters(self.text), HEADLINE_CHARS)

    @property
    def shift(self) -> bool:
        """A turn: a shift, or a return to an older role (in an ``Arc``, its turning points)."""
        return self.kind in SHIFT_KINDS

    @property
    def repeat(self) -> bool:
        return self.kind == "repeat"

    @property
    def frame_label(self) -> str:
        return frame_label(self.number, self.suffix, self.date) or "—"

    @property
    def when(self) -> str | None:
        """Date and time, as far as the frame heading tells them."""
        if self.date and self.time:
            return f"{self.date} {self.time}"
        return self.date


HEADLINE_CHARS = 100  # a position's words in a line at most


def shorten(text: str, most: int) -> str:
    """``text`` on one line, cut at a word before ``most`` characters with an ellipsis."""
    line = " ".join(text.split())
    if len(line) <= most:
        return line
    cut = line[: most - 1]
    space = cut.rfind(" ")
    return (cut[:space] if space > most // 2 else cut).rstrip(" ,;:—–-") + "…"


# Pure functions of a string, asked several times per statement (as the statement, as the previous
# one, as a "From" role): long arcs repeat their wording, so a cache saves most of the work.
@lru_cache(maxsize=4096)
def role_of(text: str) -> str:
    """The role a statement names: its opening noun phrase, without article, counters or qualifiers."""
    body = strip_counters(text)
    change = _OPENS_ON_CHANGE.match(body.strip(_QUOTES))
    if change:
        body = change.group(1)
    m = _FIRST_CLAUSE.match(body)
    clause = (m.group(1) if m else body).strip().strip(_QUOTES)
    less_more = _LESS_MORE.match(body.split(". ")[0].rstrip("."))
    if less_more:
        clause = less_more.group(1)
    words = [w for w in clause.split() if not is_counter(w.strip("*_\"'`,."))]
    # an emoji or a dash before the role is no part of it: "🌱 the sprout" is the sprout
    while words and (words[0].lower() in _ARTICLES or not any(c.isalnum() for c in words[0])):
        words = words[1:]
    for i, word in enumerate(words):
        if i and word.lower().strip(",") in _QUALIFIERS:
            if words[i - 1].lower() in _GENERIC_HEADS:
                break  # "the agent who ...": the qualifier is the role
            words = words[:i]
            break
    return " ".join(words).strip(_QUOTES + ",.") or clause


def _stem(word: str) -> str:
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


@lru_cache(maxsize=4096)
def role_key(role: str) -> tuple[str, ...]:
    """A role's words as compared: lower case, hyphens split, plurals folded."""
    words = re.sub(r"[^\w\s]", " ", role.lower().replace("-", " ")).split()
    return tuple(_stem(w) for w in words if not is_counter(w))


def same_role(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    """The same role: equal, or one adds modifiers to the other ("empiricist", "reluctant
    empiricist") while the head noun stays."""
    if not a or not b:
        return False
    if a == b:
        return True
    return a[-1] == b[-1] and (set(a) <= set(b) or set(b) <= set(a))


@lru_cache(maxsize=4096)
def _words(text: str) -> frozenset[str]:
    words = re.sub(r"[^\w\s]", " ", strip_counters(text).lower().replace("-", " ")).split()
    return frozenset(_stem(w) for w in words if w not in _STOP and not is_counter(w))


@lru_cache(maxsize=4096)
def _norm(text: str) -> str:
    return " ".join(re.sub(r"[^\w\s]", " ", strip_counters(text).lower()).split())


def lexical_distance(a: str, b: str) -> float:
    """1 - the Jaccard overlap of two statements' content words: 0 the same, 1 nothing shared."""
    wa, wb = _words(a), _words(b)
    if not wa and not wb:
        return 0.0
    return 1.0 - len(wa & wb) / len(wa | wb)


def magnitude(previous: str, text: str, position: bool = False) -> float:
    """How far a statement moved from the previous one, 0..1, from their words alone.

    For roles, the role weighs most: the same role said differently moves a little, another
    role a lot. Positions have no role; their words are compared whole.
    """
    words = lexical_distance(previous, text)
    if position:
        return round(words, 3)
    a, b = role_key(role_of(previous)), role_key(role_of(text))
    role = 0.0 if same_role(a, b) else lexical_distance(" ".join(a), " ".join(b)) or 1.0
    return round(0.6 * role + 0.4 * words, 3)


def claims_change(text: str) -> bool:
    """Whether a position statement claims a change of the agent's own stance."""
    body = strip_counters(text)
    for m in _CHANGE_FROM_TO.finditer(body):
        if m.group("subject").lower() not in _NOT_SELF:
            return True
    if _EXTENSION.search(body):
        return False
    return bool(_ARROW.match(body) or _CONCESSION.search(body))


def classify(
    text: str, previous: str | None, held: Sequence[tuple[str, ...]] = (), position: bool = False
) -> str:
    """The kind of ``text`` against the previous statement and the roles ``held`` before it
    (oldest first, the previous statement's last). ``position``: an early-era position."""
    if previous is None:
        return "first"
    if _norm(text) == _norm(previous):
        return "repeat"
    if position:
        return "shift" if claims_change(text) else "refinement"
    key = role_key(role_of(text))
    if same_role(key, role_key(role_of(previous))):
        return "refinement"
    if any(same_role(key, h) for h in held[:-1]):
        return "return"
    return "shift"


def settle(kinds: bytes | bytearray, turning: bytes) -> bytes:
    """Each statement's kind code (``KINDS``) as the arc's turning points settle it: a turning
    point is a shift (or a return, or the first), any other statement never one (a shift or a
    return by its words alone is a refinement)."""
    settled = bytearray(kinds.translate(_NOT_TURN))
    for p in compress(range(len(turning)), turning):
        settled[p] = _AT_TURN[kinds[p]]
    return bytes(settled)


def shift_total(codes: bytes | bytearray) -> int:
    """How many of these kind codes are shifts (``SHIFT_KINDS``)."""
    return codes.count(_SHIFT) + codes.count(_RETURN)


def names_role(phrase: str) -> bool:
    """Whether "From Y" names a role ("integration declarer") rather than an activity
    ("indexing the library", "saying hello at the door"), which no role can contradict."""
    words = phrase.strip().strip("*_\"'`").split()
    while words and words[0].lower() in _ARTICLES:
        words = words[1:]
    return bool(words) and not words[0].lower().endswith("ing")


def is_position_label(label: str) -> bool:
    return label_key(label) == label_key(FALLBACK_LABEL)


def arc_label(soul: Soul, label: str | None = None) -> str:
    """The label this soul's arc uses: the one asked for, else Becoming, else Evolving position."""
    if label:
        return label
    key = label_key(DEFAULT_LABEL)
    for block in soul.blocks.mentioning(key):
        # an empty "- Becoming:" states nothing: the Evolving positions stay the arc
        if any(o.key == key and o.text for o in block.observations):
            return DEFAULT_LABEL
    return FALLBACK_LABEL


def arc(soul: Soul, label: str | None = None, titled: bool = True) -> Arc:
    """Every identity statement in time order (``_found``; frames and other sections alike),
    classified, with its turning points and chapters (``titled`` False: the chapters untitled,
    for an answer that never shows their titles)."""
    used = arc_label(soul, label)
    key, position = label_key(used), is_position_label(used)
    statements = Arc(soul.frames.columns, position=position)
    reading = ArcReading()
    # Read into the arc's columns: no frame and no ``Statement`` is made on the way.
    for block, text, line in _found(soul, key, reading):
        frame, title = (-1, block.title) if isinstance(block, Section) else (block, "")
        statements.add(text, line, frame, title, _classify(reading, text, position))
    # Here, once: the worker that computes an arc pays for it.
    statements.set_outline(statements.by_meaning(None, titled))
    return statements


@dataclass(slots=True)
class ArcReading:
    """How far ``iter_arc`` read a soul, and what its statements left for the next ones: handed
    back with the same soul grown by frames appended after ``frames`` (and nothing else), the
    arc goes on from there (a frame runner's brain need not read every arc again each frame)."""

    frames: int = -1  # the soul's frames read; -1: nothing yet (sections are read from the start)
    count: int = 0
    # The roles held so far, each once, by head noun: ``same_role`` needs the same head, so a
    # statement is compared with those alone (a list of every statement made long arcs quadratic).
    held: dict[str, list[tuple[str, ...]]] = field(default_factory=dict)
    prev_key: tuple[str, ...] | None = None
    prev: str | None = None


def iter_arc(
    soul: Soul, label: str | None = None, reading: ArcReading | None = None
) -> Iterator[Statement]:
    """The statements of ``arc``, one at a time (a summary of a big soul need not hold them);
    with ``reading``, those after where it stopped, and it is kept up to date as they come."""
    used = arc_label(soul, label)
    key, position = label_key(used), is_position_label(used)
    reading = ArcReading() if reading is None else reading
    columns = soul.frames.columns
    for block, text, line in _found(soul, key, reading):
        index, c = reading.count, _classify(reading, text, position)
        frame: int | None = None
        heading, number, suffix, date, time, duplicate = "", None, "", None, None, False
        if isinstance(block, Section):
            heading = block.title
        else:
            frame, heading, number = block, columns.heading(block), columns.number(block)
            suffix, date, time = columns.suffixes[block], columns.dates[block], columns.times[block]
            duplicate = columns.duplicates[block] >= 0
        yield Statement(
            index=index,
            text=text,
            line=line,
            heading=heading,
            frame_index=frame,
            number=number,
            suffix=suffix,
            date=date,
            time=time,
            role=c.role,
            from_role=c.from_role,
            to_role=c.to_role,
            kind=c.kind,
            magnitude=c.magnitude,
            from_mismatch=c.mismatch,
            duplicate_frame=duplicate,
            position=position,
        )


def _found(soul: Soul, key: str, reading: ArcReading) -> Iterator[tuple[Section | int, str, int]]:
    """Each statement of label ``key`` not read yet, in the order of its frame's time
    (``when.FileTimes``: frames of one time, and a section after the frame above it, in file
    order; the header's sections first): its section (or its frame's index), text and line.
    Frames appended since ``reading`` come in file order, after those read. ``reading.frames``
    is brought up to date when they are all read."""
    found = _in_file(soul, key, reading)
    if reading.frames >= 0:
        yield from found
        return
    times = when.FileTimes(soul.frames.columns)
    above = {id(s): place - 1 for s, place in zip(soul.sections, soul.section_places, strict=True)}
    items = list(found)
    keys = [times.key(above[id(b)] if isinstance(b, Section) else b) for b, _, _ in items]
    yield from (items[i] for i in sorted(range(len(items)), key=keys.__getitem__))


def _in_file(soul: Soul, key: str, reading: ArcReading) -> Iterator[tuple[Section | int, str, int]]:
    """``_found``'s statements in file order."""
    columns = soul.frames.columns
    keys: dict[str, str] = {}  # each label's key (the same few labels recur)
    for block in _blocks(soul, key, reading):
        if isinstance(block, Section):
            found = block.observations
        else:  # a label asked for by name is read in its dash form too
            found = observations(columns, block, None if key in DASH_LABELS else key)
        for obs in found:
            label = obs.label
            known = keys.get(label)
            if known is None:
                known = keys[label] = obs.key
            if known == key and obs.text:
                yield block, obs.text, obs.line
    reading.frames = len(soul.frames)


def _blocks(soul: Soul, key: str, reading: ArcReading) -> Iterable[Section | int]:
    """The sections, and the indices of the frames, that may hold statements of label ``key``
    not read yet: only the frames that hold the label's first word (the others are skipped
    unbuilt)."""
    word = key.split()[0] if key.strip() else None
    if reading.frames >= 0:  # the frames appended since
        rest = soul.frames[reading.frames :]
        return rest.mentioning(word) if word else rest.indices
    frames = soul.frames.mentioning(word) if word else iter(soul.frames.indices)
    return _in_file_order(soul.sections, soul.section_places, frames)


def _in_file_order(
    sections: Sequence[Section], places: Sequence[int], frames: Iterator[int]
) -> Iterator[Section | int]:
    """``sections`` (each after ``places[k]`` frames) and the frame indices ``frames`` (in file
    order), merged in file order."""
    i = next(frames, None)
    for section, place in zip(sections, places, strict=True):
        while i is not None and i < place:
            yield i
            i = next(frames, None)
        yield section
    if i is not None:
        yield i
        yield from frames


class Classified(NamedTuple):
    """What a statement is against those before it (``_classify``)."""

    role: str
    from_role: str | None
    to_role: str | None
    kind: str
    magnitude: float
    mismatch: bool  # "From Y" names a role other than the previous one


def _classify(reading: ArcReading, text: str, position: bool) -> Classified:
    """The next statement of the arc, classified against what ``reading`` holds (then updated)."""
    prev_key, prev, held = reading.prev_key, reading.prev, reading.held
    role = role_of(text)
    rkey = role_key(role)
    candidates = held.get(rkey[-1], []) if rkey else []
    kind = classify(text, prev, [*candidates, prev_key or ()], position)
    m = _FROM_TO.search(text)
    from_role = m.group(1).strip() if m else None
    mismatch = bool(
        not position
        and from_role
        and prev_key is not None
        and names_role(from_role)
        and not same_role(role_key(role_of(from_role)), prev_key)
    )
    found = Classified(
        role,
        from_role,
        m.group(2).strip() if m else None,
        kind,
        0.0 if prev is None else magnitude(prev, text, position),
        mismatch,
    )
    if rkey and rkey not in held.setdefault(rkey[-1], []):
        held[rkey[-1]].append(rkey)
    reading.count += 1
    reading.prev_key, reading.prev = rkey, text
    return found


class Arc(Sequence[Statement]):
    """An arc's statements, held as columns: each ``Statement`` is made when it is read.

    A soul that never compacts has an arc of 70,000 statements; as objects, with their headings,
    dates and numbers each held again, they weigh twice the file. What the soul's frame columns
    know (heading, number, date) is read from them, and the rest is held once: the texts, the
    roles (one string for each role, however often it recurs), numbers in arrays.
    """

    __slots__ = (
        "frames",
        "texts",
        "roles",
        "lines",
        "frame_indices",
        "kinds",
        "settled",
        "magnitudes",
        "turns",
        "mismatches",
        "titles",
        "position",
        "_outline",
        "_role_of",
    )

    def __init__(self, frames: FrameColumns | None = None, position: bool = False) -> None:
        # The soul's: what the statements in frames read of their frame (None: an empty arc).
        self.frames = frames
        self.position = position  # early-era positions, not roles
        self.texts: list[str] = []
        self.roles: list[str] = []
        self.lines = array("q")
        self.frame_indices = array("q")  # -1: outside frames
        self.kinds = bytearray()  # each an index into KINDS, against the statements before it
        self.settled: tuple[Outline, bytes] | None = None  # the kinds ``settle`` makes, by outline
        self.magnitudes = array("d")
        self.turns: dict[int, tuple[str | None, str | None]] = {}  # position: "From Y to Z"
        self.mismatches: set[int] = set()  # positions whose "From Y" is not the previous role
        self.titles: dict[int, str] = {}  # position: the section title, outside frames
        # Turning points and chapters (``chapters.outline``), made for the statements as they are.
        self._outline: Outline | None = None
        self._role_of: dict[str, str] = {}  # one string for each role

    def append(self, s: Statement) -> None:
        """Add the next statement (``s.index`` is its position)."""
        frame, title = (-1, s.heading) if s.frame_index is None else (s.frame_index, "")
        read = Classified(s.role, s.from_role, s.to_role, s.kind, s.magnitude, s.from_mismatch)
        self.add(s.text, s.line, frame, title, read)

    def add(self, text: str, line: int, frame: int, title: str, read: Classified) -> None:
        """Add the next statement: in frame ``frame`` (-1: in the section titled ``title``)."""
        if frame >= 0 and self.frames is None:
            raise ValueError("an arc without frame columns holds no statement of a frame")
        position = len(self.texts)
        self.texts.append(text)
        self.add_role(read.role)
        self.lines.append(line)
        self.frame_indices.append(frame)
        self.kinds.append(KINDS.index(read.kind))
        self.magnitudes.append(read.magnitude)
        if read.from_role is not None or read.to_role is not None:
            self.turns[position] = (read.from_role, read.to_role)
        if read.mismatch:
            self.mismatches.add(position)
        if frame < 0:
            self.titles[position] = title
        self._outline = None

    def outline(self) -> Outline:
        """The arc's turning points and chapters, by its words (made once, kept until it grows)."""
        outline = self._outline
        if outline is None or len(outline.turning) != len(self.texts):
            outline = self._outline = self.by_meaning(None)
        return outline

    def by_meaning(self, vectors: object | None, titled: bool = True) -> Outline:
        """The arc's turning points and chapters judged by meaning (``vectors``: one embedding
        row per statement; None: by words), from its texts, headings and role moves (``titled``
        False: the chapters untitled)."""
        from soulscope.soul.chapters import outline as make

        moved = self.kinds.translate(_SHIFT_CODES)  # (a role other than the previous one's)
        headings = self.headings()
        return make(self.texts, vectors=vectors, titled=titled, headings=headings, moved=moved)

    def headings(self) -> list[str]:
        """Each statement's frame heading (its section's title outside frames)."""
        f = self.frames
        return [
            f.heading(frame) if f is not None and frame >= 0 else self.titles[i]
            for i, frame in enumerate(self.frame_indices)
        ]

    def set_outline(self, outline: Outline) -> None:
        """The outline of these statements made elsewhere (received in pieces)."""
        if len(outline.turning) != len(self.texts):
            raise ValueError("the outline does not have the arc's length")
        self._outline = outline
        self.settled = None

    def outlined(self, outline: Outline) -> Arc:
        """These statements with another outline (by meaning): a new arc over the same columns,
        so that an arc others hold keeps its own."""
        other = Arc.__new__(Arc)
        for name in Arc.__slots__:
            setattr(other, name, getattr(self, name))
        other.set_outline(outline)
        return other

    def kind_codes(self) -> bytes:
        """Each statement's kind (an index into ``KINDS``), settled with the turning points."""
        outline = self.outline()
        if self.settled is None or self.settled[0] is not outline:
            self.settled = (outline, settle(self.kinds, outline.turning))
        return self.settled[1]

    def add_role(self, role: str) -> None:
        self.roles.append(self._role_of.setdefault(role, role))

    def __len__(self) -> int:
        return len(self.texts)

    @overload
    def __getitem__(self, i: int) -> Statement: ...
    @overload
    def __getitem__(self, i: slice) -> list[Statement]: ...
    def __getitem__(self, i: int | slice) -> Statement | list[Statement]:
        if isinstance(i, slice):
            return [self._statement(j) for j in range(len(self.texts))[i]]
        if i < 0:
            i += len(self.texts)
        if not 0 <= i < len(self.texts):
            raise IndexError("arc index out of range")
        return self._statement(i)

    def __iter__(self) -> Iterator[Statement]:
        return map(self._statement, range(len(self.texts)))

    def __reversed__(self) -> Iterator[Statement]:
        return map(self._statement, reversed(range(len(self.texts))))

    def __eq__(self, other: object) -> bool:
        """The same statements as another arc, list or tuple."""
        if isinstance(other, (Arc, list, tuple)):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  (it grows)

    def __repr__(self) -> str:
        return f"<arc of {len(self)} statements>"

    def _statement(self, i: int) -> Statement:
        outline = self.outline()
        f = self.frames
        frame = self.frame_indices[i]
        turn = self.turns.get(i)
        in_frame = f is not None and frame >= 0
        return Statement(
            index=i,
            text=self.texts[i],
            line=self.lines[i],
            heading=f.heading(frame) if in_frame else self.titles[i],
            frame_index=frame if in_frame else None,
            number=f.number(frame) if in_frame else None,
            suffix=f.suffixes[frame] if in_frame else "",
            date=f.dates[frame] if in_frame else None,
            time=f.times[frame] if in_frame else None,
            role=self.roles[i],
            from_role=turn[0] if turn else None,
            to_role=turn[1] if turn else None,
            kind=KINDS[self.kind_codes()[i]],
            magnitude=self.magnitudes[i],
            from_mismatch=i in self.mismatches,
            duplicate_frame=in_frame and f.duplicates[frame] >= 0,
            position=self.position,
            turning_point=bool(outline.turning[i]),
            chapter=outline.chapter_of(i),
        )

    # Columns read without making statements: what a 70,000-statement timeline asks of them all.
    def kind(self, i: int) -> str:
        return KINDS[self.kind_codes()[i]]

    def shift_positions(self) -> list[int]:
        """The positions of the statements that shift the arc (``Statement.shift``), found in C
        (a Python loop over 70,000 kinds is a few milliseconds of a key)."""
        codes = self.kind_codes()
        return list(compress(range(len(codes)), codes.translate(_SHIFT_CODES)))

    def turning_positions(self) -> list[int]:
        """The positions of the arc's turning points, in order."""
        return self.outline().turning_positions()

    def shift_count(self) -> int:
        return shift_total(self.kind_codes())

    def frame_index(self, i: int) -> int | None:
        frame = self.frame_indices[i]
        return None if frame < 0 else frame


def shifts(statements: Sequence[Statement]) -> list[Statement]:
    return [s for s in statements if s.shift]


def drift(
    statements: Sequence[Statement], encode: Callable[[list[str]], object] | None = None
) -> list[float]:
    """Each statement's shift magnitude against the previous one, 0..1 (the first is 0).

    Lexical without ``encode``; with it (texts -> an array of embedding rows, as
    ``recall.semantic`` gives), the cosine distance of the statements, clipped to 0..1.
    """
    if encode is None or len(statements) < 2:
        return [s.magnitude for s in statements]
    import numpy as np

    vectors = np.asarray(encode([s.text for s in statements]), dtype=float)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    vectors = vectors / np.where(norms == 0, 1, norms)
    cos = (vectors[1:] * vectors[:-1]).sum(axis=1)
    return [0.0, *(round(float(min(1.0, max(0.0, 1.0 - c))), 3) for c in cos)]


@dataclass(frozen=True, slots=True)
class ArcRow:
    """One row of two arcs side by side: statements of the same frame and moment pair up."""

    key: str  # the frame label
    when: str | None  # date and time of the row, as far as its headings tell them
    left: Statement | None
    right: Statement | None


def _moments(statements: Sequence[Statement]) -> list[tuple]:
    """Each statement's place in time (``soul.when``), for sorting: date, time of day, frame
    number; an undated statement takes the place of the latest dated one before it in its arc
    (the one after it when none comes before), so it keeps its neighbours."""
    found = when.moments(
        [s.date for s in statements], [s.time for s in statements], [s.number for s in statements]
    )
    return [m.key for m in found]


def compare(left: Sequence[Statement], right: Sequence[Statement]) -> list[ArcRow]:
    """Two arcs side by side in time order (date, then time, then frame number where both
    frames have one), each arc in its own order: the two merged, never one reordered.
    Statements of the same frame at the same date and time pair up; undated ones keep their
    place in their arc."""
    keys = (_moments(left), _moments(right))
    rows: list[ArcRow] = []
    i = j = 0
    while i < len(left) or j < len(right):
        a = left[i] if i < len(left) else None
        b = right[j] if j < len(right) else None
        if a is not None and b is not None and _same_frame(a, b):
            rows.append(ArcRow(a.frame_label, a.when, a, b))
            i, j = i + 1, j + 1
        elif b is None or (a is not None and not _later(keys[0][i], keys[1][j])):
            rows.append(ArcRow(a.frame_label, a.when, a, None))  # type: ignore[union-attr]
            i += 1
        else:
            rows.append(ArcRow(b.frame_label, b.when, None, b))
            j += 1
    return rows


def _same_frame(a: Statement, b: Statement) -> bool:
    """Whether two statements are of one frame (its label and moment), known by its number or
    date."""
    return (
        (a.number is not None or a.date is not None)
        and (b.number is not None or b.date is not None)
        and (a.frame_label, a.when) == (b.frame_label, b.when)
    )


def _later(a: tuple, b: tuple) -> bool:
    """Whether moment key ``a`` comes after ``b``: by date and time, then by frame number
    where both frames have one (an unnumbered frame's order is its own file's)."""
    if a[:2] != b[:2]:
        return a[:2] > b[:2]
    return a[2] >= 0 and b[2] >= 0 and a[2] > b[2]


@dataclass(frozen=True, slots=True)
class ArcSummary:
    """The whole arc of one agent in a line: for the world overview."""

    agent_id: str
    name: str | None
    statements: int
    shifts: int
    latest: Statement | None
    frames: int
    last_date: str | None
    drift: tuple[float, ...] = ()  # each statement's shift magnitude, in arc order
    turning_points: int = 0  # statements where the identity really moved (``chapters``)
    chapters: int = 0


def summarize(
    agent_id: str,
    soul: Soul,
    label: str | None = None,
    statements: Iterable[Statement] | None = None,
) -> ArcSummary:
    """The arc of ``soul`` in a line (``statements``: its arc, when it is computed already)."""
    from soulscope.soul.chapters import Words, outline

    count = shifted = 0
    latest: Statement | None = None
    drifts: Sequence[float] = []
    # The latest statement is the arc's last: the latest by its frame's time (``_found``), the
    # last written among equals.
    if isinstance(statements, Arc):  # read from its columns: no statement made but the latest
        count, shifted, drifts = len(statements), statements.shift_count(), statements.magnitudes
        latest = statements[-1] if count else None
        shape = statements.outline()
    else:
        if statements is None:
            statements = iter_arc(soul, label)  # streamed: a big soul's arc is not held
        drifts = []
        words = Words(phrases=False)  # the statements' words, for the turning points
        kinds = bytearray()  # each statement's kind against the ones before it, to settle
        for s in statements:
            count += 1
            kinds.append(KINDS.index(s.kind))
            drifts.append(s.magnitude)
            words.add(s.text, s.heading, s.shift)  # (the stream's kind: by the previous one)
            latest = s
        shape = outline(words, titled=False)
        settled = settle(kinds, shape.turning)
        shifted = shift_total(settled)
        if latest is not None:  # (its chapter is the whole arc's: known once it is read)
            latest = replace(
                latest,
                kind=KINDS[settled[latest.index]],
                turning_point=bool(shape.turning[latest.index]),
                chapter=shape.chapter_of(latest.index),
            )
    return ArcSummary(
        agent_id=agent_id,
        name=soul.name,
        statements=count,
        shifts=shifted,
        latest=latest,
        frames=len(soul.frames),
        last_date=max(filter(None, soul.frames.columns.dates), default=None),
        drift=tuple(drifts),
        turning_points=shape.turning_count(),
        chapters=len(shape.chapters),
    )
