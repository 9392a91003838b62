"""Every frame error reaches the dashboard: n never does nothing silently."""

from __future__ import annotations

from pathlib import Path

from soulscope.sim.frame import run_frames
from soulscope.sim.offline import OfflineBrain
from soulscope.tui.app import SoulscopeApp
from soulscope.world import World
from tests.support.pilot import settle
from tests.support.repos import git_out
from tests.support.simworld import make_world

SIZE = (120, 40)


async def press_n(root: Path) -> list[tuple[str, str]]:
    """The notifications after one n, as (severity, message)."""
    app = SoulscopeApp(World.open(root))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("n")
        await settle(pilot)
        return [(n.severity, n.message) for n in app._notifications]


async def test_a_frame_the_runner_refuses_is_shown(tmp_path: Path) -> None:
    root = make_world(tmp_path / "w", agents=2)
    soul = root / "memory" / "zion-coder-01.md"
    soul.write_text(soul.read_text() + "\nmine\n")
    shown = await press_n(root)
    assert any(
        s == "error" and "memory/zion-coder-01.md has uncommitted edits" in m for s, m in shown
    ), shown


async def test_agents_that_sit_out_and_recovery_notes_are_shown(tmp_path: Path) -> None:
    root = make_world(tmp_path / "w", agents=3)
    soul = root / "memory" / "zion-debater-03.md"
    soul.write_bytes(soul.read_text().encode("utf-16"))
    git_out(root, "commit", "-qam", "UTF-16")
    shown = await press_n(root)
    assert any(
        s == "warning" and "zion-debater-03 sat it out: memory/zion-debater-03.md is not UTF-8" in m
        for s, m in shown
    ), shown
    assert any("frame 1: 2 agents" in m for _, m in shown), shown


async def test_a_removed_agent_does_not_stop_the_frames(tmp_path: Path) -> None:
    root = make_world(tmp_path / "w", agents=4)
    run_frames(root, OfflineBrain(), steps=3)
    git_out(root, "rm", "-q", "memory/zion-coder-01.md")
    shown = await press_n(root)
    assert any("frame 4: 3 agents" in m for _, m in shown), shown
    assert not any(s == "error" for s, _ in shown), shown
