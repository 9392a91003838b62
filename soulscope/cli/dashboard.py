"""Open the dashboard; the only CLI path that imports Textual."""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import os
import sys
import threading
from typing import Any

from soulscope.cli.output import open_world
from soulscope.config import Settings

EXIT_FUNCTIONS_S = 2.0  # the longest the exit functions may take when workers are left behind


def open_dashboard(world_path: str | None, settings: Settings, **run: Any) -> int:
    """Open the dashboard with the settings the CLI read (it reports a broken config file);
    ``run``: Textual's ``App.run`` options (``headless``, ``auto_pilot``)."""
    world = open_world(world_path)
    from soulscope.tui.app import SoulscopeApp
    from soulscope.tui.finishing import wait_for_finishing

    loop = asyncio.new_event_loop()
    # On its own loop: ``asyncio.run`` would wait, after the last screen, for every worker
    # thread still busy (a graph, git, a model loading): 21 s of a blank terminal after q.
    SoulscopeApp(world, settings=settings).run(loop=loop, **run)
    wait_for_finishing()  # a frame being written
    if _busy_threads():
        _leave_now()
    loop.close()
    return 0


def _busy_threads() -> list[threading.Thread]:
    """The threads the interpreter would wait for on its way out."""
    here = threading.current_thread()
    return [t for t in threading.enumerate() if t is not here and not t.daemon and t.is_alive()]


def _leave_now() -> None:
    """End the process now, its workers' results unwanted: background embedding stopped as every
    command stops it, exit functions run, output flushed (writes are atomic: nothing half done)."""
    background = sys.modules.get("soulscope.recall.background")
    if background is not None:
        background.stop_all()
    # Exit functions (temporary folders removed), unless one waits on the work left behind.
    exits = threading.Thread(target=atexit._run_exitfuncs, daemon=True)
    exits.start()
    exits.join(EXIT_FUNCTIONS_S)
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(0)
