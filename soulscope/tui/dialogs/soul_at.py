"""The memory of an agent as it was at one commit, read-only (the History tab's ``v``)."""

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

    def __init__(self, title: str, text: str) -> None:
        super().__init__(id="soul-at")
        self.title_text = title
        self.text = text

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(Text(self.title_text), classes="dialog-title")
            yield SoulText(id="soul-at-text")

    def on_mount(self) -> None:
        view = self.query_one(SoulText)
        view.set_text(self.text)
        focus_now(view)
