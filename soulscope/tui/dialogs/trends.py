"""The trend chart: per day, the agents that had used each term so far and that day (``runs.trends``),
drawn as bars in the terminal, the first majority and the peak marked."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from soulscope.controls import visible
from soulscope.runs.trends import Trend
from soulscope.tui.actions import bindings
from soulscope.tui.dialogs.base import Dialog

BAR = 30  # the widest bar, in cells


def chart(trends: Sequence[Trend]) -> Text:
    """Each term's periods as bars: ``█`` agents that had used it so far, the number that used it
    in that period and the agents active then beside."""
    out = Text()
    for t in trends:
        out.append(f"'{visible(t.term.text)}'\n", style="bold")
        top = max([p.so_far for p in t.periods] + [1])
        for p in t.periods:
            filled = round(BAR * p.so_far / top)
            marks = [
                m
                for m, at in (("first majority", t.first_majority), ("peak", t.peak))
                if at == p.period
            ]
            out.append(f"{p.period:<10} ")
            out.append("█" * filled, style="cyan")
            out.append("·" * (BAR - filled), style="dim")
            out.append(f" {p.so_far:>4} so far · {p.in_period} that day of {p.active} active")
            if marks:
                out.append("  ★ " + ", ".join(marks), style="bold yellow")
            out.append("\n")
        out.append("\n")
    return out


class TrendScreen(Dialog[None]):
    """The chart of some terms' trends; escape closes it."""

    BINDINGS = bindings("dialog", only=["dialog.close"])

    def __init__(self, trends: Sequence[Trend], world: str) -> None:
        super().__init__(id="trends")
        self.trends = list(trends)
        self.world_name = world

    def compose(self) -> ComposeResult:
        with VerticalScroll(classes="dialog"):
            yield Static(
                Text(f"How terms spread in {visible(self.world_name)}, per day (UTC)"),
                classes="dialog-title",
            )
            yield Static(chart(self.trends), id="trend-chart")
