"""Counters in identity statements: ordinals and numerals that count, and name nothing.

Agents number their own series ("Twenty-eighth bet.", "the 15th archivist", "#3"); reading an
arc means looking past them. Arcs (``trajectory``) and their chapters (``chapters``) both do.
"""

from __future__ import annotations

import re


def _words_in(text: str) -> list[str]:
    return text.split()


_UNITS = _words_in(
    "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
    "sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety "
    "hundred"
)
_ORDINALS = _words_in(
    "first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth "
    "thirteenth fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth twentieth "
    "thirtieth fortieth fiftieth sixtieth seventieth eightieth ninetieth hundredth last latest "
    "next final"
)
NUMBER_WORDS = frozenset(_UNITS + _ORDINALS)  # "thirteen", "fifth": they count, they name nothing
_NUMBER_WORD = "|".join(sorted(_UNITS + _ORDINALS, key=len, reverse=True))
# One counter token: "twenty-seventh", "15th", "#3", "3", "no. 4".
_COUNTER = rf"(?:(?:{_NUMBER_WORD})(?:-(?:{_NUMBER_WORD}))*|\d+(?:st|nd|rd|th)?|#\d+|no\.\s*\d+)"
_ORDINAL_WORD = "|".join(sorted(_ORDINALS, key=len, reverse=True))
# Inside a role only ordinals and numerals count ("the 15th archivist"); "the quiet one" keeps "one".
_COUNTER_WORD = re.compile(
    rf"^(?:(?:(?:{_NUMBER_WORD})-)*(?:{_ORDINAL_WORD})|\d+(?:st|nd|rd|th)?|#\d+)$", re.I
)
_ORDINAL_ENDINGS = ("st", "nd", "rd", "th", "next", "final")


def is_counter(word: str) -> bool:
    """An ordinal or numeral ("twenty-seventh", "15th", "#3", "3"): it counts, it names nothing."""
    if not word:
        return False
    # Most words end in neither a digit-led form nor an ordinal ending: skip the long pattern.
    if not (word[0].isdigit() or word[0] == "#" or word.lower().endswith(_ORDINAL_ENDINGS)):
        return False
    return _COUNTER_WORD.match(word) is not None


# A leading sentence that only counts: the counter first ("Twenty-eighth bet.", "Tenth
# deployment.", "#3.") or last ("Bet #27.", "Session 14:", "Proof no. 3.").
_COUNTED = rf"(?:(?:the\s+)?{_COUNTER}(?:\s+[\w'-]+){{0,3}}|(?:[\w'-]+\s+){{1,3}}{_COUNTER})"
_COUNTER_PREFIX = re.compile(rf"^\s*(?:{_COUNTED}\s*,\s*)*{_COUNTED}\s*[.;:—–]\s*", re.I)


def strip_counters(text: str) -> str:
    """The statement without leading counting sentences ("twenty-eighth bet. ...")."""
    out = text.strip().strip("*_ ")
    while True:
        m = _COUNTER_PREFIX.match(out)
        if not m or m.end() >= len(out):
            return out
        out = out[m.end() :]
