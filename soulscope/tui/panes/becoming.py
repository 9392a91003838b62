"""The Becoming tab: the agent's identity arc as a timeline, one row per statement."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.widgets import DataTable, Static

from soulscope.soul.model import Soul
from soulscope.soul.trajectory import Statement, arc
from soulscope.tui.panes.base import Pane


def mark(statement: Statement) -> Text:
    """The timeline's mark column: a shift, a repeated statement, or a duplicated frame."""
    if statement.repeat:
        return Text("= repeat", style="dim")
    if statement.shift:
        return Text("▲ shift", style="bold")
    if statement.duplicate_frame:
        return Text("dup frame", style="dim")
    return Text("")


class BecomingPane(Pane):
    """Enter on a row opens that statement's frame in the Soul tab."""

    TAB_ID = "becoming"
    TAB_TITLE = "Becoming"
    TAB_KEY = "2"

    def __init__(self) -> None:
        super().__init__(id="becoming-pane")
        self.statements: list[Statement] = []

    def compose(self) -> ComposeResult:
        yield Static(id="arc-summary", markup=False)
        table: DataTable[Text] = DataTable(id="arc", cursor_type="row", zebra_stripes=True)
        table.add_column("#", key="index")
        table.add_column("Frame", key="frame")
        table.add_column("Date", key="date")
        table.add_column("Role", key="role")
        table.add_column("", key="mark")
        yield table
        yield Static(id="arc-detail", markup=False)

    @property
    def table(self) -> DataTable[Text]:
        return self.query_one("#arc", DataTable)

    def watch_soul(self, soul: Soul | None) -> None:
        self.statements = arc(soul, self.app.arc_label) if soul else []
        table = self.table
        table.clear()
        for s in self.statements:
            table.add_row(
                Text(str(s.index + 1), justify="right"),
                Text(s.frame_label),
                Text(s.date or "—"),
                Text(s.role),
                mark(s),
                key=str(s.index),
            )
        summary = self.query_one("#arc-summary", Static)
        if soul is None:
            summary.update(Text(""))
        elif not self.statements:
            summary.update(Text(f"{soul.agent_id}: no identity statements"))
        else:
            shifts = sum(1 for s in self.statements if s.shift)
            summary.update(
                Text.assemble(
                    (soul.name or soul.agent_id or "", "bold"),
                    f"  {len(self.statements)} statements · {shifts} shifts",
                    ("  (enter opens the frame)", "dim"),
                )
            )
        self._show_detail(0)

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        self._show_detail(event.cursor_row)

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        if self.agent_id is None or not 0 <= event.cursor_row < len(self.statements):
            return
        s = self.statements[event.cursor_row]
        if s.frame_index is not None:
            self.app.open_frame(self.agent_id, s.frame_index)
        else:
            self.app.open_line(self.agent_id, s.line)

    def _show_detail(self, row: int) -> None:
        detail = self.query_one("#arc-detail", Static)
        if not 0 <= row < len(self.statements):
            detail.update(Text(""))
            return
        s = self.statements[row]
        text = Text.assemble((s.heading, "bold"), f"  line {s.line}\n", s.text)
        if s.from_role or s.to_role:
            text.append("\n")
            text.append(s.from_role or "?", style="italic")
            text.append("  →  ")
            text.append(s.to_role or "?", style="bold")
        detail.update(text)
