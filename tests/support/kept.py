"""Kept answers (``soulscope.memo``) as tests read and mark them: the payload of an entry file,
and an entry rewritten with another payload as soulscope itself would write it."""

from __future__ import annotations

from pathlib import Path

from soulscope.keep import ANSWERS
from soulscope.keep.entries import read_entry, write_entry


def _kind(entry: Path) -> str:
    return entry.name.rsplit("-", 1)[0]  # graph.json-<key>


def kept_text(entry: Path) -> str:
    """The answer an entry file holds (it stays in place: reading it is a use)."""
    payload = read_entry(entry, _kind(entry), ANSWERS.fingerprint()).payload
    assert payload is not None, f"{entry} is not a whole kept answer"
    return payload.decode("utf-8")


def rewrite(entry: Path, text: str) -> None:
    """Replace the answer an entry holds, as a well-formed entry (to tell it from a new one)."""
    write_entry(entry, _kind(entry), ANSWERS.fingerprint(), text.encode("utf-8"))
