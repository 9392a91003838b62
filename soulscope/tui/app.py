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
- How a pane or a dialog reaches the app: ``self.dashboard`` (``Pane.dashboard``,
  ``Dialog.dashboard``; ``soulscope.tui.reach.dashboard(widget)`` from any widget) is this app,
  typed (``self.app`` is Textual's ``App[object]``, which the type checker knows nothing of). Call
  ``dashboard.select_agent(agent_id)``, ``dashboard.open_frame(agent_id, frame_index)`` (Soul tab,
  scrolled to that frame; the agent is selected and parsed first when needed),
  ``dashboard.open_line(agent_id, line)``, ``dashboard.show_arc_at(agent_id, frame_index)``,
  ``dashboard.show_commit(sha)``, ``dashboard.show_tab(tab_id)``, ``dashboard.reload_world()``
  (after files changed on disk, e.g. a frame was run) and ``dashboard.notify(text)`` for messages
  (plain text, control characters shown). ``dashboard.world`` is the ``World``;
  ``dashboard.cache.load(agent_id)`` returns ``(Soul, ArcSummary)`` from any thread (parsing only
  when the file is new or changed); ``dashboard.arc_label`` is the configured arc label.
- Dialogs (``soulscope/tui/dialogs/``, one module each) subclass ``Dialog``: they ask the app,
  never a pane, for what they need and what they open.
- Blocking work (parsing, git, models) runs in thread workers (``@work(thread=True, exclusive=True,
  group=..., exit_on_error=False)``) that post typed messages (``soulscope/tui/messages.py``); an
  error in a worker becomes a notification, never a crash. Loading the selected soul is
  ``soul_loading.py`` (a big one in a process of its own), running frames is the ``FrameBar``
  (``widgets/frame_bar.py``), the help screen's rows and the palette's entries are ``palette.py``.
- Soul-file text is data: widgets get ``rich.text.Text`` / ``Content`` built from it, never markup.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from functools import partial
from time import monotonic, perf_counter
from typing import TYPE_CHECKING

from textual import events, work
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding
from textual.containers import Horizontal
from textual.notifications import SeverityLevel
from textual.reactive import reactive
from textual.screen import ModalScreen, Screen
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Header
from textual.worker import Worker, WorkerState, get_current_worker

from soulscope.bundled import bundled
from soulscope.config import Settings, load_settings
from soulscope.controls import visible
from soulscope.errors import SoulscopeError
from soulscope.index import Entry, WorldIndex
from soulscope.soul.lookup import find_frame
from soulscope.soul.model import Soul
from soulscope.tui.actions import (
    ACTIONS,
    BY_ID,
    TABS,
    Action,
    bindings,
    checked_keymap,
)
from soulscope.tui.cache import SoulCache
from soulscope.tui.commands import AgentCommands, ChatCommands
from soulscope.tui.dialogs.help import HelpScreen
from soulscope.tui.dialogs.pick import PickScreen
from soulscope.tui.dialogs.prompt import PromptScreen
from soulscope.tui.focus import focus_now
from soulscope.tui.messages import (
    SoulFailed,
    SoulLoaded,
    SoulTextRead,
    WorldParsed,
    WorldProgress,
)
from soulscope.tui.palette import help_rows, system_commands
from soulscope.tui.panes.base import Pane
from soulscope.tui.panes.becoming import BecomingPane
from soulscope.tui.panes.chat import ChatPane
from soulscope.tui.panes.history import HistoryPane
from soulscope.tui.panes.soul import SoulPane
from soulscope.tui.panes.world import WorldPane
from soulscope.tui.screens import MainScreen
from soulscope.tui.soul_loading import SoulLoading
from soulscope.tui.widgets.agent_list import AgentChosen, AgentList
from soulscope.tui.widgets.frame_bar import FrameBar
from soulscope.tui.widgets.key_footer import KeyFooter
from soulscope.tui.widgets.tabbed_panes import TabbedPanes
from soulscope.tui.workarounds.heap import Heap
from soulscope.tui.workarounds.key_order import KeyHandled, KeyOrder
from soulscope.world import World, WorldError

if TYPE_CHECKING:
    from soulscope.recall.hybrid import RecallIndex

STYLES = bundled("styles") / "app.tcss"

# The tabs' panes, in the order of ``TABS``.
PANES: list[type[Pane]] = [tab.pane_class() for tab in TABS]

# The world worker reports at most this often, so hundreds of agents do not mean hundreds of redraws.
PROGRESS_INTERVAL = 0.25
LINKS_AFTER_S = 2.0  # the world still this long after it was listed: its links kept (keep_links)

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
        self._links_timer: Timer | None = None
        self.loading = SoulLoading(self)  # the selected soul's, in a worker
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
        self.select_agent(keep if keep and any(a.id == keep for a in agents) else agents[0].id)
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

    def show_commit(self, sha: str) -> None:
        """The History tab, on the selected agent's commit ``sha``."""
        self.show_tab(HistoryPane.TAB_ID)
        self.query_one(HistoryPane).select_commit(sha)

    def recall_index(self) -> RecallIndex:
        """The search index over the world as it is on disk now, shared with the Chat tab (safe
        from any thread)."""
        return self.query_one(ChatPane)._ensure_index()

    def test_connection(self) -> None:
        """Say in one sentence whether the chat's LLM endpoint answers (the Chat tab's test)."""
        self.query_one(ChatPane).test_connection()

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
        self.loading.stop()
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
        self.loading.stop()
        if agent_id is None:
            return
        self.soul = None
        self.sidebar.highlight(agent_id)
        cached = self.cache.cached(agent_id, with_arc=True)
        for pane in self.panes:
            if cached is None:  # None while it loads: never the agent before's under this id
                pane.soul = None
            pane.agent_id = agent_id
        if cached is not None:
            # Switching back to a shown agent costs no worker round trip.
            self._show_soul(agent_id, cached)
        else:
            self.load_soul(agent_id, self.query_one(SoulPane).view.layout_width)

    def on_unmount(self) -> None:
        self.loading.stop()  # quitting while a big soul loads leaves no process behind
        self.heap.stop()

    def load_soul(self, agent_id: str, width: int = -1) -> None:
        """Parse ``agent_id``'s soul in a worker (``soul_loading.py``); its text, then the soul,
        come back as messages."""
        self.run_worker(
            partial(self.loading.load, agent_id, width),
            name=f"load {agent_id}",
            group="soul",
            exclusive=True,
            thread=True,
            exit_on_error=False,
        )

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
            self.query_one(SoulPane).show_failed()

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
            parsed: list[Entry] = []
            failures: list[tuple[str, str]] = []
            last = monotonic()
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
        if self.settings.keep_links:  # once the world has been still for a moment
            if self._links_timer is not None:
                self._links_timer.stop()
            self._links_timer = self.set_timer(LINKS_AFTER_S, self.keep_links)

    @work(thread=True, exclusive=True, group="links", exit_on_error=False)
    def keep_links(self) -> None:
        """Once the world is listed, the link tallies of its files that changed read and kept
        (in worker processes where they are many), as a listing on the command line keeps them:
        the influence views and ``graph`` then read no soul file. Nothing is shown; a world
        listed again (frames written) starts it over, and quitting leaves what was read kept."""
        from soulscope.history.graph import cores, prepare
        from soulscope.history.tallystore import prepared

        worker = get_current_worker()
        if not prepared(self.world):
            prepare(self.world, workers=cores(), stop=lambda: worker.is_cancelled)

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

    def open_agent(self, agent_id: str) -> None:
        """Show ``agent_id`` and focus the tab shown (Enter or a click in the agent list)."""
        self.select_agent(agent_id)
        self.active_pane.focus_content()

    # -- actions -----------------------------------------------------------------------------
    def action_help(self) -> None:
        self.push_screen(HelpScreen(list(help_rows(self))))

    def keys_of(self, action: Action) -> list[str]:
        """The keys bound to ``action`` now (the user's keymap first), as Textual displays them."""
        keys = self._keymap.get(action.id, action.keys)
        return [self.get_key_display(Binding(k.strip(), "")) for k in keys.split(",") if k.strip()]

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
        from soulscope.tui.dialogs.influence import SearchScreen

        self.push_screen(SearchScreen())

    def action_influence(self) -> None:
        from soulscope.tui.dialogs.influence import InfluenceScreen

        if self.agent_id is None:
            self.notify("Choose an agent first.", severity="warning")
            return
        self.push_screen(InfluenceScreen(self.agent_id))

    def action_runs(self) -> None:
        from soulscope.tui.dialogs.runs import open_runs

        open_runs(self)

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
        # A text view: to its top or bottom at once (an animation would lag the next key); a view
        # with its own last page (the soul text, which scrolls past its end) goes there.
        if direction == "first":
            focused.scroll_home(animate=False)
        elif (
            direction == "last" and type(focused).action_scroll_end is not Widget.action_scroll_end
        ):
            await focused.run_action("scroll_end")
        elif direction == "last":
            focused.scroll_end(animate=False)

    def _shown_soul(self) -> Soul | None:
        """The selected agent's parsed soul; None, said in one sentence, while there is none."""
        if self.soul is None:
            if not self.world.agents():
                self.notify(f"No soul files in {self.world.memory_dir}.", severity="warning")
            elif self.agent_id is None:
                self.notify("Choose an agent first.", severity="warning")
            else:
                self.notify(f"{self.agent_id}'s soul file is still being read.")
        return self.soul

    def action_step_frame(self, forward: bool) -> None:
        if self._shown_soul() is None:
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
        soul = self._shown_soul()
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
        """Run ``steps`` frames; each lands as one commit and the views refresh (``FrameBar``)."""
        self.query_one(FrameBar).advance_world(steps)

    def action_advance_many(self) -> None:
        self.query_one(FrameBar).ask_steps()

    def action_stop_frames(self) -> None:
        self.query_one(FrameBar).stop_frames()

    def action_problems(self) -> None:
        soul = self._shown_soul()
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
            self._shown_soul()  # says why
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
        return system_commands(self, screen)
