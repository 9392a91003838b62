"""The command line in tests, as a user's shell runs it: ``soulscope_process(...)`` in a child
process, its output piped; it returns what ``subprocess.run(..., text=True)`` does: ``returncode``,
``stdout`` and ``stderr``. ``one_sentence`` checks a failed command's one line.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping

from tests.support.paths import ROOT


def process_env(env: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment of a child ``soulscope``: this one, ``env`` on top, and this checkout as
    ``PYTHONPATH``."""
    return {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}


def soulscope_process(
    *args: str, env: Mapping[str, str] | None = None, stdin: str | None = None, timeout: float = 180
) -> subprocess.CompletedProcess[str]:
    """``python -m soulscope ARGS`` in a child process, its output piped."""
    return subprocess.run(
        [sys.executable, "-m", "soulscope", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        input=stdin,
        env=process_env(env),
        timeout=timeout,
    )


def one_sentence(done: subprocess.CompletedProcess[str], code: int = 2) -> str:
    """The one line a failed command said (exit status ``code``, no traceback)."""
    assert done.returncode == code, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("soulscope: "), done.stderr
    return lines[0]
