"""Streaming a long answer into the Chat tab: how long a key press waits meanwhile, and how long the
answer takes to show once its last word came; one ``Markdown`` (before) against
``StreamedMarkdown`` (the Chat tab's), both through ``PacedStream``, in the same run, headless.

The answer comes word by word at ``--rate`` words a second, in paragraphs of ten words (as answers
come) or as one paragraph. Every ``--probe`` seconds a key is pressed in the input under the
answer (posted to the app as the terminal's driver posts it), and the time until the input has
it is its lag. One ``Markdown`` lays out all of its blocks again on every draw, so its lag grows
with the answer; ``StreamedMarkdown`` lays out the last few blocks only.

Then the cost of one draw by how far the answer got: 20 words appended at a time, CPU from the append
to the screen laid out and painted, the median over each stretch of 1,000 words.

Run: .venv/bin/python bench/chatstream.py [--words 2000,6000] [--rate 200] [--shapes paragraphs]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from textual import events  # noqa: E402
from textual.app import App, ComposeResult  # noqa: E402
from textual.containers import VerticalScroll  # noqa: E402
from textual.widgets import Input, Markdown, Static  # noqa: E402

from soulscope.tui.widgets.paced_stream import PacedStream  # noqa: E402
from soulscope.tui.widgets.streamed_markdown import StreamedMarkdown  # noqa: E402


class Chat(App[None]):
    """The Chat tab's shape: a question and its answer in a scrolled log, the input under it."""

    def __init__(self, segmented: bool) -> None:
        super().__init__()
        self.segmented = segmented
        self.typed = asyncio.Event()

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Static("› a long question", markup=False)
            yield StreamedMarkdown() if self.segmented else Markdown("")
        yield Input()

    def on_input_changed(self) -> None:
        self.typed.set()


@dataclass
class Run:
    lags: list[float]  # seconds from a key press to the input having it
    shown: float  # seconds from the last word to the whole answer shown
    cpu: float  # CPU seconds of the whole run


def words_of(n: int, paragraphs: bool) -> list[str]:
    return [f"w{i}" + ("\n\n" if paragraphs and i % 10 == 9 else " ") for i in range(n)]


async def probe(app: Chat, every: float, lags: list[float], done: asyncio.Event) -> None:
    while not done.is_set():
        await asyncio.sleep(every)
        app.typed.clear()
        start = time.perf_counter()
        app.post_message(events.Key("x", "x"))
        await app.typed.wait()
        lags.append(time.perf_counter() - start)


async def stream(words: list[str], rate: float, every: float, segmented: bool) -> Run:
    app = Chat(segmented)
    async with app.run_test(size=(110, 32)) as pilot:
        view = app.query_one(StreamedMarkdown if segmented else Markdown)
        app.query_one(Input).focus()
        await pilot.pause()
        out = PacedStream(view)
        lags: list[float] = []
        done = asyncio.Event()
        prober = asyncio.create_task(probe(app, every, lags, done))
        cpu = time.process_time()
        start = time.perf_counter()
        for i, word in enumerate(words):
            await out.write(word)
            await asyncio.sleep(max(0.0, start + (i + 1) / rate - time.perf_counter()))
        last = time.perf_counter()
        done.set()
        await out.stop()
        await pilot.pause()
        shown = time.perf_counter() - last
        cpu = time.process_time() - cpu
        await prober
        assert view.source == "".join(words)
        return Run(lags, shown, cpu)


async def draws(words: list[str], segmented: bool) -> dict[int, float]:
    """Median CPU seconds of a draw after 20 more words, by the 1,000 words they fall in."""
    app = Chat(segmented)
    costs: dict[int, list[float]] = {}
    async with app.run_test(size=(110, 32)) as pilot:
        view = app.query_one(StreamedMarkdown if segmented else Markdown)
        await pilot.pause()
        for at in range(0, len(words), 20):
            cpu = time.process_time()
            await view.append("".join(words[at : at + 20]))
            await asyncio.sleep(0.05)  # the screen's next layout and paint
            costs.setdefault(at // 1000, []).append(time.process_time() - cpu)
    return {k: statistics.median(v) for k, v in costs.items()}


def ms(seconds: float) -> str:
    return f"{seconds * 1000:,.0f}"


def row(label: str, run: Run) -> str:
    lags = sorted(run.lags)
    p95 = lags[int(0.95 * (len(lags) - 1))]
    return (
        f"{label:<48}{ms(statistics.median(lags)):>9}{ms(p95):>9}{ms(lags[-1]):>9}"
        f"{ms(run.shown):>11}{run.cpu:>8.1f}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--words", default="2000,6000")
    parser.add_argument("--rate", type=float, default=200.0, help="words a second")
    parser.add_argument("--probe", type=float, default=0.25, help="seconds between key presses")
    parser.add_argument("--shapes", default="paragraphs", help="paragraphs,one")
    args = parser.parse_args()
    print(f"{args.rate:g} words/s; key lag in ms; shown: ms from the last word to all of it shown")
    print(f"{'answer, view':<48}{'lag p50':>9}{'p95':>9}{'max':>9}{'shown':>11}{'CPU s':>8}")
    for n in (int(x) for x in args.words.split(",")):
        for shape in args.shapes.split(","):
            words = words_of(n, shape == "paragraphs")
            what = f"{n:,} words, " + (
                "paragraphs of 10" if shape == "paragraphs" else "one paragraph"
            )
            for segmented in (False, True):
                run = asyncio.run(stream(words, args.rate, args.probe, segmented))
                view = "StreamedMarkdown" if segmented else "Markdown"
                print(row(f"{what}, {view}", run), flush=True)
    n = max(int(x) for x in args.words.split(","))
    words = words_of(n, True)
    print(f"\nCPU ms of a draw after 20 more words, median, by words already streamed ({n:,})")
    stretches = [f"{k:,}-{k + 1:,}k" for k in range((n + 999) // 1000)]
    print(f"{'view':<18}" + "".join(f"{s:>10}" for s in stretches))
    for segmented in (False, True):
        cost = asyncio.run(draws(words, segmented))
        view = "StreamedMarkdown" if segmented else "Markdown"
        print(f"{view:<18}" + "".join(f"{ms(cost[k]):>10}" for k in sorted(cost)), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
