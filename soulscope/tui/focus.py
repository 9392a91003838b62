"""Focus that moves before the next key is handled.

``Widget.focus`` moves the focus later, from the app's queue, behind the keys already waiting in
it: keys typed in one burst (a fast typist, a paste, tmux's send-keys) such as ``2j`` or
``/deb`` went to the widget focused before the first of them, so ``j`` moved the agent list
instead of the arc and the filter lost its first letters. The dashboard moves focus with this
instead, at once.
"""

from __future__ import annotations

from contextlib import suppress

from textual.dom import NoScreen
from textual.widget import Widget


def focus_now(widget: Widget) -> None:
    """Give ``widget`` the focus now (a widget that cannot take it is left as it is)."""
    with suppress(NoScreen):  # not mounted (any more)
        widget.screen.set_focus(widget)
