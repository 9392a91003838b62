"""Open the dashboard; the only CLI path that imports Textual."""

from __future__ import annotations

from soulscope.cli.output import open_world
from soulscope.config import Settings


def open_dashboard(world_path: str | None, settings: Settings) -> int:
    """Open the dashboard with the settings the CLI read (it reports a broken config file)."""
    world = open_world(world_path)
    from soulscope.tui.app import SoulscopeApp

    SoulscopeApp(world, settings=settings).run()
    return 0
