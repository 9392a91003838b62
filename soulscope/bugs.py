"""Where a bug's traceback goes when a face cannot show it: a log file whose path is named.

The dashboard turns an exception that is not a ``SoulscopeError`` (a programming error, not
something the user can fix) into "soulscope hit a bug" and writes the traceback here, so that it
is neither swallowed nor drawn over the screen.
"""

from __future__ import annotations

import tempfile
import traceback
from datetime import UTC, datetime
from pathlib import Path

from soulscope import __version__
from soulscope.config import cache_dir


def log_path() -> Path:
    return cache_dir() / "logs" / "soulscope.log"


def record(error: BaseException, context: str = "") -> Path:
    """Append ``error``'s traceback to the log and return the file's path (a temporary file's
    where the cache folder cannot be written)."""
    stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
    text = "".join(traceback.format_exception(type(error), error, error.__traceback__))
    entry = f"--- {stamp} soulscope {__version__}{': ' + context if context else ''}\n{text}\n"
    for path in (log_path(), Path(tempfile.gettempdir()) / "soulscope-bugs.log"):
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            with path.open("a", encoding="utf-8", errors="backslashreplace") as out:
                out.write(entry)
            return path
        except OSError:
            continue
    return log_path()
