"""The private Textual names the dashboard's workarounds rely on (see
``soulscope/tui/workarounds/__init__.py``): an upgrade that drops one fails here, by name, instead
of somewhere in a keypress."""

from __future__ import annotations

import gc

import pytest
from textual.app import App
from textual.scroll_view import ScrollView
from textual.widget import Widget
from textual.widgets import Input

PRIVATE = [
    (ScrollView, "_scroll_update"),  # workarounds/scrolling.py
    (Input, "_watch_value"),  # widgets/agent_list.py
    (Widget, "set_reactive"),  # workarounds/scrolling.py, widgets/agent_list.py
    (App, "on_event"),  # workarounds/key_order.py, through SoulscopeApp.on_event
]


@pytest.mark.parametrize(("owner", "name"), PRIVATE, ids=lambda v: getattr(v, "__name__", v))
def test_the_textual_names_the_workarounds_use_still_exist(owner: type, name: str) -> None:
    assert callable(getattr(owner, name, None)), f"Textual no longer has {owner.__name__}.{name}"


def test_the_collector_calls_the_heap_policy_uses_exist() -> None:
    for name in ("freeze", "unfreeze", "callbacks", "get_freeze_count"):
        assert hasattr(gc, name), name
