"""Advancing the world from the dashboard: frames run in a thread worker, progress in one line.

The bar is hidden while idle. ``advance_world(steps)`` (the app's ``n`` and ``N``) checks the
world can be advanced and starts the worker; each frame that lands posts ``FrameLanded``, says
what the frame did and has the app read the world again, so the Soul, Becoming and World views
show the new frame while the next one runs.
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

from soulscope.sim.brain import Brain
from soulscope.sim.frame import frame_errors
from soulscope.tui.dialogs.prompt import PromptScreen
from soulscope.tui.finishing import finished_before_exit
from soulscope.tui.messages import FrameLanded, FrameProgress, FramesFinished
from soulscope.tui.reach import dashboard
from soulscope.tui.widgets.status_line import StatusLine
from soulscope.world import WorldError

PROGRESS_INTERVAL = 0.1  # seconds between progress messages from the worker
# The most frames one N may run (a typo of 100000 should not lock the world for hours).
MAX_FRAMES_AT_ONCE = 1000


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

    def advance_world(self, steps: int = 1) -> None:
        """Run ``steps`` frames on the dashboard's world, or say why it cannot be advanced."""
        app = dashboard(self)
        world = app.world
        if world.read_only:
            app.notify(
                f"{world.name} is the world as it was at a past commit, read-only; "
                "o in the History tab comes back to now.",
                severity="warning",
            )
        elif world.only is not None:
            app.notify("A single soul file has no world to advance.", severity="warning")
        elif not self.advance(world.root, steps):
            app.notify("Frames are already running; they land one at a time.")

    def ask_steps(self) -> None:
        """Ask how many frames to run, then run them."""
        app = dashboard(self)

        def go(answer: str | None) -> None:
            if answer is None:
                return
            if not answer.isdigit() or not 1 <= int(answer) <= MAX_FRAMES_AT_ONCE:
                app.notify(
                    f"Give a number of frames from 1 to {MAX_FRAMES_AT_ONCE}.",
                    severity="warning",
                )
                return
            self.advance_world(int(answer))

        app.push_screen(PromptScreen("Run how many frames?", "a number, e.g. 10"), go)

    def stop_frames(self) -> None:
        """The app's ``x``: frames stop once the one running has landed."""
        app = dashboard(self)
        if not self.running:
            app.notify("No frames are running.")
            return
        self.stop()
        app.notify("Frames stop once the one running has landed.")

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
        settings = dashboard(self).settings
        brain: Brain
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
            # Quitting meanwhile cancels this worker: it stops after the frame it is writing.
            with finished_before_exit(), FrameRunner(root, brain) as runner:
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

    def on_frame_landed(self, message: FrameLanded) -> None:
        app = dashboard(self)
        app.reload_world()
        result = message.result
        for note in result.notes:
            app.notify(f"{note[0].upper()}{note[1:]}.")
        errors = frame_errors(result)
        if errors:
            more = f"\n…and {len(errors) - 5} more" if len(errors) > 5 else ""
            app.notify("\n".join(errors[:5]) + more, severity="warning")
        if message.step == message.steps:
            lurked = len(result.errors) + len(result.skipped)
            note = f"; {lurked} agents lurked or sat out on errors" if lurked else ""
            app.notify(f"{result.message} ({message.brain} brain{note}).")

    def on_frames_finished(self, message: FramesFinished) -> None:
        self.remove_class("running")
        if message.error:
            ran = f" after {message.done} of {message.steps} frames" if message.done else ""
            dashboard(self).notify(f"Frames stopped{ran}: {message.error}", severity="error")
