"""Every action of the dashboard, in one table: its id, what it does, its default keys, where it acts.

The key bindings of the app, the panes and the dialogs, the command palette, the help screen and the
footer are all generated from ``ACTIONS``; a user's ``[keys]`` table in the config file (action id ->
keys) remaps any of them through ``App.set_keymap``. Adding an action is one entry here and an
``action_*`` method on the class that holds its context.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from textual.binding import Binding, BindingType


@dataclass(frozen=True)
class Tab:
    """One tab of the dashboard: its id (also the context of its pane's actions), its title, the
    key that shows it, and its pane as ``module:Class`` under ``soulscope.tui.panes``."""

    id: str
    title: str
    key: str
    pane: str

    def pane_class(self) -> Any:
        """The ``Pane`` subclass of this tab (imported here: the panes import this module)."""
        module, _, name = self.pane.partition(":")
        return getattr(importlib.import_module(f"soulscope.tui.panes.{module}"), name)


# The tabs, in order: adding a tab is its pane's module and one line here (its key, its place,
# its entry in the help screen and the palette all follow from it).
TABS: tuple[Tab, ...] = (
    Tab("soul", "Soul", "1", "soul:SoulPane"),
    Tab("becoming", "Becoming", "2", "becoming:BecomingPane"),
    Tab("world", "World", "3", "world:WorldPane"),
    Tab("history", "History", "4", "history:HistoryPane"),
    Tab("chat", "Chat", "5", "chat:ChatPane"),
    Tab("log", "Log", "6", "log:LogPane"),
)

# Contexts held by a dialog, not a tab: their actions are offered while that dialog is open.
DIALOG_CONTEXTS = frozenset(
    {"why", "filter", "dialog", "search", "spread", "influence", "runs", "context"}
)

# Where an action acts, as a person would say it (the help screen's first column).
CONTEXTS: dict[str, str] = {
    "app": "everywhere",
    **{tab.id: f"{tab.title} tab" for tab in TABS},
    "why": "why panel",
    "filter": "agent filter",
    "search": "search",
    "spread": "spread view",
    "influence": "influences view",
    "runs": "runs view",
    "context": "context view",
    "dialog": "dialogs",
}


@dataclass(frozen=True)
class Action:
    """One thing a user can do.

    ``action`` is the Textual action string run on the context's holder (the app, a pane, a
    dialog); ``short`` is the footer's label when the description is too long for it.
    """

    id: str
    keys: str
    action: str
    description: str
    context: str = "app"
    short: str | None = None
    show: bool = False  # in the footer
    palette: bool = True  # in the command palette (dialog-only keys are not)
    # Handled as the key arrives, before the keys typed after it are sent anywhere: the keys
    # into and out of the filter, so that a burst ("/deb", Esc then "j": a fast typist, a paste,
    # a busy moment) goes where the first of them sent it. Textual handles other keys on their
    # way back from the focused widget, in order; one that arrives behind a key still on its way
    # is handled first (so "j/" typed in one burst loses the "j"). A focused text input still
    # takes the printable ones as text.
    priority: bool = False


def _tab(tab: Tab) -> Action:
    return Action(f"tab.{tab.id}", tab.key, f"show_tab('{tab.id}')", f"Show the {tab.title} tab")


ACTIONS: tuple[Action, ...] = (
    # -- everywhere ----------------------------------------------------------------------------
    Action("app.quit", "q", "quit", "Quit soulscope", short="Quit", show=True),
    Action("app.help", "question_mark", "help", "List every key", short="Keys", show=True),
    Action(
        "app.filter",
        "slash",
        "focus_filter",
        "Filter the agent list by id or name",
        short="Filter",
        show=True,
        priority=True,
    ),
    Action(
        "app.sidebar", "backslash", "toggle_sidebar", "Show or hide the agent list", short="Agents"
    ),
    Action("app.sort", "s", "cycle_sort", "Sort the agent list (name, frames, activity)"),
    *(_tab(tab) for tab in TABS),
    Action(
        "app.next_frame",
        "right_square_bracket",
        "step_frame(True)",
        "Next frame of this soul file",
        short="Next frame",
        show=True,
    ),
    Action(
        "app.previous_frame",
        "left_square_bracket",
        "step_frame(False)",
        "Previous frame of this soul file",
        short="Prev frame",
        show=True,
    ),
    Action(
        "app.goto_frame",
        "colon",
        "goto_frame",
        "Go to a frame by number, label, date or position (#K)",
        short="Go to frame",
        show=True,
    ),
    Action(
        "app.next_turning_point",
        "right_curly_bracket",
        "step_turning_point(1)",
        "Next turning point of the identity arc (where it really moved)",
    ),
    Action(
        "app.previous_turning_point",
        "left_curly_bracket",
        "step_turning_point(-1)",
        "Previous turning point of the identity arc",
    ),
    Action("app.down", "j", "cursor('down')", "Move down in the focused list or text"),
    Action("app.up", "k", "cursor('up')", "Move up in the focused list or text"),
    Action("app.first", "g", "cursor('first')", "Go to the top of the focused list or text"),
    Action("app.last", "G", "cursor('last')", "Go to the bottom of the focused list or text"),
    Action("app.compare", "c", "compare", "Compare this arc with another agent's"),
    Action("app.problems", "p", "problems", "List the problems found in this soul file"),
    Action("app.reload", "r", "reload", "Read the world again from disk"),
    Action(
        "app.advance", "n", "advance(1)", "Run a frame: every active agent acts once, one commit"
    ),
    Action("app.advance_many", "N", "advance_many", "Run several frames (asks how many)"),
    Action("app.stop_frames", "x", "stop_frames", "Stop running frames after the current one"),
    Action("app.now", "o", "back_to_now", "Come back from a past world to the world as it is now"),
    Action(
        "app.search",
        "F",
        "search",
        "Search the world's memory: cited hits, a term's first mention and spread",
        short="Search",
    ),
    Action(
        "app.influence",
        "i",
        "influence",
        "Who shaped this agent, and whom it shaped (the influence graph)",
        short="Influences",
    ),
    Action(
        "app.runs",
        "R",
        "runs",
        "Compare this run of the world with another (a fork): where each agent parted, the arcs",
        short="Runs",
    ),
    # -- Soul tab (the text view) --------------------------------------------------------------
    Action(
        "soul.context",
        "C",
        "context",
        "What the brain saw in this frame: soul excerpt, posts read, prompt, answer",
        context="soul",
        short="What it saw",
    ),
    Action("soul.page_down", "space", "page_down", "Page down", context="soul", palette=False),
    Action("soul.page_up", "b", "page_up", "Page up", context="soul", palette=False),
    # -- Becoming tab --------------------------------------------------------------------------
    Action(
        "becoming.why",
        "w",
        "why",
        "Why did this statement shift? (memory and history)",
        context="becoming",
        short="Why",
        show=True,
    ),
    Action(
        "becoming.shifts_only",
        "f",
        "toggle_shifts",
        "Show only the shifts of the arc, or every statement",
        context="becoming",
        short="Shifts only",
        show=True,
    ),
    Action(
        "becoming.close_compare",
        "escape",
        "close_compare",
        "Close the comparison",
        context="becoming",
    ),
    Action(
        "becoming.semantic_drift",
        "m",
        "semantic_drift",
        "Drift, turning points and chapters by meaning (the embedding model)",
        context="becoming",
        short="Semantic drift",
        show=True,
    ),
    # -- World tab -----------------------------------------------------------------------------
    Action(
        "world.sort",
        "s",
        "sort_next",
        "Sort the World table by the next column",
        context="world",
        short="Sort",
        show=True,
    ),
    Action(
        "world.reverse",
        "S",
        "sort_reverse",
        "Reverse the World table's order",
        context="world",
        short="Reverse",
    ),
    # -- History tab ---------------------------------------------------------------------------
    Action(
        "history.older",
        "right_square_bracket",
        "step(1)",
        "Older commit",
        context="history",
        show=True,
    ),
    Action(
        "history.newer",
        "left_square_bracket",
        "step(-1)",
        "Newer commit",
        context="history",
        show=True,
    ),
    Action(
        "history.layout",
        "t",
        "toggle_layout",
        "Diff unified or side by side",
        context="history",
        short="Unified / side",
        show=True,
    ),
    Action(
        "history.mark",
        "m",
        "mark",
        "Mark this commit to diff others against it",
        context="history",
        short="Mark",
        show=True,
    ),
    Action(
        "history.memory",
        "v",
        "view_memory",
        "The memory as it was at this commit",
        context="history",
        short="Memory then",
        show=True,
    ),
    Action(
        "history.travel",
        "o",
        "travel",
        "Open the whole world as of this commit (read-only), or come back",
        context="history",
        short="World then / now",
        show=True,
    ),
    # -- Log tab -------------------------------------------------------------------------------
    Action(
        "log.next_frame",
        "right_square_bracket",
        "step(1)",
        "Next frame of the world",
        context="log",
        short="Next frame",
        show=True,
    ),
    Action(
        "log.previous_frame",
        "left_square_bracket",
        "step(-1)",
        "Previous frame of the world",
        context="log",
        short="Prev frame",
        show=True,
    ),
    Action(
        "log.next_day",
        "right_curly_bracket",
        "step_day(True)",
        "First frame of the next day",
        context="log",
        short="Next day",
        show=True,
    ),
    Action(
        "log.previous_day",
        "left_curly_bracket",
        "step_day(False)",
        "First frame of this day, then of the day before",
        context="log",
        short="Prev day",
        show=True,
    ),
    Action(
        "log.trends",
        "t",
        "trends",
        "Chart how terms spread through the world, per day",
        context="log",
        short="Trends",
        show=True,
    ),
    Action(
        "log.follow",
        "f",
        "follow",
        "Follow the world as frames land (a simulation running beside), or stop",
        context="log",
        short="Follow",
        show=True,
    ),
    # -- Chat tab ------------------------------------------------------------------------------
    Action(
        "chat.cancel",
        "escape",
        "cancel",
        "Stop the answer, or leave the input",
        context="chat",
        short="Cancel",
    ),
    Action(
        "chat.target",
        "ctrl+t",
        "toggle_target",
        "Talk to the agent or about the world",
        context="chat",
        short="Agent / world",
        show=True,
    ),
    # -- the why panel (a dialog over the Becoming tab) ---------------------------------------
    Action(
        "why.close",
        "escape,q,w",
        "dismiss",
        "Close the why panel",
        context="why",
        short="Close",
        show=True,
    ),
    Action(
        "why.influencer",
        "a",
        "influencer",
        "The influencer's arc at the time of the influence",
        context="why",
        short="Influencer's arc then",
        show=True,
    ),
    Action(
        "why.cited",
        "o",
        "cited",
        "Open a frame the explanation cites",
        context="why",
        short="Open a cited frame",
        show=True,
    ),
    Action(
        "why.commit",
        "c",
        "commit",
        "The commit that brought this statement, in History",
        context="why",
        short="Commit in History",
        show=True,
    ),
    Action(
        "why.previous",
        "p",
        "previous",
        "Why the statement before this one",
        context="why",
        short="Previous statement",
        show=True,
    ),
    Action(
        "why.context",
        "C",
        "context",
        "What the brain saw in this statement's frame",
        context="why",
        short="What it saw",
        show=True,
    ),
    Action(
        "why.down",
        "j",
        "scroll('down')",
        "Scroll the explanation down",
        context="why",
        palette=False,
    ),
    Action(
        "why.up", "k", "scroll('up')", "Scroll the explanation up", context="why", palette=False
    ),
    # -- search, spread and influences (dialogs; soulscope/tui/dialogs/influence.py) -------------------
    Action(
        "search.first",
        "f",
        "first",
        "First mention of the term, opened in the Soul tab",
        context="search",
        short="First mention",
        show=True,
    ),
    Action(
        "search.spread",
        "s",
        "spread",
        "How the term spread: its adopters in order, from whom, the curve",
        context="search",
        short="Spread",
        show=True,
    ),
    Action(
        "search.close",
        "escape,q",
        "dismiss",
        "Close the search",
        context="search",
        short="Close",
        show=True,
    ),
    Action(
        "search.down", "down", "move('cursor_down')", "Next hit", context="search", palette=False
    ),
    Action("search.up", "up", "move('cursor_up')", "Previous hit", context="search", palette=False),
    Action(
        "spread.stem",
        "t",
        "toggle_stem",
        "Match the term by its stem, or as a word",
        context="spread",
        short="Stem / word",
        show=True,
    ),
    Action(
        "spread.close",
        "escape,q",
        "dismiss",
        "Close the spread view",
        context="spread",
        short="Close",
        show=True,
    ),
    Action(
        "influence.close",
        "escape,q",
        "dismiss",
        "Close the influences view",
        context="influence",
        short="Close",
        show=True,
    ),
    Action(
        "runs.term",
        "t",
        "term",
        "Add a term: how it spread in each run, as two curves",
        context="runs",
        short="Term curves",
        show=True,
    ),
    Action(
        "runs.open",
        "enter",
        "open",
        "Open the agent's soul file where it first differs",
        context="runs",
        short="Open",
        show=True,
    ),
    Action("runs.down", "j", "move('cursor_down')", "Next agent", context="runs", palette=False),
    Action("runs.up", "k", "move('cursor_up')", "Previous agent", context="runs", palette=False),
    Action(
        "runs.page_down",
        "space",
        "scroll_arcs(1)",
        "Page the two arcs down",
        context="runs",
        palette=False,
    ),
    Action(
        "runs.page_up",
        "b",
        "scroll_arcs(-1)",
        "Page the two arcs up",
        context="runs",
        palette=False,
    ),
    Action(
        "runs.close",
        "escape,q",
        "dismiss",
        "Close the runs view",
        context="runs",
        short="Close",
        show=True,
    ),
    Action(
        "context.close",
        "escape,q,C",
        "dismiss",
        "Close the context view",
        context="context",
        short="Close",
        show=True,
    ),
    Action(
        "context.down",
        "j",
        "scroll('down')",
        "Scroll down",
        context="context",
        palette=False,
    ),
    Action("context.up", "k", "scroll('up')", "Scroll up", context="context", palette=False),
    Action(
        "filter.leave",
        "escape",
        "leave",
        "Leave the filter, back to the list",
        context="filter",
        palette=False,
        priority=True,
    ),
    # -- dialogs -------------------------------------------------------------------------------
    Action(
        "dialog.close",
        "escape,q",
        "dismiss",
        "Close the dialog",
        context="dialog",
        short="Close",
        show=True,
        palette=False,
    ),
    Action(
        "dialog.down", "down", "move('cursor_down')", "Next choice", context="dialog", palette=False
    ),
    Action(
        "dialog.up", "up", "move('cursor_up')", "Previous choice", context="dialog", palette=False
    ),
)

BY_ID: dict[str, Action] = {a.id: a for a in ACTIONS}


def bindings(context: str, *, only: Iterable[str] | None = None) -> list[BindingType]:
    """The ``BINDINGS`` of the class that holds ``context`` (``only``: these ids of it)."""
    wanted = set(only) if only is not None else None
    return [
        Binding(
            a.keys,
            a.action,
            a.short or a.description,
            show=a.show,
            priority=a.priority,
            tooltip=a.description,
            id=a.id,
        )
        for a in ACTIONS
        if a.context == context and (wanted is None or a.id in wanted)
    ]


_MODIFIERS = frozenset({"ctrl", "shift", "alt", "meta", "super", "hyper"})


def key_problem(key: str) -> str | None:
    """Why ``key`` is no key name Textual knows (``ctrl+x``, ``f5``, ``right_square_bracket``,
    ``M``), or None. A key of another name would never arrive: its action would be unreachable."""
    from textual.keys import KEY_NAME_REPLACEMENTS, Keys, key_to_character

    *modifiers, base = key.split("+")
    if not base or any(m not in _MODIFIERS for m in modifiers):
        return "its modifiers are not ctrl, shift, alt or meta"
    if base in {k.value for k in Keys} or base in KEY_NAME_REPLACEMENTS.values():
        return None
    character = key_to_character(base)
    if character is not None and character.isprintable() and not character.isspace():
        return None
    return "no key has that name"


def checked_keymap(keymap: Mapping[str, str]) -> tuple[dict[str, str], str | None]:
    """The user's keymap with what cannot work left out (ids that are no action, key names no
    key has: an action bound only to those would be unreachable, so it keeps its own keys),
    and one sentence saying what was left out, or None."""
    from soulscope.controls import visible

    kept: dict[str, str] = {}
    unknown: list[str] = []
    bad: list[str] = []
    for action_id, keys in keymap.items():
        if action_id not in BY_ID:
            unknown.append(visible(action_id))
            continue
        names = [k.strip() for k in keys.split(",") if k.strip()]
        good = [k for k in names if key_problem(k) is None]
        bad += [f"{visible(k)!r} for {action_id}" for k in names if k not in good]
        if good:
            kept[action_id] = ",".join(good)
    said = []
    if unknown:
        said.append(f"the [keys] table names no action {', '.join(sorted(unknown))}")
    if bad:
        said.append(
            f"no key is called {', '.join(bad)} (an action left without keys keeps its own)"
        )
    clashes = _clashes(kept)
    if clashes:
        said.append(f"{'; '.join(clashes)}: only one of them acts on it")
    if not said:
        return kept, None
    text = "; ".join(said)
    return kept, f"{text[:1].upper()}{text[1:]}; ? lists every action id and its keys."


def _clashes(keymap: Mapping[str, str]) -> list[str]:
    """Keys the user's keymap gives to two actions of one place (only one of them would ever
    act): one sentence part each."""
    holders: dict[tuple[str, str], list[str]] = {}
    for a in ACTIONS:
        for key in keymap.get(a.id, a.keys).split(","):
            holders.setdefault((a.context, key.strip()), []).append(a.id)
    return [
        f"'{key}' is given to {' and '.join(ids)}"
        for (_, key), ids in holders.items()
        if len(ids) > 1 and any(i in keymap for i in ids)
    ]


def key_table(display: Callable[[str], str]) -> str:
    """Every action as a Markdown table (docs/keys.md); ``display`` shows one key."""
    rows = ["| where | keys | does | id |", "|---|---|---|---|"]
    for a in ACTIONS:
        keys = " ".join(f"`{display(k)}`" for k in a.keys.split(","))
        rows.append(f"| {CONTEXTS[a.context]} | {keys} | {a.description} | `{a.id}` |")
    return "\n".join(rows) + "\n"


if __name__ == "__main__":  # python -m soulscope.tui.actions: the table of docs/keys.md
    from textual.app import App

    print(key_table(lambda key: App().get_key_display(Binding(key, ""))), end="")
