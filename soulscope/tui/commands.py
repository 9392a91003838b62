"""Command-palette providers: "go to agent" over the world's agents, and the chat's commands."""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial

from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.content import Content

from soulscope.tui.reach import dashboard


def highlight(candidate: str, offsets: Sequence[int], style: str) -> Content:
    """The candidate as plain content (never markup: names are data) with matched letters styled."""
    content = Content(candidate)
    for offset in offsets:
        if not candidate[offset].isspace():
            content = content.stylize(style, offset, offset + 1)
    return content


class AgentCommands(Provider):
    """``Go to agent <id>  <name>`` for every agent of the world."""

    def _candidates(self) -> list[tuple[str, str]]:
        app = dashboard(self.screen)
        return [
            (
                a.id,
                f"Go to agent {a.id}"
                + (f"  {name}" if (name := app.world.display_name(a.id)) else ""),
            )
            for a in app.world.agents()
        ]

    async def discover(self) -> Hits:
        for agent_id, title in self._candidates():
            yield DiscoveryHit(
                Content(title),
                partial(dashboard(self.screen).select_agent, agent_id),
                help="Show this agent",
            )

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for agent_id, title in self._candidates():
            score, offsets = matcher.fuzzy_search.match(query, title)
            if score > 0:
                yield Hit(
                    score,
                    highlight(title, offsets, "reverse"),
                    partial(dashboard(self.screen).select_agent, agent_id),
                    help="Show this agent",
                )


class ChatCommands(Provider):
    """``Test the LLM connection``: one sentence on whether the chat's endpoint answers."""

    TITLE = "Test the LLM connection"
    HELP = "Ask the configured OpenAI-compatible endpoint for its models"

    def _run(self) -> None:
        dashboard(self.screen).test_connection()

    async def discover(self) -> Hits:
        yield DiscoveryHit(Content(self.TITLE), self._run, help=self.HELP)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        score, offsets = matcher.fuzzy_search.match(query, self.TITLE)
        if score > 0:
            yield Hit(score, highlight(self.TITLE, offsets, "reverse"), self._run, help=self.HELP)
