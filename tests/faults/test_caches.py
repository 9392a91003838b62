"""Caches are disposable and never wrong: a file changed behind their back (the same size, the
mtime put back), a corrupt or foreign cache file, another model under the same name, a snapshot
of one file reused for a whole world."""

from __future__ import annotations

import json
import os
from pathlib import Path

from tests.faults.conftest import Run
from tests.simworld import make_world


def same_size_edit(path: Path, old: bytes, new: bytes) -> None:
    """Replace ``old`` by ``new`` (as long) and put the mtime back, as tools that keep times do."""
    assert len(old) == len(new)
    st = path.stat()
    data = path.read_bytes()
    assert old in data
    path.write_bytes(data.replace(old, new, 1))
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert (path.stat().st_size, path.stat().st_mtime_ns) == (st.st_size, st.st_mtime_ns)


def test_the_world_index_never_serves_a_file_changed_with_the_same_size_and_mtime(
    tmp_path: Path, soulscope: Run
) -> None:
    root = make_world(tmp_path / "w", agents=3)
    soul = root / "memory" / "zion-coder-01.md"
    with open(soul, "a") as f:
        f.write("\n## Frame 1 — 2026-03-02\n- Becoming: the tester. From doubt to proof.\n")
    code, out, _ = soulscope("agents", "-w", str(root), "--json")
    assert {r["id"]: r["name"] for r in json.loads(out)}["zion-coder-01"] == "Coder 1"
    same_size_edit(soul, b"# Coder 1", b"# Coder 9")
    same_size_edit(soul, b"the tester", b"the prover")
    code, out, _ = soulscope("agents", "-w", str(root), "--json")
    assert {r["id"]: r["name"] for r in json.loads(out)}["zion-coder-01"] == "Coder 9"
    code, out, _ = soulscope("overview", "-w", str(root), "--json")
    latest = {r["id"]: r["latest"] for r in json.loads(out)}["zion-coder-01"]
    assert "the prover" in json.dumps(latest)
