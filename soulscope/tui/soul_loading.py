"""Loading the selected agent's soul for the dashboard, in a thread worker: a small file through
the cache of parsed souls, a big one (``EARLY_TEXT_BYTES`` and more) in a process of its own
(``soulscope/tui/loader.py``) whose text is shown first, so that the UI thread keeps the
interpreter while it loads. What is loaded comes back to the app as messages (``SoulTextRead``,
``SoulLoaded``, ``SoulFailed``)."""

from __future__ import annotations

from array import array
from pathlib import Path
from time import perf_counter
from typing import TYPE_CHECKING

from textual.worker import get_current_worker

from soulscope.soul.model import Soul, clean, decoded_pieces
from soulscope.soul.pieces import ArcPieces, SoulPieces
from soulscope.soul.trajectory import ArcSummary
from soulscope.tui.actions import BY_ID
from soulscope.tui.file_lines import FileLines
from soulscope.tui.loader import LoadError, SoulLoader
from soulscope.tui.messages import SoulFailed, SoulLoaded, SoulTextRead
from soulscope.tui.widgets.soul_text import LongLines, display_lines
from soulscope.world import WorldError

if TYPE_CHECKING:
    from soulscope.tui.app import SoulscopeApp

# A file at least this big is shown as text while it is parsed (parsing 20 MB takes seconds).
EARLY_TEXT_BYTES = 1_000_000

# Reads of a big file that changed while it was read, before the dashboard says so.
READ_TRIES = 3


# What a big soul's process sent: the soul's pieces, its arc's, its summary, its lines as shown,
# and the kind of the last message ("done" when it finished).
Received = tuple[SoulPieces, ArcPieces, ArcSummary | None, tuple[FileLines, LongLines] | None, str]


def _array(data: bytes) -> array:
    """The ints (``array("q")``) that ``data`` holds."""
    numbers = array("q")
    numbers.frombytes(data)
    return numbers


class SoulLoading:
    """The app's loads of souls: ``load`` runs in a worker; ``stop`` ends a big soul's process."""

    def __init__(self, app: SoulscopeApp) -> None:
        self.app = app
        self._loaders: set[SoulLoader] = set()  # the processes parsing big souls (one, mostly)

    def stop(self) -> None:
        """End the process parsing the soul chosen before, if it still runs."""
        for loader in list(self._loaders):
            loader.close()

    def load(self, agent_id: str, width: int = -1) -> None:
        """Parse ``agent_id``'s soul (in a thread worker); a big file in a process of its own
        (``_load_big``), its text shown first (its long lines found for about the Soul view's
        ``width``)."""
        app = self.app
        started = perf_counter()
        try:
            listed = app.world.agent(agent_id)
            if listed.size >= EARLY_TEXT_BYTES:
                # The collector's full passes walk every object the app holds, on whichever
                # thread allocates, and the UI waits for them: while a big soul loads, they walk
                # only what is new (the app's objects, alive as long as it runs, are set aside).
                app.heap.set_aside()
                self._load_big(agent_id, listed.path, width, started)
                return
            soul, summary = app.cache.load(agent_id)
        except WorldError as exc:
            app.post_message(SoulFailed(agent_id, str(exc)))
            return
        # Ready before the UI asks: the Soul tab's text and the Becoming tab's arc.
        soul.display_text  # noqa: B018
        app.cache.arc(agent_id, soul)
        app.post_message(SoulLoaded(agent_id, soul, summary, perf_counter() - started))

    def _read_whole(
        self, agent_id: str, path: Path
    ) -> tuple[bytes, tuple[int, ...], tuple[Soul, ArcSummary] | None]:
        """The file's bytes as one version of it (a frame may be landing: read it again), its
        stamp, and its parse when the world's worker already made it."""
        cache = self.app.cache
        for _ in range(READ_TRIES):
            stamp = cache.stamp(agent_id)
            parsed = cache.parsed(agent_id, stamp)  # (the world's worker may have parsed it)
            if parsed is not None:
                return parsed[0].data, stamp, parsed
            try:
                data = path.read_bytes()
            except OSError as exc:
                raise WorldError(f"cannot read {path}: {exc.strerror}") from exc
            if len(data) == stamp[1] and cache.stamp(agent_id) == stamp:
                return data, stamp, None
        keys = " or ".join(self.app.keys_of(BY_ID["app.reload"]))
        raise WorldError(f"{path} kept changing while it was read; {keys} reads it again.")

    def _load_big(self, agent_id: str, path: Path, width: int, started: float) -> None:
        """Show a big file's text at once, and parse it (and find its arc, and cut its lines) in
        a process of its own: a thread would share the interpreter with the UI, whose every turn
        then waits behind it. Only what the UI needs comes back, in pieces cheap to receive."""
        app = self.app
        data, stamp, parsed = self._read_whole(agent_id, path)
        # Its beginning, where the view opens, while the whole file is cut into lines.
        first = next(decoded_pieces(data), "")
        if len(first) < len(data):
            app.post_message(SoulTextRead(agent_id, display_lines([clean(first)])))
        length = max(width // 2 - 8, 20)  # lines that wrap a little narrower than now, or more
        worker = get_current_worker()
        try:
            loader = SoulLoader(data, agent_id, app.arc_label, length, send_soul=parsed is None)
        except OSError as exc:
            raise WorldError(f"{path} could not be parsed: {exc.strerror}") from exc
        self._loaders.add(loader)
        if worker.is_cancelled:  # (another agent was chosen meanwhile)
            loader.close()
        try:
            got = self._receive(loader, agent_id, data)
        except LoadError as exc:
            raise WorldError(f"{path} could not be parsed: {exc}") from exc
        finally:
            self._loaders.discard(loader)
        pieces, arc, summary, shown, kind = got
        if worker.is_cancelled or kind != "done":
            return
        if parsed is None:
            if summary is None:
                raise WorldError(f"{path} could not be parsed: its summary never came back")
            parsed = app.cache.keep(agent_id, stamp, pieces.soul(), summary)
        soul, summary = parsed
        app.cache.keep_arc(agent_id, soul, arc.arc(soul.frames.columns), shown)
        app.heap.set_aside()  # and its arc's tens of thousands of strings, from now on
        app.post_message(SoulLoaded(agent_id, soul, summary, perf_counter() - started))

    def _receive(self, loader: SoulLoader, agent_id: str, data: bytes) -> Received:
        """What the loading process sends, as it comes: the lines are shown at once, the soul,
        its arc and its summary gathered (the last kind received is "done" when it finished)."""
        worker = get_current_worker()
        pieces, arc, summary, shown, kind = SoulPieces(data), ArcPieces(), None, None, ""
        for kind, value in loader.messages():
            if worker.is_cancelled:
                loader.close()
            elif kind == "lines":
                bounds, length, indices, lengths, plain = value
                shown = (
                    FileLines(data, _array(bounds)),
                    LongLines(length, _array(indices), _array(lengths), plain),
                )
                self.app.post_message(SoulTextRead(agent_id, *shown))
            elif kind == "arc":
                arc.add(value)
            elif kind == "summary":
                summary = value
            elif kind != "done":
                pieces.add(kind, value)
        return pieces, arc, summary, shown, kind
