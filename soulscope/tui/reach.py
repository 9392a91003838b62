"""The one typed way from a pane, a dialog or a widget to the dashboard.

Textual types ``node.app`` as ``App[object]``, which knows nothing of the dashboard's world,
settings or cache (``self.app.world`` is an error to the type checker). ``dashboard(node)`` is
the running ``SoulscopeApp``, typed; ``Pane.dashboard`` and ``Dialog.dashboard`` return it.
The app is named here for the type checker only: no module imports the app to reach it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from textual.dom import DOMNode

    from soulscope.tui.app import SoulscopeApp


def dashboard(node: DOMNode) -> SoulscopeApp:
    """The dashboard ``node`` is part of."""
    return cast("SoulscopeApp", node.app)
