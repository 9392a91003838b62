"""What every tab of the dashboard is: a ``Pane`` the app keeps informed of the selection."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar

from textual.containers import Vertical
from textual.reactive import reactive

from soulscope.soul.model import Soul
from soulscope.soul.trajectory import ArcSummary
from soulscope.tui.focus import focus_now
from soulscope.tui.reach import dashboard

if TYPE_CHECKING:
    from soulscope.tui.app import SoulscopeApp


class Pane(Vertical):
    """The content of one tab.

    Subclasses set ``TAB_ID`` (the id of its tab in ``TABS`` of ``soulscope/tui/actions.py``,
    which also names the context of its actions there) and ``MAIN`` (a selector of the widget that
    takes the keys when the tab is shown), and react to:

    - ``agent_id``: set by the app the moment the user selects an agent, before its file is parsed
      (a pane that does not need the parsed soul, e.g. one that reads git, starts from here);
    - ``soul``: set by the app once that agent's soul is parsed (None while it loads or when its file
      cannot be read). Always for the current ``agent_id``;
    - ``summaries_changed(summaries)``: called as the world-parsing worker reports batches of agents.

    It reaches the app through ``dashboard`` (typed), never ``self.app``.
    """

    TAB_ID: ClassVar[str]
    MAIN: ClassVar[str]

    agent_id: reactive[str | None] = reactive(None, init=False)
    # always_update: a new Soul replaces the old one without comparing two large values.
    soul: reactive[Soul | None] = reactive(None, init=False, always_update=True)

    @property
    def dashboard(self) -> SoulscopeApp:
        """The dashboard, typed (``soulscope.tui.reach``)."""
        return dashboard(self)

    def focus_content(self) -> None:
        """Focus the widget that takes this tab's keys (its tab key, opening an agent, a dialog's end)."""
        focus_now(self.query_one(self.MAIN))

    def summaries_changed(self, summaries: Sequence[ArcSummary]) -> None:
        """New or updated summaries of whole-world agents; the default ignores them."""
