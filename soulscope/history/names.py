"""The ways a world's agents are written in soul files, resolved to their ids.

Souls drop the world's prefix (``coder-06`` for ``zion-coder-06``), also for agents whose file the
folder lacks. The why dossier, ``spread`` and the influence graph read names through one
``AgentNames`` of the world.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass
from functools import cached_property

from soulscope.world import World

_SHORT_ID = re.compile(r"(?<![\w-])([a-z]+-\d{1,4})(?![\w-])")
_RUN = re.compile(r"[\w-]+")  # a name is a whole run of word characters and hyphens


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

    @cached_property
    def ids(self) -> frozenset[str]:
        """Every id a form resolves to."""
        return frozenset(self.forms.values())

    @cached_property
    def byte_forms(self) -> dict[bytes, str]:
        """Every form as UTF-8 bytes -> its id (for ``cites``)."""
        return {k.encode(): v for k, v in self.forms.items()}

    def from_bytes(self, token: bytes) -> str | None:
        """The id a whole name in a file's bytes stands for, as ``find`` resolves it; None
        when it names no agent."""
        who = self.byte_forms.get(token)
        if who is None and _SHORT_ID_BYTES.fullmatch(token):
            short = token.decode()
            if self._id_shaped(short) and self.prefix + short not in self.ids:
                who = self.prefix + short
        return who

    @cached_property
    def hyphenated(self) -> bool:
        """Whether every form holds a hyphen (then only runs with one can be a name)."""
        return all("-" in k for k in self.forms)

    @cached_property
    def _dotted(self) -> re.Pattern[str] | None:
        """Forms with characters other than word characters and hyphens (ids may hold dots):
        found by a pattern; every other form is a whole run of those and found by lookup."""
        odd = sorted((k for k in self.forms if not _RUN.fullmatch(k)), key=len, reverse=True)
        if not odd:
            return None
        return re.compile(r"(?<![\w-])(" + "|".join(map(re.escape, odd)) + r")(?![\w-])")

    def find(self, text: str) -> list[str]:
        """The agents a text names, resolved, in order of first mention."""
        if not text:
            return []
        hits: list[tuple[int, str]] = []
        forms, own = self.forms, self.ids
        for m in _RUN.finditer(text):
            name = m.group()
            found = forms.get(name)
            if found is not None:
                hits.append((m.start(), found))
            elif _SHORT_ID.fullmatch(name) and self._id_shaped(name):
                resolved = self.prefix + name
                if resolved not in own:
                    hits.append((m.start(), resolved))
        if self._dotted is not None:
            hits += [(m.start(), forms[m.group(1)]) for m in self._dotted.finditer(text)]
            hits.sort()
        return list(dict.fromkeys(i for _, i in hits))


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


# How a line says another agent shaped its author, strongest first.
KINDS = ("influenced", "relationship", "reply", "named")
_HYPHENATED = re.compile(rb"(?<![\w-])\w+-[\w-]*")
_ANY_RUN = re.compile(rb"(?<![\w-])[\w-]+")
_SHORT_ID_BYTES = re.compile(rb"[a-z]+-\d{1,4}")
# ``- Influenced by: ...``, ``- **Relationships:** ...`` (the labels that name influences)
_CITING_LABEL = re.compile(
    rb"[-*+][ \t]+\**[ \t]*(influenced[ \t]+by|relationships?)[ \t]*\**[ \t]*:", re.I
)
# "Replied to coder-09", "responding to @ada": the name right after is the one replied to.
REPLY = re.compile(
    rb"\b(?:repl(?:ied|ies|y|ying)|respond(?:ed|s|ing)?)\s+to\s+@?([\w-]+)", re.IGNORECASE
)


def cites(
    names: AgentNames,
    data: bytes,
    start: int,
    end: int,
    own: str = "",
    wanted: Callable[[str], bool] | None = None,
) -> Iterator[tuple[int, str, str]]:
    """Every agent ``data[start:end]`` (whole lines of a soul file) names, as (offset of the
    line, agent id, kind): ``influenced`` in an ``Influenced by:`` bullet, ``relationship`` in
    a ``Relationships:`` bullet, ``reply`` right after "replied to", else ``named`` (but not
    for an id that is a plain word, like ``system``: in running text that is the word). Read from
    the bytes: only the runs of characters a name can be are looked up. With ``wanted``, only
    the agents it accepts."""
    runs = _HYPHENATED if names.hyphenated else _ANY_RUN
    kinds: dict[int, tuple[str, set[bytes]]] = {}
    for m in runs.finditer(data, start, end):
        token = m.group()
        who = names.from_bytes(token)
        if who is None:
            continue
        if who == own or (wanted is not None and not wanted(who)):
            continue
        at = data.rfind(b"\n", start, m.start()) + 1 or start
        known = kinds.get(at)
        if known is None:
            stop = data.find(b"\n", at, end)
            line = data[at : end if stop < 0 else stop]
            label = _CITING_LABEL.match(line)
            kind = "named"
            if label is not None:
                kind = "influenced" if label.group(1)[:1] in b"iI" else "relationship"
            known = kinds[at] = (kind, {r.group(1) for r in REPLY.finditer(line)})
        kind, replied = known
        if kind == "named" and token in replied:
            kind = "reply"
        if kind == "named" and token.isalpha():
            continue  # an id that is a plain word ("system"): in running text, mostly the word
        yield at, who, kind
