"""Open the dashboard; the only CLI path that imports Textual."""

from __future__ import annotations

from soulscope.cli.output import open_world


def open_dashboard(world_path: str | None) -> int:
    world = open_world(world_path)
    from soulscope.tui.app import SoulscopeApp

    SoulscopeApp(world).run()
    return 0
