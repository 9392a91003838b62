"""The Chat tab's answer view: a streamed answer shows as one Markdown shows it, and a long one is
laid out near the view only."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Markdown
from textual.widgets.markdown import MarkdownBlock

from soulscope.tui.widgets import streamed_markdown
from soulscope.tui.widgets.streamed_markdown import StreamedMarkdown


def mixed_answer(sections: int) -> str:
    """An answer with every kind of block, in forms that run over blank lines (a list item's
    second paragraph, a fence with a blank line inside), unicode and markup-like text."""
    parts = []
    for i in range(sections):
        parts += [
            f"## Part {i}: the *index* guide [bold]not markup[/bold]",
            f"Paragraph {i} with **bold**, `code` and a [link](https://example.org/{i}).\n"
            "A soft break, and Zoë’s “quotes”.",
            f"- item {i}a\n- item {i}b\n\n  its second paragraph",
            "1. first\n2. second",
            "```python\ndef f():\n\n    return '[red]x[/red]'\n```",
            f"> quoted {i}",
            "| a | b |\n|---|---|\n| 1 | 2 |",
            f"Closing paragraph {i}, then a rule.",
            "---",
            "Text right under a rule.",
        ]
    return "\n\n".join(parts) + "\n"


class Doc(App[None]):
    def __init__(self, whole: str | None = None) -> None:
        super().__init__()
        self.whole = whole

    def compose(self) -> ComposeResult:
        yield Markdown(self.whole) if self.whole is not None else StreamedMarkdown()


async def screenshots(text: str, streamed: bool) -> list[str]:
    """The document at 90 columns, then at 50, shown by one Markdown or streamed."""
    app = Doc(None if streamed else text)
    shots = []
    async with app.run_test(size=(90, 90)) as pilot:
        if streamed:
            view = app.query_one(StreamedMarkdown)
            for at in range(0, len(text), 53):  # pieces that cut through words and markup
                await view.append(text[at : at + 53])
            assert view.source == text
            assert len(view.segments) > 4
        await pilot.pause()
        shots.append(app.export_screenshot())
        await pilot.resize_terminal(50, 90)  # every segment wraps anew
        await pilot.pause()
        shots.append(app.export_screenshot())
    return shots


async def test_a_streamed_answer_shows_as_one_markdown_shows_it(monkeypatch) -> None:
    monkeypatch.setattr(streamed_markdown, "SEGMENT_BLOCKS", 3)  # a segment every few blocks
    text = mixed_answer(2)
    whole = await screenshots(text, streamed=False)
    for shot in whole:  # all of it in view
        assert shot.replace("&#160;", " ").count("Text right under a rule.") == 2
    assert await screenshots(text, streamed=True) == whole


class Chat(App[None]):
    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield StreamedMarkdown()


def laid_out(view: StreamedMarkdown) -> list[MarkdownBlock]:
    return [b for b in view.query(MarkdownBlock) if b.display and b.parent in view.segments]


async def test_a_long_answer_is_laid_out_near_the_view_only(monkeypatch) -> None:
    monkeypatch.setattr(streamed_markdown, "SEGMENT_BLOCKS", 4)
    paragraphs = [f"Paragraph {i} " + " ".join(f"w{i}.{k}" for k in range(10)) for i in range(80)]
    app = Chat()
    async with app.run_test(size=(80, 12)) as pilot:
        view = app.query_one(StreamedMarkdown)
        for i in range(0, 80, 4):
            await view.append("".join(p + "\n\n" for p in paragraphs[i : i + 4]))
        await pilot.pause()
        assert view.source == "".join(p + "\n\n" for p in paragraphs)
        near = laid_out(view)
        assert len(near) <= 20, len(near)  # (one Markdown lays out all 80 blocks on every draw)
        assert str(near[0]._content).startswith("Paragraph 0 ") and near[0].region.y == 0
        scroller = app.query_one(VerticalScroll)
        scroller.scroll_end(animate=False)
        await pilot.pause()
        near = laid_out(view)
        assert len(near) <= 20, len(near)
        assert str(near[-1]._content).startswith("Paragraph 79 ")
        assert "Paragraph 79 " in screen(app) and "Paragraph 0 " not in screen(app)
        scroller.scroll_home(animate=False)
        await pilot.pause()
        assert str(laid_out(view)[0]._content).startswith("Paragraph 0 ")
        assert "Paragraph 0 " in screen(app)


def screen(app: App[None]) -> str:
    return app.export_screenshot().replace("&#160;", " ")
