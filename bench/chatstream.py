"""Streaming an answer into the Chat tab's Markdown: CPU to show an answer of N words as it
arrives, through ``PacedStream`` (the Chat tab's) against Textual's ``Markdown.get_stream``
(the baseline), in the same run, headless, words arriving as fast as they can.

The answer is one paragraph, or paragraphs of ten words (as answers come). A stream that redraws
on every word costs the square of the answer's length, and a UI that never stops redrawing
starves the keys a user presses meanwhile (Esc to cancel).

Run: .venv/bin/python bench/chatstream.py [--words 500,1000]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from textual.app import App, ComposeResult  # noqa: E402
from textual.containers import VerticalScroll  # noqa: E402
from textual.widgets import Markdown  # noqa: E402

from soulscope.tui.widgets.paced_stream import PacedStream  # noqa: E402


class Answer(App[None]):
    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Markdown("")


def words_of(n: int, paragraphs: bool) -> list[str]:
    words = [f"w{i}" + ("\n\n" if paragraphs and i % 10 == 9 else " ") for i in range(n)]
    return words


async def stream(words: list[str], paced: bool) -> float:
    """CPU seconds from the first word to the whole answer shown."""
    app = Answer()
    async with app.run_test(size=(100, 30)) as pilot:
        view = app.query_one(Markdown)
        out = PacedStream(view) if paced else Markdown.get_stream(view)
        start = time.process_time()
        for word in words:
            await out.write(word)
        await out.stop()
        await pilot.pause()
        assert view.source == "".join(words)
        return time.process_time() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--words", default="500,1000")
    args = parser.parse_args()
    print(f"{'answer':<28}{'Markdown.get_stream s':>24}{'PacedStream s':>16}{'x':>8}")
    for n in (int(x) for x in args.words.split(",")):
        for paragraphs in (False, True):
            words = words_of(n, paragraphs)
            base = asyncio.run(stream(words, paced=False))
            paced = asyncio.run(stream(words, paced=True))
            shape = f"{n} words, " + ("paragraphs of 10" if paragraphs else "one paragraph")
            print(f"{shape:<28}{base:>24.2f}{paced:>16.2f}{paced / base:>8.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
