"""The keys of the dashboard: every action, where it acts, its keys and its id for ``[keys]``."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Static

from soulscope.tui.actions import bindings
from soulscope.tui.dialogs.base import Dialog


class HelpScreen(Dialog[None]):
    """Every action of the dashboard: where it acts, its keys, what it does, its id for ``[keys]``."""

    BINDINGS = bindings("dialog", only=["dialog.close"])

    def __init__(self, rows: list[tuple[str, str, str, str]]) -> None:
        super().__init__(id="help")
        self.rows = rows  # (where, key, description, id)

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(
                Text("Keys  (escape closes; ctrl+p runs any action by name)"),
                classes="dialog-title",
            )
            # A Rich table wraps its cells to the dialog's width: nothing is cut in a small terminal.
            table = Table(box=None, expand=True, pad_edge=False, header_style="bold")
            table.add_column("Where", no_wrap=True, style="dim")
            table.add_column("Keys", no_wrap=True, style="bold")
            table.add_column("Does", ratio=3)
            table.add_column(Text("Id (for [keys])"), no_wrap=True, style="dim")
            for row in self.rows:
                table.add_row(*(Text(cell) for cell in row))
            with VerticalScroll(id="help-scroll"):
                yield Static(table, id="help-table")

    def on_mount(self) -> None:
        self.query_one("#help-scroll").focus()
