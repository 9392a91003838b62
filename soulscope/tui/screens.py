"""The dashboard's main screen (its dialogs are in ``soulscope/tui/dialogs/``)."""

from __future__ import annotations

from textual import events
from textual.reactive import Reactive
from textual.screen import Screen
from textual.widget import Widget

from soulscope.tui.widgets.key_footer import cover_footers


class MainScreen(Screen):
    """The dashboard's screen: moving the focus repaints the two widgets it moves between.

    Textual's screen repaints every line of the terminal when the focus moves (a tab key moves it
    to the tab's main widget): the widgets that gain and lose it, and any ``:focus-within``
    ancestor, are restyled and repaint themselves anyway.

    While another screen is over it (a dialog, the command palette), its footer shows no keys:
    they do not act there.
    """

    focused: Reactive[Widget | None] = Reactive(None, repaint=False)

    def on_screen_suspend(self, event: events.ScreenSuspend) -> None:
        cover_footers(self, True)

    def on_screen_resume(self, event: events.ScreenResume) -> None:
        cover_footers(self, False)
