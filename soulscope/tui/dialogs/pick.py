"""Pick one of many: agents, problems, cited frames."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Input, Static

from soulscope.tui.actions import bindings
from soulscope.tui.dialogs.base import Dialog
from soulscope.tui.widgets.virtual_list import VirtualList


class PickScreen(Dialog[str | None]):
    """Pick one of many (agents, problems): type to narrow, enter picks; dismissed with its id."""

    BINDINGS = bindings("dialog")

    def __init__(self, title: str, choices: list[tuple[str, str]]) -> None:
        super().__init__(id="pick")
        self.pick_title = title
        self.labels = dict(choices)  # id -> label: labels are data, shown as plain text

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(Text(self.pick_title), classes="dialog-title")
            yield Input(placeholder="type to narrow", id="pick-filter")
            yield VirtualList(lambda key, _width: Text(self.labels[key]), id="pick-list")

    def on_mount(self) -> None:
        self.query_one(VirtualList).set_keys(list(self.labels))

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        q = event.value.strip().lower()
        self.query_one(VirtualList).set_keys(
            [k for k, label in self.labels.items() if q in label.lower()]
        )

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        key = self.query_one(VirtualList).highlighted
        if key is not None:
            self.dismiss(key)

    def on_virtual_list_selected(self, event: VirtualList.Selected) -> None:
        event.stop()
        self.dismiss(event.key)

    def action_move(self, action: str) -> None:
        """Up and down move the list's cursor while the filter keeps the focus."""
        getattr(self.query_one(VirtualList), f"action_{action}")()
