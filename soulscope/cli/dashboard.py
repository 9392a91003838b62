"""Open the dashboard; the only CLI path that imports Textual."""

from __future__ import annotations

from soulscope.cli.output import open_world
from soulscope.config import load_settings


def open_dashboard(world_path: str | None) -> int:
    """Read the settings once, here, and hand them to the dashboard (which reports a broken file)."""
    settings = load_settings()
    world = open_world(world_path)
    from soulscope.tui.app import SoulscopeApp

    SoulscopeApp(world, settings=settings).run()
    return 0
