"""The command line in tests: ``soulscope(...)`` runs it in this process, ``soulscope_process(...)``
in a child process, as a user's shell would.

In this process is the default: starting an interpreter and importing a command's area costs more
than most commands themselves. A child process is for tests about the process: what it imports on
start-up, a signal, a kill, a hang, the installed entry point. Both return what
``subprocess.run(..., text=True)`` does: ``returncode``, ``stdout`` and ``stderr``.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager, redirect_stderr, redirect_stdout
from typing import TextIO

from soulscope.cli import main
from tests.support.paths import ROOT


def soulscope(
    *args: str, env: Mapping[str, str] | None = None, stdin: str | TextIO = ""
) -> subprocess.CompletedProcess[str]:
    """``soulscope ARGS`` with its output piped, run in this process.

    Its stdout and stderr are pipes, not a terminal, and take UTF-8 (stdout strictly, stderr with
    backslash escapes, as Python's own); ``stdin`` is what it reads (text, or a file object).
    ``env`` is set on top of the environment for this call only, and ``PYTHONPATH`` is this
    checkout, for the processes a command starts. What a fresh process would not have is
    forgotten before and after: the encoders loaded (``soulscope.recall.encoders``). Argparse's
    exits are exit statuses; an exception the command lets through fails the test here (a child
    process would print its traceback and exit 1)."""
    out, err = _Pipe("strict"), _Pipe("backslashreplace")
    reader = io.StringIO(stdin) if isinstance(stdin, str) else stdin
    _forget()
    try:
        with _environment(env), redirect_stdout(out), redirect_stderr(err), _stdin(reader):
            try:
                code = main(list(args))
            except SystemExit as exc:  # argparse: --help, or a usage error
                code = exc.code if isinstance(exc.code, int) else 0 if exc.code is None else 1
    finally:
        _forget()
    return subprocess.CompletedProcess(["soulscope", *args], code, out.text(), err.text())


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


class _Pipe(io.TextIOWrapper):
    """A command's stdout or stderr when piped: UTF-8 bytes, not a terminal."""

    def __init__(self, errors: str) -> None:
        super().__init__(io.BytesIO(), encoding="utf-8", errors=errors, write_through=True)

    def text(self) -> str:
        self.flush()
        buffer = self.buffer
        assert isinstance(buffer, io.BytesIO)
        return buffer.getvalue().decode("utf-8")


@contextmanager
def _environment(env: Mapping[str, str] | None) -> Iterator[None]:
    changes = {"PYTHONPATH": str(ROOT), **(env or {})}
    before = {k: os.environ.get(k) for k in changes}
    os.environ.update(changes)
    try:
        yield
    finally:
        for k, v in before.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


@contextmanager
def _stdin(reader: TextIO) -> Iterator[None]:
    before, sys.stdin = sys.stdin, reader
    try:
        yield
    finally:
        sys.stdin = before


def _forget() -> None:
    encoders = sys.modules.get("soulscope.recall.encoders")
    if encoders is not None:
        with encoders._encoders_lock:
            encoders._encoders.clear()
