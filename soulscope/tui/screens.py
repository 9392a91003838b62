"""Modal screens of the dashboard: help, a one-line prompt, a pick-from-list dialog."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Input, OptionList, Static
from textual.widgets.option_list import Option


class HelpScreen(ModalScreen[None]):
    """Every key binding of the app and of the widgets on the screen below, with its id."""

    BINDINGS = [Binding("escape,q,question_mark", "dismiss", "Close", id="help.close")]

    def __init__(self, rows: list[tuple[str, str, str, str]]) -> None:
        super().__init__(id="help")
        self.rows = rows  # (where, key, description, id)

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(
                Text("Keys  (escape closes; ctrl+p runs any action by name)"),
                classes="dialog-title",
            )
            table: DataTable[Text] = DataTable(id="help-table", cursor_type="row")
            table.add_columns("Where", "Key", "Does", "Id")
            for row in self.rows:
                table.add_row(*(Text(cell) for cell in row))
            yield table


class PromptScreen(ModalScreen[str | None]):
    """Asks for one line of text; dismissed with the text, or None on escape."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="prompt.cancel")]

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

    def action_cancel(self) -> None:
        self.dismiss(None)


class PickScreen(ModalScreen[str | None]):
    """Pick one of many (agents, problems): type to narrow, enter picks; dismissed with its id."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="pick.cancel")]

    def __init__(self, title: str, choices: list[tuple[str, str]]) -> None:
        super().__init__(id="pick")
        self.pick_title = title
        self.choices = choices  # (id, label): labels are data, shown as plain text

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(Text(self.pick_title), classes="dialog-title")
            yield Input(placeholder="type to narrow", id="pick-filter")
            yield OptionList(*self._options(""), id="pick-list")

    def _options(self, query: str) -> list[Option]:
        q = query.lower()
        return [Option(Text(label), id=key) for key, label in self.choices if q in label.lower()]

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        options = self.query_one(OptionList)
        options.set_options(self._options(event.value.strip()))
        if options.option_count:
            options.highlighted = 0

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        options = self.query_one(OptionList)
        if options.option_count:
            self.dismiss(options.get_option_at_index(options.highlighted or 0).id)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        self.dismiss(None)
