"""What every dialog of the dashboard is: a ``Dialog``, a modal screen over the main one."""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

from textual import events
from textual.screen import ModalScreen

from soulscope.tui.reach import dashboard
from soulscope.tui.widgets.key_footer import KeyFooter, cover_footers

if TYPE_CHECKING:
    from soulscope.tui.app import SoulscopeApp

R = TypeVar("R")


class Dialog(ModalScreen[R]):
    """A modal screen over the dashboard, dismissed with a result of type ``R``.

    A dialog asks the app for what it needs and tells the app what was chosen (through
    ``dashboard``: ``select_agent``, ``open_frame``, ``show_arc_at``, ``show_commit`` ...), never a
    pane: which pane shows it is the app's business. Its keys are ``bindings("<its id>")`` of
    ``soulscope/tui/actions.py``; its outer container has the class ``dialog``, its title
    ``dialog-title`` (``styles/app.tcss``). Its own footer, over the dashboard's, shows the keys
    that act in it (the dashboard's keys do not, while it is open).
    """

    def on_mount(self) -> None:
        # (Textual calls this after a subclass's own ``on_mount``, whatever that one does.)
        self.mount(KeyFooter())

    def on_screen_suspend(self, event: events.ScreenSuspend) -> None:
        cover_footers(self, True)  # a dialog or the command palette over this one

    def on_screen_resume(self, event: events.ScreenResume) -> None:
        cover_footers(self, False)

    @property
    def dashboard(self) -> SoulscopeApp:
        """The dashboard, typed (``soulscope.tui.reach``)."""
        return dashboard(self)

    def close_all(self) -> None:
        """Close every dialog: what was chosen opens on the main screen."""
        app = self.dashboard
        while len(app.screen_stack) > 1:
            app.pop_screen()
