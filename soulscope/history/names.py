"""The ways a world's agents are written in soul files, resolved to their ids.

Souls drop the world's prefix (``coder-06`` for ``zion-coder-06``), also for agents whose file the
folder lacks, and later souls name each other by the display names of the registry (``agents.json``:
"Grace Debugger (her tests)", "aligned with Grace"), or without one by the titles the soul files
give themselves ("# Rustacean"). The why dossier, ``spread`` and the influence
graph read names through one ``AgentNames`` of the world, by way of the link reader
(``history.links``). Ids are written in any case ("Coder-05"); a name is an agent only where the
world holds its file or its registry lists it.

Display names are phrases as often as names ("Hidden Gem alert", "Ada Lovelace invented the
loop" of the historical Ada), so they count where they are used as names: after "replied to"; in
the bullets that say who shaped the agent (``Influenced by:``, ``Relationships:``) a name of
several words anywhere, a one-word name ("Rustacean", or a first name, "Grace", that no other
display name begins with) as a possessive, a relationship or an item alone ("Grace's review",
"Grace (her tests)", "Influenced by: Grace, Nova"); elsewhere a name of several words as a possessive ("Read Grace Debugger's review"),
or as a person: one that speaks or thinks ("Grace Debugger disagreed"), one set against the
writer ("unlike Grace Debugger"), or an item of a list of agents ("coder-01 and Grace Debugger").
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator
from dataclasses import dataclass, field
from functools import cached_property, lru_cache

from soulscope.soul.terms import Term
from soulscope.world import World

_SHORT_ID = re.compile(r"(?<![\w-])([a-z]+-\d{1,4})(?![\w-])")
_RUN = re.compile(r"[\w-]+")  # a name is a whole run of word characters and hyphens


@dataclass(frozen=True)
class AgentNames:
    """The ways a world's agents are written (``zion-coder-09``, ``coder-09``) -> their ids.

    Souls drop the world's prefix ("coder-06" for "zion-coder-06"), also for agents whose file
    this folder lacks, and write ids in any case ("Coder-05"). A name is an agent only where
    the world holds its file or its registry lists it ("lurker-47" of a story is no agent); a
    world without a registry takes a short name of its own shape (an archetype its files
    hold or list as agents, and a number: "coder-12") or its prefix ("zion-curator-02") as one
    of its agents whose file it lacks.
    """

    forms: dict[str, str]  # written form -> id, the agent itself left out
    present: frozenset[str]  # ids with a soul file here
    prefix: str  # "zion-": shared by most ids, "" when none is
    archetypes: frozenset[str]  # "coder", "debater": the first word after the prefix
    # display names of one agent only -> its id: {"Grace Debugger": ..., "Grace": ...}; the
    # value's flag says whether the name is one word (a first name, "Rustacean")
    people: dict[str, tuple[str, bool]] = field(default_factory=dict)
    guess: bool = False  # no registry: short names of the world's shape are its agents
    world: World | None = field(default=None, compare=False, repr=False)  # for ``listed``

    @classmethod
    def of(cls, world: World, agent_id: str = "", words: bool = True) -> AgentNames:
        """The names of ``world``'s agents as ``agent_id`` would write the others ("": every
        agent's). ``words=False`` leaves out registered ids without a soul file that are one
        plain word ("system"): in running text they are mostly the word."""
        present = frozenset(a.id for a in world.agents())
        registered = set(world.registry())
        if not words:
            registered = {i for i in registered if i in present or not i.isalpha()}
        ids = present | registered
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
        guess = not world.registry()
        people = _people(world.registry() or titled(world), agent_id)
        return cls(forms, present, prefix, frozenset(archetypes), people, guess, world)

    def resolve(self, name: str, listed: bool = False) -> str:
        """The id ``name`` stands for (a form, a display name, a first name), else ``name``.
        Words before a display name are dropped ("Also Grace Debugger"). ``listed``: the name
        stands where only agents are listed (a ``Relationships:`` item), so in a world without
        a registry any short id ("researcher-04") is one of its agents (``listed_id``)."""
        name = name.strip().lstrip("@")
        found = self.forms.get(name) or self.folded.get(name.lower())
        if found is not None:
            return found
        if listed and (who := self.listed_id(name.encode())) is not None:
            return who
        if _SHORT_ID.fullmatch(name.lower()) and self._id_shaped(name.lower()):
            return self.prefix + name.lower()
        words = name.split()
        for k in range(len(words)):
            person = self.people.get(" ".join(words[k:])) or self.shouted.get(" ".join(words[k:]))
            if person is not None:
                return person[0]
        return name

    def _id_shaped(self, name: str) -> bool:
        """A short name that reads as one of this world's ids where it has no registry to say:
        one of its archetypes, or of those its souls list as agents, and a number ("coder-12",
        "philosopher-08"); "lurker-47" is a word of a story."""
        if not (self.guess and self.prefix):
            return False
        archetype = name.partition("-")[0]
        return archetype in self.archetypes or archetype in self.listed

    @cached_property
    def listed(self) -> frozenset[str]:
        """The archetypes the world's souls list as agents (``listed_archetypes``), read the
        first time a short name of an archetype no file holds is met."""
        if self.world is None:
            return frozenset()
        return frozenset(listed_archetypes(self.world, self.prefix))

    def knowing(self, listed: frozenset[str]) -> AgentNames:
        """These names with ``listed`` given (read from files kept elsewhere: ``tallystore``)
        rather than read from the world's files when first needed."""
        self.__dict__["listed"] = listed
        return self

    @cached_property
    def folded(self) -> dict[str, str]:
        """The forms that are ids, lowered (ids are written in any case: "Coder-05"); not an id
        that is one plain word ("System" in running text is the word)."""
        return {k.lower(): v for k, v in self.forms.items() if not k.isalpha()}

    @cached_property
    def folded_bytes(self) -> dict[bytes, str]:
        """``folded`` as UTF-8 bytes (for the link reader; made from the forms, so that a
        world of 50,000 agents does not hold ``folded`` too where only files are read)."""
        return {k.lower().encode(): v for k, v in self.forms.items() if not k.isalpha()}

    @cached_property
    def first_words(self) -> frozenset[bytes]:
        """The first words of the display names, as bytes (for ``cites``), and in capitals
        those of the names of several words (``shouted``)."""
        words = {name.split()[0].encode() for name in self.people}
        words.update(name.split()[0].encode() for name in self.shouted)
        return frozenset(words)

    @cached_property
    def shouted(self) -> dict[str, tuple[str, bool]]:
        """The display names of several words in capitals ("GRACE HOPPER", "ZED PRIME'S"):
        written so, they are the name; a single word in capitals ("NOVA") is mostly emphasis."""
        return {n.upper(): p for n, p in self.people.items() if " " in n and n.upper() != n}

    @cached_property
    def ids(self) -> frozenset[str]:
        """Every id a form resolves to."""
        return frozenset(self.forms.values())

    @cached_property
    def byte_forms(self) -> dict[bytes, str]:
        """Every form as UTF-8 bytes -> its id (for ``cites``)."""
        return {k.encode(): v for k, v in self.forms.items()}

    def listed_id(self, token: bytes) -> str | None:
        """The id of a short name ("researcher-04") where the soul lists it as an agent (a
        ``Relationships:`` or ``Influenced by:`` item), in a world without a registry: the
        world's prefix and the name, whether or not the world knows its archetype (a folder
        of three files knows few). Elsewhere "lurker-47" stays a word of a story."""
        if not (self.guess and self.prefix and _SHORT_ID_BYTES.fullmatch(token.lower())):
            return None
        return self.prefix + token.lower().decode()

    def from_bytes(self, token: bytes) -> str | None:
        """The id a whole name in a file's bytes stands for, as ``find`` resolves it; None
        when it names no agent."""
        who = self.byte_forms.get(token)
        if who is None and not token.islower():
            token = token.lower()
            who = self.folded_bytes.get(token)
        if who is None and self.guess and self.prefix:
            short = token.decode()
            if short.startswith(self.prefix) and _SHORT_ID.fullmatch(short[len(self.prefix) :]):
                return short  # "zion-curator-02": the world's prefix says it is one of its ids
            if _SHORT_ID_BYTES.fullmatch(token) and self._id_shaped(short):
                who = self.prefix + short
        return who

    @cached_property
    def hyphenated(self) -> bool:
        """Whether every form holds a hyphen (then only runs with one can be a name)."""
        return all("-" in k for k in self.forms)

    @cached_property
    def runs(self) -> re.Pattern[bytes]:
        """The runs of a file's bytes that ``cites`` looks up: with a hyphen where every form
        holds one, and not those that begin with a digit (dates, "2026-03-14") where no form
        does (a short id begins with a letter)."""
        digits = any(k[:1].isdigit() for k in self.byte_forms)
        if self.hyphenated:
            return _HYPHENATED if digits else _HYPHENATED_LETTERED
        return _ANY_RUN if digits else _ANY_RUN_LETTERED

    @cached_property
    def candidates(self) -> tuple[re.Pattern[bytes], re.Pattern[bytes] | None, bool]:
        """How to find the runs of ``runs`` that can be names, fewer of them: a pattern of the
        runs with a hyphen (most forms, and every short name ``from_bytes`` guesses); one of
        the forms without one (None when every form has one), and whether it holds them
        lowered, to be looked for in the lowered bytes and kept where a whole run (else, with
        too many such forms to list, it finds every whole run without a hyphen). Every run
        ``runs`` finds that names an agent is among them: a world whose ids include a handle
        ("rappter1") is read without looking up each of its words."""
        if self.hyphenated:
            return self.runs, None, False
        digits = any(k[:1].isdigit() for k in self.byte_forms)
        hyphen = HYPHEN_RUN if digits else HYPHEN_RUN_LETTERED
        # (a form with a dot is no run: ``dotted`` finds it)
        plain = {k.lower() for k in self.byte_forms if b"-" not in k and _RUN_BYTES.fullmatch(k)}
        if not plain:
            return hyphen, None, False
        if len(plain) > _LISTED_PLAIN:
            return hyphen, _PLAIN_RUN if digits else _PLAIN_RUN_LETTERED, False
        listed = b"|".join(re.escape(k) for k in sorted(plain, key=len, reverse=True))
        return hyphen, re.compile(listed), True

    @cached_property
    def dotted(self) -> re.Pattern[bytes] | None:
        """The forms with characters other than word characters and hyphens ("dr.who-1": ids
        may hold dots), as one pattern over a file's bytes (every other form is a whole run of
        those and is looked up); None when there are none."""
        odd = sorted((k for k in self.forms if not _RUN.fullmatch(k)), key=len, reverse=True)
        if not odd:
            return None
        alternatives = b"|".join(re.escape(k.encode()) for k in odd)
        return re.compile(rb"(?<![\w-])(" + alternatives + rb")(?![\w-])", re.I)

    def people_in(self, run: str) -> Iterator[tuple[int, int, str, bool]]:
        """The display names in a run of capitalised words, longest first from the left, as
        (offset in the run, offset after the name, id, whether the name is one word)."""
        # (a possessive is the name's: "Grace Debugger's pipeline")
        raw = [(m.start(), m.group()) for m in _WORD.finditer(run)]
        words = [(at, _possessed(w)) for at, w in raw]
        i = 0
        while i < len(words):
            for j in range(len(words), i, -1):
                name = " ".join(w for _, w in words[i:j])
                person = self.people.get(name)
                if person is None and j - i > 1 and name.isupper():
                    person = self.shouted.get(name)
                if person is not None:
                    break
            else:
                i += 1
                continue
            if j < len(words) and name in self.first_names and raw[j - 1][1] == name:
                i = j + 1  # "Ada Emergent": another person of that first name, no agent
                continue
            end = words[j - 1][0] + len(words[j - 1][1])
            yield words[i][0], end, person[0], person[1]
            i = j

    @cached_property
    def first_names(self) -> frozenset[str]:
        """The first names that stand for an agent ("Ada" of "Ada Lovelace"; ``_people``)."""
        firsts = {n.split()[0] for n in self.people if " " in n}
        return frozenset(n for n in firsts if n in self.people)

    def others_named(self, first: str, data: bytes) -> bool:
        """Whether ``data`` writes ``first`` before another capitalised word that makes no
        agent's name ("Ada Emergent" where only "Ada Lovelace" is registered): there, a bare
        "Ada" may be either, and names no agent."""
        # (the name first, its left edge checked after: a pattern that opens with its words is
        # found by a scan for them, not tried at every byte)
        pattern = re.compile(re.escape(first.encode()) + rb"[ \t]+([A-Z][\w-]*)")
        pairs = self.two_words
        for m in pattern.finditer(data):
            if m.start() and _NAME_EDGE.fullmatch(data, m.start() - 1, m.start()) is not None:
                continue
            if f"{first} {m.group(1).decode('utf-8', 'replace')}" not in pairs:
                return True
        return False

    @cached_property
    def two_words(self) -> frozenset[str]:
        """The first two words of every display name of several words ("Ada Lovelace")."""
        return frozenset(" ".join(n.split()[:2]) for n in self.people if " " in n)


# A bullet that lists only agents ("- Relationships: philosopher-03 (...)", "- **Influenced
# by:** wildcard-01's ..."), and the short ids in it.
_LISTING = re.compile(
    rb"(?im)^[ \t]*(?:[-*+][ \t]+)?(?:\*\*|__)?[ \t]*(?:relationships?|influenced by"
    rb"|surprised by|reinforced(?: by)?)[ \t]*(?:\*\*|__)?[ \t]*:(?:\*\*|__)?([^\n]*)"
)
_LISTED_SHORT = re.compile(rb"(?:^|[\s,;(@])([A-Za-z]+)-\d{1,4}(?![\w-])")
# A short id as the author of a post on a thread ("UP curator-07/#4775", "🚀 coder-02/#4724"):
# only agents write posts.
_AUTHOR_OF_POST = re.compile(rb"(?<![\w-])([A-Za-z]+)-\d{1,4}/#\d+")


def as_used(term: Term, world: World) -> Term:
    """``term`` as ``first`` and ``spread`` find it in ``world``: not inside the name of one of
    its agents ("curator" is not used in "replied to zion-curator-02")."""
    return term.naming(AgentNames.of(world, words=False).from_bytes)


def titled(world: World) -> dict[str, dict]:
    """The display names the soul files give themselves in their title ("# Rustacean"), as a
    registry would (``{id: {"name": ...}}``), for a world without one; a title that is the id
    or says only "Soul File" names nobody ("# zion-reviewer-01 — Soul File")."""
    out: dict[str, dict] = {}
    for a in world.agents():
        try:
            with a.path.open("rb") as f:
                first = f.readline(200)
        except OSError:
            continue
        title = first.decode("utf-8", "replace").strip()
        if not title.startswith("# "):
            continue
        name = title[2:].strip()
        head, sep, rest = name.partition(" — ")
        if sep and head.strip().lower() == a.id.lower():
            name = rest.strip()
        if name and name.lower() not in (a.id.lower(), "soul file"):
            out[a.id] = {"name": name}
    return out


def listed_archetypes(world: World, prefix: str = "") -> set[str]:
    """The archetypes of the short ids a world's souls list where only agents are listed
    (``Relationships:``, ``Influenced by:``), and of the ids they write with the world's
    ``prefix`` anywhere ("zion-storyteller-03"), or as the author of a post on a thread
    ("UP curator-07/#4775"): in a folder of a few files without a
    registry, "philosopher-08" replied to is an agent because some soul lists a philosopher,
    while a story's "lurker-47" stays a word."""
    found: set[str] = set()
    for a in world.agents():
        try:
            data = a.path.read_bytes()
        except OSError:
            continue
        found |= listed_in(data, prefix)
    return found


def listed_in(data: bytes, prefix: str = "") -> set[str]:
    """``listed_archetypes`` of one soul file's bytes."""
    found: set[str] = set()
    for line in _LISTING.findall(data):
        found.update(m.lower().decode("ascii") for m in _LISTED_SHORT.findall(line))
    if b"/#" in data:
        found.update(m.lower().decode("ascii") for m in _AUTHOR_OF_POST.findall(data))
    if prefix:
        # Found from each place the prefix is written, in any case (the bytes lowered keep
        # their places), not tried at every byte.
        low = data.lower()
        for m in _prefixed(prefix.lower()).finditer(low):
            at = m.start()
            if at == 0 or _NAME_BYTE.fullmatch(low, at - 1, at) is None:
                found.add(m.group(1).decode("ascii"))
    return found


_NAME_BYTE = re.compile(rb"[\w-]")
_NAME_EDGE = re.compile(rb"[\w'-]")


@lru_cache(maxsize=8)
def _prefixed(prefix: str) -> re.Pattern[bytes]:
    """An id written with the world's ``prefix``, lowered ("zion-storyteller-03"): its
    archetype."""
    return re.compile(re.escape(prefix.encode()) + rb"([a-z]+)-\d{1,4}(?![\w-])")


def as_name(text: str | bytes, end: int, paren: bool = True) -> bool:
    """Whether a display name ending at ``end`` is used as a name: a possessive ("Grace
    Debugger's review") or, with ``paren``, the name of a relationship ("Grace (her tests)").
    Display names are phrases too ("Hidden Gem alert", "the Weekly Digest post")."""
    after = text[end : end + 4]
    if isinstance(after, bytes):
        after = after.replace("\u2019".encode(), b"'").decode("ascii", "replace")
    return after.startswith(("'s", "\u2019s")) or (paren and after.startswith((" (", "(")))


# A run of capitalised words in bytes (a display name is one), and a word of it. A letter
# beyond ASCII is a Latin, Greek or Cyrillic one in UTF-8 ("Zoë Ångström", "José Núñez"):
# a capital of Latin-1 (À-Þ), or any letter of the ranges after it.
LETTER_BYTES = rb"(?:[\w'-]|[\xc3-\xd4][\x80-\xbf]|\xe2\x80\x99(?=\w))"
_CAPITAL = rb"(?:[A-Z]|\xc3[\x80-\x9e]|[\xc4-\xd4][\x80-\xbf])"
CAPITALISED_BYTES = re.compile(
    rb"(?<![\w'-])(?<![\xc3-\xd4][\x80-\xbf])" + _CAPITAL + LETTER_BYTES + rb"*"
    rb"(?:[ \t]+" + _CAPITAL + LETTER_BYTES + rb"*)*"
)
_WORD = re.compile(r"[^ \t]+")


def _possessed(word: str) -> str:
    """A word without its possessive ("Grace's", "Grace\u2019s": "Grace")."""
    for mark in ("'s", "'S", "\u2019s", "\u2019S"):
        if word.endswith(mark):
            return word[: -len(mark)]
    return word


def _people(registry: dict[str, dict], agent_id: str) -> dict[str, tuple[str, bool]]:
    """The registry's display names that name one agent each, and the first names ("Grace" of
    "Grace Debugger") that no other display name shares, the agent itself left out."""
    named: dict[str, set[str]] = {}
    first: dict[str, set[str]] = {}
    for i, fields in registry.items():
        name = fields.get("name")
        if not isinstance(name, str) or not name.strip():
            continue
        words = name.split()
        if not words[0][:1].isupper():
            continue  # "pratikrath126": a handle, not a name a soul writes
        named.setdefault(" ".join(words), set()).add(i)
        if len(words) > 2 and words[0].lower().rstrip(".") in _TITLES:
            words = words[1:]  # "Dr. Amara Singh" is written "Amara Singh", "Amara" too
            named.setdefault(" ".join(words), set()).add(i)
        if len(words) > 1 and len(words[0]) > 2 and words[0].lower() not in _NO_FIRST_NAME:
            first.setdefault(words[0], set()).add(i)
    people = {n: (next(iter(ids)), " " not in n) for n, ids in named.items() if len(ids) == 1}
    for n, ids in first.items():
        if len(ids) == 1 and n not in named:
            people.setdefault(n, (next(iter(ids)), True))
    return {n: p for n, p in people.items() if p[0] != agent_id}


# A title before a name ("Dr. Amara Singh"), which souls leave out as often as not.
_TITLES = frozenset(
    ["dr", "mr", "mrs", "ms", "mx", "prof", "professor", "doctor", "mister", "sir", "dame", "capt"]
    + ["captain", "lady", "lord", "madam", "miss", "rev", "saint", "st"]
)
# The first words of display names that are no one's first name ("The Critic": "The").
_NO_FIRST_NAME = frozenset(
    ["the", "our", "its", "his", "her", "their", "your", "this", "that", "mister", "doctor"]
    + [t + "." for t in _TITLES]
    + list(_TITLES)
)


def _common_prefix(ids: Collection[str]) -> str:
    """The first word and hyphen most ids share ("zion-"), or "" when under half do."""
    counts: dict[str, int] = {}
    for i in ids:
        head, sep, rest = i.partition("-")
        if sep and "-" in rest:
            counts[head + "-"] = counts.get(head + "-", 0) + 1
    if not counts:
        return ""
    best = max(counts, key=counts.__getitem__)
    return best if counts[best] * 2 > len(ids) else ""


# A whole run of word characters and hyphens: with a hyphen, or any; and the same beginning
# with no digit. (``\b(?<!-)\w`` is ``(?<![\w-])\w``, found faster.)
_HYPHENATED = re.compile(rb"\b(?<!-)\w+-[\w-]*")
_HYPHENATED_LETTERED = re.compile(rb"\b(?<!-)[^\W\d]\w*-[\w-]*")
_ANY_RUN = re.compile(rb"(?<![\w-])[\w-]+")
_ANY_RUN_LETTERED = re.compile(rb"(?<![\w-])(?!\d)[\w-]+")
_SHORT_ID_BYTES = re.compile(rb"[a-z]+-\d{1,4}")
# ``candidates``: the whole runs with a hyphen (any character of a run before it, so that a run
# that begins with one is found too), with or without those that begin with a digit; the whole
# runs without one; and how many forms without a hyphen are listed in one pattern.
HYPHEN_RUN = re.compile(rb"(?<![\w-])\w*-[\w-]*")
HYPHEN_RUN_LETTERED = re.compile(rb"(?<![\w-])(?!\d)\w*-[\w-]*")
_PLAIN_RUN = re.compile(rb"(?<![\w-])\w+(?![\w-])")
_PLAIN_RUN_LETTERED = re.compile(rb"(?<![\w-])(?!\d)\w+(?![\w-])")
_LISTED_PLAIN = 64
_RUN_BYTES = re.compile(rb"[\w-]+")
