"""Parsed souls kept in memory, keyed by file identity, so switching back to an agent is instant."""

from __future__ import annotations

import os
import threading
from collections import OrderedDict

from soulscope.soul.model import Soul
from soulscope.soul.trajectory import ArcSummary, Statement, arc, summarize
from soulscope.world import World, WorldError

# A soul holds its text a few times over (source, blocks, display strings); 512 of the largest
# real files (90 KB) stay well under a gigabyte, and worlds beyond that evict the oldest.
MAX_SOULS = 512
# Arcs kept for the most recently shown souls (a 20 MB soul's arc holds tens of thousands of rows).
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
        self._souls: OrderedDict[str, tuple[tuple[int, int], Soul, ArcSummary]] = OrderedDict()
        self._arcs: OrderedDict[str, tuple[Soul, list[Statement]]] = OrderedDict()

    def _stamp(self, agent_id: str) -> tuple[int, int]:
        path = self.world.soul_path(agent_id)
        try:
            st = os.stat(path)
        except OSError as exc:
            raise WorldError(f"cannot read {path}: {exc.strerror}") from exc
        return st.st_mtime_ns, st.st_size

    def cached(self, agent_id: str, with_arc: bool = False) -> Soul | None:
        """The soul if it is parsed and its file unchanged (``with_arc``: and its arc computed);
        never parses (cheap, UI thread)."""
        with self._lock:
            entry = self._souls.get(agent_id)
            arc_of = self._arcs.get(agent_id)
        if entry is None or (with_arc and (arc_of is None or arc_of[0] is not entry[1])):
            return None
        try:
            stamp = self._stamp(agent_id)
        except WorldError:
            return None
        return entry[1] if entry[0] == stamp else None

    def load(self, agent_id: str) -> tuple[Soul, ArcSummary]:
        """The parsed soul and its arc summary, parsing the file when it is new or changed.

        Raises ``WorldError`` (one sentence) when the file cannot be read.
        """
        stamp = self._stamp(agent_id)
        with self._lock:
            entry = self._souls.get(agent_id)
            if entry is not None and entry[0] == stamp:
                self._souls.move_to_end(agent_id)
                return entry[1], entry[2]
        soul = self.world.read(agent_id)
        summary = summarize(agent_id, soul, self.label)
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

    def arc(self, agent_id: str, soul: Soul) -> list[Statement]:
        """The arc of ``soul`` (``agent_id``'s), computed once per parsed version: the worker that
        loads a soul computes it, so that the Becoming tab never does on the UI thread."""
        with self._lock:
            got = self._arcs.get(agent_id)
        if got is not None and got[0] is soul:
            return got[1]
        statements = arc(soul, self.label)
        with self._lock:
            self._arcs[agent_id] = (soul, statements)
            self._arcs.move_to_end(agent_id)
            while len(self._arcs) > MAX_ARCS:
                self._arcs.popitem(last=False)
        return statements
