"""Caches are disposable and never wrong: a file changed behind their back (the same size, the
mtime put back), a corrupt or foreign cache file, another model under the same name, a snapshot
of one file reused for a whole world."""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

import numpy as np
import pytest

from soulscope.config import cache_dir
from tests.faults.conftest import Run
from tests.support.embedding_server import WORD_DIMS, EmbeddingServer, words
from tests.support.simworld import make_world


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


# -- the embeddings cache -------------------------------------------------------------------------


def hits(out: str) -> list[tuple[str, int]]:
    return [(h["citation"], h["line"]) for h in json.loads(out)]


def search(soulscope: Run, world: Path, query: str = "memory parsers") -> tuple[list, str]:
    code, out, err = soulscope("search", query, "-w", str(world), "--json", "--mode", "dense")
    assert code == 0 and "Traceback" not in err, err
    return hits(out), err


def corrupt(path: Path, how: str) -> None:
    db = sqlite3.connect(path)
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # every vector in the file itself
    db.close()
    if how == "garbage":
        path.write_bytes(b"not a database at all\n" * 500)
    elif how == "truncated":
        path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    elif how == "zeroed pages":
        data = bytearray(path.read_bytes())
        data[100 : len(data)] = bytes(len(data) - 100)
        path.write_bytes(bytes(data))
    elif how == "a folder":
        path.unlink()
        path.mkdir()
    elif how in ("other table", "short blobs", "nan vectors", "zero vectors", "other sizes"):
        db = sqlite3.connect(path)
        with db:
            if how == "other table":
                db.execute("DROP TABLE vectors")
                db.execute("CREATE TABLE vectors (a TEXT, b TEXT)")
                db.execute("INSERT INTO vectors VALUES ('x', 'y')")
            elif how == "short blobs":
                db.execute("UPDATE vectors SET vector = x'010203'")
            elif how == "nan vectors":
                db.execute(
                    "UPDATE vectors SET vector = ?",
                    (np.full(WORD_DIMS, np.nan, np.float32).tobytes(),),
                )
            elif how == "zero vectors":
                db.execute(
                    "UPDATE vectors SET vector = ?", (np.zeros(WORD_DIMS, np.float32).tobytes(),)
                )
            else:
                one = np.ones(8, np.float32) / np.sqrt(8)
                db.execute("UPDATE vectors SET vector = ? WHERE rowid % 2 = 0", (one.tobytes(),))
        db.close()
    for leftover in ("-wal", "-shm"):
        Path(f"{path}{leftover}").unlink(missing_ok=True)


@pytest.mark.parametrize(
    "how",
    [
        "garbage",
        "truncated",
        "zeroed pages",
        "a folder",
        "other table",
        "short blobs",
        "nan vectors",
        "zero vectors",
        "other sizes",
    ],
)
def test_a_broken_embeddings_cache_is_rebuilt_said_and_never_ranks(
    world: Path, soulscope: Run, embedding_endpoint: EmbeddingServer, how: str
) -> None:
    expected, _ = search(soulscope, world)
    assert expected
    path = cache_dir() / "embeddings.sqlite3"
    corrupt(path, how)
    got, err = search(soulscope, world)
    assert got == expected
    assert "embeddings cache" in err, err
    again, err = search(soulscope, world)  # rebuilt: quiet (a folder stays), and the same
    assert again == expected and ("embeddings cache" in err) == (how == "a folder")


def test_another_model_under_the_same_name_is_never_mixed_in(
    world: Path,
    soulscope: Run,
    embedding_endpoint: EmbeddingServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    search(soulscope, world)
    embedding_endpoint.encode = lambda texts: words(
        texts, salt="v2"
    )  # a new model, same name, same size
    got, err = search(soulscope, world)
    assert "another model served under it" in err
    monkeypatch.setenv("SOULSCOPE_CACHE", str(world.parent / "fresh-cache"))
    fresh, _ = search(soulscope, world)
    assert got == fresh


# -- time travel's snapshots ----------------------------------------------------------------------


def test_a_single_files_snapshot_is_never_served_for_its_whole_world(
    tmp_path: Path, soulscope: Run
) -> None:
    from soulscope.sim.frame import run_frames
    from soulscope.sim.offline import OfflineBrain

    root = make_world(tmp_path / "w", agents=4)
    run_frames(root, OfflineBrain(), steps=3)
    one = root / "memory" / "zion-coder-01.md"

    def agents(where: Path) -> set[str]:
        code, out, err = soulscope(
            "search",
            "who cares about",
            "-w",
            str(where),
            "--at",
            "HEAD~1",
            "--json",
            "-k",
            "50",
            "--mode",
            "bm25",
        )
        assert code == 0, err
        return {h["agent"] for h in json.loads(out)}

    assert agents(one) == {"zion-coder-01"}
    assert len(agents(root)) == 4
    assert agents(one) == {"zion-coder-01"}


# -- the world index ------------------------------------------------------------------------------


@pytest.mark.parametrize("how", ["garbage", "truncated", "other table", "other version"])
def test_a_broken_world_index_is_rebuilt_and_said_once(
    world: Path, soulscope: Run, how: str
) -> None:
    from soulscope.index import index_path
    from soulscope.world import World

    code, expected, _ = soulscope("agents", "-w", str(world), "--json")
    path = index_path(World.open(world))
    db = sqlite3.connect(path)
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    if how == "other table":
        db.execute("DROP TABLE souls")
        db.execute("CREATE TABLE souls (x)")
    elif how == "other version":
        db.execute("UPDATE meta SET value = 'another' WHERE key = 'fingerprint'")
    db.commit()
    db.close()
    if how == "garbage":
        path.write_bytes(b"not a database\n" * 300)
    elif how == "truncated":
        path.write_bytes(path.read_bytes()[:3000])
    code, out, err = soulscope("agents", "-w", str(world), "--json")
    assert code == 0 and out == expected
    assert err.count("the world index") == 1 and "rebuilt" in err, err
    code, out, err = soulscope("agents", "-w", str(world), "--json")
    assert out == expected and err == ""
