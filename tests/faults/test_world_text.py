"""Real and hostile text in a world: undecodable bytes in soul files and in the world's path,
a soul file that cannot be read. Every command lists what it can and says what it skipped."""

from __future__ import annotations

import json
import os
import pathlib
from pathlib import Path

import pytest

from soulscope.index import WorldIndex
from soulscope.soul.parse import parse
from soulscope.soul.trajectory import summarize
from soulscope.world import World
from tests.faults.conftest import Run
from tests.support.embedding_server import EmbeddingServer
from tests.support.repos import git_out
from tests.support.simworld import make_world
from tests.support.users import users_folder


@pytest.fixture
def world(tmp_path: Path) -> Path:
    return make_world(tmp_path / "world", agents=2)


# Latin-1, a lone 0xff, an encoded surrogate, a code point past U+10FFFF, an overlong '/', a
# truncated sequence: each one a byte the parser keeps as it is (a lone surrogate).
HOSTILE = b"caf\xe9 \xff \xed\xa0\x80 \xf4\x90\x80\x80 \xc0\xaf \xe2\x82"


def hostile_frame(path: Path) -> None:
    with open(path, "ab") as f:
        f.write(b"\n## Frame 3 " + HOSTILE + b" \xe2\x80\x94 2026-03-02\n")
        f.write(b"- Becoming: the " + HOSTILE + b" keeper. From silence to " + HOSTILE + b".\n")


def test_undecodable_bytes_are_listed_and_kept_by_the_world_index(
    tmp_path: Path, soulscope: Run
) -> None:
    root = make_world(tmp_path / "w", agents=3)
    soul = root / "memory" / "zion-coder-01.md"
    hostile_frame(soul)
    outputs = []
    for _ in range(2):  # the index written, then read back
        code, out, err = soulscope("agents", "-w", str(root), "--json")
        assert code == 0 and "Traceback" not in err, err
        outputs.append(out)
        code, out, err = soulscope("overview", "-w", str(root))
        assert code == 0 and "zion-coder-01" in out, err
    assert outputs[0] == outputs[1]
    row = next(r for r in json.loads(outputs[0]) if r["id"] == "zion-coder-01")
    assert row["frames"] == 1 and row["becoming"] == 1 and row["problems"] > 0
    # What the index gives back is what parsing gives: every undecodable byte is still there.
    parsed = parse(soul.read_bytes(), "zion-coder-01")
    with WorldIndex(World.open(root)) as index:
        fresh, stale = index.scan()
    assert stale == []
    entry = next(e for e in fresh if e.file.id == "zion-coder-01")
    assert entry.last_frame == parsed.last_frame.heading
    assert entry.summary == summarize("zion-coder-01", parsed)


def test_a_world_path_with_a_non_utf8_byte_is_read_and_advanced(
    tmp_path: Path, soulscope: Run
) -> None:
    root = make_world(Path(os.fsdecode(bytes(tmp_path) + b"/w\xff")), agents=2)
    for args in (("agents",), ("agents", "--json"), ("overview",), ("frame",)):
        code, out, err = soulscope(*args, "-w", str(root))
        assert code == 0 and "Traceback" not in err, (args, err)
    assert git_out(root, "log", "--format=%s").splitlines()[0].startswith("frame 1")


def test_one_unreadable_soul_file_is_listed_with_its_problem(
    tmp_path: Path, soulscope: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_world(tmp_path / "w", agents=3)
    locked = root / "memory" / "zion-debater-03.md"
    locked.chmod(0)
    read_bytes = pathlib.Path.read_bytes

    def refused(self: Path) -> bytes:  # as chmod 000 does for anyone but root
        if self.name == locked.name:
            raise PermissionError(13, "Permission denied", str(self))
        return read_bytes(self)

    monkeypatch.setattr(pathlib.Path, "read_bytes", refused)
    try:
        for command in ("agents", "overview"):
            code, out, err = soulscope(command, "-w", str(root))
            assert code == 0, err
            said = out.replace("\n", "")  # (a long path is folded at the terminal's width)
            assert "zion-coder-01" in out and "zion-philosop" in out
            assert "zion-debater-03.md: Permission denied" in said
            code, out, err = soulscope(command, "-w", str(root), "--json")
            assert code == 0, err
            assert {r["id"] for r in json.loads(out)} == {"zion-coder-01", "zion-philosopher-02"}
            assert "zion-debater-03.md" in err and "Permission denied" in err
    finally:
        locked.chmod(0o644)


def test_a_typed_line_with_an_undecodable_byte_is_kept_as_typed(
    world: Path, soulscope: Run
) -> None:
    # What Python makes of a line with a Latin-1 byte read from a UTF-8 stdin (surrogateescape).
    typed = "I keep bees in caf\udce9 Porto.\nMy cat is named Pixel.\n"
    code, out, err = soulscope(
        "chat", "--user", "u", "-w", str(world), "--mode", "bm25", stdin=typed
    )
    assert code == 0 and "Traceback" not in err, err
    kept = (users_folder(world) / "u.txt").read_bytes()
    assert b"- I keep bees in caf\xe9 Porto.\n" in kept and b"- My cat is named Pixel.\n" in kept


def test_a_query_with_an_undecodable_byte_is_embedded_readable(
    world: Path, soulscope: Run, embedding_endpoint: EmbeddingServer
) -> None:
    code, out, err = soulscope("search", "caf\udce9 parsers", "-w", str(world), "--mode", "hybrid")
    assert code == 0 and "Traceback" not in err, err
    sent = embedding_endpoint.texts_sent()
    assert "caf\ufffd parsers" in sent
    assert not any(0xD800 <= ord(c) <= 0xDFFF for t in sent for c in t)


async def test_the_dashboard_opens_a_world_whose_path_has_a_non_utf8_byte(tmp_path: Path) -> None:
    from soulscope.tui.app import SoulscopeApp
    from tests.support.pilot import settle

    root = make_world(Path(os.fsdecode(bytes(tmp_path) + b"/w\xff")), agents=2)
    app = SoulscopeApp(World.open(root))
    async with app.run_test(size=(110, 32)) as pilot:
        await settle(pilot)
        assert app.soul is not None
        assert "\ufffd" in app.sub_title
        screen = app.export_screenshot()
    assert "\udcff" not in screen
