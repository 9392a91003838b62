"""The History tab: the agent's commits beside the selected commit's diff, like tig or lazygit.

All git work runs in thread workers; the commit list is a DataTable (rows are rendered only when
they scroll into view), the diff a RichLog. Keys: ``[``/``]`` step through commits, ``t`` toggles
unified / side by side, ``m`` marks a commit so that the diff is against it, ``v`` shows the memory
as it was at the selected commit, ``o`` opens the whole world as of that commit (read-only) and,
while there, comes back.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.console import RenderableType
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import DataTable, RichLog, Static

from soulscope.history.git import HistoryError
from soulscope.history.timeline import Change, Timeline, WorldAt, timeline_for
from soulscope.soul.model import clean
from soulscope.tui.panes.base import Pane
from soulscope.tui.widgets.soul_text import SoulText


@dataclass
class HistoryLoaded(Message):
    """An agent's history by frame, newest first."""

    agent_id: str
    changes: list[Change]


@dataclass
class HistoryFailed(Message):
    """No history for the agent; ``error`` is one sentence (no repository, shallow clone...)."""

    agent_id: str
    error: str


@dataclass
class DiffReady(Message):
    """The diff to show for the selected commit (or the marked commit against it)."""

    agent_id: str
    key: tuple[str, ...]
    title: Text
    body: RenderableType


def change_row(change: Change) -> tuple[Text, ...]:
    """A commit list row: date, +frames, ~, -, Becoming mark, message, flags."""
    c = change.commit
    return (
        Text(c.date[:16].replace("T", " ")),
        Text(f"+{len(change.frames_added)}" if change.frames_added else "", style="green"),
        Text(f"~{len(change.frames_changed)}" if change.frames_changed else "", style="yellow"),
        Text(f"-{len(change.frames_removed)}" if change.frames_removed else "", style="red"),
        Text("»" if change.becoming_changed else "", style="bold magenta"),
        Text(clean(c.message)),
        Text(" ".join(change.flags), style="bold red" if change.truncated else "dim"),
    )


def change_title(change: Change, marked: Change | None = None) -> Text:
    """What the diff shows, in a few lines above it."""
    c = change.commit
    out = Text(end="")
    if marked is not None:
        out.append(f"{marked.commit.short} → {c.short}", style="bold")
        out.append(f"  (marked {marked.commit.date[:10]} against {c.date[:10]})\n", style="dim")
        return out
    out.append(f"{c.short} ", style="bold yellow")
    out.append(f"{c.date[:16].replace('T', ' ')}  {c.author}\n", style="dim")
    out.append(clean(c.message) + "\n", style="bold")
    for word, headings, style in (
        ("added", change.frames_added, "green"),
        ("changed", change.frames_changed, "yellow"),
        ("removed", change.frames_removed, "red"),
    ):
        if headings:
            out.append(f"{len(headings)} frames {word}: ", style=style)
            out.append("; ".join(headings) + "\n")
    if change.becoming_changed:
        out.append("Becoming: ", style="bold magenta")
        out.append(clean(change.becoming_before or "—"), style="dim")
        out.append("  →  ")
        out.append(clean(change.becoming_after or "—") + "\n")
    if change.flags:
        out.append("flags: " + ", ".join(change.flags) + "\n", style="bold red")
    return out


class SoulAtScreen(ModalScreen[None]):
    """The memory of an agent as it was at one commit (read-only)."""

    BINDINGS = [Binding("escape,q,v", "dismiss", "Close", id="soul_at.close")]

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
        view.focus()


class HistoryPane(Pane):
    """The selected agent's commits and, beside them, what the highlighted commit changed."""

    TAB_ID = "history"
    TAB_TITLE = "History"
    TAB_KEY = "4"

    BINDINGS = [
        Binding("right_square_bracket", "step(1)", "Older commit", id="history.older"),
        Binding("left_square_bracket", "step(-1)", "Newer commit", id="history.newer"),
        Binding("t", "toggle_layout", "Unified / side by side", id="history.layout"),
        Binding("m", "mark", "Mark to diff", id="history.mark"),
        Binding("v", "view_memory", "Memory then", id="history.memory"),
        Binding("o", "travel", "World then / now", id="history.travel"),
    ]

    def __init__(self) -> None:
        super().__init__(id="history-pane")
        self.changes: list[Change] = []
        self.marked: Change | None = None
        self.side_by_side = False
        self._pending_commit: str | None = None  # select once the history arrives
        self._shown: tuple[str, ...] | None = None

    def compose(self) -> ComposeResult:
        yield Static(id="history-status", markup=False)
        with Horizontal(id="history-body"):
            table: DataTable[Text] = DataTable(
                id="history-commits", cursor_type="row", zebra_stripes=True
            )
            table.add_column("Date", key="date")
            table.add_column("+", key="added")
            table.add_column("~", key="changed")
            table.add_column("-", key="removed")
            table.add_column("B", key="becoming")
            table.add_column("Message", key="message")
            table.add_column("", key="flags")
            yield table
            with Vertical(id="history-diff-side"):
                yield Static(id="history-title", markup=False)
                yield RichLog(id="history-diff", wrap=True, markup=False, highlight=False)

    @property
    def table(self) -> DataTable[Text]:
        return self.query_one("#history-commits", DataTable)

    @property
    def timeline(self) -> Timeline:
        return timeline_for(self.app.world)

    # -- loading -----------------------------------------------------------------------------
    def watch_agent_id(self, agent_id: str | None) -> None:
        self.changes = []
        self.marked = None
        self._shown = None
        self.table.clear()
        self.query_one("#history-title", Static).update(Text(""))
        self.query_one("#history-diff", RichLog).clear()
        if agent_id is None:
            return
        self._status(f"{agent_id} · reading history…")
        self.load_history(agent_id)

    # Workers are not exclusive: an answer for an agent or commit no longer shown is dropped
    # when it arrives (the agent and key checks below), and nothing is left half done.
    @work(thread=True, group="history", exit_on_error=False)
    def load_history(self, agent_id: str) -> None:
        try:
            changes = timeline_for(self.app.world).history(agent_id)
        except HistoryError as exc:
            self.post_message(HistoryFailed(agent_id, str(exc)))
            return
        self.post_message(HistoryLoaded(agent_id, changes))

    def on_history_failed(self, message: HistoryFailed) -> None:
        message.stop()
        if message.agent_id == self.agent_id:
            self._status(message.error[:1].upper() + message.error[1:] + ".")

    def on_history_loaded(self, message: HistoryLoaded) -> None:
        message.stop()
        if message.agent_id != self.agent_id:
            return
        self.changes = message.changes
        table = self.table
        table.clear()
        table.add_rows(change_row(c) for c in self.changes)
        self._status()
        row = 0
        if self._pending_commit is not None:
            row = next(
                (i for i, c in enumerate(self.changes) if c.commit.sha == self._pending_commit), 0
            )
            self._pending_commit = None
        table.move_cursor(row=row)
        self._show(row)

    def _status(self, text: str | None = None) -> None:
        if text is None:
            n = len(self.changes)
            shifts = sum(c.becoming_changed for c in self.changes)
            text = f"{self.agent_id} · {n} commits · Becoming changed in {shifts}"
            if self.marked is not None:
                text += f" · marked {self.marked.commit.short} (m again clears)"
            world = self.app.world
            if isinstance(world, WorldAt):
                text += f" · viewing the world as of {world.commit.short}, read-only (o: back)"
        self.query_one("#history-status", Static).update(Text(text))

    # -- the diff ----------------------------------------------------------------------------
    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        self._show(event.cursor_row)

    def _show(self, row: int) -> None:
        if not 0 <= row < len(self.changes) or self.agent_id is None:
            return
        change = self.changes[row]
        marked = self.marked if self.marked is not change else None
        key = (
            change.commit.sha,
            marked.commit.sha if marked else "",
            "side" if self.side_by_side else "unified",
        )
        if key == self._shown:
            return
        self._shown = key
        self.load_diff(self.agent_id, key, change, marked, self.side_by_side)

    @work(thread=True, group="history-diff", exit_on_error=False)
    def load_diff(
        self,
        agent_id: str,
        key: tuple[str, ...],
        change: Change,
        marked: Change | None,
        side_by_side: bool,
    ) -> None:
        from soulscope.history.render import side_by_side as columns
        from soulscope.history.render import unified_text

        timeline = self.timeline
        try:
            if marked is not None:
                # The older of the two first, whichever was marked.
                a, b = sorted((marked, change), key=lambda c: c.commit.timestamp)
                d = timeline.diff(agent_id, a.commit.sha, b.commit.sha)
                title = change_title(b, a)
                if d.frames.added or d.frames.changed or d.frames.removed:
                    title.append(
                        f"frames: +{len(d.frames.added)} ~{len(d.frames.changed)} "
                        f"-{len(d.frames.removed)}\n"
                    )
                old_blob, new_blob, text = a.new_blob, b.new_blob, d.unified
            else:
                title = change_title(change)
                old_blob, new_blob = change.old_blob, change.new_blob
                text = timeline.change_diff(change) if not side_by_side else ""
            if side_by_side:
                old = timeline.git.blob(old_blob).decode("utf-8", "replace") if old_blob else ""
                new = timeline.git.blob(new_blob).decode("utf-8", "replace") if new_blob else ""
                body: RenderableType = columns(old, new)
            else:
                body = unified_text(text) if text else Text("no change to the file", style="dim")
        except HistoryError as exc:
            title, body = Text(str(exc)), Text("")
        self.post_message(DiffReady(agent_id, key, title, body))

    def on_diff_ready(self, message: DiffReady) -> None:
        message.stop()
        if message.agent_id != self.agent_id or message.key != self._shown:
            return
        self.query_one("#history-title", Static).update(message.title)
        log = self.query_one("#history-diff", RichLog)
        log.clear()
        log.write(message.body, expand=True)
        log.scroll_home(animate=False)

    # -- actions -----------------------------------------------------------------------------
    @property
    def current(self) -> Change | None:
        row = self.table.cursor_row
        return self.changes[row] if 0 <= row < len(self.changes) else None

    def action_step(self, delta: int) -> None:
        if not self.changes:
            self.app.bell()
            return
        row = self.table.cursor_row + delta
        if not 0 <= row < len(self.changes):
            self.app.bell()
            return
        self.table.move_cursor(row=row)

    def action_toggle_layout(self) -> None:
        self.side_by_side = not self.side_by_side
        self._show(self.table.cursor_row)

    def action_mark(self) -> None:
        current = self.current
        if current is None:
            return
        self.marked = None if self.marked is current else current
        self._status()
        self._shown = None
        self._show(self.table.cursor_row)

    def select_commit(self, sha: str) -> None:
        """Highlight a commit (when the history is still loading, as soon as it arrives)."""
        row = next((i for i, c in enumerate(self.changes) if c.commit.sha == sha), None)
        if row is None:
            self._pending_commit = sha
        else:
            self.table.move_cursor(row=row)
            self._show(row)

    def action_view_memory(self) -> None:
        current = self.current
        if current is None or self.agent_id is None:
            return
        if current.new_blob is None:
            self.app.notify(
                f"{self.agent_id}'s soul file was deleted in {current.commit.short}.",
                markup=False,
            )
            return
        self.show_memory(self.agent_id, current)

    @work(thread=True, group="history-memory", exit_on_error=False)
    def show_memory(self, agent_id: str, change: Change) -> None:
        from soulscope.soul.parse import parse

        soul = parse(self.timeline.git.blob(change.new_blob), agent_id=agent_id)
        title = (
            f"{agent_id} as of {change.commit.short} ({change.commit.date[:10]}): "
            f"{len(soul.frames)} frames · escape closes"
        )
        self.app.call_from_thread(self.app.push_screen, SoulAtScreen(title, soul.display_text))

    def action_travel(self) -> None:
        world = self.app.world
        if isinstance(world, WorldAt):
            self.app.open_world(world.live)
            return
        current = self.current
        if current is None:
            return
        self.travel(current.commit.sha)

    @work(thread=True, group="history-travel", exit_on_error=False)
    def travel(self, sha: str) -> None:
        try:
            snapshot = self.timeline.world_at(sha)
        except HistoryError as exc:
            self.app.call_from_thread(self.app.notify, str(exc), severity="error", markup=False)
            return
        self.app.call_from_thread(self.app.open_world, snapshot)
