"""A tab bar above panes, one pane shown at a time: Textual's ``TabbedContent`` with fewer layers.

``TabbedContent`` wraps each pane in a ``TabPane`` inside a ``ContentSwitcher``, and a tab switch
repaints all three of those containers line by line (the tabbed content and the switcher repaint
because the active tab is a repainting reactive of theirs; the ``TabPane`` because its display
changed) before the pane's own widgets are composed over them. Here the panes are the children
themselves and a switch only changes two panes' display: the pane shown repaints its own
background, nothing above it does.
"""

from __future__ import annotations

from collections.abc import Iterable

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widget import Widget
from textual.widgets import Tab, Tabs


class TabbedPanes(Vertical):
    """``Tabs`` over ``panes`` (each titled and identified by ``(tab_id, title)``)."""

    def __init__(self, panes: Iterable[tuple[str, str, Widget]], *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._panes = {tab_id: (title, pane) for tab_id, title, pane in panes}
        self._active = next(iter(self._panes))

    def compose(self) -> ComposeResult:
        yield Tabs(
            *(Tab(title, id=tab_id) for tab_id, (title, _) in self._panes.items()),
            active=self._active,
        )
        for tab_id, (_, pane) in self._panes.items():
            pane.display = tab_id == self._active
            yield pane

    @property
    def active(self) -> str:
        """The id of the tab shown."""
        return self._active

    @active.setter
    def active(self, tab_id: str) -> None:
        if tab_id == self._active:
            return
        self._panes[self._active][1].display = False
        self._panes[tab_id][1].display = True
        self._active = tab_id
        self.query_one(Tabs).active = tab_id

    def on_tabs_tab_activated(self, event: Tabs.TabActivated) -> None:
        """A tab clicked (or chosen with the keys of a focused tab bar) shows its pane."""
        event.stop()
        if event.tab.id is not None:
            self.active = event.tab.id
