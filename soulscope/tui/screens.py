"""The dashboard's main screen (its dialogs are in ``soulscope/tui/dialogs/``)."""

from __future__ import annotations

from textual.reactive import Reactive
from textual.screen import Screen
from textual.widget import Widget


class MainScreen(Screen):
    """The dashboard's screen: moving the focus repaints the two widgets it moves between.

    Textual's screen repaints every line of the terminal when the focus moves (a tab key moves it
    to the tab's main widget): the widgets that gain and lose it, and any ``:focus-within``
    ancestor, are restyled and repaint themselves anyway.
    """

    focused: Reactive[Widget | None] = Reactive(None, repaint=False)
