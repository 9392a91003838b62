"""A one-line status or header line."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from soulscope.controls import visible


class StatusLine(Static):
    """One line of plain text whose updates repaint it alone.

    Its height is fixed (one line, in the stylesheet), so a new text never needs the screen's layout
    to be computed again: switching agents updates several of these and stays cheap.
    """

    DEFAULT_CSS = "StatusLine { height: 1; }"

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes, markup=False)
        self._shown: Text | None = None

    def show(self, text: Text | str) -> None:
        """Show ``text``; the same text again repaints nothing."""
        shown = visible(text if isinstance(text, Text) else Text(text))
        if shown != self._shown:
            self._shown = shown
            self.update(shown, layout=False)
