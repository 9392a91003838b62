"""Atomic writes keep the file whole when the write fails half-way."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

import pytest

from soulscope import atomic


def test_append_keeps_bytes_and_mode(tmp_path: Path) -> None:
    target = tmp_path / "a.md"
    target.write_bytes(b"# A\n\xff")
    target.chmod(0o640)
    atomic.append_atomic(target, b"## Frame 1\n")
    assert target.read_bytes() == b"# A\n\xff## Frame 1\n"
    assert target.stat().st_mode & 0o777 == 0o640
    assert list(tmp_path.iterdir()) == [target]


def test_failed_write_leaves_old_file_and_no_temp(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "a.md"
    target.write_bytes(b"old")

    def boom(src, dst):  # noqa: ANN001
        raise OSError("disk full")

    monkeypatch.setattr(atomic.os, "replace", boom)
    with pytest.raises(OSError):
        atomic.append_atomic(target, b"new")
    assert target.read_bytes() == b"old"
    assert list(tmp_path.iterdir()) == [target]


def test_durable_append_and_torn_tail(tmp_path: Path) -> None:
    log = tmp_path / "posts.jsonl"
    assert atomic.append_durable(log, b'{"id": 1}\n') == 0
    assert atomic.append_durable(log, b'{"id": 2}\n') == 10
    with open(log, "ab") as f:  # what a crash half-way through a write leaves
        f.write(b'{"id": 3, "bo')
    assert atomic.cut_torn_tail(log) == 13
    assert log.read_bytes() == b'{"id": 1}\n{"id": 2}\n'
    assert atomic.cut_torn_tail(log) == 0
    assert atomic.cut_torn_tail(tmp_path / "absent.jsonl") == 0


def test_a_sync_batch_closes_every_file_and_reports_a_failed_fsync(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with atomic.SyncBatch() as batch:
        for i in range(300):  # more than a small descriptor limit would hold open at once
            assert atomic.append_durable(tmp_path / f"{i}.json", b"{}\n", sync=batch) == 0
    assert all((tmp_path / f"{i}.json").read_bytes() == b"{}\n" for i in range(300))
    if Path("/proc/self/fd").exists():  # no descriptor of this process is left on those files
        targets = []
        for fd in os.listdir("/proc/self/fd"):
            with contextlib.suppress(OSError):  # closed meanwhile (another thread's, the listing's)
                targets.append(os.readlink(f"/proc/self/fd/{fd}"))
        assert not [t for t in targets if t.startswith(str(tmp_path))]

    def failing(fd: int) -> None:
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(atomic.os, "fsync", failing)
    with pytest.raises(OSError, match="Input/output"), atomic.SyncBatch() as batch:
        atomic.append_durable(tmp_path / "0.json", b"{}\n", sync=batch)
