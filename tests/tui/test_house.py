"""The dashboard's house rules: every dialog is a ``Dialog`` in a module of its own under
``soulscope/tui/dialogs/``; dialogs ask the app, never a pane; panes and dialogs reach the app
through the typed ``dashboard``, never Textual's untyped ``self.app``."""

from __future__ import annotations

import ast
import importlib
import pkgutil
from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.screen import ModalScreen
from textual.widgets import Static

import soulscope.tui
from soulscope.tui.app import SoulscopeApp
from soulscope.tui.dialogs.base import Dialog
from soulscope.world import World
from tests.support.paths import ROOT
from tests.support.pilot import settle

TUI = ROOT / "soulscope" / "tui"


def _all_subclasses(cls: type) -> set[type]:
    out, todo = set(), [cls]
    while todo:
        for sub in todo.pop().__subclasses__():
            if sub not in out:
                out.add(sub)
                todo.append(sub)
    return out


def test_every_dialog_is_a_dialog_in_the_dialogs_folder() -> None:
    for info in pkgutil.walk_packages(soulscope.tui.__path__, "soulscope.tui."):
        importlib.import_module(info.name)
    ours = [c for c in _all_subclasses(ModalScreen) if c.__module__.startswith("soulscope.")]
    assert len(ours) >= 8
    for cls in ours:
        assert cls.__module__.startswith("soulscope.tui.dialogs."), cls
        assert issubclass(cls, Dialog), cls


def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"))


def test_dialogs_ask_the_app_never_a_pane() -> None:
    for path in (TUI / "dialogs").glob("*.py"):
        for node in ast.walk(_tree(path)):
            if isinstance(node, ast.ImportFrom) and node.module:
                assert not node.module.startswith("soulscope.tui.panes"), (path.name, node.module)


def _self_app_in(classes: list[ast.ClassDef]) -> list[str]:
    found = []
    for cls in classes:
        for node in ast.walk(cls):
            if (
                isinstance(node, ast.Attribute)
                and node.attr == "app"
                and isinstance(node.value, ast.Name)
                and node.value.id == "self"
            ):
                found.append(f"{cls.name} line {node.lineno}")
    return found


def test_panes_and_dialogs_reach_the_app_through_dashboard() -> None:
    found = []
    for path in [*(TUI / "panes").glob("*.py"), *(TUI / "dialogs").glob("*.py")]:
        classes = [n for n in ast.walk(_tree(path)) if isinstance(n, ast.ClassDef)]
        # panes and dialogs (a widget inside them may ask Textual's app for its console)
        ours = [
            c
            for c in classes
            if any(
                getattr(b, "id", getattr(b, "attr", "")) in ("Pane", "Dialog") for b in _bases(c)
            )
        ]
        found += [f"{path.name}: {where}" for where in _self_app_in(ours)]
    assert not found, found


def _bases(cls: ast.ClassDef) -> list[ast.expr]:
    """A class's bases, ``Dialog[None]`` read as ``Dialog``."""
    return [b.value if isinstance(b, ast.Subscript) else b for b in cls.bases]


class AgentCount(Dialog[int]):
    """What a newcomer writes: one module, one class on the base, asking the app."""

    def compose(self) -> ComposeResult:
        yield Static(Text(f"{len(self.dashboard.world.agents())} agents"), id="count")

    def on_mount(self) -> None:
        self.dismiss(len(self.dashboard.world.agents()))


async def test_a_new_dialog_is_one_class_on_the_base(small_world: World) -> None:
    app = SoulscopeApp(small_world)
    got: list[int | None] = []
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        app.push_screen(AgentCount(), got.append)
        await settle(pilot)
        assert got == [3] and len(app.screen_stack) == 1
