"""Reading a world's own JSON files (``world.json``, ``agents.json``): any content, one sentence.

A FIFO, a folder, a huge file, bytes that are not UTF-8, JSON nested past the parser's depth,
``NaN`` or a number too large for a float are each refused with a ``WorldError`` naming the file;
reading never hangs and never raises anything else.
"""

from __future__ import annotations

import json
import math
import os
import stat
from pathlib import Path
from typing import Any

from soulscope.world import WorldError

MAX_BYTES = 64 * 1024 * 1024  # a registry of 10,000 agents is a few MB


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"the number {text[:20]} is too large")
    return value


def _constant(name: str) -> float:
    raise ValueError(f"{name} is not a number JSON allows")


def read_json(path: Path) -> Any:
    """The JSON value in ``path``; None when the file does not exist."""
    try:
        st = os.stat(path)
        if not stat.S_ISREG(st.st_mode):
            raise WorldError(f"{path} is not a regular file; replace it with a JSON file")
        if st.st_size > MAX_BYTES:
            raise WorldError(f"{path} holds {st.st_size:,} bytes, more than a world file can")
        # O_NONBLOCK: should the file have become a FIFO since the check, opening does not wait.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        with os.fdopen(fd, "rb") as f:
            data = f.read(MAX_BYTES + 1)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise WorldError(f"cannot read {path}: {exc.strerror}") from exc
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise WorldError(f"{path} is not UTF-8 text; fix or remove it") from None
    try:
        return json.loads(text, parse_float=_finite, parse_constant=_constant)
    except RecursionError:
        raise WorldError(f"{path} is nested too deep for a world file; fix or remove it") from None
    except ValueError as exc:
        why = exc.msg if isinstance(exc, json.JSONDecodeError) else str(exc)
        raise WorldError(f"{path} is not readable JSON ({why}); fix or remove it") from None
