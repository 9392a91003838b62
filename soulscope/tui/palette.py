"""The help screen's rows and the command palette's entries, made from the action registry
(``soulscope/tui/actions.py``) and the keys bound now (the user's keymap first)."""

from __future__ import annotations

from collections.abc import Iterable
from functools import partial
from typing import TYPE_CHECKING

from textual.app import App, SystemCommand
from textual.screen import Screen

from soulscope.tui.actions import ACTIONS, CONTEXTS, DIALOG_CONTEXTS, Action

if TYPE_CHECKING:
    from soulscope.tui.app import SoulscopeApp


def help_rows(app: SoulscopeApp) -> Iterable[tuple[str, str, str, str]]:
    """(where, keys, what it does, action id) for every action of the registry."""
    for action in ACTIONS:
        yield (
            CONTEXTS[action.context],
            " ".join(app.keys_of(action)),
            action.description,
            action.id,
        )


def system_commands(app: SoulscopeApp, screen: Screen) -> Iterable[SystemCommand]:
    """Textual's own commands, then every action of the registry that the palette offers on
    ``screen`` (a dialog's actions while that dialog is open)."""
    yield from App.get_system_commands(app, screen)
    for action in ACTIONS:
        if not action.palette or (
            action.context in DIALOG_CONTEXTS and screen.id != action.context
        ):
            continue
        keys = " or ".join(app.keys_of(action))
        where = CONTEXTS[action.context]
        yield SystemCommand(
            action.description,
            f"{where} · {keys}" if keys else where,
            partial(run_registered, app, action),
        )


async def run_registered(app: SoulscopeApp, action: Action) -> None:
    """Run an action of the registry from anywhere: a tab's action shows that tab first."""
    if action.context == "app":
        await app.run_action(action.action)
        return
    if action.context in DIALOG_CONTEXTS:
        await app.run_action(action.action, app.screen)
        return
    app.show_tab(action.context)
    await app.run_action(action.action, app.pane(action.context))
