"""The dashboard's own notifications show control characters instead of sending them to the terminal."""

from __future__ import annotations

import re
from pathlib import Path

from textual.widgets._toast import Toast

from soulscope.tui.app import SoulscopeApp
from soulscope.tui.panes.soul import SoulPane
from soulscope.world import World
from tests.support.pilot import settle
from tests.support.worlds import ADA, write_world

CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def _toasts(app: SoulscopeApp) -> list[str]:
    return [str(t.render()) for t in app.screen.query(Toast)]


async def test_a_folder_name_with_escape_sequences_is_shown_not_sent(tmp_path: Path) -> None:
    root = tmp_path / "w\x1b]0;owned\x07\x1b[2J"
    (root / "memory").mkdir(parents=True)
    app = SoulscopeApp(World.open(root))
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await settle(pilot)
        messages = [n.message for n in app._notifications]
        assert any("No soul files in" in m for m in messages)
        assert not any(CONTROL.search(m) for m in messages)
        shown = " ".join(_toasts(app))
        assert "␛]0;owned␇␛[2J" in shown and not CONTROL.search(shown)


async def test_an_agent_id_and_markup_from_soul_text_reach_the_toast_as_plain_text(
    tmp_path: Path,
) -> None:
    world = World.open(write_world(tmp_path / "world", {"ada-01": ADA}))
    app = SoulscopeApp(world)
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await settle(pilot)
        # An id read from soul text ("influenced by ...") that names no agent of the world.
        app.select_agent("bo\x1b[31m[bold]02")
        await pilot.pause()
        await pilot.pause()
        shown = " ".join(_toasts(app))
        assert "bo␛[31m[bold]02" in shown  # not a style, not markup
        assert not CONTROL.search(shown)


async def test_a_widgets_notify_is_plain_text_without_asking(tmp_path: Path) -> None:
    """Textual's ``Widget.notify`` defaults to markup; the app's wrapper makes it plain text."""
    world = World.open(write_world(tmp_path / "world", {"ada-01": ADA}))
    app = SoulscopeApp(world)
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await settle(pilot)
        app.query_one(SoulPane).notify("Cy [bold red]Markup[/] said [link=x]hi[/link]")
        await pilot.pause()
        shown = " ".join(_toasts(app))
        assert "Cy [bold red]Markup[/] said [link=x]hi[/link]" in shown


async def test_a_bug_in_a_worker_is_said_as_a_bug_with_its_traceback_logged(
    tmp_path: Path, monkeypatch
) -> None:
    """A programming error in a worker is not passed off as the user's problem: the toast says
    soulscope hit a bug and names the log holding the traceback; a domain error stays one
    sentence."""
    from soulscope.world import WorldError

    monkeypatch.setenv("SOULSCOPE_CACHE", str(tmp_path / "cache"))
    world = World.open(write_world(tmp_path / "world", {"ada-01": ADA}))
    app = SoulscopeApp(world)
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await settle(pilot)

        def broken() -> None:
            raise KeyError("frame_index")

        def refused() -> None:
            raise WorldError("agent id '../x' is not allowed")

        workers = [
            app.run_worker(broken, thread=True, exit_on_error=False, name="broken"),
            app.run_worker(refused, thread=True, exit_on_error=False, name="refused"),
        ]
        for _ in range(200):
            if all(w.is_finished for w in workers):
                break
            await pilot.pause(0.02)
        await settle(pilot)
        messages = [n.message for n in app._notifications]
        log = tmp_path / "cache" / "logs" / "soulscope.log"
        bug = next(m for m in messages if "hit a bug" in m)
        assert "KeyError" in bug and str(log) in bug
        assert "Traceback" in log.read_text() and "frame_index" in log.read_text()
        assert "agent id '../x' is not allowed" in messages
