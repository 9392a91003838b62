"""The Becoming tab: the agent's identity arc as a timeline, one row per statement.

An arc may hold 70,000 statements (a soul that never compacts): its table draws only the rows on
screen (``VirtualTable``), asking this pane for a row's cells when it is drawn, so that showing,
filtering or comparing an arc costs about what the screen shows.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.message import Message
from textual.widgets import Sparkline, Static

from soulscope.controls import visible
from soulscope.soul import when
from soulscope.soul.chapters import TURN_MARK, Chapter, Outline
from soulscope.soul.model import Soul
from soulscope.soul.trajectory import Arc, ArcRow, Statement, arc, compare
from soulscope.tui.actions import bindings
from soulscope.tui.focus import focus_now
from soulscope.tui.panes.base import Pane
from soulscope.tui.widgets.status_line import StatusLine
from soulscope.tui.widgets.virtual_list import VirtualList, positions
from soulscope.tui.widgets.virtual_table import Column, VirtualTable
from soulscope.world import WorldError

if TYPE_CHECKING:  # the embedding modules load only when semantic drift is asked for
    from soulscope.recall.semantic import EmbeddingCache, Encoder

ARC_COLUMNS = (
    Column("index", "#", "right"),
    Column("frame", "Frame"),
    Column("date", "When"),  # the date, and the time of day where the heading has one
    Column("mark", ""),
    Column("turn", ""),
    Column("chapter", "Chapter", least=12),
    Column("role", "Role"),
)
# An early-era arc holds positions, not roles: the last column shows each one's own words.
POSITION_COLUMNS = (*ARC_COLUMNS[:-1], Column("role", "Position"))
CHAPTER_MOST = 32  # the chapter column's width at most (its titles are cut beyond)
# The roles of the arc on the left: no wider than this, and cut down to the least before the
# other arc's (the last column's) go short.
LEFT_ROLE_MOST, LEFT_ROLE_LEAST = 40, 12
FIT_ROWS = 500  # rows at each end of an arc whose values size the columns before it is drawn
# The drift plot's points at most: a longer arc is plotted by the largest shift of each stretch.
DRIFT_POINTS = 1000


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


def counted(n: int, thing: str) -> str:
    return f"{n} {thing}" + ("" if n == 1 else "s")


def frame_cell(statement: Statement) -> str:
    """The timeline's frame column: the frame's number (an unnumbered frame's label is its date,
    which the date column shows)."""
    return statement.frame_label if statement.number is not None else "—"


def plotted(values: Sequence[float]) -> list[float]:
    """At most ``DRIFT_POINTS`` of ``values``, each the largest of its stretch: a sparkline of a
    70,000-statement arc would go through every value at each paint, for the same picture."""
    if len(values) <= DRIFT_POINTS:
        return list(values)
    step = len(values) / DRIFT_POINTS
    return [max(values[int(i * step) : int((i + 1) * step)]) for i in range(DRIFT_POINTS)]


def compared_role(statement: Statement | None) -> Text:
    if statement is None:
        return Text("")
    text = Text(visible(statement.headline))
    if statement.shift:
        text.append("  ▲", style="bold")
    if statement.turning_point:
        text.append(f"  {TURN_MARK}", style="bold")
    return text


def chapter_cell(statement: Statement, chapter: Chapter | None) -> Text:
    """The chapter column: the chapter's number and title on its first row, blank below."""
    if chapter is None or chapter.start != statement.index:
        return Text("")
    return Text.assemble((str(chapter.number), "bold"), " ", visible(chapter.title))


@dataclass
class SemanticDrift(Message):
    """The arc's shift magnitudes, turning points and chapters from the embedding model
    (``error`` when it could not load)."""

    agent_id: str | None
    values: list[float]
    outline: Outline | None = None
    error: str | None = None


@dataclass
class OtherArcLoaded(Message):
    """The arc of the agent to compare with is parsed (``error`` set when it could not be read)."""

    agent_id: str
    statements: Arc
    error: str | None = None


class BecomingPane(Pane):
    """Enter on a row opens that statement's frame in the Soul tab; ``c`` compares with another
    arc; ``w`` explains the shift; ``}``/``{`` go from turning point to turning point. Rows are
    banded by chapter, its title on its first row."""

    TAB_ID = "becoming"
    MAIN = "#arc"

    BINDINGS = bindings("becoming")

    def __init__(self) -> None:
        super().__init__(id="becoming-pane")
        self.statements = Arc()
        self.shifts_only = False
        # The arc positions of the statements shown, one per table row, in arc order.
        self.rows: Sequence[int] = range(0)
        self.other_id: str | None = None  # the agent compared with, if any
        self.other = Arc()
        self.compared: list[ArcRow] = []  # the comparison's rows
        self._stale = False  # the table shows an older soul than ``soul``
        self._target: tuple[str, int] | None = None  # (agent, frame index) to highlight once shown
        # The embedding model, once the user asked for semantic drift.
        self._encoder: tuple[Encoder, EmbeddingCache] | None = None
        self._outline_by = "words"  # how the turning points shown were judged

    def compose(self) -> ComposeResult:
        yield StatusLine(id="arc-summary")
        yield StatusLine(id="drift-title")
        yield Sparkline([], id="drift")
        yield VirtualTable(ARC_COLUMNS, self._arc_cells, id="arc")
        yield StatusLine(id="compare-title", classes="compare")
        compared = VirtualTable(self._compare_columns(), self._compared_cells, id="compare")
        compared.add_class("compare")
        yield compared
        # The highlighted row's whole text (both statements while comparing), wrapped to the pane.
        yield Static(id="arc-detail", markup=False)

    @property
    def table(self) -> VirtualTable:
        return self.query_one("#arc", VirtualTable)

    def statement_at(self, row: int) -> Statement:
        """The statement of the table's row ``row``."""
        return self.statements[self.rows[row]]

    def watch_soul(self, soul: Soul | None) -> None:
        self.statements = (
            self.dashboard.cache.arc(self.agent_id, soul) if soul and self.agent_id else Arc()
        )
        self._outline_by = "words"
        # A hidden tab fills its table when it is shown: switching agents pays only for what is seen.
        self._stale = True
        if self.region.area:
            self._fill(soul)

    def on_show(self) -> None:
        if self._stale:
            self._fill(self.soul)

    def _fill(self, soul: Soul | None) -> None:
        self._stale = False
        statements = self.statements
        self.rows = statements.shift_positions() if self.shifts_only else range(len(statements))
        # The rows are known by their position: the cells of each are asked for when it is drawn.
        # This costs the same for 70,000 statements as for 7 (a key waits for it).
        table = self.table
        columns = POSITION_COLUMNS if statements.position else ARC_COLUMNS
        if table.columns != columns:
            table.set_columns(columns)
        self._show_outline()
        table.set_keys(positions(len(self.rows)))
        table.forget()
        table.fit("index", len(str(len(statements))))
        # The columns as wide as the first and last rows need (numbers and dates grow along an
        # arc); a wider value elsewhere widens its column when it is drawn.
        for i in (*self.rows[:FIT_ROWS], *self.rows[-FIT_ROWS:]):
            self._fit(statements[i])
        table.move_cursor(0, announce=False)
        summary = self.query_one("#arc-summary", StatusLine)
        if soul is None:
            summary.show(Text(""))
        elif not self.statements:
            summary.show(Text(f"{soul.agent_id}: no identity statements"))
        else:
            self._show_summary()
        self._show_drift(statements.magnitudes, "lexical")
        if self._encoder is not None and statements:
            self._semantic(self.agent_id, statements)
        self._show_detail(0)
        self._apply_target()
        self._fill_compare()

    def _show_summary(self) -> None:
        statements, soul = self.statements, self.soul
        if soul is None or not statements:
            return
        outline = statements.outline()
        self.query_one("#arc-summary", StatusLine).show(
            Text.assemble(
                (soul.name or soul.agent_id or "", "bold"),
                f"  {counted(len(statements), 'statement')} · "
                f"{counted(statements.shift_count(), 'shift')} · "
                f"{counted(outline.turning_count(), 'turning point')} {TURN_MARK} · "
                f"{counted(len(outline.chapters), 'chapter')}",
                (f" (by {self._outline_by})", "dim"),
                ("  · shifts only" if self.shifts_only else "", "bold"),
                ("  (enter opens the frame)", "dim"),
            )
        )

    def _show_outline(self) -> None:
        """Band the rows by chapter and size the chapter column for the arc's outline."""
        outline = self.statements.outline()
        rows = self.rows
        table = self.table
        table.band = lambda row: outline.chapter_of(rows[row]) if 0 <= row < len(rows) else 0
        longest = max((len(c.title) + len(str(c.number)) + 1 for c in outline.chapters), default=1)
        table.fit("chapter", min(longest, CHAPTER_MOST))

    def _chapter(self, s: Statement) -> Chapter | None:
        chapters = self.statements.outline().chapters
        return chapters[s.chapter - 1] if 0 < s.chapter <= len(chapters) else None

    def _arc_cells(self, key: str) -> tuple[Text, ...]:
        s = self.statement_at(int(key))
        self._fit(s)
        return (
            Text(str(s.index + 1)),
            Text(frame_cell(s)),
            Text(s.when or "—"),
            mark(s),
            Text(TURN_MARK if s.turning_point else "", style="bold"),
            chapter_cell(s, self._chapter(s)),
            Text(s.headline),
        )

    def _fit(self, s: Statement) -> None:
        table = self.table
        table.fit("frame", len(frame_cell(s)))
        table.fit("date", len(s.when or "—"))
        table.fit("mark", mark(s).cell_len)
        table.fit("turn", 1)
        # The role (a position's words) asks for its room: the chapter column gives way to it.
        table.fit("role", len(s.headline))

    # -- drift ------------------------------------------------------------------------------
    def _show_drift(self, values: Sequence[float], kind: str) -> None:
        """The drift plot: each statement's shift magnitude against the previous one, 0..1."""
        drift = values[1:]  # (the first statement moved from nothing)
        self.query_one("#drift", Sparkline).data = plotted(drift)
        title = self.query_one("#drift-title", StatusLine)
        if not drift:
            title.show(Text(""))
            return
        peak = drift.index(max(drift)) + 1
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
            self._say_no_arc()
            return
        self.query_one("#drift-title", StatusLine).show(
            Text("drift: loading the embedding model…", style="dim")
        )
        self._semantic(self.agent_id, self.statements)

    @work(thread=True, exclusive=True, group="drift", exit_on_error=False)
    def _semantic(self, agent_id: str | None, statements: Arc) -> None:
        from soulscope.recall.encoders import load_encoder
        from soulscope.recall.semantic import EmbeddingCache, EncoderError, embed
        from soulscope.soul.trajectory import drift

        try:
            if self._encoder is None:
                self._encoder = (load_encoder(self.dashboard.settings), EmbeddingCache())
            encoder, cache = self._encoder
            vectors = embed(statements.texts, encoder, cache)
        except EncoderError as exc:
            self.post_message(SemanticDrift(agent_id, [], error=str(exc)))
            return
        values = drift(statements, lambda _texts: vectors)
        self.post_message(
            SemanticDrift(
                agent_id,
                values,
                statements.by_meaning(vectors),
            )
        )

    def on_semantic_drift(self, message: SemanticDrift) -> None:
        message.stop()
        if message.error:
            self.dashboard.notify(message.error, severity="error")
            self._show_drift(self.statements.magnitudes, "lexical")
        elif message.agent_id == self.agent_id and len(message.values) == len(self.statements):
            self._show_drift(message.values, "semantic")
            if message.outline is not None:
                # Turning points and chapters by meaning too, for this arc as shown here.
                self.statements = self.statements.outlined(message.outline)
                self._outline_by = "meaning"
                self._show_outline()
                self.table.forget()
                self._show_summary()

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
        row = _row_at(self.statements, self.rows, frame_index)
        self.table.move_cursor(row, announce=False)
        focus_now(self.table)
        self._show_detail(row)

    def on_virtual_list_highlighted(self, event: VirtualList.Highlighted) -> None:
        event.stop()
        if event.virtual_list.id == "compare":
            self._show_compared(event.virtual_list.cursor_row)
        else:
            self._show_detail(event.virtual_list.cursor_row)

    def on_virtual_list_selected(self, event: VirtualList.Selected) -> None:
        event.stop()
        row = event.virtual_list.cursor_row
        if event.virtual_list.id == "compare":
            return
        if self.agent_id is None or not 0 <= row < len(self.rows):
            return
        s = self.statement_at(row)
        if s.frame_index is not None:
            self.dashboard.open_frame(self.agent_id, s.frame_index)
        else:
            self.dashboard.open_line(self.agent_id, s.line)

    def _say_no_arc(self) -> None:
        """Why a key of the arc did nothing: no agent, or no statement to act on."""
        if self.agent_id is None:
            self.dashboard.notify("Choose an agent first.", severity="warning")
        elif self.soul is None:
            self.dashboard.notify(f"{self.agent_id}'s soul file is still being read.")
        else:
            self.dashboard.notify(f"{self.agent_id} has no identity statements to act on.")

    def action_why(self) -> None:
        """Open the "why" panel for the highlighted statement."""
        row = self.table.cursor_row
        if self.agent_id is None or not 0 <= row < len(self.rows):
            self._say_no_arc()
            return
        from soulscope.llm import LLM, Endpoint
        from soulscope.tui.dialogs.why import WhyScreen

        # The narrative is the configured LLM's when there is one, else written offline.
        endpoint = Endpoint.from_settings(self.dashboard.settings)
        llm = LLM(endpoint) if endpoint else None
        self.dashboard.push_screen(WhyScreen(self.agent_id, self.rows[row] + 1, self.soul, llm))

    def action_toggle_shifts(self) -> None:
        """Show only the statements that shift the arc, or every statement (the cursor stays on
        its statement, or the nearest shown before it)."""
        row = self.table.cursor_row
        current = self.rows[row] if 0 <= row < len(self.rows) else 0
        self.shifts_only = not self.shifts_only
        self._fill(self.soul)
        at = max(bisect_right(self.rows, current) - 1, 0)
        self.table.move_cursor(at, announce=False)
        self._show_detail(at)

    def step_turning_point(self, delta: int) -> bool:
        """Move the cursor to the next (``delta`` 1) or previous (-1) turning point; False when
        none."""
        if self._stale:
            self._fill(self.soul)
        row = self.table.cursor_row
        order = range(row + 1, len(self.rows)) if delta > 0 else range(row - 1, -1, -1)
        turning, rows = self.statements.outline().turning, self.rows
        target = next((i for i in order if turning[rows[i]]), None)
        if target is None:
            return False
        self.table.move_cursor(target)
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
        s = self.statement_at(row)
        text = Text.assemble((s.heading, "bold"), f"  line {s.line}")
        chapter = self._chapter(s)
        if s.turning_point:
            text.append(f"  {TURN_MARK} turning point", style="bold")
        if chapter is not None:
            text.append(f"  · chapter {chapter.number}: {chapter.title}", style="dim")
        text.append("\n" + s.text)
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
        self.other = Arc()
        self.query_one("#compare-title", StatusLine).show(
            Text(f"comparing with {agent_id}: parsing…")
        )
        self.set_class(True, "-comparing")
        self._load_other(agent_id)

    @work(thread=True, exclusive=True, group="compare", exit_on_error=False)
    def _load_other(self, agent_id: str) -> None:
        try:
            soul, _ = self.dashboard.cache.load(agent_id)
        except WorldError as exc:
            self.post_message(OtherArcLoaded(agent_id, Arc(), str(exc)))
            return
        self.post_message(OtherArcLoaded(agent_id, arc(soul, self.dashboard.arc_label)))

    def on_other_arc_loaded(self, message: OtherArcLoaded) -> None:
        message.stop()
        if message.agent_id != self.other_id:
            return
        if message.error:
            self.dashboard.notify(message.error, severity="error")
            self.action_close_compare()
            return
        self.other = message.statements
        self._fill_compare()

    def _fill_compare(self) -> None:
        if self.other_id is None:
            return
        table = self.query_one("#compare", VirtualTable)
        table.set_columns(self._compare_columns())
        self.compared = compare(self.statements, self.other)
        table.set_keys(positions(len(self.compared)))
        if self.compared:
            table.fit("frame", max(len(row.key) for row in self.compared))
            table.fit("when", max(len(row.when or "—") for row in self.compared))
            # The left roles get what their longest needs, within reason.
            longest = max(compared_role(row.left).cell_len for row in self.compared)
            table.fit("left", min(longest, LEFT_ROLE_MOST))
        table.move_cursor(0, announce=False)
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

    def _compare_columns(self) -> tuple[Column, ...]:
        return (
            Column("frame", "Frame"),
            Column("when", "When"),
            Column("left", self.agent_id or "", least=LEFT_ROLE_LEAST),
            Column("right", self.other_id or ""),
        )

    def _compared_cells(self, key: str) -> tuple[Text, ...]:
        row = self.compared[int(key)]
        return (
            Text(row.key),
            Text(row.when or "—", style="" if row.when else "dim"),
            compared_role(row.left),
            compared_role(row.right),
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
        self.other = Arc()
        self.compared = []
        self.set_class(False, "-comparing")
        focus_now(self.table)
        self._show_detail(self.table.cursor_row)


def _row_at(statements: Arc, rows: Sequence[int], frame_index: int) -> int:
    """The row of the statement held as of frame ``frame_index``: the latest by time
    (``soul.when``) whose frame is not later than that frame; the first row when none is."""
    columns = statements.frames
    if frame_index < 0 or columns is None:
        return 0
    moments = when.frame_moments(columns)
    target = moments[frame_index].key
    frames = statements.frame_indices  # (-1 outside frames)
    best: tuple | None = None
    found = 0
    for i, p in enumerate(rows):
        f = frames[p]
        if f < 0:
            continue
        key = moments[f].key
        if key <= target and (best is None or key >= best):
            best, found = key, i
    return found
