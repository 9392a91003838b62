"""The runs view: this world and another run of it (a fork) side by side (``runs.compare``).

Opened with ``R``: it asks for the other run's folder (a fork offers its original), then shows
the fork point, and per agent the frame where its memory first differs (post numbers aside),
the statements, turning points and chapters each run gave it after the fork, and their drift.
The highlighted agent's two arcs after the fork stand side by side below, frame by frame where
they differ. ``t`` adds a term: how it spread in each run, two curves.

The comparison reads both worlds and their git histories: it runs in a thread worker.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from rich.table import Table
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import DataTable, Static

from soulscope.controls import visible
from soulscope.runs.compare import AgentRuns, ArcSide, RunsComparison, compare_runs, curve_pair
from soulscope.tui.actions import bindings
from soulscope.tui.dialogs.base import Dialog
from soulscope.tui.dialogs.prompt import PromptScreen
from soulscope.world import World, WorldError

if TYPE_CHECKING:
    from soulscope.tui.app import SoulscopeApp

SPARKS = "▁▂▃▄▅▆▇█"
CURVE = 40  # the widest curve, in cells


@dataclass
class RunsCompared(Message):
    """The comparison, or the sentence saying why there is none."""

    comparison: RunsComparison | None
    error: str | None = None


def original_of(world: World) -> str | None:
    """The world a fork was made from, as the fork remembers it (None: no fork, or no git)."""
    from soulscope.runs.fork import fork_of
    from soulscope.sim.repo import RepoError

    try:
        found = fork_of(world.root)
    except RepoError:
        return None
    return found[0] if found else None


def open_runs(app: SoulscopeApp) -> None:
    """Ask for the other run's folder, then open the runs view on it."""
    if app.world.read_only:
        app.notify("This is the world as of a commit; come back to now (o) to compare runs.")
        return
    original = original_of(app.world)
    hint = f"empty: its original, {original}" if original else "a folder: a fork of this world"

    def go(answer: str | None) -> None:
        other = answer or original
        if other:
            app.push_screen(RunsScreen(other))

    app.push_screen(PromptScreen("Compare this run with which world?", hint), go)


def _names(c: RunsComparison) -> tuple[str, str]:
    left, right = Path(c.left), Path(c.right)
    if left.name != right.name:
        return left.name, right.name
    return str(Path(*left.parts[-2:])), str(Path(*right.parts[-2:]))


def _pair(a: object, b: object) -> str:
    return f"{'-' if a is None else a} / {'-' if b is None else b}"


def _where(a: AgentRuns) -> str:
    d = a.difference
    if d is None:
        return "same" if a.raw_difference is None else "same (#N aside)"
    return "header" if d.frame is None else f"frame {d.frame}"


def _cell(side: ArcSide | None, what: str) -> str:
    if side is None:
        return "no soul file"
    if what == "chapters":
        return " · ".join(side.chapters) or "-"
    value = getattr(side, what)
    return "-" if value is None else str(value)


def arcs_table(a: AgentRuns, names: tuple[str, str]) -> Table:
    """One agent's two arcs after the fork point, side by side (plain text cells: data)."""
    table = Table(box=None, expand=True, show_edge=False, pad_edge=False, padding=(0, 1))
    table.add_column("", style="bold", no_wrap=True, width=10)
    table.add_column(Text(visible(names[0]), style="bold"), ratio=1)
    table.add_column(Text(visible(names[1]), style="bold"), ratio=1)
    for label, what in (
        ("statements", "statements"),
        ("turns", "turning_points"),
        ("chapters", "chapters"),
        ("latest", "latest"),
    ):
        table.add_row(
            label, Text(visible(_cell(a.left, what))), Text(visible(_cell(a.right, what)))
        )
    if a.rows:
        table.add_row("", "", "")
        table.add_row(Text("frame", style="bold"), "where they differ", "", style="dim")
    for r in a.rows:
        table.add_row(
            r.key or "",
            Text(visible(r.left.text)) if r.left else Text("—", style="dim"),
            Text(visible(r.right.text)) if r.right else Text("—", style="dim"),
        )
    return table


def _heading(a: AgentRuns) -> Text:
    out = Text.assemble((a.agent, "bold"), f"  first differs: {_where(a)}")
    d, raw = a.difference, a.raw_difference
    if d is not None and d.heading:
        out.append(f" ({d.heading})")
    if raw is not None and (d is None or raw.frame != d.frame) and raw.frame is not None:
        out.append(f"; only post numbers from frame {raw.frame}", style="dim")
    if a.drift is not None:
        out.append(f" · drift {a.drift:.2f}")
    return visible(out)


def _spark(values: list[int], top: int) -> str:
    if len(values) > CURVE:
        step = len(values) / CURVE
        values = [values[min(len(values) - 1, int((i + 1) * step) - 1)] for i in range(CURVE)]
    return "".join(SPARKS[min(len(SPARKS) - 1, v * len(SPARKS) // (top + 1))] for v in values)


def curves_text(c: RunsComparison, names: tuple[str, str]) -> Text:
    """Each term's two spread curves on the same days, and how many each run reached."""
    out = Text()
    for term, curves in c.curves.items():
        rows = curve_pair(curves)
        top = max([max(left, right) for _, left, right in rows] + [1])
        out.append(f"'{term}'", style="bold")
        out.append(f" from {rows[0][0]} to {rows[-1][0]}\n" if rows else ": used by nobody\n")
        sides = ([left for _, left, _ in rows], [right for _, _, right in rows])
        for name, values in zip(names, sides, strict=True):
            out.append(f"  {name[:14]:<14} {_spark(values, top)} {values[-1] if values else 0}\n")
    return visible(out)


class RunsScreen(Dialog[None]):
    """This world (left) and the run in ``other`` (right), compared agent by agent."""

    BINDINGS = bindings("runs")  # keys, palette and help: soulscope/tui/actions.py

    def __init__(self, other: str) -> None:
        super().__init__(id="runs")
        self.other = other
        self.terms: list[str] = []
        self.comparison: RunsComparison | None = None

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(Text(f"Runs · comparing with {visible(self.other)}…"), id="runs-title")
            yield DataTable(id="runs-agents", cursor_type="row", zebra_stripes=True)
            with VerticalScroll(id="runs-detail"):
                yield Static(id="runs-curves")
                yield Static(Text("reading both runs…", style="dim"), id="runs-heading")
                yield Static(id="runs-arcs")

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns("agent", "first differs", "statements", "turns", "chapters", "drift")
        table.focus()
        self.load()

    @work(thread=True, exclusive=True, group="runs", exit_on_error=False)
    def load(self) -> None:
        try:
            other = World.open(self.other)
            found = compare_runs(self.dashboard.world, other, self.terms)
        except (WorldError, OSError, ValueError) as exc:
            self.post_message(RunsCompared(None, str(exc)))
            return
        self.post_message(RunsCompared(found))

    def on_runs_compared(self, message: RunsCompared) -> None:
        c = self.comparison = message.comparison
        title = self.query_one("#runs-title", Static)
        if c is None:
            title.update(visible(Text(f"Runs: {message.error}")))
            self.query_one("#runs-heading", Static).update("")
            return
        names = _names(c)
        if c.point is None:
            said = f"{names[0]} and {names[1]} share no commit: they are not runs of one world"
        else:
            at = f"frame {c.point_frame}" if c.point_frame is not None else "a commit"
            said = f"{names[0]} · {names[1]}: parted at {at} ({c.point[:8]})"
        keys = "  (j/k: agent · enter: open · space/b: arcs · t: term · esc)"
        title.update(visible(Text.assemble(("Runs ", "bold"), said, (keys, "dim"))))
        curves = self.query_one("#runs-curves", Static)
        curves.update(curves_text(c, names))
        curves.display = bool(c.curves)
        table = self.query_one(DataTable)
        row = table.cursor_row
        table.clear()
        for a in c.agents:
            left, right = a.left, a.right
            table.add_row(
                Text(visible(a.agent)),
                _where(a),
                _pair(left and left.statements, right and right.statements),
                _pair(left and left.turning_points, right and right.turning_points),
                _pair(left and len(left.chapters), right and len(right.chapters)),
                "-" if a.drift is None else f"{a.drift:.2f}",
                key=a.agent,
            )
        if c.agents:
            table.move_cursor(row=min(row, len(c.agents) - 1))
            self._show(min(row, len(c.agents) - 1))

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        self._show(event.cursor_row)

    def _show(self, row: int) -> None:
        c = self.comparison
        if c is None or not 0 <= row < len(c.agents):
            return
        a = c.agents[row]
        self.query_one("#runs-heading", Static).update(_heading(a))
        self.query_one("#runs-arcs", Static).update(arcs_table(a, _names(c)))

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_open()

    def action_open(self) -> None:
        """The highlighted agent's soul file in the Soul tab, where it first differs."""
        c = self.comparison
        row = self.query_one(DataTable).cursor_row
        if c is None or not 0 <= row < len(c.agents):
            return
        a = c.agents[row]
        d = a.difference or a.raw_difference
        if d is None:
            self.dashboard.notify(f"{a.agent}'s memory is the same in both runs.")
        elif not d.in_first:
            where = f"frame {d.frame}" if d.frame is not None else "that line"
            self.dashboard.notify(f"{a.agent} has no {where} in this run: only the other has it.")
        else:
            self.close_all()
            self.dashboard.open_line(a.agent, d.line)

    def action_move(self, action: str) -> None:
        getattr(self.query_one(DataTable), f"action_{action}")()

    def action_scroll_arcs(self, pages: int) -> None:
        detail = self.query_one("#runs-detail", VerticalScroll)
        step = max(1, detail.size.height - 2) * pages
        detail.scroll_to(y=detail.scroll_target_y + step, animate=False, immediate=True)

    def action_term(self) -> None:
        def add(term: str | None) -> None:
            if term and term not in self.terms:
                self.terms.append(term)
                self.query_one("#runs-heading", Static).update(
                    Text(f"reading how '{visible(term)}' spread in each run…", style="dim")
                )
                self.load()

        self.dashboard.push_screen(PromptScreen("Compare how which term spread?", "a word"), add)
