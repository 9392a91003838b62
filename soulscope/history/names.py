"""The ways a world's agents are written in soul files, resolved to their ids.

Souls drop the world's prefix (``coder-06`` for ``zion-coder-06``), also for agents whose file the
folder lacks. The why dossier, ``spread`` and the influence graph read names through one
``AgentNames`` of the world.
"""

from __future__ import annotations

import re
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
