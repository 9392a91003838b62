"""The Chat tab's answer stream: every word shows, in order, however soon the answer ends."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import Markdown

from soulscope.tui.widgets.paced_stream import PacedStream


class Answer(App[None]):
    def compose(self) -> ComposeResult:
        yield Markdown("")


async def test_every_fragment_shows_in_order() -> None:
    app = Answer()
    async with app.run_test() as pilot:
        view = app.query_one(Markdown)
        stream = PacedStream(view, interval=0.05)
        words = [f"w{i}" + ("\n\n" if i % 7 == 6 else " ") for i in range(300)]
        for word in words:
            await stream.write(word)
        await stream.stop()
        await pilot.pause()
        assert view.source == "".join(words)


async def test_an_answer_stopped_at_once_is_not_lost() -> None:
    """A whole answer written in one piece and stopped at once (the offline answer) shows."""
    app = Answer()
    async with app.run_test() as pilot:
        view = app.query_one(Markdown)
        stream = PacedStream(view, interval=10)
        await stream.write("Offline mode: the **evidence**.")
        await stream.write(" And more.")
        await stream.stop()
        await pilot.pause()
        assert view.source == "Offline mode: the **evidence**. And more."
