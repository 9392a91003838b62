"""What soulscope keeps on disk (``soulscope.keep``): every kind registered once, with its place,
its limit and one code fingerprint made from the modules that shape its entries; entry files
read back only when whole, never through a link."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from soulscope import keep
from soulscope.keep import KINDS, Kind, register
from soulscope.keep.code import producers
from soulscope.keep.entries import read_entry, trim, write_entry
from tests.support.paths import ROOT


@pytest.mark.parametrize("name", sorted(KINDS))
def test_each_fingerprint_changes_with_any_module_that_shapes_its_entries(name: str) -> None:
    kind = KINDS[name]
    modules = kind.producers()
    assert set(kind.makers) <= set(modules)
    before = kind.fingerprint()
    for module in modules:
        path = ROOT.joinpath(*module.split(".")).with_suffix(".py")
        if not path.is_file():
            path = ROOT.joinpath(*module.split("."), "__init__.py")
        changed = keep.code.fingerprint(
            f"{kind.name} {kind.format}",
            kind.makers,
            read=lambda p, edited=path: p.read_bytes() + (b"\n# edited\n" if p == edited else b""),
        )
        assert changed != before, module
    assert keep.code.fingerprint(f"{kind.name} {kind.format}", kind.makers) == before


def test_the_modules_come_from_the_imports_not_a_list() -> None:
    index = producers(["soulscope.index"])
    # The grammar the parser reads its headings and labels from (once missed by a hand list).
    assert {"soulscope.soul.format", "soulscope.soul.parse", "soulscope.soul.chapters"} <= set(
        index
    )
    assert "soulscope.tui.app" not in index and "soulscope.cli.spread" not in index
    answers = KINDS["kept answer"].producers()
    # cli/spread.py writes the answers through cli/output.py: what prints them shapes them too.
    assert {"soulscope.history.graph", "soulscope.soul.terms", "soulscope.cli.output"} <= set(
        answers
    )


def test_a_new_kind_is_one_registration(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(keep, "KINDS", dict(KINDS))
    kind = register(
        Kind("arc digest", "arcs", ("soulscope.soul.trajectory",), "content", "8 files", 8)
    )
    assert keep.KINDS["arc digest"] is kind
    assert kind.path == Path(os.environ["XDG_CACHE_HOME"]) / "soulscope" / "arcs"
    assert "soulscope.soul.format" in kind.producers()
    assert (
        len(kind.fingerprint()) == 32 and kind.fingerprint() != KINDS["world index"].fingerprint()
    )
    for n in range(10):
        entry = kind.path / f"e{n}"
        write_entry(entry, kind.name, kind.fingerprint(), b"x" * n)
        os.utime(entry, (n, n))
    trim(kind.path, kind.max_entries, kind.max_bytes)
    assert sorted(p.name for p in kind.path.iterdir()) == [f"e{n}" for n in range(2, 10)]


def test_the_configuration_page_lists_every_kind_its_place_and_limit() -> None:
    page = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
    rows = {m[0]: m[1] for m in re.findall(r"^\| ([^|]+?) \| `([^`]+)` \|", page, re.M)}
    for kind in KINDS.values():
        assert rows.get(kind.name) == kind.place, kind.name
        assert kind.limit in page, kind.name


# -- entry files -------------------------------------------------------------------------------


def _entry(tmp_path: Path) -> Path:
    path = tmp_path / "kept" / "graph.json-1"
    write_entry(path, "kept answer", "f" * 32, b'{"nodes": []}\n')
    return path


def test_an_entry_reads_back_whole(tmp_path: Path) -> None:
    path = _entry(tmp_path)
    kept = read_entry(path, "kept answer", "f" * 32)
    assert kept.payload == b'{"nodes": []}\n' and kept.problem is None
    assert read_entry(tmp_path / "absent", "kept answer", "f" * 32).problem is None


@pytest.mark.parametrize(
    ("damage", "problem"),
    [
        (lambda p: p.write_bytes(p.read_bytes()[:-3]), "11 of 14 bytes"),
        (lambda p: p.write_bytes(b""), "empty"),
        (lambda p: p.write_bytes(os.urandom(4096)), "not an entry soulscope wrote"),
        (lambda p: p.write_bytes(b"\x1b[2J\x1b]0;owned\x07"), "not an entry soulscope wrote"),
        (lambda p: p.write_bytes(p.read_bytes().replace(b"[]", b"{}")), "checksum"),
        (lambda p: p.write_bytes(p.read_bytes().replace(b"f" * 32, b"e" * 32)), "other code"),
        (lambda p: p.write_bytes(b'{"agents": 3}'), "not an entry soulscope wrote"),
    ],
    ids=["truncated", "empty", "random", "escapes", "tampered", "other-code", "bare-json"],
)
def test_a_damaged_entry_is_not_used_and_is_removed(tmp_path: Path, damage, problem: str) -> None:
    path = _entry(tmp_path)
    damage(path)
    kept = read_entry(path, "kept answer", "f" * 32)
    assert kept.payload is None and problem in (kept.problem or "")
    assert not path.exists()


def test_a_link_is_never_followed(tmp_path: Path) -> None:
    secret = tmp_path / "passwd"
    secret.write_text("root:x:0:0:root:/root:/bin/bash\n")
    path = _entry(tmp_path)
    path.unlink()
    path.symlink_to(secret)
    kept = read_entry(path, "kept answer", "f" * 32)
    assert kept.payload is None and kept.problem == "a link"
    assert not path.is_symlink() and secret.read_text().startswith("root:")  # the link went
    os.mkfifo(path)
    assert read_entry(path, "kept answer", "f" * 32).problem == "not a regular file"
