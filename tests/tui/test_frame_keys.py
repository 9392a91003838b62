"""n and N in the dashboard: frames run in a worker, land as commits, and the views follow."""

from __future__ import annotations

from pathlib import Path

from soulscope.soul.parse import read_soul
from soulscope.tui.app import SoulscopeApp
from soulscope.tui.dialogs.prompt import PromptScreen
from soulscope.tui.messages import FrameLanded, FrameProgress, FramesFinished
from soulscope.tui.widgets.frame_bar import FrameBar
from soulscope.tui.widgets.soul_text import SoulText
from soulscope.world import World
from tests.support.pilot import settle
from tests.support.repos import git_out
from tests.support.simworld import make_world

SIZE = (120, 40)


def screen_text(app: SoulscopeApp) -> str:
    return "\n".join(app.query_one(SoulText).visible_rows())


def seen(messages: list[object], kind: type) -> list:
    """Messages of a kind, once each (a bubbling message reaches the hook at every node)."""
    return list({id(m): m for m in messages if isinstance(m, kind)}.values())


async def test_n_runs_one_frame_and_the_views_show_it(tmp_path: Path) -> None:
    root = make_world(tmp_path / "w", agents=3)
    messages: list[object] = []
    app = SoulscopeApp(World.open(root))
    async with app.run_test(size=SIZE, message_hook=messages.append) as pilot:
        await settle(pilot)
        assert app.agent_id == "zion-coder-01" and app.soul is not None and not app.soul.frames
        await pilot.press("n")
        await settle(pilot)
        landed = seen(messages, FrameLanded)
        assert [m.result.frame for m in landed] == [1]
        assert any(isinstance(m, FrameProgress) for m in messages)
        assert git_out(root, "log", "-1", "--format=%s").startswith("frame 1: 3 agents")
        # The selected agent's views were refreshed from disk.
        assert app.soul is not None and [f.number for f in app.soul.frames] == [1]
        assert app.soul.source == read_soul(root / "memory" / "zion-coder-01.md").source
        assert "Frame 1 — 2026-03-02" in screen_text(app)
        assert not app.query_one(FrameBar).running


async def test_shift_n_asks_how_many(tmp_path: Path) -> None:
    root = make_world(tmp_path / "w", agents=2)
    messages: list[object] = []
    app = SoulscopeApp(World.open(root))
    async with app.run_test(size=SIZE, message_hook=messages.append) as pilot:
        await settle(pilot)
        await pilot.press("N")
        assert isinstance(app.screen, PromptScreen)
        await pilot.press("x", "enter")  # not a number: nothing runs
        await settle(pilot)
        assert not seen(messages, FrameLanded)
        await pilot.press("N", "3", "enter")
        await settle(pilot)
        assert [m.result.frame for m in seen(messages, FrameLanded)] == [1, 2, 3]
        finished = seen(messages, FramesFinished)
        assert finished[-1].done == 3 and finished[-1].error is None
        assert [f.number for f in app.soul.frames] == [1, 2, 3]


async def test_a_world_outside_git_says_why(tmp_path: Path) -> None:
    memory = tmp_path / "plain" / "memory"
    memory.mkdir(parents=True)
    (memory / "a.md").write_text("# A\n\n## Identity\n- **ID:** a\n")
    messages: list[object] = []
    app = SoulscopeApp(World.open(tmp_path / "plain"))
    async with app.run_test(size=SIZE, message_hook=messages.append) as pilot:
        await settle(pilot)
        await pilot.press("n")
        await settle(pilot)
        finished = seen(messages, FramesFinished)
        assert finished and "not in a git repository" in (finished[0].error or "")
        assert (memory / "a.md").read_text() == "# A\n\n## Identity\n- **ID:** a\n"


async def test_x_stops_after_the_running_frame(tmp_path: Path) -> None:
    root = make_world(tmp_path / "w", agents=2)
    messages: list[object] = []
    app = SoulscopeApp(World.open(root))
    async with app.run_test(size=SIZE, message_hook=messages.append) as pilot:
        await settle(pilot)
        await pilot.press("N", "5", "0", "enter")
        while not seen(messages, FrameLanded):  # the window keeps handling input meanwhile
            await pilot.pause(0.02)
        await pilot.press("x")
        await settle(pilot)
        finished = seen(messages, FramesFinished)
        assert len(finished) == 1 and 1 <= finished[0].done < 50
        # Whatever ran landed whole: one commit per frame, the clock where the frames stopped.
        frames = git_out(root, "log", "--format=%s").splitlines()
        assert sum(s.startswith("frame ") for s in frames) == finished[0].done
        assert git_out(root, "status", "--porcelain") == ""
