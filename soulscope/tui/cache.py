"""Parsed souls kept in memory, keyed by file identity, so switching back to an agent is instant."""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from typing import TYPE_CHECKING

from soulscope.soul.model import Soul
from soulscope.soul.trajectory import Arc, ArcSummary, arc, summarize
from soulscope.world import World, WorldError

if TYPE_CHECKING:
    from soulscope.tui.file_lines import FileLines
    from soulscope.tui.widgets.soul_text import LongLines

    Shown = tuple[FileLines, LongLines]

# A soul holds its text a few times over (source, blocks, display strings); 512 of the largest
# real files (90 KB) stay well under a gigabyte, and worlds beyond that evict the oldest.
MAX_SOULS = 512
# Arcs kept for the most recently shown souls (a 20 MB soul's arc holds tens of thousands of rows),
# with a big soul's lines as its Soul view shows them.
MAX_ARCS = 8


class SoulCache:
    """Thread-safe: workers fill it, the UI thread reads it.

    An entry is valid while the file's path, mtime and size are unchanged, so an agent whose file
    grew (a new frame appended) is parsed again the next time it is asked for.
    """

    def __init__(self, world: World, label: str | None = None, max_souls: int = MAX_SOULS) -> None:
        self.world = world
        self.label = label  # the arc label (None: Becoming, else Evolving position)
        self.max_souls = max_souls
        self._lock = threading.Lock()
        self._souls: OrderedDict[str, tuple[tuple[int, ...], Soul, ArcSummary]] = OrderedDict()
        self._arcs: OrderedDict[str, tuple[Soul, Arc, Shown | None]] = OrderedDict()

    def stamp(self, agent_id: str) -> tuple[int, ...]:
        """What tells one version of ``agent_id``'s file from another (its stat); raises
        ``WorldError`` (one sentence) when the file cannot be read."""
        path = self.world.soul_path(agent_id)
        try:
            st = os.stat(path)
        except OSError as exc:
            raise WorldError(f"cannot read {path}: {exc.strerror}") from exc
        # (the change time and inode too: an edit of the same size whose mtime was put back)
        return st.st_mtime_ns, st.st_size, st.st_ctime_ns, st.st_ino

    def cached(self, agent_id: str, with_arc: bool = False) -> Soul | None:
        """The soul if it is parsed and its file unchanged (``with_arc``: and its arc computed);
        never parses (cheap, UI thread)."""
        with self._lock:
            entry = self._souls.get(agent_id)
            arc_of = self._arcs.get(agent_id)
        if entry is None or (with_arc and (arc_of is None or arc_of[0] is not entry[1])):
            return None
        try:
            stamp = self.stamp(agent_id)
        except WorldError:
            return None
        return entry[1] if entry[0] == stamp else None

    def load(self, agent_id: str) -> tuple[Soul, ArcSummary]:
        """The parsed soul and its arc summary, parsing the file when it is new or changed.

        Raises ``WorldError`` (one sentence) when the file cannot be read.
        """
        stamp = self.stamp(agent_id)
        got = self.parsed(agent_id, stamp)
        if got is not None:
            return got
        soul = self.world.read(agent_id)
        return self.keep(agent_id, stamp, soul, summarize(agent_id, soul, self.label))

    def parsed(self, agent_id: str, stamp: tuple[int, ...]) -> tuple[Soul, ArcSummary] | None:
        """The soul and summary of that version of the file, if it is parsed; never parses."""
        with self._lock:
            entry = self._souls.get(agent_id)
            if entry is None or entry[0] != stamp:
                return None
            self._souls.move_to_end(agent_id)
            return entry[1], entry[2]

    def keep(
        self, agent_id: str, stamp: tuple[int, ...], soul: Soul, summary: ArcSummary
    ) -> tuple[Soul, ArcSummary]:
        """Keep a soul parsed from the version ``stamp`` of the file; what is kept is returned."""
        with self._lock:
            entry = self._souls.get(agent_id)
            if entry is not None and entry[0] == stamp:
                # Another thread parsed the same file meanwhile: keep one Soul per file version,
                # so that the app and its panes agree on which object is current.
                return entry[1], entry[2]
            self._souls[agent_id] = (stamp, soul, summary)
            self._souls.move_to_end(agent_id)
            while len(self._souls) > self.max_souls:
                self._souls.popitem(last=False)
        return soul, summary

    def arc(self, agent_id: str, soul: Soul) -> Arc:
        """The arc of ``soul`` (``agent_id``'s), computed once per parsed version: the worker that
        loads a soul computes it, so that the Becoming tab never does on the UI thread."""
        with self._lock:
            got = self._arcs.get(agent_id)
        if got is not None and got[0] is soul:
            return got[1]
        statements = arc(soul, self.label)
        self.keep_arc(agent_id, soul, statements)
        return statements

    def keep_arc(
        self, agent_id: str, soul: Soul, statements: Arc, shown: Shown | None = None
    ) -> None:
        """Keep the arc of ``soul`` (computed elsewhere), and the lines its Soul view shows."""
        with self._lock:
            self._arcs[agent_id] = (soul, statements, shown)
            self._arcs.move_to_end(agent_id)
            while len(self._arcs) > MAX_ARCS:
                self._arcs.popitem(last=False)

    def shown(self, agent_id: str, soul: Soul) -> Shown | None:
        """The lines of a big ``soul`` as its Soul view shows them, and its long lines (None for
        a small soul: its view cuts its text)."""
        with self._lock:
            got = self._arcs.get(agent_id)
        return got[2] if got is not None and got[0] is soul else None
