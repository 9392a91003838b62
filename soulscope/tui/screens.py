"""Screens of the dashboard: the main one, and the modal help, one-line prompt and pick-from-list."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.reactive import Reactive
from textual.screen import ModalScreen, Screen
from textual.widget import Widget
from textual.widgets import Input, Static

from soulscope.tui.actions import bindings
from soulscope.tui.widgets.virtual_list import VirtualList


class MainScreen(Screen):
    """The dashboard's screen: moving the focus repaints the two widgets it moves between.

    Textual's screen repaints every line of the terminal when the focus moves (a tab key moves it
    to the tab's main widget): the widgets that gain and lose it, and any ``:focus-within``
    ancestor, are restyled and repaint themselves anyway.
    """

    focused: Reactive[Widget | None] = Reactive(None, repaint=False)


class HelpScreen(ModalScreen[None]):
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


class PromptScreen(ModalScreen[str | None]):
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


class PickScreen(ModalScreen[str | None]):
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
