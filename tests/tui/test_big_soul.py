"""A big soul (1 MB and more) is parsed in a process of its own while the dashboard shows its text:
it arrives whole (text, frames, arc), and that process never outlives what it was started for."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from soulscope.soul.model import clean, decoded_pieces
from soulscope.soul.parse import parse
from soulscope.soul.pieces import ArcPieces, SoulPieces
from soulscope.soul.trajectory import arc, summarize
from soulscope.tui.app import SoulscopeApp
from soulscope.tui.cache import SoulCache
from soulscope.tui.loader import LoadError, SoulLoader
from soulscope.tui.soul_loading import EARLY_TEXT_BYTES, READ_TRIES
from soulscope.tui.widgets.soul_text import SoulText, display_lines
from soulscope.world import World
from tests.support.bigworld import frame_entries, soul_header
from tests.support.pilot import settle

SIZE = (120, 36)
# A frame no generated file has: undecodable bytes, markup, an escape sequence.
ODD = (
    b"## Frame 99999 \xe2\x80\x94 2027-01-01\n- Posted \xff\xfe in [bold red]c/markup[/] \x1b[2J\n"
    b"- Becoming: the odd one out.\n\n"
)


def big_world(root: Path, frames: int = 13_000) -> Path:
    """``root`` with a small agent and a big one, ``big.md`` (1.2 MB at 13,000 frames: big enough
    to be parsed in a process of its own), which ends with the odd frame."""
    memory = root / "memory"
    memory.mkdir(parents=True)
    (memory / "a-small.md").write_text(soul_header("a-small") + "".join(frame_entries(3)))
    big = memory / "big.md"
    big.write_bytes((soul_header("big") + "".join(frame_entries(frames))).encode() + ODD)
    return big


def children() -> set[int]:
    """The running child processes of this one."""
    return {
        int(pid)
        for task in Path("/proc/self/task").glob("*/children")
        for pid in task.read_text().split()
    }


def gone(pid: int) -> bool:
    return not Path(f"/proc/{pid}").exists()


async def test_a_big_soul_arrives_whole_text_frames_and_arc(tmp_path: Path) -> None:
    big = big_world(tmp_path / "w")
    data = big.read_bytes()
    assert len(data) >= EARLY_TEXT_BYTES
    expected = parse(data, agent_id="big")
    lines = display_lines([clean(piece) for piece in decoded_pieces(data)])
    app = SoulscopeApp(World.open(tmp_path / "w"))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.select_agent("big")
        await settle(pilot)
        assert app.soul is not None and app.soul.agent_id == "big"
        assert app.soul.frames == expected.frames and app.soul.problems == expected.problems
        assert app.cache.arc("big", app.soul) == arc(expected)
        view = app.query_one(SoulText)
        assert list(view._lines) == lines
        # The odd frame: U+FFFD for its bytes, its markup as written, its escape as a picture.
        view.scroll_to_line(len(lines) - 3)
        await pilot.pause()
        assert view.visible_rows()[:2] == [
            "## Frame 99999 — 2027-01-01",
            "- Posted \ufffd\ufffd in [bold red]c/markup[/] \u241b[2J",
        ]


def test_the_loading_process_sends_the_soul_its_arc_and_summary(tmp_path: Path) -> None:
    data = big_world(tmp_path / "w", frames=3000).read_bytes()
    expected = parse(data, agent_id="big")
    pieces, arc_pieces, got = SoulPieces(data), ArcPieces(), {}
    loader = SoulLoader(data, "big", None, 40, send_soul=True)
    for kind, value in loader.messages():
        if kind == "arc":
            arc_pieces.add(value)
        elif kind in ("lines", "summary", "done"):
            got[kind] = value
        else:
            pieces.add(kind, value)
    soul = pieces.soul()
    assert soul.data is data and soul.render() == data
    assert soul.frames == expected.frames and soul.sections == expected.sections
    assert soul.problems == expected.problems and soul.identity == expected.identity
    assert arc_pieces.arc(soul.frames.columns) == arc(expected)
    assert got["summary"] == summarize("big", expected)
    assert gone(loader.pid)


def test_a_loading_process_that_dies_is_one_line_of_error(tmp_path: Path) -> None:
    data = big_world(tmp_path / "w", frames=3000).read_bytes()
    loader = SoulLoader(data, "big", None, 40, send_soul=True)
    messages = loader.messages()
    assert next(messages)[0] == "lines"
    os.kill(loader.pid, signal.SIGKILL)
    try:
        for _ in messages:
            pass
    except LoadError as exc:
        assert str(exc) == "the process that parses it stopped (exit status -9)"
    else:
        raise AssertionError("a killed process went unnoticed")


def test_the_loading_process_runs_the_dashboards_code_from_any_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Opened from a folder that holds another soulscope (a checkout of another version), the
    # process that parses a big soul still runs the dashboard's own code.
    data = big_world(tmp_path / "w", frames=300).read_bytes()
    other = tmp_path / "elsewhere" / "soulscope" / "tui"
    other.mkdir(parents=True)
    (other.parent / "__init__.py").write_text("")
    (other / "__init__.py").write_text("")
    (other / "loader.py").write_text("raise SystemExit(3)\n")
    monkeypatch.chdir(tmp_path / "elsewhere")
    received = ArcPieces()
    for kind, value in SoulLoader(data, "big", None, 40, send_soul=False).messages():
        if kind == "arc":
            received.add(value)
    expected = parse(data, agent_id="big")
    assert received.arc(expected.frames.columns) == arc(expected)


async def loading(app: SoulscopeApp, pilot) -> set[int]:
    """Select the big agent and wait for the process that parses it: its pid."""
    await settle(pilot)
    before = children()
    app.select_agent("big")
    started: set[int] = set()
    for _ in range(200):
        started = children() - before
        if started:
            break
        await pilot.pause(0.01)
    assert started, "no process was started to parse the big soul"
    return started


async def test_quitting_while_a_big_soul_loads_leaves_no_process(tmp_path: Path) -> None:
    big_world(tmp_path / "w", frames=40_000)
    app = SoulscopeApp(World.open(tmp_path / "w"))
    async with app.run_test(size=SIZE) as pilot:
        started = await loading(app, pilot)
        await pilot.press("q")
    assert app.soul is None or app.soul.agent_id != "big"  # it quit before the soul arrived
    assert all(gone(pid) for pid in started)


async def test_choosing_another_agent_ends_the_loading_process(tmp_path: Path) -> None:
    big_world(tmp_path / "w", frames=40_000)
    app = SoulscopeApp(World.open(tmp_path / "w"))
    async with app.run_test(size=SIZE) as pilot:
        started = await loading(app, pilot)
        app.select_agent("a-small")
        await settle(pilot)
        assert all(gone(pid) for pid in started)
        assert app.soul is not None and app.soul.agent_id == "a-small"


async def test_a_big_soul_whose_file_went_says_so(tmp_path: Path) -> None:
    big = big_world(tmp_path / "w")
    app = SoulscopeApp(World.open(tmp_path / "w"))
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        big.unlink()
        app.select_agent("big")
        await settle(pilot)
        messages = [n.message for n in app._notifications]
        assert any(m == f"cannot read {big}: No such file or directory" for m in messages)
        assert app.soul is None


async def test_a_loading_process_killed_mid_load_is_one_line_of_notification(
    tmp_path: Path,
) -> None:
    big = big_world(tmp_path / "w", frames=40_000)
    app = SoulscopeApp(World.open(tmp_path / "w"))
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        before = children()
        app.select_agent("big")
        started: set[int] = set()
        while not started:
            started = children() - before
            await pilot.pause(0.01)
        for pid in started:
            os.kill(pid, signal.SIGKILL)
        await settle(pilot)
        messages = [n.message for n in app._notifications]
        assert (
            f"{big} could not be parsed: the process that parses it stopped (exit status -9)"
            in (messages)
        )
        assert app.soul is None


async def test_a_big_soul_that_keeps_changing_while_it_is_read_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    big = big_world(tmp_path / "w")
    read_bytes = Path.read_bytes
    reads: list[int] = []
    changes = [0]  # how many reads the file changes under

    def growing(path: Path) -> bytes:
        data = read_bytes(path)
        if path == big and len(reads) < changes[0]:
            reads.append(len(data))
            with open(big, "ab") as f:  # a frame lands while the file is read
                f.write(b"\n")
        return data

    monkeypatch.setattr(Path, "read_bytes", growing)
    for times, loaded in ((1, True), (READ_TRIES, False)):
        app = SoulscopeApp(World.open(tmp_path / "w"))
        async with app.run_test(size=SIZE, notifications=True) as pilot:
            await settle(pilot)
            app.cache = SoulCache(app.world, app.arc_label)  # (the world's worker parsed it)
            reads.clear()
            changes[0] = times
            app.select_agent("big")
            await settle(pilot)
            messages = [n.message for n in app._notifications]
            if loaded:  # read again, whole
                assert app.soul is not None and app.soul.render() == read_bytes(big)
            else:
                assert app.soul is None
                assert f"{big} kept changing while it was read; r reads it again." in messages


async def test_while_a_big_soul_is_parsed_no_pane_shows_the_agent_before(tmp_path: Path) -> None:
    big_world(tmp_path / "w")
    app = SoulscopeApp(World.open(tmp_path / "w"))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.agent_id == "a-small" and app.soul is not None
        header = app.query_one("#soul-header")
        footer = app.query_one("#soul-footer")
        app.select_agent("big")
        seen: list[tuple[str, str]] = []
        while app.soul is None:
            await pilot.pause(0.02)
            seen.append((str(header.render()), str(footer.render())))
            for pane in app.panes:
                # No pane holds a-small's soul under big's id (its arc, its frames).
                assert pane.soul is None or pane.soul.agent_id == "big", pane
        assert seen and all("a-small" not in h and "3 frames" not in f for h, f in seen), seen
        assert any(h == "big · parsing…" for h, _ in seen), seen
