"""What the brain saw: the context an agent's brain was given in one frame (``runs.seen``).

Opened with ``C`` on a frame of the Soul tab or in the why panel. It shows the frame log that
soulscope kept when it advanced the frame: the brain and model, the soul in brief, the community
items the agent read, the prompt's messages, the answer and the tokens. For a frame written
elsewhere it says plainly that what the agent was given is not known.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import Static

from soulscope.controls import visible
from soulscope.runs.seen import seen
from soulscope.tui.actions import bindings
from soulscope.tui.dialogs.base import Dialog

COMMUNITY = {"posts": "posts in its feed", "replies": "replies to it", "related": "related items"}


@dataclass
class ContextRead(Message):
    found: dict[str, Any]


def _item(item: dict[str, Any]) -> str:
    if "comment" in item:
        where = f"comment on #{item.get('post')}"
    else:
        where = f"#{item.get('post')}" + (f" in c/{item['channel']}" if item.get("channel") else "")
    title = item.get("title") or ""
    body = " ".join(str(item.get("body") or "").split())
    text = f"{title}: {body}" if title and body else title or body
    return f"  {where} by {item.get('author')}: {text}\n"


def _soul(out: Text, soul: dict[str, Any]) -> None:
    out.append("\nIts soul, as given\n", style="bold")
    out.append(
        f"  {soul.get('path')}: {soul.get('frames')} frames, the last {soul.get('last_frame')}\n"
    )
    if soul.get("becoming"):
        out.append(f"  Becoming: {soul['becoming']}\n")


def context_text(found: dict[str, Any]) -> Text:
    """The frame log ``seen`` read, as plain text (all of it is data: never markup)."""
    out = Text()
    if not found.get("known"):
        why = str(found.get("why") or "")
        out.append("Not known. ", style="bold")
        out.append(f"{why[:1].upper()}{why[1:]}.\n\n")
        out.append(
            "Only the frames soulscope advanced keep what the brain was given (frames/N/AGENT.json).",
            style="dim",
        )
        return visible(out)
    model = f" · model {found['model']}" if found.get("model") else ""
    out.append(f"{found.get('brain')} brain{model}", style="bold")
    out.append(f"  ({found.get('log')})\n")
    if found.get("tokens"):
        out.append("tokens: " + ", ".join(f"{k} {v}" for k, v in found["tokens"].items()) + "\n")
    if found.get("error"):
        out.append(f"No usable answer: {found['error']}\n", style="bold yellow")
    if found.get("soul"):
        _soul(out, found["soul"])
    for kind, items in (found.get("community") or {}).items():
        out.append(f"\n{len(items)} {COMMUNITY.get(kind, kind)}\n", style="bold")
        for item in items:
            out.append(_item(item))
    for message in found.get("messages") or []:
        out.append(f"\n── prompt: {message.get('role')} ──\n", style="bold cyan")
        out.append(f"{message.get('content', '')}\n")
    if found.get("answer"):
        out.append("\n── answer ──\n", style="bold cyan")
        out.append(f"{found['answer']}\n")
    elif not found.get("messages"):
        out.append("\nNo prompt: this brain reads the soul and the feed without an LLM.\n", "dim")
    return visible(out)


class ContextScreen(Dialog[None]):
    """What ``agent_id``'s brain saw in frame ``frame`` (a frame number; None: it has none)."""

    BINDINGS = bindings("context")  # keys, palette and help: soulscope/tui/actions.py

    def __init__(self, agent_id: str, frame: int | None, heading: str | None = None) -> None:
        super().__init__(id="context")
        self.agent_id = agent_id
        self.frame = frame
        self.heading = heading

    def compose(self) -> ComposeResult:
        where = self.heading or (f"frame {self.frame}" if self.frame is not None else "a frame")
        with Vertical(classes="dialog"):
            yield Static(
                visible(Text(f"What {self.agent_id} saw · {where}  (j/k scroll · esc)")),
                classes="dialog-title",
            )
            with VerticalScroll(id="context-scroll"):
                yield Static(Text("reading the frame log…", style="dim"), id="context-body")

    def on_mount(self) -> None:
        self.query_one("#context-scroll").focus()
        self.load()

    @work(thread=True, exclusive=True, group="context", exit_on_error=False)
    def load(self) -> None:
        self.post_message(ContextRead(seen(self.dashboard.world, self.agent_id, self.frame)))

    def on_context_read(self, message: ContextRead) -> None:
        self.query_one("#context-body", Static).update(context_text(message.found))

    def action_scroll(self, direction: str) -> None:
        scroll = self.query_one("#context-scroll", VerticalScroll)
        step = 1 if direction == "down" else -1
        scroll.scroll_to(y=scroll.scroll_target_y + step, animate=False, immediate=True)
