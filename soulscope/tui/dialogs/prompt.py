"""A one-line question: the number of frames to run, the frame to go to."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Input, Static

from soulscope.tui.actions import bindings
from soulscope.tui.dialogs.base import Dialog


class PromptScreen(Dialog[str | None]):
    """Asks for one line of text; dismissed with the text, or None on escape."""

    BINDINGS = bindings("dialog", only=["dialog.close"])

    def __init__(self, title: str, placeholder: str = "") -> None:
        super().__init__(id="prompt")
        self.prompt_title = title
        self.placeholder = placeholder

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(Text(self.prompt_title), classes="dialog-title")
            yield Input(placeholder=self.placeholder, id="prompt-input")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(event.value.strip() or None)
