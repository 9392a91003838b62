"""What is kept is used only when whole (``soulscope.keep``): a kept answer damaged in any way,
or replaced by a link, is made again and said, never printed; a static model whose table was
changed is refused by its checksum; a snapshot with files deleted is extracted again."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path

import pytest

from soulscope.keep import ANSWERS, SNAPSHOTS, fresh
from soulscope.keep.entries import write_entry
from tests.faults.conftest import Run
from tests.support.simworld import make_world

TERM = "lanternwick"


@pytest.fixture
def settled(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A world of three agents, one of whom coined a word, its files counted as settled."""
    root = make_world(tmp_path / "w", agents=3)
    with open(root / "memory" / "zion-coder-01.md", "a", encoding="utf-8") as f:
        f.write(f"\n## Frame 1 — 2026-03-02\n- Named the {TERM} pattern.\n")
    monkeypatch.setattr(fresh, "RACY_NS", 0)
    return root


def _entry(kind: str) -> Path:
    (entry,) = ANSWERS.path.glob(f"*/{kind}-*")
    return entry


DAMAGE = {
    "truncated": lambda p: p.write_bytes(p.read_bytes()[:-40]),
    "empty": lambda p: p.write_bytes(b""),
    "random": lambda p: p.write_bytes(os.urandom(2048)),
    "escapes": lambda p: p.write_bytes(b'{"agents": "\x1b[2J\x1b]0;owned\x07"}\n'),
    "bare json": lambda p: p.write_bytes(b'{"agents": [], "nodes": []}\n'),
}


@pytest.mark.parametrize("how", sorted(DAMAGE))
@pytest.mark.parametrize("view", ["spread", "graph"])
def test_a_damaged_kept_answer_is_made_again_and_said(
    settled: Path, soulscope: Run, view: str, how: str
) -> None:
    args = (view, TERM) if view == "spread" else (view,)
    code, expected, _ = soulscope(*args, "-w", str(settled), "--json")
    assert code == 0 and json.loads(expected)
    entry = _entry(f"{view}.json")
    DAMAGE[how](entry)
    code, out, err = soulscope(*args, "-w", str(settled), "--json")
    assert code == 0 and out == expected
    (line,) = err.splitlines()
    assert line.endswith("; it was rebuilt") and "was unreadable" in line, err
    assert soulscope(*args, "-w", str(settled), "--json") == (0, expected, "")


@pytest.mark.parametrize("view", ["spread", "graph"])
def test_a_link_in_place_of_a_kept_answer_is_never_followed(
    settled: Path, soulscope: Run, tmp_path: Path, view: str
) -> None:
    args = (view, TERM) if view == "spread" else (view,)
    _, expected, _ = soulscope(*args, "-w", str(settled), "--json")
    secret = tmp_path / "passwd"
    secret.write_text("root:x:0:0:root:/root:/bin/bash\n")
    for more in ((), ("--json",)):
        if not list(ANSWERS.path.glob(f"*/{view}.json-*")):  # (graph's table keeps none)
            soulscope(*args, "-w", str(settled), "--json")
        entry = _entry(f"{view}.json")
        entry.unlink()
        entry.symlink_to(secret)
        code, out, err = soulscope(*args, "-w", str(settled), *more)
        assert code == 0 and "root:x" not in out
        assert "(a link); it was rebuilt" in err
        assert secret.read_text().startswith("root:") and not entry.is_symlink()
    assert out == expected


@pytest.mark.parametrize("view", ["spread", "graph"])
def test_a_kept_answer_of_another_shape_is_made_again_for_the_text_view(
    settled: Path, soulscope: Run, view: str
) -> None:
    """Whole and checksummed, but not an answer the text can be drawn from (a bug's, say)."""
    args = (view, TERM) if view == "spread" else (view,)
    code, table, _ = soulscope(*args, "-w", str(settled))
    assert code == 0 and table
    if view == "graph":  # its table keeps no answer: the whole one is kept by --json
        assert soulscope(*args, "-w", str(settled), "--json")[0] == 0
    entry = _entry(f"{view}.json")
    write_entry(entry, f"{view}.json", ANSWERS.fingerprint(), b'{"agents": 3, "nodes": {}}')
    code, out, err = soulscope(*args, "-w", str(settled))
    assert code == 0 and out == table, err
    assert "not an answer to this question" in err or "not an influence graph" in err


def test_a_static_model_changed_on_disk_is_refused(static_model: Path) -> None:
    import numpy as np

    from soulscope.recall.semantic import EncoderError
    from soulscope.recall.static import StaticModel, load_static

    head, _, table = static_model.read_bytes().partition(b"\n")
    # Same shape, same dtype, every value finite: a row swapped for another.
    array = np.load(io.BytesIO(table), allow_pickle=False)
    array[[1000, 2000]] = array[[2000, 1000]]
    buffer = io.BytesIO()
    np.save(buffer, array)
    static_model.unlink()  # (the test run's table is linked here: never written through)
    static_model.write_bytes(head + b"\n" + buffer.getvalue())
    with pytest.raises(EncoderError, match="checksum does not match"):
        StaticModel()
    with pytest.raises(EncoderError):
        load_static(distil_absent=False)


def test_a_snapshot_with_files_deleted_is_extracted_again(tmp_path: Path, soulscope: Run) -> None:
    from soulscope.sim.frame import run_frames
    from soulscope.sim.offline import OfflineBrain

    root = make_world(tmp_path / "w", agents=4)
    run_frames(root, OfflineBrain(), steps=2)
    args = ("search", "who cares about", "-w", str(root), "--at", "HEAD~1", "--json")
    args += ("-k", "50", "--mode", "bm25")
    code, out, err = soulscope(*args)
    assert code == 0 and len({h["agent"] for h in json.loads(out)}) == 4, err
    (snapshot,) = [p for p in SNAPSHOTS.path.glob("*/*") if p.is_dir()]
    gone = next(snapshot.rglob("memory/*.md"))
    os.chmod(gone.parent, 0o755)
    gone.unlink()
    code, again, err = soulscope(*args)
    assert code == 0 and again == out
    assert f"{gone.name} missing" in err and err.strip().endswith("it was rebuilt")
    assert gone.is_file()
