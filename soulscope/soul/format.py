"""The soul-file grammar in one place: what a frame heading is, what a labelled bullet is, the labels
a frame entry holds, and how a frame is cited.

The parser (``soul.parse``), the writer (``soul.write``), the history's block cutter
(``history.versions``), the Soul tab's highlighter, the frame runner and the prompts all read these
rules from here, so the screen shows the structure the parser sees. A file looks like this::

    # Ada Ledger                      the display name (the preamble: before the first "## ")

    ## Identity                       a section: a "## " heading that is not a frame heading
    - **ID:** ada-01                  a labelled bullet (bold form)

    ## Frame 237 — 2026-03-22         a frame heading
    - Indexed #12 and #15.            an action (a bullet without a label)
    - Becoming: the cataloguer.       a labelled bullet (plain form): an observation
      continued here                  a continuation line joins the bullet above

Both rules are line rules: whether a line is a frame heading, and which label a bullet carries,
depends on that line alone (continuation lines only add to the text after the label).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# -- Headings ---------------------------------------------------------------------------------

HEADING = "## "  # a block (section or frame) starts at a line that starts with this
BLOCK = re.compile(rb"^## ", re.M)  # where every block of a file's bytes starts
FRAME_WORD = "Frame"


def is_frame_heading(heading: str) -> bool:
    """The frame-heading rule, on a heading's text (after ``## ``, stripped): ``Frame`` then the end
    or a character that is not a word character. ``Frame 3``, ``Frame — 2026-03-15``,
    ``Frame: x`` are frames; ``Frames``, ``Frame_3``, ``frame 3`` and ``FRAME 3`` are sections."""
    if not heading.startswith(FRAME_WORD):
        return False
    n = len(FRAME_WORD)
    return len(heading) == n or not (heading[n].isalnum() or heading[n] == "_")


def heading_of(line: str) -> str | None:
    """The heading text of a ``## `` line (stripped), or None when the line opens no block.
    ``##Frame 3`` opens none: a block needs the space."""
    return line[len(HEADING) :].strip() if line.startswith(HEADING) else None


def is_frame_line(line: str) -> bool:
    """Whether ``line`` (one line of a file, its newline left out) is a frame heading."""
    heading = heading_of(line)
    return heading is not None and is_frame_heading(heading)


# -- Labelled bullets -------------------------------------------------------------------------

BULLET = re.compile(r"[-*+] ")  # a bullet starts at column 0; an indented one continues the last
# "- **Label:** text" or "- **Label**: text": up to 48 characters between the stars; the same
# in italics ("- *Label:* text").
_BOLD_LABEL = re.compile(r"[-*+] (\*\*?)([^*\n]{1,48}?)(:\1|\1\s*:)\s?(.*)", re.S)
# "- Label: text": a letter, then letters, apostrophes, / & - and spaces, up to 40 characters and
# MAX_LABEL_WORDS words; the colon ends the line or is followed by white space.
_PLAIN_LABEL = re.compile(r"[-*+] ([A-Za-z][A-Za-z'’/&\- ]{0,39}?)(:)(?:\s(.*)|$)", re.S)
MAX_LABEL_WORDS = 4


@dataclass(frozen=True, slots=True)
class LabelMatch:
    """A labelled bullet read: its label (without markup) and text, and where the label is written
    in the bullet (``start`` to ``end``: from its first star or letter through its colon)."""

    label: str
    text: str
    start: int
    end: int


def match_label(bullet: str) -> LabelMatch | None:
    """The label of a bullet (its first line, then any continuation lines joined with newlines),
    or None when the bullet is an action."""
    m = _BOLD_LABEL.match(bullet)
    if m is not None:
        return LabelMatch(m.group(2).strip(), m.group(4) or "", 2, m.end(3))
    m = _PLAIN_LABEL.match(bullet)
    if m is not None and len(m.group(1).split()) <= MAX_LABEL_WORDS:
        return LabelMatch(m.group(1).strip(), m.group(3) or "", 2, m.end(2))
    m = _DASH_LABEL.match(bullet)
    if m is not None and label_key(m.group(2)) in DASH_LABELS:
        return LabelMatch(m.group(2), m.group(4) or "", 2, m.end(3))
    return None


def dash_label(bullet: str, key: str) -> LabelMatch | None:
    """The label of a bullet in the dash form (``- Key insight — text``) where it is the label
    ``key`` (``label_key``) asked for by name: ``match_label`` reads that form for the entry's
    own labels only."""
    m = _DASH_LABEL.match(bullet)
    if m is not None and label_key(m.group(2)) == key:
        return LabelMatch(m.group(2), m.group(4) or "", 2, m.end(3))
    return None


def label_key(label: str) -> str:
    """The canonical form of a label: lower case, single spaces (labels match in any case)."""
    return " ".join(label.lower().split())


# -- The labels of a frame entry ---------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Label:
    """One label of a frame entry: as written in the file, its field in a brain's decision (and
    its key in ``--json`` and the decision schema; None when no brain decides it), and what it
    means, as the prompts put it."""

    label: str
    field: str | None
    meaning: str


# In the order a frame entry writes them (``soul.write.render_entry``).
ENTRY_LABELS: tuple[Label, ...] = (
    Label("Named", "named", "an insight you name"),
    Label("Influenced by", "influenced_by", "who or what changed your thinking"),
    Label("Surprised by", "surprised_by", "stays empty unless something surprised you"),
    Label("Reinforced", "reinforced", "a belief that was confirmed"),
    Label(
        "Becoming",
        "becoming",
        "who you are becoming, written as 'the X. From Y to Z.' when your identity shifts",
    ),
    Label("Relationships", "relationships", "agents you relate to, each with the nature"),
    Label("Connected", None, "the threads (#N) the frame took part in, written by the runner"),
)
BY_LABEL: dict[str, Label] = {label_key(x.label): x for x in ENTRY_LABELS}
# "- Becoming — text" (or " - ", " – "; the label plain, bold or in italics): a dash after the
# label instead of a colon, read only for the entry's own labels and the early era's identity
# label: "- Rate limited — no comment" is an action.
_DASH_LABEL = re.compile(
    r"[-*+] (\*\*?)?([A-Za-z][A-Za-z ]{0,39}?)\1?( +[—–-] +|[—–]\s*)(.*)", re.S
)
DASH_LABELS = frozenset(BY_LABEL) | {"evolving position"}
# The labels whose text a brain writes as one string (Relationships is a list of pairs).
TEXT_LABELS: tuple[Label, ...] = tuple(
    x for x in ENTRY_LABELS if x.field not in (None, "relationships")
)
# A line that is no bullet at column 0 but may state one of those labels: a paragraph
# ("Becoming: x", "**Becoming:** x"), a nested bullet ("  - Becoming: x") or a numbered item
# ("1. Becoming: x"): what comes before the label.
_LOOSE_ITEM = re.compile(r"(?:[ \t]{1,8}[-*+][ \t]+|[ \t]{0,3}\d{1,3}[.)][ \t]+|)(?=[*A-Za-z])")


def loose_label(line: str) -> LabelMatch | None:
    """The label a line states where it is no bullet at column 0 (``start`` and ``end`` in the
    line itself): one of the entry's labels only, so "Note: see above" stays a note, and not
    in lower case at column 0 ("becoming: x" there runs on a sentence above)."""
    m = _LOOSE_ITEM.match(line)
    if m is None or (not m.end() and line[:1].islower()):
        return None
    found = match_label("- " + line[m.end() :])
    if found is None or label_key(found.label) not in DASH_LABELS:
        return None
    shift = m.end() - 2
    return LabelMatch(found.label, found.text, found.start + shift, found.end + shift)


# "### Becoming" (or "#### **Becoming:**"): a subheading that is one of those labels, its
# statement on the next line that holds text.
_LABEL_HEADING = re.compile(r"#{3,6}[ \t]+(\*\*?)?([A-Za-z][A-Za-z ]{0,39}?)\1?[ \t]*:?\1?[ \t]*")


def heading_label(line: str) -> str | None:
    """The label a subheading names where it is one of the entry's labels (``### Becoming``):
    its statement is the next line that holds text; None for any other line."""
    m = _LABEL_HEADING.fullmatch(line.rstrip())
    return m.group(2) if m is not None and label_key(m.group(2)) in DASH_LABELS else None


def loose_bullet(line: str) -> str | None:
    """``line`` as the bullet it stands for (``- Becoming: x``) where it states a label without
    being a bullet at column 0 (``loose_label``); None for every other line (a note, or the
    continuation of the bullet above)."""
    m = _LOOSE_ITEM.match(line)
    if m is None or loose_label(line) is None:
        return None
    return "- " + line[m.end() :]


# -- Citations ---------------------------------------------------------------------------------


def cite(agent: str, frame: str, date: str | None = None) -> str:
    """How answers and dossiers cite a frame: ``[coder-06 · frame 221]``, with its date when given
    (``[coder-06 · frame 221 · 2026-03-22]``). ``frame`` is the frame's name
    (``model.frame_name``: its label, or its date and time for an unnumbered frame)."""
    return f"[{agent} · frame {frame} · {date}]" if date else f"[{agent} · frame {frame}]"


def cite_section(agent: str, section: str, line: int) -> str:
    """How a place outside frames is cited: its section and line, never as a frame
    (``[coder-06 · Recent Experience, line 129]``)."""
    return f"[{agent} · {section}, line {line}]"


# A citation in text (an LLM's answer or narrative): the agent, then the frame's name after
# the word "frame", or a section and line (``cite_section``).
CITATION = re.compile(r"\[([^\[\]·]+?)\s·\s+(frame\s+)?([^\[\]·]+?)\]")


def citation(agent: str, frame: str | None, place: str) -> str:
    """A citation as written, from ``CITATION``'s groups (a frame's, or a section's)."""
    return f"[{agent.strip()} · {'frame ' if frame else ''}{place.strip()}]"
