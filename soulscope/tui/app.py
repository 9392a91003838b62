"""The soulscope dashboard: agents on the left, tabs on the right.

How the parts talk (read this before adding a tab):

- A tab is a ``Pane`` (``soulscope/tui/panes/base.py``) in its own module under
  ``soulscope/tui/panes/``. Adding a tab is one change: write the module and add a line to ``TABS``
  in ``soulscope/tui/actions.py`` (its id, title, key and pane); its key, its place among the tabs,
  its help and palette entries follow. The app puts it under its tab (id ``Pane.TAB_ID``) in
  ``TabbedPanes``; the tab's key focuses ``Pane.focus_content``.
- Keys: every binding, palette entry and help row comes from ``soulscope/tui/actions.py``. A pane's
  bindings are ``bindings("<context>")``; the user's ``[keys]`` table remaps them by action id.
- How a pane learns the selected agent: the app sets the reactive ``pane.agent_id`` at once when the
  user selects an agent (watch it with ``watch_agent_id``; nothing is parsed yet), then sets
  ``pane.soul`` when the parsed ``Soul`` arrives (``watch_soul``; None while loading or when the file
  cannot be read). The whole world is parsed in the background and each pane's
  ``summaries_changed(summaries)`` is called with every batch of ``ArcSummary``.
- How a pane asks the app for something: call the app's methods
  ``app.select_agent(agent_id)``, ``app.open_frame(agent_id, frame_index)`` (Soul tab, scrolled to
  that frame; the agent is selected and parsed first when needed), ``app.open_line(agent_id, line)``,
  ``app.show_tab(tab_id)``, ``app.reload_world()`` (after files changed on disk, e.g. a frame was
  run) and ``app.notify(text)`` for messages (plain text, control characters shown). ``app.world`` is the
  ``World``; ``app.cache.load(agent_id)`` returns ``(Soul, ArcSummary)`` from any thread
  (parsing only when the file is new or changed); ``app.arc_label`` is the configured arc label.
- Blocking work (parsing, git, models) runs in thread workers (``@work(thread=True, exclusive=True,
  group=..., exit_on_error=False)``) that post typed messages (``soulscope/tui/messages.py``); an
  error in a worker becomes a notification, never a crash. A big soul (``EARLY_TEXT_BYTES`` and
  more) is parsed in a process of its own (``soulscope/tui/loader.py``), so that the UI thread
  keeps the interpreter while it loads; its worker thread only receives what the process sends.
- Soul-file text is data: widgets get ``rich.text.Text`` / ``Content`` built from it, never markup.
"""

from __future__ import annotations

import os
from array import array
from collections.abc import Iterable
from functools import partial
from pathlib import Path
from time import monotonic, perf_counter

from textual import events, work
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding
from textual.containers import Horizontal
from textual.notifications import SeverityLevel
from textual.reactive import reactive
from textual.screen import ModalScreen, Screen
from textual.widgets import Header
from textual.worker import Worker, WorkerState, get_current_worker

from soulscope.bundled import bundled
from soulscope.config import Settings, load_settings
from soulscope.controls import visible
from soulscope.errors import SoulscopeError
from soulscope.index import Entry, WorldIndex
from soulscope.sim.frame import frame_errors
from soulscope.soul.lookup import find_frame
from soulscope.soul.model import Soul, clean, decoded_pieces
from soulscope.soul.pieces import ArcPieces, SoulPieces
from soulscope.tui.actions import (
    ACTIONS,
    BY_ID,
    CONTEXTS,
    DIALOG_CONTEXTS,
    TABS,
    Action,
    bindings,
    checked_keymap,
)
from soulscope.tui.cache import SoulCache
from soulscope.tui.commands import AgentCommands, ChatCommands
from soulscope.tui.file_lines import FileLines
from soulscope.tui.focus import focus_now
from soulscope.tui.loader import LoadError, SoulLoader
from soulscope.tui.messages import (
    FrameLanded,
    FramesFinished,
    SoulFailed,
    SoulLoaded,
    SoulTextRead,
    WorldParsed,
    WorldProgress,
)
from soulscope.tui.panes.base import Pane
from soulscope.tui.panes.becoming import BecomingPane
from soulscope.tui.panes.soul import SoulPane
from soulscope.tui.panes.world import WorldPane
from soulscope.tui.screens import HelpScreen, MainScreen, PickScreen, PromptScreen
from soulscope.tui.widgets.agent_list import AgentChosen, AgentList
from soulscope.tui.widgets.frame_bar import FrameBar
from soulscope.tui.widgets.key_footer import KeyFooter
from soulscope.tui.widgets.soul_text import LongLines, display_lines
from soulscope.tui.widgets.tabbed_panes import TabbedPanes
from soulscope.tui.workarounds.heap import Heap
from soulscope.tui.workarounds.key_order import KeyHandled, KeyOrder
from soulscope.world import World, WorldError

STYLES = bundled("styles") / "app.tcss"

# The tabs' panes, in the order of ``TABS``.
PANES: list[type[Pane]] = [tab.pane_class() for tab in TABS]

# The most frames one N may run (a typo of 100000 should not lock the world for hours).
MAX_FRAMES_AT_ONCE = 1000

# A file at least this big is shown as text while it is parsed (parsing 20 MB takes seconds).
EARLY_TEXT_BYTES = 1_000_000


def _array(data: bytes) -> array:
    """The ints (``array("q")``) that ``data`` holds."""
    numbers = array("q")
    numbers.frombytes(data)
    return numbers


# Reads of a big file that changed while it was read, before the dashboard says so.
READ_TRIES = 3

# The world worker reports at most this often, so hundreds of agents do not mean hundreds of redraws.
PROGRESS_INTERVAL = 0.25

# Below this many columns the agent list folds away by itself (the tabs need the room).
NARROW = 100
# The app's actions whose keys are handled as they arrive (``Action.priority``).
ARRIVAL_ACTIONS = frozenset(
    a.action.split("(")[0] for a in ACTIONS if a.priority and a.context == "app"
)


class SoulscopeApp(App[None]):
    """Browse a world of soul files: the agent list, the Soul, Becoming and World tabs."""

    CSS_PATH = STYLES
    TITLE = "soulscope"
    COMMANDS = App.COMMANDS | {AgentCommands, ChatCommands}
    BINDINGS = bindings("app")

    agent_id: reactive[str | None] = reactive(None, init=False)

    def __init__(
        self, world: World, *, settings: Settings | None = None, arc_label: str | None = None
    ) -> None:
        super().__init__()
        if "TEXTUAL_ANIMATIONS" not in os.environ:
            # Keys act at once: the tabs' underline would slide for 0.3 s after each tab key, a
            # repaint per frame that the next key waits behind (the variable brings it back).
            self.animation_level = "none"
        self.world = world
        # Read once, by the CLI entry; the panes read ``app.settings``.
        self.settings = settings if settings is not None else load_settings()
        self.arc_label = arc_label or self.settings.arc_label
        keymap, self._keymap_problem = checked_keymap(self.settings.keys)
        self.set_keymap(keymap)
        self.sidebar_wanted = True  # the user's choice; a narrow window folds the list anyway
        self.cache = SoulCache(world, self.arc_label)
        self.soul: Soul | None = None  # the selected agent's, once parsed
        self._pending: tuple[str, int] | None = None  # ("line"|"frame", n): where to go once parsed
        self._world_started = 0.0
        self._loaders: set[SoulLoader] = set()  # the processes parsing big souls (one, mostly)
        self.heap = Heap()  # the garbage collector's policy while the dashboard runs
        self.key_order = KeyOrder(self, super().on_event)  # keys handled in the order typed

    # -- layout ------------------------------------------------------------------------------
    def get_default_screen(self) -> Screen:
        return MainScreen(id="_default")

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="main"):
            yield AgentList(self.world.agents(), self._names())
            yield TabbedPanes(
                ((t.id, t.title, p()) for t, p in zip(TABS, PANES, strict=True)), id="tabs"
            )
        yield FrameBar()
        yield KeyFooter()

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.Key) and not event.is_forwarded:
            await self.key_order.arrived(event)  # (handed to Textual once the keys before it are)
        else:
            await super().on_event(event)

    async def on_key_handled(self, message: KeyHandled) -> None:
        await self.key_order.handled(message)

    def on_mount(self) -> None:
        self.heap.start()
        self._announce_settings()
        self._show_world()

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = False,
    ) -> None:
        """A notification as plain text: it names files, agents and errors, which are data, so
        never markup, and their control characters are shown, not sent to the terminal.

        ``markup`` is ignored: a widget's ``notify`` comes here with Textual's default (True), and
        no caller needs to pass False."""
        super().notify(
            visible(message), title=visible(title), severity=severity, timeout=timeout, markup=False
        )

    def _announce_settings(self) -> None:
        for problem in (self.settings.problem, self._keymap_problem):
            if problem:
                self.notify(problem[:1].upper() + problem[1:], severity="warning")

    def _show_world(self, keep: str | None = None) -> None:
        self.sub_title = visible(self.world.name)  # (a folder name may hold any byte)
        self._fold_sidebar(self.size.width)
        # Focus the list, not the filter box, so that keys act at once ("q", "]", "j"...).
        focus_now(self.sidebar.list)
        if not self.world.agents():
            self.notify(f"No soul files in {self.world.memory_dir}.", severity="warning")
            return
        # Parsing starts once the window is painted, so that it never delays the first paint.
        self.call_after_refresh(self._start, keep)

    def _start(self, keep: str | None = None) -> None:
        self._world_started = perf_counter()
        agents = self.world.agents()
        self.select_agent(keep if any(a.id == keep for a in agents) else agents[0].id)
        self.parse_world()

    @property
    def panes(self) -> list[Pane]:
        return list(self.query(Pane))

    def _names(self) -> dict[str, str]:
        return {a.id: self.world.display_name(a.id) or "" for a in self.world.agents()}

    @property
    def active_pane(self) -> Pane:
        """The pane of the tab shown now."""
        return self.pane(self.query_one(TabbedPanes).active)

    @property
    def sidebar(self) -> AgentList:
        return self.query_one(AgentList)

    # -- what panes call ---------------------------------------------------------------------
    def show_arc_at(self, agent_id: str, frame_index: int | None) -> None:
        """The Becoming tab on ``agent_id``'s arc, at its statement as of that frame."""
        self.query_one(BecomingPane).show_at(agent_id, frame_index)
        self.show_tab(BecomingPane.TAB_ID)
        self.select_agent(agent_id)

    def select_agent(self, agent_id: str) -> None:
        """Show ``agent_id`` in every pane (parsing its file in a worker unless cached)."""
        if agent_id == self.agent_id:
            return
        try:
            self.world.agent(agent_id)
        except WorldError as exc:
            self.notify(str(exc), severity="error")
            return
        self.agent_id = agent_id

    def open_line(self, agent_id: str, line: int) -> None:
        """Show the Soul tab of ``agent_id`` scrolled to ``line`` (1-based)."""
        self._open(agent_id, ("line", line))

    def open_frame(self, agent_id: str, frame_index: int) -> None:
        """Show the Soul tab of ``agent_id`` scrolled to frame ``frame_index`` (0-based, file order)."""
        self._open(agent_id, ("frame", frame_index))

    def _open(self, agent_id: str, place: tuple[str, int]) -> None:
        self.show_tab(SoulPane.TAB_ID)
        if agent_id == self.agent_id and self.soul is not None:
            self._scroll_to(self.soul, place)
        else:
            # Scrolled once the soul arrives (at once when it is cached).
            self._pending = place
            self.select_agent(agent_id)

    def _scroll_to(self, soul: Soul, place: tuple[str, int]) -> None:
        kind, value = place
        pane = self.query_one(SoulPane)
        if kind == "line":
            pane.show_line(value)
        elif 0 <= value < len(soul.frames):
            pane.show_frame(value)
        else:
            self.notify(f"{soul.agent_id} has no frame #{value + 1}.", severity="warning")

    def reload_world(self) -> None:
        """Read the world again from disk (after a frame was run, or files changed).

        Unchanged files come from the cache; changed ones are parsed again, the selected agent's
        included (its Soul view keeps its place).
        """
        self.world.refresh()
        agents = self.world.agents()
        self.sidebar.set_agents(agents, self._names())
        if not agents:
            return
        current = self.agent_id
        if current is None or all(a.id != current for a in agents):
            self.select_agent(agents[0].id)
        elif self.cache.cached(current) is not self.soul:
            self.load_soul(current)
        self._world_started = perf_counter()
        self.parse_world()

    def show_tab(self, tab_id: str, *, focus: bool = True) -> None:
        """Show a tab and (unless ``focus`` is False) focus its main widget, so its keys act at once."""
        self.query_one(TabbedPanes).active = tab_id
        if focus:
            self.pane(tab_id).focus_content()

    def pane(self, tab_id: str) -> Pane:
        return next(p for p in self.panes if tab_id == p.TAB_ID)

    def open_world(self, world: World) -> None:
        """Show another world in place of this one (time travel to a snapshot, and back).

        The selected agent stays selected when the other world has it.
        """
        self.run_worker(self._open_world(world), exclusive=True, group="open-world")

    async def _open_world(self, world: World) -> None:
        previous, tab = self.agent_id, self.query_one(TabbedPanes).active
        self.workers.cancel_group(self, "world")
        self.workers.cancel_group(self, "soul")
        self._stop_loading()
        self.world = world
        self.cache = SoulCache(world, self.arc_label)
        self.soul = None
        self.set_reactive(SoulscopeApp.agent_id, None)
        # The widgets and summaries of the world left behind hold cycles: collectable again.
        self.heap.rebase()
        await self.recompose()
        self._show_world(keep=previous)
        # Keys of the tab the user was in keep working (the History tab's "o" brings them back).
        self.show_tab(tab)

    # -- selection and parsing ---------------------------------------------------------------
    def watch_agent_id(self, agent_id: str | None) -> None:
        self._stop_loading()
        if agent_id is None:
            return
        self.soul = None
        self.sidebar.highlight(agent_id)
        for pane in self.panes:
            pane.agent_id = agent_id
        cached = self.cache.cached(agent_id, with_arc=True)
        if cached is not None:
            # Switching back to a shown agent costs no worker round trip.
            self._show_soul(agent_id, cached)
        else:
            self.load_soul(agent_id, self.query_one(SoulPane).view.layout_width)

    def _stop_loading(self) -> None:
        """End the process parsing the soul chosen before, if it still runs."""
        for loader in list(self._loaders):
            loader.close()

    def on_unmount(self) -> None:
        self._stop_loading()  # quitting while a big soul loads leaves no process behind
        self.heap.stop()

    @work(thread=True, exclusive=True, group="soul", exit_on_error=False)
    def load_soul(self, agent_id: str, width: int = -1) -> None:
        """Parse ``agent_id``'s soul; a big file in a process of its own (``_load_big``), its text
        shown first (its long lines found for about the Soul view's ``width``)."""
        started = perf_counter()
        try:
            listed = self.world.agent(agent_id)
            if listed.size >= EARLY_TEXT_BYTES:
                # The collector's full passes walk every object the app holds, on whichever
                # thread allocates, and the UI waits for them: while a big soul loads, they walk
                # only what is new (the app's objects, alive as long as it runs, are set aside).
                self.heap.set_aside()
                self._load_big(agent_id, listed.path, width, started)
                return
            soul, summary = self.cache.load(agent_id)
        except WorldError as exc:
            self.post_message(SoulFailed(agent_id, str(exc)))
            return
        # Ready before the UI asks: the Soul tab's text and the Becoming tab's arc.
        soul.display_text  # noqa: B018
        self.cache.arc(agent_id, soul)
        self.post_message(SoulLoaded(agent_id, soul, summary, perf_counter() - started))

    def _load_big(self, agent_id: str, path: Path, width: int, started: float) -> None:
        """Show a big file's text at once, and parse it (and find its arc, and cut its lines) in
        a process of its own: a thread would share the interpreter with the UI, whose every turn
        then waits behind it. Only what the UI needs comes back, in pieces cheap to receive."""
        for _ in range(READ_TRIES):
            stamp = self.cache.stamp(agent_id)
            parsed = self.cache.parsed(agent_id, stamp)  # (the world's worker may have parsed it)
            if parsed is not None:
                data = parsed[0].data
                break
            try:
                data = path.read_bytes()
            except OSError as exc:
                raise WorldError(f"cannot read {path}: {exc.strerror}") from exc
            if len(data) == stamp[1] and self.cache.stamp(agent_id) == stamp:
                break  # one version of the file, whole (a frame may be landing: read it again)
        else:
            keys = " or ".join(self.keys_of(BY_ID["app.reload"]))
            raise WorldError(f"{path} kept changing while it was read; {keys} reads it again.")
        # Its beginning, where the view opens, while the whole file is cut into lines.
        first = next(decoded_pieces(data), "")
        if len(first) < len(data):
            self.post_message(SoulTextRead(agent_id, display_lines([clean(first)])))
        length = max(width // 2 - 8, 20)  # lines that wrap a little narrower than now, or more
        worker = get_current_worker()
        try:
            loader = SoulLoader(data, agent_id, self.arc_label, length, send_soul=parsed is None)
        except OSError as exc:
            raise WorldError(f"{path} could not be parsed: {exc.strerror}") from exc
        self._loaders.add(loader)
        if worker.is_cancelled:  # (another agent was chosen meanwhile)
            loader.close()
        pieces, arc, summary, shown, kind = SoulPieces(data), ArcPieces(), None, None, ""
        try:
            for kind, value in loader.messages():
                if worker.is_cancelled:
                    loader.close()
                elif kind == "lines":
                    bounds, length, indices, lengths, plain = value
                    shown = (
                        FileLines(data, _array(bounds)),
                        LongLines(length, _array(indices), _array(lengths), plain),
                    )
                    self.post_message(SoulTextRead(agent_id, *shown))
                elif kind == "arc":
                    arc.add(value)
                elif kind == "summary":
                    summary = value
                elif kind != "done":
                    pieces.add(kind, value)
        except LoadError as exc:
            raise WorldError(f"{path} could not be parsed: {exc}") from exc
        finally:
            self._loaders.discard(loader)
        if worker.is_cancelled or kind != "done":
            return
        soul, summary = parsed or self.cache.keep(agent_id, stamp, pieces.soul(), summary)
        self.cache.keep_arc(agent_id, soul, arc.arc(soul.frames.columns), shown)
        self.heap.set_aside()  # and its arc's tens of thousands of strings, from now on
        self.post_message(SoulLoaded(agent_id, soul, summary, perf_counter() - started))

    def on_soul_text_read(self, message: SoulTextRead) -> None:
        if self.is_running and message.agent_id == self.agent_id and self.soul is None:
            self.query_one(SoulPane).show_text(message.lines, message.long)

    def on_soul_loaded(self, message: SoulLoaded) -> None:
        # A worker may finish while the app is closing and its widgets are going away.
        if self.is_running and message.agent_id == self.agent_id:
            self._show_soul(message.agent_id, message.soul)

    def on_soul_failed(self, message: SoulFailed) -> None:
        if self.is_running and message.agent_id == self.agent_id:
            self.notify(message.error, severity="error")
            for pane in self.panes:
                pane.soul = None

    def _show_soul(self, agent_id: str, soul: Soul) -> None:
        self.soul = soul
        for pane in self.panes:
            pane.soul = soul
        place, self._pending = self._pending, None
        if place is not None:
            self._scroll_to(soul, place)

    @work(thread=True, exclusive=True, group="world", exit_on_error=False)
    def parse_world(self) -> None:
        """Every agent's summary from the world index, reported in batches: the rows of unchanged
        files at once, then the files that changed as they are parsed (and written back)."""
        worker = get_current_worker()
        with WorldIndex(self.world, self.arc_label) as index:
            fresh, stale = index.scan()
            for note in index.notes:  # rebuilt, or kept in memory: said, once
                self.call_from_thread(self.notify, note[:1].upper() + note[1:], severity="warning")
            total, done, failed = len(fresh) + len(stale), len(fresh), 0
            if fresh or not stale:
                summaries = tuple(e.summary for e in fresh if e.summary is not None)
                self.post_message(WorldProgress(summaries, (), done, total))
            parsed, failures, last = [], [], monotonic()
            for file in stale:
                if worker.is_cancelled:
                    index.save(parsed)
                    return
                # Through the cache of parsed souls: the selected agent is parsed once.
                try:
                    entry = index.entry(file, *self.cache.load(file.id))
                except WorldError as exc:
                    entry = Entry(file, error=str(exc))
                done += 1
                if entry.error is not None:
                    failures.append((file.id, entry.error))
                    failed += 1
                else:
                    parsed.append(entry)
                if done == total or monotonic() - last >= PROGRESS_INTERVAL:
                    index.save(parsed)
                    summaries = tuple(e.summary for e in parsed if e.summary is not None)
                    self.post_message(WorldProgress(summaries, tuple(failures), done, total))
                    parsed, failures, last = [], [], monotonic()
        self.post_message(WorldParsed(total, failed, perf_counter() - self._world_started))

    def on_world_progress(self, message: WorldProgress) -> None:
        if not self.is_running:
            return
        # The world's summaries stay as long as the dashboard does: out of the cyclic collector's
        # passes, each of which walked all of them (a quarter of a second at 10,000 agents, in the
        # middle of whatever key came next, and seconds in all while a world is parsed). Objects
        # freed by their count (parsed souls, which hold no cycles) still go at once.
        self.heap.set_aside()
        self.sidebar.set_summaries(
            message.summaries, (agent_id for agent_id, _ in message.failures)
        )
        for pane in self.panes:
            pane.summaries_changed(message.summaries)
        self.query_one(WorldPane).show_progress(message.done, message.total)

    def on_world_parsed(self, message: WorldParsed) -> None:
        if message.failed:
            self.notify(
                f"{message.failed} of {message.total} soul files could not be read.",
                severity="warning",
            )

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        error = event.worker.error
        if event.state != WorkerState.ERROR or error is None:
            return
        if isinstance(error, SoulscopeError):  # what the user can fix: its one sentence
            self.notify(visible(str(error)), severity="error")
            return
        from soulscope.bugs import record

        path = record(error, f"worker {event.worker.name or event.worker.group}")
        self.notify(
            visible(
                f"soulscope hit a bug ({type(error).__name__}: {error}); the traceback is in {path}"
            ),
            severity="error",
            timeout=30,
        )

    def on_agent_chosen(self, message: AgentChosen) -> None:
        self.select_agent(message.agent_id)
        if message.open:
            self.active_pane.focus_content()

    # -- actions -----------------------------------------------------------------------------
    def action_help(self) -> None:
        self.push_screen(HelpScreen(list(self.help_rows())))

    def keys_of(self, action: Action) -> list[str]:
        """The keys bound to ``action`` now (the user's keymap first), as Textual displays them."""
        keys = self._keymap.get(action.id, action.keys)
        return [self.get_key_display(Binding(k.strip(), "")) for k in keys.split(",") if k.strip()]

    def help_rows(self) -> Iterable[tuple[str, str, str, str]]:
        """(where, keys, what it does, action id) for every action of the registry."""
        for action in ACTIONS:
            yield (
                CONTEXTS[action.context],
                " ".join(self.keys_of(action)),
                action.description,
                action.id,
            )

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # The keys handled as they arrive (those that move the focus) act on the main screen
        # only: behind a dialog they would change what the dialog was opened over.
        return not (action in ARRIVAL_ACTIONS and isinstance(self.screen, ModalScreen))

    def action_focus_filter(self) -> None:
        if not self.sidebar.display:
            self.action_toggle_sidebar()
        self.sidebar.focus_filter()

    def action_show_tab(self, tab_id: str) -> None:
        self.show_tab(tab_id)

    def action_toggle_sidebar(self) -> None:
        """Fold the agent list away, or bring it back (it folds by itself in a narrow window)."""
        self.sidebar_wanted = not self.sidebar.display
        self.sidebar.display = self.sidebar_wanted
        if not self.sidebar_wanted and (
            self.focused is None or self.sidebar in self.focused.ancestors
        ):
            self.active_pane.focus_content()

    def on_resize(self, event: events.Resize) -> None:
        self._fold_sidebar(event.size.width)

    def _fold_sidebar(self, width: int) -> None:
        shown = self.sidebar_wanted and width >= NARROW
        if self.sidebar.display != shown:
            self.sidebar.display = shown
            if not shown and self.focused is not None and self.sidebar in self.focused.ancestors:
                self.call_after_refresh(self.active_pane.focus_content)

    def action_back_to_now(self) -> None:
        """Come back from a past world (time travel) to the world as it is on disk now."""
        from soulscope.history.timeline import WorldAt

        world = self.world
        if isinstance(world, WorldAt):
            self.open_world(world.live)
        else:
            keys = " or ".join(self.keys_of(BY_ID["history.travel"]))
            self.notify(
                f"This is the world as it is now; {keys} in the History tab opens it as of a "
                "commit.",
            )

    def action_search(self) -> None:
        from soulscope.tui.influence import SearchScreen

        self.push_screen(SearchScreen())

    def action_influence(self) -> None:
        from soulscope.tui.influence import InfluenceScreen

        if self.agent_id is None:
            self.notify("Choose an agent first.", severity="warning")
            return
        self.push_screen(InfluenceScreen(self.agent_id))

    def action_reload(self) -> None:
        self.reload_world()
        self.notify("Reading the world again from disk.")

    def action_cycle_sort(self) -> None:
        sort = self.sidebar.cycle_sort()
        self.notify(f"Agents sorted by {sort}.")

    async def action_cursor(self, direction: str) -> None:
        """j/k/g/G: move the focused list's cursor, or scroll the focused view."""
        focused = self.focused
        if focused is None:
            return
        names = {
            "up": ("cursor_up", "scroll_up"),
            "down": ("cursor_down", "scroll_down"),
            "first": ("first", "scroll_top"),
            "last": ("last", "scroll_bottom"),
        }[direction]
        for action in names:
            if hasattr(focused, f"action_{action}"):
                await focused.run_action(action)
                return
        # A text view: to its top or bottom at once (an animation would lag the next key).
        if direction == "first":
            focused.scroll_home(animate=False)
        elif direction == "last":
            focused.scroll_end(animate=False)

    def action_step_frame(self, forward: bool) -> None:
        if self.soul is None:
            return
        self.show_tab(SoulPane.TAB_ID)
        if not self.query_one(SoulPane).step_frame(forward):
            self.bell()

    def action_step_turning_point(self, delta: int) -> None:
        """Go to the next (or previous) turning point of the identity arc, in the Becoming tab."""
        self.show_tab(BecomingPane.TAB_ID)
        if not self.query_one(BecomingPane).step_turning_point(delta):
            self.bell()

    def action_goto_frame(self) -> None:
        soul = self.soul
        if soul is None:
            return

        def go(query: str | None) -> None:
            if not query:
                return
            found = find_frame(soul, query)
            frame = found.frame or found.nearest
            if frame is not None:
                self.show_tab(SoulPane.TAB_ID)
                self.query_one(SoulPane).goto_frame(found)
            if found.problem:
                self.notify(found.problem, severity="warning")

        self.push_screen(
            PromptScreen(
                "Go to frame", "a number (237), a label (500b), a date (2026-03-15 19:50) or #K"
            ),
            go,
        )

    def action_advance(self, steps: int = 1) -> None:
        """Run ``steps`` frames in a worker; each lands as one commit and the views refresh."""
        if self.world.read_only:
            self.notify(
                f"{self.world.name} is the world as it was at a past commit, read-only; "
                "o in the History tab comes back to now.",
                severity="warning",
            )
            return
        if self.world.only is not None:
            self.notify("A single soul file has no world to advance.", severity="warning")
            return
        if not self.query_one(FrameBar).advance(self.world.root, steps):
            self.notify("Frames are already running; they land one at a time.")

    def action_advance_many(self) -> None:
        def go(answer: str | None) -> None:
            if answer is None:
                return
            if not answer.isdigit() or not 1 <= int(answer) <= MAX_FRAMES_AT_ONCE:
                self.notify(
                    f"Give a number of frames from 1 to {MAX_FRAMES_AT_ONCE}.",
                    severity="warning",
                )
                return
            self.action_advance(int(answer))

        self.push_screen(PromptScreen("Run how many frames?", "a number, e.g. 10"), go)

    def action_stop_frames(self) -> None:
        bar = self.query_one(FrameBar)
        if not bar.running:
            self.notify("No frames are running.")
            return
        bar.stop()
        self.notify("Frames stop once the one running has landed.")

    def on_frame_landed(self, message: FrameLanded) -> None:
        self.reload_world()
        result = message.result
        for note in result.notes:
            self.notify(f"{note[0].upper()}{note[1:]}.")
        errors = frame_errors(result)
        if errors:
            more = f"\n…and {len(errors) - 5} more" if len(errors) > 5 else ""
            self.notify("\n".join(errors[:5]) + more, severity="warning")
        if message.step == message.steps:
            lurked = len(result.errors) + len(result.skipped)
            note = f"; {lurked} agents lurked or sat out on errors" if lurked else ""
            self.notify(f"{result.message} ({message.brain} brain{note}).")

    def on_frames_finished(self, message: FramesFinished) -> None:
        if message.error:
            ran = f" after {message.done} of {message.steps} frames" if message.done else ""
            self.notify(f"Frames stopped{ran}: {message.error}", severity="error")

    def action_problems(self) -> None:
        soul = self.soul
        if soul is None:
            return
        if not soul.problems:
            self.notify(f"{self.agent_id}: no problems found.")
            return
        # Keyed by position: one line can hold several problems (a duplicate that is also late).
        choices = [(str(i), str(p)) for i, p in enumerate(soul.problems)]

        def go(key: str | None) -> None:
            if key is not None and self.agent_id is not None:
                self.open_line(self.agent_id, soul.problems[int(key)].line)

        self.push_screen(PickScreen(f"{len(choices)} problems in {self.agent_id}", choices), go)

    def action_compare(self) -> None:
        """Ask for another agent and show both arcs side by side in the Becoming tab."""
        current = self.agent_id
        if current is None:
            return
        choices = [
            (a.id, f"{a.id}  {name}" if (name := self.world.display_name(a.id)) else a.id)
            for a in self.world.agents()
            if a.id != current
        ]

        def go(agent_id: str | None) -> None:
            if agent_id is not None:
                self.show_tab(BecomingPane.TAB_ID)
                self.query_one(BecomingPane).compare_with(agent_id)

        self.push_screen(PickScreen(f"Compare the arc of {current} with", choices), go)

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        for action in ACTIONS:
            # A dialog's actions are offered while that dialog is open.
            if not action.palette or (
                action.context in DIALOG_CONTEXTS and screen.id != action.context
            ):
                continue
            keys = " or ".join(self.keys_of(action))
            where = CONTEXTS[action.context]
            yield SystemCommand(
                action.description,
                f"{where} · {keys}" if keys else where,
                partial(self.run_registered, action),
            )

    async def run_registered(self, action: Action) -> None:
        """Run an action of the registry from anywhere: a tab's action shows that tab first."""
        if action.context == "app":
            await self.run_action(action.action)
            return
        if action.context in DIALOG_CONTEXTS:
            await self.run_action(action.action, self.screen)
            return
        self.show_tab(action.context)
        await self.run_action(action.action, self.pane(action.context))
