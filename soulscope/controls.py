"""Control characters made visible: text from soul files, commits and LLMs never drives the terminal.

An ESC in a soul file or an LLM answer starts an escape sequence (``\x1b[2J`` clears the screen,
``\x1b]0;title\x07`` retitles the window); C1 controls such as ``\x9b`` do the same on some
terminals; a bidirectional control (U+202E) makes the text after it read backwards.
:func:`visible` replaces every C0, C1 and bidi control except newline and tab, and DEL, with
one visible character (C0 by its Unicode control picture, ␛ for ESC), so lengths and offsets stay
the same and styled spans still fit. A carriage return that ends a line (CRLF files) is left alone.
Each face applies it once, where it writes text out: the CLI's output layer and the dashboard's
text views. :func:`json_escaped` does the same for ``--json`` output without changing its value.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from rich.text import Text

# Lone surrogates (U+D800-U+DFFF) are the undecodable bytes of a soul file or of a path, kept as
# they are (surrogateescape): no terminal encoding can write them, so they are shown as U+FFFD.
# The bidirectional controls (ALM, LRM, RLM, the embeddings and overrides U+202A-U+202E, the
# isolates U+2066-U+2069) reorder the text around them: a name or a line that reads one way on
# screen is another in the file ("Trojan Source"). They are shown like C1 controls.
_BIDI = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
_CONTROL = re.compile(rf"\r(?!\n)|[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f{_BIDI}\ud800-\udfff]")
_CONTROL_CHAR = re.compile(rf"[\x00-\x08\x0b-\x1f\x7f-\x9f{_BIDI}\ud800-\udfff]")  # and any \r
_JSON_UNESCAPED = re.compile(rf"[\x7f-\x9f{_BIDI}\ud800-\udfff]")
_C1_SHOWN = "\ufffd"  # C1 and bidi controls and lone surrogates have no pictures of their own
_TextLike = TypeVar("_TextLike", str, "Text")


def _picture(m: re.Match[str]) -> str:
    code = ord(m.group(0))
    if code < 0x20:
        return chr(0x2400 + code)  # ␀ … ␟ (␛ for ESC, ␍ for a lone carriage return)
    if code == 0x7F:
        return "\u2421"  # ␡
    return _C1_SHOWN


def visible(text: _TextLike) -> _TextLike:
    """``text`` (a string, or a Rich Text with its styles) with its control characters shown."""
    if isinstance(text, str):
        if not _CONTROL_CHAR.search(text):  # one class, searched fast (a 20 MB soul's text)
            return text
        return _CONTROL.sub(_picture, text) if _CONTROL.search(text) else text
    if not _CONTROL.search(text.plain):
        return text
    shown = text.copy()
    shown.plain = _CONTROL.sub(_picture, text.plain)  # the same length: the spans still fit
    return shown


def json_escaped(encoded: str) -> str:
    """JSON text with DEL, C1 and bidi controls and lone surrogates written as ``\\u`` escapes (JSON
    already escapes C0): an undecodable byte of a soul file reaches a JSON reader as it was kept.

    The value stays exactly the same for a JSON reader; only a terminal no longer sees them.
    """
    if encoded.isascii() and "\x7f" not in encoded:
        return encoded  # nothing to escape (most JSON), found without the pattern
    return _JSON_UNESCAPED.sub(lambda m: f"\\u{ord(m.group(0)):04x}", encoded)
