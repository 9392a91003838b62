"""A big soul parsed in a process of its own, so that the dashboard's UI thread keeps the
interpreter: a thread that parses 20 MB shares it with the UI, whose every turn then waits behind
the parser's (and C calls that never let it go: sorting, decoding megabytes).

The dashboard sends the file's bytes it has read (so both sides see one version of the file) and
gets back, in this order: where the view's lines start (and which lines are long), the parsed soul
in pieces (``soulscope.soul.pieces``, when it is not parsed already), its arc's columns in
pieces, and its summary. Each message is a small pickle, cheap to receive.

Run as ``python -m soulscope.tui.loader AGENT_ID LABEL LENGTH SEND_SOUL`` by ``SoulLoader``; it
imports no Textual (it starts in a fraction of a second) and exits when the dashboard goes.
"""

from __future__ import annotations

import contextlib
import gc
import os
import pickle
import struct
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO

import soulscope
from soulscope.errors import SoulscopeError
from soulscope.soul.parse import parse
from soulscope.soul.pieces import Piece, arc_pieces, soul_pieces
from soulscope.soul.trajectory import arc, summarize
from soulscope.tui.file_lines import line_bounds, long_lines

_SIZE = struct.Struct(">Q")


class LoadError(SoulscopeError):
    """The loading process failed; the message is one line for the user."""


def _write(out: BinaryIO, piece: Piece) -> None:
    body = pickle.dumps(piece, protocol=pickle.HIGHEST_PROTOCOL)
    out.write(_SIZE.pack(len(body)))
    out.write(body)  # (not joined to its size: a copy of the line offsets' megabytes)


def _read_exactly(stream: BinaryIO, size: int) -> bytes | None:
    try:
        data = stream.read(size)
    except (OSError, ValueError):  # closed meanwhile
        return None
    return data if data is not None and len(data) == size else None


def _serve(agent_id: str, label: str | None, length: int, send_soul: bool) -> None:
    gc.disable()  # short-lived, and it allocates millions of objects that all stay alive
    source, out = sys.stdin.buffer, sys.stdout.buffer
    head = _read_exactly(source, _SIZE.size)
    data = _read_exactly(source, _SIZE.unpack(head)[0]) if head else None
    if data is None:
        return  # the dashboard went before it sent the file

    def leave_with_the_dashboard() -> None:
        source.read()  # the pipe closes when the dashboard exits, however it does
        os._exit(0)

    threading.Thread(target=leave_with_the_dashboard, daemon=True).start()
    try:
        indices, lengths, plain = long_lines(data, length)
        bounds = line_bounds(data).tobytes()
        _write(out, ("lines", (bounds, length, indices.tobytes(), lengths.tobytes(), plain)))
        out.flush()  # the view shows the whole file now, while the rest is computed
        del bounds
        soul = parse(data, agent_id=agent_id)
        if send_soul:
            for piece in soul_pieces(soul):
                _write(out, piece)
        statements = arc(soul, label)
        for piece in arc_pieces(statements):
            _write(out, piece)
        if send_soul:
            _write(out, ("summary", summarize(agent_id, soul, label, statements)))
        _write(out, ("done", None))
    except BrokenPipeError:
        return
    except Exception as exc:  # reported to the dashboard, one line
        _write(out, ("error", f"{type(exc).__name__}: {exc}".splitlines()[0]))
    out.flush()


class SoulLoader:
    """One loading process, started by a worker thread of the dashboard, which reads its
    messages; ``close`` (from any thread) ends it at once."""

    def __init__(
        self, data: bytes, agent_id: str, label: str | None, length: int, send_soul: bool
    ) -> None:
        # The same code as the dashboard's, wherever it is installed.
        here = str(Path(soulscope.__file__).resolve().parent.parent)
        path = os.environ.get("PYTHONPATH")
        env = {**os.environ, "PYTHONPATH": here + (os.pathsep + path if path else "")}
        self._closed = False
        self._proc = subprocess.Popen(
            # (-P: the working folder, which may hold another soulscope, is not on its path)
            [
                sys.executable,
                "-P",
                "-m",
                "soulscope.tui.loader",
                agent_id,
                label or "",
                str(length),
                "1" if send_soul else "",
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
        )
        self._data = data

    def messages(self) -> Iterator[tuple[str, Any]]:
        """Send the file, then yield ``(kind, value)`` until ``("done", None)``; raises
        ``LoadError`` when the process fails, and stops quietly when it was closed."""
        proc = self._proc
        assert proc.stdin is not None and proc.stdout is not None
        try:
            try:
                proc.stdin.write(_SIZE.pack(len(self._data)))
                proc.stdin.write(self._data)  # (the pipe's writes let the interpreter go)
                proc.stdin.flush()
            except (OSError, ValueError):
                pass  # it ended already: what it said, or its exit status, tells why
            while True:
                head = None if self._closed else _read_exactly(proc.stdout, _SIZE.size)
                body = _read_exactly(proc.stdout, _SIZE.unpack(head)[0]) if head else None
                if body is None:
                    if self._closed:
                        return
                    status = proc.wait()
                    raise LoadError(f"the process that parses it stopped (exit status {status})")
                kind, value = pickle.loads(body)
                if kind == "error":
                    raise LoadError(value)
                yield kind, value
                if kind == "done":
                    return
        finally:
            self.close()
            for pipe in (proc.stdin, proc.stdout):
                with contextlib.suppress(OSError, ValueError):
                    pipe.close()

    def close(self) -> None:
        """End the process (the dashboard is done with it: quitting, or another agent chosen)
        and wait for it; the thread reading its messages then stops."""
        self._closed = True
        if self._proc.poll() is None:
            self._proc.kill()
        self._proc.wait()

    @property
    def pid(self) -> int:
        return self._proc.pid


if __name__ == "__main__":
    agent, label, length, send = sys.argv[1:5]
    _serve(agent, label or None, int(length), bool(send))
