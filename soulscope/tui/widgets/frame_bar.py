"""Advancing the world from the dashboard: frames run in a thread worker, progress in one line.

The bar is hidden while idle. ``advance(steps)`` starts the worker; each frame that lands posts
``FrameLanded`` and the app reads the world again, so the Soul, Becoming and World views show the
new frame while the next one runs.
"""

from __future__ import annotations

from pathlib import Path
from time import monotonic

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import ProgressBar
from textual.worker import get_current_worker

from soulscope.tui.messages import FrameLanded, FrameProgress, FramesFinished
from soulscope.tui.widgets.status_line import StatusLine
from soulscope.world import WorldError

PROGRESS_INTERVAL = 0.1  # seconds between progress messages from the worker


class FrameBar(Horizontal):
    """One line at the bottom: which frame runs, how far its agents are."""

    def __init__(self) -> None:
        super().__init__(id="frame-bar")
        self.steps = 0

    def compose(self) -> ComposeResult:
        yield StatusLine(id="frame-status")
        yield ProgressBar(id="frame-progress", show_eta=False)

    @property
    def running(self) -> bool:
        return self.has_class("running")

    def advance(self, root: Path, steps: int) -> bool:
        """Run ``steps`` frames on the world at ``root``; False when frames are already running."""
        if self.running:
            return False
        self.steps = steps
        self.add_class("running")
        self._show(Text(f"frame 1 of {steps}: starting"), 0, None)
        self.run_frames(root, steps)
        return True

    def stop(self) -> None:
        """Stop after the frame that is running (a frame is never cut in half)."""
        for worker in self.workers:
            if worker.group == "frames":
                worker.cancel()

    @work(thread=True, exclusive=True, group="frames", exit_on_error=False)
    def run_frames(self, root: Path, steps: int) -> None:
        from soulscope.sim.frame import FrameInterrupted, FrameRunner

        worker = get_current_worker()
        settings = self.app.settings
        if settings.llm_configured:
            from soulscope.sim.llm import LlmBrain

            brain = LlmBrain(settings)
        else:
            from soulscope.sim.offline import OfflineBrain

            brain = OfflineBrain()
        done = 0
        last = 0.0

        def progress(what: str, n: int, total: int) -> None:
            nonlocal last
            if monotonic() - last >= PROGRESS_INTERVAL or n == total:
                last = monotonic()
                self.post_message(FrameProgress(done + 1, steps, what, n, total))

        error = None
        try:
            # The runner gets the path, not the app's World: it refreshes its own listing.
            with FrameRunner(root, brain) as runner:
                for _ in range(steps):
                    if worker.is_cancelled:
                        break
                    result = runner.step(progress=progress)
                    done += 1
                    self.post_message(FrameLanded(result, done, steps, brain.name))
        except (WorldError, OSError, FrameInterrupted) as exc:
            error = str(exc)
        except Exception as exc:  # noqa: BLE001 (a failure the bar must show, never swallow)
            error = f"the frame failed unexpectedly ({type(exc).__name__}: {exc})"
        finally:
            # Posted whatever happened, so the bar never stays "running" after a failure.
            self.post_message(FramesFinished(done, steps, error))

    def _show(self, text: Text, done: int, total: int | None) -> None:
        self.query_one("#frame-status", StatusLine).show(text)
        self.query_one("#frame-progress", ProgressBar).update(total=total, progress=done)

    def on_frame_progress(self, message: FrameProgress) -> None:
        self._show(
            Text(f"frame {message.step} of {message.steps}: {message.what}"),
            message.done,
            message.total,
        )

    def on_frames_finished(self, message: FramesFinished) -> None:
        self.remove_class("running")
