"""Writing soul files: a new agent's header, a frame entry, and the append of an entry.

Text from a brain or a user is data. Every piece is reduced to one line of plain text first
(``one_line``), so no line of an entry can open a heading, continue another bullet, start a code
fence or hide the rest of the file in a comment; an action that would read as a labelled bullet is
reworded so it stays an action. ``parse`` reads an entry back to exactly the texts written.
"""

from __future__ import annotations

import datetime as dt
import re
import unicodedata
from collections.abc import Iterable, Sequence
from pathlib import Path

from soulscope.atomic import append_durable
from soulscope.soul.format import ENTRY_LABELS
from soulscope.soul.parse import _observation

# The labels of a frame entry, in the order they are written.
OBSERVATION_LABELS = tuple(x.label for x in ENTRY_LABELS)
MAX_TEXT = 2000  # characters per bullet; a runaway answer is cut, not written whole
_LABEL = re.compile(r"[A-Za-z][A-Za-z' ]{0,39}")
_BREAKS = {"\u2028", "\u2029", "\x85", "\x0b", "\x0c"}


def _printable(ch: str) -> str:
    if ch in _BREAKS:
        return " "
    category = unicodedata.category(ch)
    if category == "Cc":
        return " "
    return "\ufffd" if category == "Cs" else ch  # undecodable bytes, lone surrogates


def one_line(text: str, limit: int = MAX_TEXT) -> str:
    """``text`` as one line of plain text that cannot change the structure of a markdown file.

    Control characters and line breaks become spaces, runs of spaces collapse, undecodable bytes
    become U+FFFD, and an HTML comment can neither open nor close.
    """
    if not text.isprintable():  # printable text (“quotes”, é, —) has nothing to replace
        text = "".join(_printable(ch) for ch in text)
    text = " ".join(text.split())
    text = text.replace("<!--", "<!‐‐").replace("-->", "‐‐>")
    if len(text) > limit:
        text = text[: limit - 1].rstrip() + "…"
    return text


def action_line(text: str) -> str:
    """An action's text as written: one line that the parser does not read as ``Label: text``."""
    text = one_line(text)
    if text.startswith(("#", "```", "~~~", ">")):
        text = "\\" + text  # at the start of a bullet these would make a heading, fence or quote
    # "Posted: x" or "**Posted:** x" would parse as an observation labelled "Posted"; the colon
    # becomes a dash (the parser's labels never contain an em dash).
    for _ in range(3):
        if _observation("- " + text, 0) is None:
            return text
        text = text.replace(":", " —", 1)
    return "· " + text


def _check_label(label: str) -> str:
    if not _LABEL.fullmatch(label) or len(label.split()) > 4 or label != label.strip():
        raise ValueError(f"not a soul-file label: {label!r}")
    return label


def render_heading(frame_number: int, date: str) -> str:
    """``## Frame 12 — 2026-03-22``; the date must be ISO ``YYYY-MM-DD``."""
    if isinstance(frame_number, bool) or not isinstance(frame_number, int) or frame_number < 0:
        raise ValueError(f"a frame number is a non-negative integer, not {frame_number!r}")
    dt.date.fromisoformat(date)
    if len(date) != 10:
        raise ValueError(f"a frame date is YYYY-MM-DD, not {date!r}")
    return f"## Frame {frame_number} — {date}\n"


def render_entry(
    frame_number: int,
    date: str,
    actions: Iterable[str],
    observations: Iterable[tuple[str, str]],
) -> str:
    """One frame entry: the heading, one unlabelled bullet per action, then ``- Label: text``.

    Empty texts are left out (``Surprised by`` only when the agent was surprised). Parsing the entry
    gives back the actions as ``action_line`` wrote them and the observations as ``one_line`` did.
    """
    lines = [render_heading(frame_number, date)]
    for action in actions:
        text = action_line(action)
        if text:
            lines.append(f"- {text}\n")
    for label, value in observations:
        text = one_line(value)
        if text:
            lines.append(f"- {_check_label(label)}: {text}\n")
    return "".join(lines)


def render_header(
    agent_id: str,
    name: str,
    archetype: str,
    voice: str,
    personality: str,
    convictions: Sequence[str] = (),
    interests: Sequence[str] = (),
    channels: Sequence[str] = (),
) -> str:
    """A new agent's identity header: title, Identity card, Convictions, Interests, Channels."""
    out = [
        f"# {one_line(name, 200)}\n",
        "\n## Identity\n\n",
        f"- **ID:** {one_line(agent_id, 200)}\n",
        f"- **Archetype:** {one_line(archetype, 200)}\n",
        f"- **Voice:** {one_line(voice, 200)}\n",
        f"- **Personality:** {one_line(personality)}\n",
    ]
    for title, items in (
        ("Convictions", convictions),
        ("Interests", interests),
        ("Subscribed Channels", channels),
    ):
        bullets = [b for b in (action_line(i) for i in items) if b]
        if bullets:
            out.append(f"\n## {title}\n\n")
            out.extend(f"- {b}\n" for b in bullets)
    return "".join(out)


def unwritable(data: bytes) -> str | None:
    """Why an entry cannot be appended to a file holding ``data``, or None when it can.

    Entries are UTF-8; appended to a file in another encoding they would mix two encodings.
    """
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        utf16 = data.startswith((b"\xff\xfe", b"\xfe\xff"))
        return "is not UTF-8" + (" (it is UTF-16)" if utf16 else "")
    return None


def line_ending(data: bytes) -> bytes:
    """The file's own line ending: CRLF when most of its lines end so, else LF."""
    crlf = data.count(b"\r\n") if b"\r" in data else 0  # (a search for one byte is quicker)
    return b"\r\n" if crlf and 2 * crlf >= data.count(b"\n") else b"\n"


def entry_bytes(data: bytes, entry_text: str) -> bytes:
    """What appending ``entry_text`` to a file holding ``data`` adds: the entry after one blank
    line, in the file's own line ending."""
    eol = line_ending(data)
    entry = entry_text.encode("utf-8")
    if eol != b"\n":
        entry = entry.replace(b"\n", eol)
    if not data or data.endswith(eol + eol):
        return entry
    return (eol if data.endswith(b"\n") else eol + eol) + entry


def append_entry(path: str | Path, entry_text: str, sync: bool = True) -> None:
    """Append a rendered entry to a soul file, after one blank line, in the file's line ending.

    Only the entry is written (``soulscope.atomic.append_durable``); a file that is not UTF-8 is
    refused with ``ValueError``. The frame runner does the same under its journal.
    """
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        data = b""
    problem = unwritable(data)
    if problem:
        raise ValueError(f"{path} {problem}; soulscope appends only to UTF-8 files")
    append_durable(path, entry_bytes(data, entry_text), sync=sync)
