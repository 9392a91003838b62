"""The History tab: the agent's commits beside the selected commit's diff, like tig or lazygit.

All git work runs in thread workers; the commit list is a ``VirtualTable`` (a row's cells are made
when it is drawn, so only the rows on screen cost anything), the diff a line view wrapped to the
pane's width. A diff is rendered to lines in the worker, kept for the commits seen, and the next
commit's is read ahead: a step paints at once. Keys (soulscope/tui/actions.py):
``[``/``]`` step through commits, ``t`` toggles unified / side by side, ``m`` marks a commit so that the diff is against it, ``v`` shows the memory
as it was at the selected commit, ``o`` opens the whole world as of that commit (read-only) and,
while there, comes back.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass

from rich.cells import cell_len
from rich.console import Console, RenderableType
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.geometry import Region, Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widgets import Static

from soulscope.controls import visible
from soulscope.history.git import FileChange, HistoryError
from soulscope.history.timeline import Change, Timeline, WorldAt, timeline_for
from soulscope.history.versions import FrameDiff, Version, frame_diff
from soulscope.soul.model import Soul, clean
from soulscope.soul.when import utc
from soulscope.tui.actions import bindings
from soulscope.tui.dialogs.soul_at import SoulAtScreen
from soulscope.tui.panes.base import Pane
from soulscope.tui.reach import dashboard
from soulscope.tui.widgets.virtual_list import VirtualList
from soulscope.tui.widgets.virtual_table import Column, VirtualTable
from soulscope.tui.workarounds.scrolling import SteadyBars, set_virtual_size

# The commit list's columns; the frame columns are filled in once every commit's frames are read.
COLUMNS = (
    Column("mark", ""),  # ● on the marked commit
    Column("date", "Date (UTC)"),
    Column("added", "+"),
    Column("changed", "~"),
    Column("removed", "-"),
    Column("becoming", "B"),
    Column("message", "Message"),  # the flags after the longest: cut at the edge where narrow
    Column("flags", ""),
)
# Widths before any value is known (the frame columns keep room for "+99": they widen, when the
# frames arrive, only for a count above that).
FIRST_WIDTHS = {
    "mark": 1,
    "date": len("MM-DD HH:MM"),
    "added": 3,
    "changed": 3,
    "removed": 3,
    "becoming": 1,
}
# How long reading every commit's frames waits for the first diff to be painted.
PAINT_WAIT_S = 0.5
# Diffs kept, rendered, for stepping back and forth (a few hundred KB of lines at most).
KEPT_DIFFS = 64


@dataclass
class HistoryListed(Message):
    """An agent's commits, newest first (one ``git log``): shown while the frames are read."""

    agent_id: str
    commits: list[FileChange]
    row: int  # the row to highlight: the newest, or a commit asked for before the list came


@dataclass
class HistoryLoaded(Message):
    """What each of those commits did to the frames (their rows are drawn again)."""

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
    lines: list[Strip]  # the body rendered at ``width``, in the worker
    width: int


def render_diff(console: Console, body: RenderableType, width: int) -> list[Strip]:
    """``body`` as lines ``width`` cells wide (wrapped, as a RichLog writes it); a worker calls it."""
    lines = list(Segment.split_lines(console.render(body, console.options.update_width(width))))
    return Strip.from_lines(lines) if lines else [Strip.blank(width)]


class DiffView(SteadyBars, ScrollView, can_focus=True):
    """The diff: lines rendered at the view's width (by the worker that read the diff), so that
    showing one paints only the rows on screen; rendered again when the width changes."""

    DEFAULT_CSS = """
    DiffView {
        background: $surface;
        color: $foreground;
        overflow-y: scroll;
        &:focus {
            background-tint: $foreground 5%;
        }
    }
    """

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.body: RenderableType | None = None
        self.lines: list[Strip] = []
        self._rendered_at = 0  # the width of ``lines``
        self._base = Style()  # the view's style, read once per paint

    @property
    def line_width(self) -> int:
        """The width the lines are rendered at."""
        return max(self.scrollable_content_region.width, 1)

    def show(self, body: RenderableType, lines: list[Strip] | None = None, width: int = 0) -> None:
        """Show ``body``, scrolled to its top; ``lines``: it rendered at ``width`` already."""
        self.body = body
        if lines is None or width != self.line_width:
            width = self.line_width
            lines = render_diff(dashboard(self).console, body, width)
        self.lines, self._rendered_at = lines, width
        set_virtual_size(self, Size(max(line.cell_length for line in lines), len(lines)))
        self.scroll_to(0, 0, animate=False, immediate=True)
        self.refresh()

    def clear(self) -> None:
        self.body, self.lines = None, []
        set_virtual_size(self, Size(0, 0))
        self.refresh()

    def on_resize(self, event: events.Resize) -> None:
        if self.body is not None and self.line_width != self._rendered_at:
            y = self.scroll_y
            self.show(self.body)
            self.scroll_to(y=y, animate=False)

    def render_lines(self, crop: Region) -> list[Strip]:
        self._base = self.rich_style
        return super().render_lines(crop)

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        width = self.scrollable_content_region.width
        row = scroll_y + y
        if row >= len(self.lines):
            return Strip.blank(width, self._base)
        return (
            self.lines[row]
            .crop_extend(scroll_x, scroll_x + width, self._base)
            .apply_style(self._base)
        )


def plural(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def change_row(fc: FileChange, change: Change | None = None) -> tuple[Text, ...]:
    """A commit list row after its mark: date, +frames, ~, -, Becoming mark, message, flags.

    Without ``change`` (frames not read yet) the frame columns are blank.
    """
    c = fc.commit
    if change is None:
        marks = [Text() for _ in range(4)]
        flags = Text()
    else:
        marks = [
            Text(f"+{len(change.frames_added)}" if change.frames_added else "", "green"),
            Text(f"~{len(change.frames_changed)}" if change.frames_changed else "", "yellow"),
            Text(f"-{len(change.frames_removed)}" if change.frames_removed else "", "red"),
            Text("»" if change.becoming_changed else "", "bold magenta"),
        ]
        flags = Text(flag_text(change), "bold red" if change.truncated else "dim")
    # Month, day and time (UTC): the year and the author are in the title above the diff.
    return (Text(utc(c.timestamp)[5:]), *marks, Text(clean(c.message)), flags)


def statement_changes(changes: list[Change], label: str) -> str:
    """How many commits changed the identity statement's words (whatever its kind), and how many
    of them shifted it: "Evolving position changed in 7 (2 shifts)"."""
    changed = sum(
        bool(c.becoming_before) and c.becoming_after != c.becoming_before for c in changes
    )
    shifts = sum(c.becoming_changed for c in changes)
    return f"{label} changed in {changed}" + (f" ({plural(shifts, 'shift')})" if shifts else "")


def flag_text(change: Change) -> str:
    return " ".join(change.flags)


def marked_title(older: FileChange, newer: FileChange, marked: FileChange) -> Text:
    """The title of a diff between two commits: older → newer, and which of them is marked."""
    other = newer if marked is older else older
    out = Text(end="")
    out.append(f"{older.commit.short} → {newer.commit.short}", style="bold")
    out.append(
        f"  (marked {marked.commit.short} of {utc(marked.commit.timestamp)} against "
        f"{other.commit.short} of {utc(other.commit.timestamp)} UTC)\n",
        style="dim",
    )
    return out


@dataclass(frozen=True)
class FrameEntry:
    """A frame a commit added, changed or removed: its heading, and where it is in the version
    that holds it (the commit's, or the one before for a removed frame): its blob and line."""

    heading: str
    blob: str
    line: int


def frame_entries(
    frames: FrameDiff, before: Version, after: Version, fc: FileChange
) -> dict[str, list[FrameEntry]]:
    """The frames a commit added, changed and removed, each with its own line: two frames of
    one heading are two entries."""
    lines_before, lines_after = before.frame_lines(), after.frame_lines()
    return {
        "added": [
            FrameEntry(h, fc.new_blob or "", lines_after[j])
            for h, j in zip(frames.added, frames.added_at, strict=True)
        ],
        "changed": [
            FrameEntry(h, fc.new_blob or "", lines_after[j])
            for h, j in zip(frames.changed, frames.changed_at, strict=True)
        ],
        "removed": [
            FrameEntry(h, fc.old_blob or "", lines_before[i])
            for h, i in zip(frames.removed, frames.removed_at, strict=True)
        ],
    }


def change_title(
    change: Change | FileChange, entries: dict[str, list[FrameEntry]] | None = None
) -> Text:
    """What the diff shows, in a few lines above it; each frame in ``entries`` with its line, a
    click on it opens it (``DiffTitle``)."""
    c = change.commit
    out = Text(end="")
    out.append(f"{c.short} ", style="bold yellow")
    out.append(f"{utc(c.timestamp)} UTC  {c.author}\n", style="dim")
    out.append(clean(c.message) + "\n", style="bold")
    if not isinstance(change, Change):
        return out
    for word, headings, style in (
        ("added", change.frames_added, "green"),
        ("changed", change.frames_changed, "yellow"),
        ("removed", change.frames_removed, "red"),
    ):
        if not headings:
            continue
        out.append(f"{plural(len(headings), 'frame')} {word}: ", style=style)
        listed = (entries or {}).get(word)
        if not listed:
            out.append("; ".join(headings) + "\n")
            continue
        for k, entry in enumerate(listed):
            if k:
                out.append("; ")
            out.append(
                # (no space inside: the line never wraps away from its number)
                f"{entry.heading} (L{entry.line})",
                Style(meta={"@click": f"open_entry({entry.blob!r}, {entry.line})"}),
            )
        out.append("\n")
    if change.becoming_changed:
        out.append("Becoming: ", style="bold magenta")
        out.append(clean(change.becoming_before or "—"), style="dim")
        out.append("  →  ")
        out.append(clean(change.becoming_after or "—") + "\n")
    if change.flags:
        out.append("flags: " + ", ".join(change.flags) + "\n", style="bold red")
    return out


class DiffTitle(Static):
    """The diff's title: a click on a frame it lists opens that frame as the commit left it."""

    def action_open_entry(self, blob: str, line: int) -> None:
        self.query_ancestor(HistoryPane).open_entry(blob, line)


class HistoryPane(Pane):
    """The selected agent's commits and, beside them, what the highlighted commit changed."""

    TAB_ID = "history"
    MAIN = "#history-commits"

    BINDINGS = bindings("history")

    def __init__(self) -> None:
        super().__init__(id="history-pane")
        self.commits: list[FileChange] = []
        self.changes: list[Change] = []  # by frame, once read; empty until then
        self.marked: FileChange | None = None
        self.side_by_side = False
        self._pending_commit: str | None = None  # select once the history arrives
        self._shown: tuple[str, ...] | None = None
        self._loaded_for: str | None = None  # the agent whose history was asked for
        self._painted = threading.Event()  # set once a diff is on screen
        self._diffs: OrderedDict[tuple[str, ...], DiffReady] = OrderedDict()  # by key, rendered
        self._reading: set[tuple[str, ...]] = set()  # keys of the diffs workers are reading
        self._direction = 1  # of the last step: the commit read ahead is the next that way
        self._title_lines = 0  # rows kept for the diff's title: a title of as many needs no layout

    def compose(self) -> ComposeResult:
        yield Static(id="history-status", markup=False)
        with Horizontal(id="history-body"):
            table = VirtualTable(COLUMNS, self._cells, id="history-commits")
            for column, width in FIRST_WIDTHS.items():
                table.fit(column, width)
            yield table
            with Vertical(id="history-diff-side"):
                yield DiffTitle(id="history-title", markup=False)
                yield DiffView(id="history-diff")

    @property
    def table(self) -> VirtualTable:
        return self.query_one("#history-commits", VirtualTable)

    @property
    def timeline(self) -> Timeline:
        return timeline_for(self.dashboard.world)

    # -- loading -----------------------------------------------------------------------------
    def watch_agent_id(self, agent_id: str | None) -> None:
        self.commits = []
        self.changes = []
        self.marked = None
        self._shown = None
        self._diffs.clear()
        self._reading.clear()
        self._keep_title_rows(0)
        self.table.set_keys([])
        self.query_one("#history-title", Static).update(Text(""))
        self.query_one(DiffView).clear()
        self._loaded_for = None
        # git is asked only when the tab is seen: switching agents elsewhere costs nothing here.
        if agent_id is not None and self.region.area:
            self._load()

    def watch_soul(self, old: Soul | None, new: Soul | None) -> None:
        # The same agent's file read again (a frame landed, the world was reloaded): its history
        # may have grown. The timeline reads git again only when HEAD moved.
        if (
            old is not None
            and new is not None
            and old.agent_id == new.agent_id
            and self.commits
            and self.region.area
        ):
            current = self.current
            self._pending_commit = current.commit.sha if current else None  # stay on it
            self._load()

    def on_resize(self) -> None:
        self._keep_title_rows(0)  # the title wraps anew: the rows it needs are found again

    def _keep_title_rows(self, rows: int) -> None:
        """Keep at least ``rows`` rows for the diff's title (0: as many as it has)."""
        self._title_lines = rows
        widget = self.query_one("#history-title", Static)
        widget.styles.min_height = rows + 1 if rows else None  # (and its rule below)

    def on_show(self) -> None:
        if self.agent_id is not None and self._loaded_for != self.agent_id:
            self._load()

    def _load(self) -> None:
        self._loaded_for = self.agent_id
        self._status(f"{self.agent_id} · reading history…")
        self.load_history(self.agent_id, self.query_one(DiffView).line_width)

    # Workers are not exclusive: an answer for an agent or commit no longer shown is dropped
    # when it arrives (the agent and key checks below), and nothing is left half done.
    @work(thread=True, group="history", exit_on_error=False)
    def load_history(self, agent_id: str, width: int) -> None:
        try:
            timeline = self.timeline
            commits = timeline.commits(agent_id)
        except HistoryError as exc:
            self.post_message(HistoryFailed(agent_id, str(exc)))
            return
        if commits is self.commits:  # HEAD did not move: what is shown is current
            self.dashboard.call_from_thread(self._status)
            return
        world = self.dashboard.world
        # In a past world, the commits after its snapshot had not happened yet.
        cut = (
            next(
                (i for i, c in enumerate(commits) if c.commit.timestamp <= world.commit.timestamp),
                len(commits),
            )
            if isinstance(world, WorldAt)
            else 0
        )
        if cut:
            commits = commits[cut:]
        if not commits:
            self.post_message(
                HistoryFailed(agent_id, f"{agent_id} has no commits before this snapshot")
            )
            return
        pending = self._pending_commit
        row = next((i for i, c in enumerate(commits) if c.commit.sha == pending), 0)
        self.post_message(HistoryListed(agent_id, commits, row))
        # The highlighted commit's diff comes next, then every commit's frames: those are read
        # once the list and the diff are on screen, so that reading them does not delay that.
        key = self._key(commits[row], None, self.side_by_side)
        painted = self._painted = threading.Event()
        self.post_message(self._diff(agent_id, key, commits[row], None, self.side_by_side, width))
        painted.wait(PAINT_WAIT_S)
        changes = timeline.history(agent_id)[cut:]
        self.post_message(HistoryLoaded(agent_id, changes))

    def on_history_failed(self, message: HistoryFailed) -> None:
        message.stop()
        if message.agent_id == self.agent_id:
            self._status(message.error[:1].upper() + message.error[1:] + ".")

    def on_history_listed(self, message: HistoryListed) -> None:
        message.stop()
        if message.agent_id != self.agent_id:
            return
        self.commits = message.commits
        self.changes = []  # those of the list before: its frames are read again
        self._pending_commit = None
        self.marked = None
        # The worker computes this row's diff already: highlighting it must not ask again.
        self._shown = self._key(self.commits[message.row], None, self.side_by_side)
        table = self.table
        table.fit("message", max(cell_len(clean(c.commit.message)) for c in self.commits))
        # The keys are row numbers: every row drawn before may stand for another commit now.
        table.set_keys([str(row) for row in range(len(self.commits))])
        table.forget()
        table.move_cursor(message.row, announce=False)
        self._status()

    def on_history_loaded(self, message: HistoryLoaded) -> None:
        message.stop()
        if message.agent_id != self.agent_id or len(message.changes) != len(self.commits):
            return
        self.changes = message.changes
        table = self.table
        for column, counts in (
            ("added", [len(c.frames_added) for c in self.changes]),
            ("changed", [len(c.frames_changed) for c in self.changes]),
            ("removed", [len(c.frames_removed) for c in self.changes]),
        ):
            table.fit(column, len(str(max(counts))) + 1)
        table.fit("flags", max(cell_len(flag_text(c)) for c in self.changes))
        table.forget()  # the frame columns of the rows on screen are drawn again
        self._status()

    def _cells(self, key: str) -> tuple[Text, ...]:
        """The cells of row ``key`` (its number), made when it is drawn."""
        row = int(key)
        fc = self.commits[row]
        mark = Text("●" if fc is self.marked else "", style="bold")
        return (mark, *change_row(fc, self.changes[row] if self.changes else None))

    def _label(self) -> str:
        """The label of the arc whose statement changes are counted (the soul's, once read)."""
        from soulscope.soul.trajectory import DEFAULT_LABEL, arc_label

        configured = self.dashboard.arc_label
        return arc_label(self.soul, configured) if self.soul else configured or DEFAULT_LABEL

    def _status(self, text: str | None = None) -> None:
        if text is None:
            n = len(self.commits)
            text = f"{self.agent_id} · {n} commits · " + (
                statement_changes(self.changes, self._label())
                if self.changes
                else "reading frames…"
            )
            if self.marked is not None:
                text += f" · marked {self.marked.commit.short} (m again clears)"
            world = self.dashboard.world
            if isinstance(world, WorldAt):
                text += f" · viewing the world as of {world.commit.short}, read-only (o: back)"
        self.query_one("#history-status", Static).update(Text(text))

    # -- the diff ----------------------------------------------------------------------------
    def on_virtual_list_highlighted(self, event: VirtualList.Highlighted) -> None:
        event.stop()
        self._show(int(event.key))

    def _show(self, row: int) -> None:
        if not 0 <= row < len(self.commits) or self.agent_id is None:
            return
        key, change, marked = self._diff_of(row)
        if key == self._shown:
            return
        self._shown = key
        ready = self._diffs.get(key)
        if ready is not None:
            self._show_diff(ready)
        else:
            self._read_diff(key, change, marked)

    def _read_ahead(self, row: int) -> None:
        if 0 <= row < len(self.commits):
            key, change, marked = self._diff_of(row)
            if key not in self._diffs:
                self._read_diff(key, change, marked)

    def _diff_of(self, row: int) -> tuple[tuple[str, ...], FileChange, FileChange | None]:
        """What row ``row`` shows: its key, its commit, the marked commit it is diffed against."""
        change = self.commits[row]
        marked = self.marked if self.marked is not change else None
        return self._key(change, marked, self.side_by_side), change, marked

    def _read_diff(
        self, key: tuple[str, ...], change: FileChange, marked: FileChange | None
    ) -> None:
        if key not in self._reading and self.agent_id is not None:
            self._reading.add(key)
            width = self.query_one(DiffView).line_width
            self.load_diff(self.agent_id, key, change, marked, self.side_by_side, width)

    @staticmethod
    def _key(change: FileChange, marked: FileChange | None, side_by_side: bool) -> tuple[str, ...]:
        """What a diff view shows: a commit, the marked one if any, and the layout."""
        layout = "side" if side_by_side else "unified"
        return (change.commit.sha, marked.commit.sha if marked else "", layout)

    @work(thread=True, group="history-diff", exit_on_error=False)
    def load_diff(
        self,
        agent_id: str,
        key: tuple[str, ...],
        change: FileChange,
        marked: FileChange | None,
        side_by_side: bool,
        width: int,
    ) -> None:
        self.post_message(self._diff(agent_id, key, change, marked, side_by_side, width))

    def _diff(
        self,
        agent_id: str,
        key: tuple[str, ...],
        change: FileChange,
        marked: FileChange | None,
        side_by_side: bool,
        width: int,
    ) -> DiffReady:
        """The diff view for a commit (or the marked one against it); runs in a worker."""
        from soulscope.history.render import side_by_side as columns
        from soulscope.history.render import unified_text

        timeline = self.timeline
        try:
            if marked is not None:
                # The older of the two first, whichever was marked.
                a, b = sorted((marked, change), key=lambda c: c.commit.timestamp)
                d = timeline.diff(agent_id, a.commit.sha, b.commit.sha)
                title = marked_title(a, b, marked)
                if d.frames.added or d.frames.changed or d.frames.removed:
                    title.append(
                        f"frames: +{len(d.frames.added)} ~{len(d.frames.changed)} "
                        f"-{len(d.frames.removed)}\n"
                    )
                old_blob, new_blob, text = a.new_blob, b.new_blob, d.unified
            else:
                before, after = timeline.version(change.old_blob), timeline.version(change.new_blob)
                entries = frame_entries(frame_diff(before, after), before, after, change)
                title = change_title(timeline.change(change), entries)
                old_blob, new_blob = change.old_blob, change.new_blob
                text = (
                    timeline.git.diff(
                        change.old_blob, change.new_blob, change.old_path, change.path
                    )
                    if not side_by_side
                    else ""
                )
            if side_by_side:
                old = timeline.git.blob(old_blob).decode("utf-8", "replace") if old_blob else ""
                new = timeline.git.blob(new_blob).decode("utf-8", "replace") if new_blob else ""
                body: RenderableType = columns(visible(old), visible(new))
            else:
                body = (
                    visible(unified_text(text))
                    if text
                    else Text("no change to the file", style="dim")
                )
        except HistoryError as exc:
            title, body = Text(str(exc)), Text("")
        lines = render_diff(self.dashboard.console, body, width)
        return DiffReady(agent_id, key, title, body, lines, width)

    def on_diff_ready(self, message: DiffReady) -> None:
        message.stop()
        if message.agent_id != self.agent_id:
            return
        self._reading.discard(message.key)
        self._diffs[message.key] = message
        if len(self._diffs) > KEPT_DIFFS:
            self._diffs.popitem(last=False)
        if message.key == self._shown:
            self._show_diff(message)

    def _show_diff(self, ready: DiffReady) -> None:
        self._diffs.move_to_end(ready.key)
        title = visible(ready.title)
        widget = self.query_one("#history-title", Static)
        # It keeps the height of the tallest title shown since the list came: a step to a shorter
        # one leaves the diff where it was, and only a taller one lays the screen out (12 to 20 ms
        # at 160x48, in a step that paints in about as much).
        rows = len(title.wrap(self.dashboard.console, max(widget.content_region.width, 1)))
        if rows > self._title_lines:
            self._keep_title_rows(rows)
        widget.update(title, layout=False)
        self.query_one(DiffView).show(ready.body, ready.lines, ready.width)
        self.call_after_refresh(self._painted.set)
        # The next one is read once this one is painted (the list's first too, so that the first
        # step shows at once): its worker's git and rendering would hold the paint up (one
        # interpreter lock, two cores shared with git).
        self.call_after_refresh(self._read_ahead, self.table.cursor_row + self._direction)

    # -- actions -----------------------------------------------------------------------------
    @property
    def current(self) -> FileChange | None:
        row = self.table.cursor_row
        return self.commits[row] if 0 <= row < len(self.commits) else None

    def action_step(self, delta: int) -> None:
        if not self.commits:
            self.dashboard.bell()
            return
        row = self.table.cursor_row + delta
        if not 0 <= row < len(self.commits):
            self.dashboard.bell()
            return
        self._direction = 1 if delta > 0 else -1
        # The diff now, with the cursor, not when a Highlighted message arrives: that comes after
        # the cursor's paint, and a diff read ahead would wait for the screen's next frame.
        self.table.move_cursor(row, announce=False)
        self._show(row)

    def action_toggle_layout(self) -> None:
        self.side_by_side = not self.side_by_side
        self._show(self.table.cursor_row)

    def action_mark(self) -> None:
        current = self.current
        if current is None:
            return
        before = self.marked
        self.marked = None if self.marked is current else current
        self.table.forget(
            str(self.commits.index(change))
            for change in (before, self.marked)
            if change is not None and change in self.commits
        )
        self._status()
        self._shown = None
        self._show(self.table.cursor_row)

    def select_commit(self, sha: str) -> None:
        """Highlight a commit (when the history is still loading, as soon as it arrives)."""
        row = next((i for i, c in enumerate(self.commits) if c.commit.sha == sha), None)
        if row is None:
            self._pending_commit = sha
        else:
            self.table.move_cursor(row, announce=False)
            self._show(row)

    def action_view_memory(self) -> None:
        current = self.current
        if current is None or self.agent_id is None:
            return
        if current.new_blob is None:
            self.dashboard.notify(
                f"{self.agent_id}'s soul file was deleted in {current.commit.short}.",
            )
            return
        self.show_memory(self.agent_id, current, current.new_blob)

    def open_entry(self, blob: str, line: int) -> None:
        """A frame the shown commit added, changed or removed (a click in the diff's title): the
        memory that holds it, at its line."""
        current = self.current
        if current is not None and self.agent_id is not None and blob:
            self.show_memory(self.agent_id, current, blob, line)

    @work(thread=True, group="history-memory", exit_on_error=False)
    def show_memory(self, agent_id: str, change: FileChange, blob: str, line: int = 1) -> None:
        """The memory ``blob`` holds (the commit's, or the one before it), from ``line``."""
        from soulscope.soul.parse import parse

        soul = parse(self.timeline.git.blob(blob), agent_id=agent_id)
        when = "as of" if blob == change.new_blob else "before"
        title = (
            f"{agent_id} {when} {change.commit.short} ({utc(change.commit.timestamp)} UTC): "
            f"{len(soul.frames)} frames"
            + (f" · from line {line}" if line > 1 else "")
            + " · escape closes"
        )
        self.dashboard.call_from_thread(
            self.dashboard.push_screen, SoulAtScreen(visible(title), soul.display_text, line)
        )

    def action_travel(self) -> None:
        world = self.dashboard.world
        if isinstance(world, WorldAt):
            self.dashboard.open_world(world.live)
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
            self.dashboard.call_from_thread(self.dashboard.notify, str(exc), severity="error")
            return
        for note in snapshot.notes:  # a kept snapshot found damaged and extracted again
            self.dashboard.call_from_thread(self.dashboard.notify, note, severity="warning")
        self.dashboard.call_from_thread(self.dashboard.open_world, snapshot)
