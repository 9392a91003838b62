"""The memory of an agent as it was at one commit, read-only (the History tab's ``v``, or a
click on a frame its diff's title lists: from that frame's line)."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from soulscope.tui.actions import bindings
from soulscope.tui.dialogs.base import Dialog
from soulscope.tui.focus import focus_now
from soulscope.tui.widgets.soul_text import SoulText


class SoulAtScreen(Dialog[None]):
    """The memory of an agent as it was at one commit (read-only)."""

    BINDINGS = bindings("dialog", only=["dialog.close"])

    def __init__(self, title: str, text: str, line: int = 1) -> None:
        super().__init__(id="soul-at")
        self.title_text = title
        self.text = text
        self.line = line  # shown at the top (1-based)

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(Text(self.title_text), classes="dialog-title")
            yield SoulText(id="soul-at-text")

    def on_mount(self) -> None:
        view = self.query_one(SoulText)
        view.set_text(self.text)
        if self.line > 1:
            view.scroll_to_line(self.line)
        focus_now(view)
