"""The Becoming tab: the agent's identity arc as a timeline, one row per statement."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.message import Message
from textual.widgets import DataTable, Sparkline, Static

from soulscope.controls import visible
from soulscope.soul.model import Soul
from soulscope.soul.trajectory import ArcRow, Statement, arc, compare
from soulscope.tui.actions import bindings
from soulscope.tui.focus import focus_now
from soulscope.tui.panes.base import Pane
from soulscope.tui.widgets.sliced import SlicedFill
from soulscope.tui.widgets.status_line import StatusLine
from soulscope.tui.widgets.table import Table
from soulscope.world import WorldError


def mark(statement: Statement) -> Text:
    """The timeline's mark column: the statement's class against the ones before it."""
    if statement.kind == "shift":
        return Text("▲ shift", style="bold")
    if statement.kind == "return":
        return Text("↺ return", style="bold")
    if statement.repeat:
        return Text("= repeat", style="dim")
    if statement.duplicate_frame:
        return Text("dup frame", style="dim")
    if statement.kind == "refinement":
        return Text("· refined", style="dim")
    return Text("")


def compared_role(statement: Statement | None) -> Text:
    if statement is None:
        return Text("")
    text = Text(visible(statement.role))
    if statement.shift:
        text.append("  ▲", style="bold")
    return text


@dataclass
class SemanticDrift(Message):
    """The arc's shift magnitudes from the embedding model (``error`` when it could not load)."""

    agent_id: str | None
    values: list[float]
    error: str | None = None


@dataclass
class OtherArcLoaded(Message):
    """The arc of the agent to compare with is parsed (``error`` set when it could not be read)."""

    agent_id: str
    statements: list[Statement]
    error: str | None = None


class BecomingPane(Pane):
    """Enter on a row opens that statement's frame in the Soul tab; ``c`` compares with another
    arc; ``w`` explains the shift."""

    TAB_ID = "becoming"
    TAB_TITLE = "Becoming"
    MAIN = "#arc"

    BINDINGS = bindings("becoming")

    def __init__(self) -> None:
        super().__init__(id="becoming-pane")
        self.statements: list[Statement] = []
        self.shifts_only = False
        self.rows: list[Statement] = []  # the statements shown, one per table row
        self.other_id: str | None = None  # the agent compared with, if any
        self.other: list[Statement] = []
        self.compared: list[ArcRow] = []  # the comparison's rows
        self._stale = False  # the table shows an older soul than ``soul``
        self._filling: SlicedFill[Statement] | None = None  # the rows being added
        self._target: tuple[str, int] | None = None  # (agent, frame index) to highlight once shown
        self._encoder = None  # the embedding model, once the user asked for semantic drift

    def compose(self) -> ComposeResult:
        yield StatusLine(id="arc-summary")
        yield StatusLine(id="drift-title")
        yield Sparkline([], id="drift")
        table: Table[Text] = Table(id="arc", cursor_type="row", zebra_stripes=True)
        table.add_column("#", key="index")
        table.add_column("Frame", key="frame")
        table.add_column("Date", key="date")
        table.add_column("", key="mark")
        table.add_column("Role", key="role")
        yield table
        yield StatusLine(id="compare-title", classes="compare")
        yield Table(id="compare", cursor_type="row", zebra_stripes=True, classes="compare")
        # The highlighted row's whole text (both statements while comparing), wrapped to the pane.
        yield Static(id="arc-detail", markup=False)

    @property
    def table(self) -> DataTable[Text]:
        return self.query_one("#arc", DataTable)

    def watch_soul(self, soul: Soul | None) -> None:
        self.statements = self.app.cache.arc(self.agent_id, soul) if soul and self.agent_id else []
        # A hidden tab fills its table when it is shown: switching agents pays only for what is seen.
        self._stale = True
        if self.region.area:
            self._fill(soul)

    def on_show(self) -> None:
        if self._stale:
            self._fill(self.soul)

    def _fill(self, soul: Soul | None) -> None:
        self._stale = False
        table = self.table
        table.clear()
        self.rows = [s for s in self.statements if s.shift or not self.shifts_only]
        if self._filling is not None:
            self._filling.cancel()
        self._filling = SlicedFill(self, self.rows, self._add_row)
        summary = self.query_one("#arc-summary", StatusLine)
        if soul is None:
            summary.show(Text(""))
        elif not self.statements:
            summary.show(Text(f"{soul.agent_id}: no identity statements"))
        else:
            shifts = sum(1 for s in self.statements if s.shift)
            summary.show(
                Text.assemble(
                    (soul.name or soul.agent_id or "", "bold"),
                    f"  {len(self.statements)} statements · {shifts} shifts",
                    ("  · shifts only" if self.shifts_only else "", "bold"),
                    ("  (enter opens the frame)", "dim"),
                )
            )
        self._show_drift([s.magnitude for s in self.statements], "lexical")
        if self._encoder is not None and self.statements:
            self._semantic(self.agent_id, self.statements)
        self._show_detail(0)
        self._apply_target()
        self._fill_compare()

    def _add_row(self, s: Statement) -> None:
        self.table.add_row(
            Text(str(s.index + 1), justify="right"),
            # Undated frame numbers are the early era's norm: the date column says when.
            Text(s.frame_label if s.number is not None else "—"),
            Text(s.date or "—"),
            mark(s),
            Text(visible(s.role)),
            key=str(s.index),
        )

    def _rows_up_to(self, row: int) -> None:
        """Make sure the table holds row ``row`` (before moving the cursor there)."""
        if self._filling is not None:
            self._filling.until(row)

    # -- drift ------------------------------------------------------------------------------
    def _show_drift(self, values: list[float], kind: str) -> None:
        """The drift plot: each statement's shift magnitude against the previous one, 0..1."""
        self.query_one("#drift", Sparkline).data = values[1:] if len(values) > 1 else []
        title = self.query_one("#drift-title", StatusLine)
        if len(values) < 2:
            title.show(Text(""))
            return
        peak = max(range(1, len(values)), key=values.__getitem__)
        hint = "" if kind != "lexical" else "  (m: semantic)"
        title.show(
            Text.assemble(
                ("drift", "bold"),
                f" {kind}, statement to statement · largest {values[peak]:.2f} at #{peak + 1}",
                (hint, "dim"),
            )
        )

    def action_semantic_drift(self) -> None:
        """Plot drift as the embedding model's cosine distance (loads the model once)."""
        if not self.statements:
            return
        self.query_one("#drift-title", StatusLine).show(
            Text("drift: loading the embedding model…", style="dim")
        )
        self._semantic(self.agent_id, self.statements)

    @work(thread=True, exclusive=True, group="drift", exit_on_error=False)
    def _semantic(self, agent_id: str | None, statements: list[Statement]) -> None:
        from soulscope.recall.semantic import EmbeddingCache, EncoderError, MiniLM, embed
        from soulscope.soul.trajectory import drift

        try:
            if self._encoder is None:
                self._encoder = (MiniLM(device=self.app.settings.embed_device), EmbeddingCache())
            encoder, cache = self._encoder
            values = drift(statements, lambda texts: embed(texts, encoder, cache))
        except EncoderError as exc:
            self.post_message(SemanticDrift(agent_id, [], str(exc)))
            return
        self.post_message(SemanticDrift(agent_id, values))

    def on_semantic_drift(self, message: SemanticDrift) -> None:
        message.stop()
        if message.error:
            self.app.notify(message.error, severity="error")
            self._show_drift([s.magnitude for s in self.statements], "lexical")
        elif message.agent_id == self.agent_id and len(message.values) == len(self.statements):
            self._show_drift(message.values, "semantic")

    # -- opening at a place ------------------------------------------------------------------
    def show_at(self, agent_id: str, frame_index: int | None) -> None:
        """Highlight ``agent_id``'s statement as of frame ``frame_index`` once its arc is shown."""
        self._target = (agent_id, frame_index if frame_index is not None else -1)
        if not self._stale and self.agent_id == agent_id and self.statements:
            self._apply_target()

    def _apply_target(self) -> None:
        if self._target is None or self._target[0] != self.agent_id or not self.statements:
            return
        _, frame_index = self._target
        self._target = None
        rows = [
            i
            for i, s in enumerate(self.rows)
            if s.frame_index is not None and 0 <= s.frame_index <= frame_index
        ]
        row = rows[-1] if rows else 0
        self._rows_up_to(row)
        self.table.move_cursor(row=row)
        focus_now(self.table)
        self._show_detail(row)

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        if event.data_table.id == "compare":
            self._show_compared(event.cursor_row)
        else:
            self._show_detail(event.cursor_row)

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        if event.data_table.id == "compare":
            return
        if self.agent_id is None or not 0 <= event.cursor_row < len(self.rows):
            return
        s = self.rows[event.cursor_row]
        if s.frame_index is not None:
            self.app.open_frame(self.agent_id, s.frame_index)
        else:
            self.app.open_line(self.agent_id, s.line)

    def action_why(self) -> None:
        """Open the "why" panel for the highlighted statement."""
        row = self.table.cursor_row
        if self.agent_id is None or not 0 <= row < len(self.rows):
            return
        from soulscope.chat.llm import LLM, Endpoint
        from soulscope.tui.why import WhyScreen

        # The narrative is the configured LLM's when there is one, else written offline.
        endpoint = Endpoint.from_settings(self.app.settings)
        llm = LLM(endpoint) if endpoint else None
        self.app.push_screen(WhyScreen(self.agent_id, self.rows[row].index + 1, self.soul, llm))

    def action_toggle_shifts(self) -> None:
        """Show only the statements that shift the arc, or every statement (the cursor stays on
        its statement, or the nearest shown before it)."""
        row = self.table.cursor_row
        current = self.rows[row].index if 0 <= row < len(self.rows) else 0
        self.shifts_only = not self.shifts_only
        self._fill(self.soul)
        at = max((i for i, s in enumerate(self.rows) if s.index <= current), default=0)
        self._rows_up_to(at)
        self.table.move_cursor(row=at)

    def step_shift(self, delta: int) -> bool:
        """Move the cursor to the next (``delta`` 1) or previous (-1) shift; False when none."""
        if self._stale:
            self._fill(self.soul)
        row = self.table.cursor_row
        order = range(row + 1, len(self.rows)) if delta > 0 else range(row - 1, -1, -1)
        target = next((i for i in order if self.rows[i].shift), None)
        if target is None:
            return False
        self._rows_up_to(target)
        self.table.move_cursor(row=target)
        return True

    def _show_detail(self, row: int) -> None:
        if self.other_id is not None:
            return  # comparing: the detail is the compared row's (the arc's table, hidden, may
            # still report a highlight as its rows are filled in)
        detail = self.query_one("#arc-detail", Static)
        # Its height follows the text; while the tab is hidden the layout can wait until it shows.
        layout = self.region.area > 0
        if not 0 <= row < len(self.rows):
            detail.update(Text(""), layout=layout)
            return
        s = self.rows[row]
        text = Text.assemble((s.heading, "bold"), f"  line {s.line}\n", s.text)
        if s.from_role or s.to_role:
            text.append("\n")
            text.append(s.from_role or "?", style="italic")
            text.append("  →  ")
            text.append(s.to_role or "?", style="bold")
        detail.update(visible(text), layout=layout)

    # -- comparison with another agent's arc --------------------------------------------------
    def compare_with(self, agent_id: str) -> None:
        """Show this arc and ``agent_id``'s side by side, aligned by frame (parsed in a worker)."""
        self.other_id = agent_id
        self.other = []
        self.query_one("#compare-title", StatusLine).show(
            Text(f"comparing with {agent_id}: parsing…")
        )
        self.set_class(True, "-comparing")
        self._load_other(agent_id)

    @work(thread=True, exclusive=True, group="compare", exit_on_error=False)
    def _load_other(self, agent_id: str) -> None:
        try:
            soul, _ = self.app.cache.load(agent_id)
        except WorldError as exc:
            self.post_message(OtherArcLoaded(agent_id, [], str(exc)))
            return
        self.post_message(OtherArcLoaded(agent_id, arc(soul, self.app.arc_label)))

    def on_other_arc_loaded(self, message: OtherArcLoaded) -> None:
        message.stop()
        if message.agent_id != self.other_id:
            return
        if message.error:
            self.app.notify(message.error, severity="error")
            self.action_close_compare()
            return
        self.other = message.statements
        self._fill_compare()

    def _fill_compare(self) -> None:
        if self.other_id is None:
            return
        table = self.query_one("#compare", DataTable)
        table.clear(columns=True)
        table.add_column("Frame", key="frame")
        table.add_column("When", key="when")
        table.add_column(Text(self.agent_id or ""), key="left")
        table.add_column(Text(self.other_id), key="right")
        self.compared = compare(self.statements, self.other)
        for row in self.compared:
            table.add_row(
                Text(visible(row.key)),
                Text(row.when or "—", style="" if row.when else "dim"),
                compared_role(row.left),
                compared_role(row.right),
            )
        if self.other:
            focus_now(table)
            self._show_compared(0)
        self.query_one("#compare-title", StatusLine).show(
            Text.assemble(
                ("Side by side", "bold"),
                f"  {self.agent_id} and {self.other_id}, aligned by date and time",
                ("  (▲ shift · escape closes)", "dim"),
            )
        )

    def _show_compared(self, row: int) -> None:
        """Both statements of a compared row in full: the table has room for roles only."""
        if not 0 <= row < len(self.compared):
            return
        compared = self.compared[row]
        text = Text.assemble(("Frame " + compared.key, "bold"))
        if compared.when and compared.when != compared.key:
            text.append(f"  {compared.when}", style="dim")
        for agent_id, s in ((self.agent_id, compared.left), (self.other_id, compared.right)):
            text.append(f"\n{agent_id}: ", style="bold")
            text.append(s.text if s is not None else "—", style="" if s is not None else "dim")
        self.query_one("#arc-detail", Static).update(visible(text))

    def action_close_compare(self) -> None:
        self.other_id = None
        self.other = []
        self.compared = []
        self.set_class(False, "-comparing")
        focus_now(self.table)
        self._show_detail(self.table.cursor_row)
