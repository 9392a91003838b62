"""Who shapes whom: the influence graph of a world, from what its soul files say.

An arc ``B -> A`` means A's memory names B, each line read by ``history.links`` into a kind: a
credit (``Influenced by:``, "B forced this"), a reply, a comment on B's post, a relationship, a
mention, a vote. Its weight is how many units of A's memory in the window name B: a frame, or
outside frames a line (the header's History bullets, "— Replied to zion-curator-02 on #3436",
each one action, placed by its own date); its kinds count the units under each kind they name
B in. The window is the frames' own dates (``soul.when``: a frame without a date takes the one
its file places it after).

The measures are networkx's numbers, computed on arrays (``measures``): weighted PageRank (who
shapes the others), in- and out-strength, betweenness over hops (who bridges groups; sampled
above 2,000 agents with a fixed seed) and groups on the undirected weights (Louvain; above 2,000
agents fast label propagation, seeded). A backend networkx dispatches to (nx-cugraph) computes
them where it is installed.

Files are read as bytes and scanned for frame headings and names without being parsed: a world
of 10,000 agents is read as fast as its bytes allow, and a large one by a pool of worker
processes (``workers``), each file's tally taken back in order: the same graph as one process
reads.
"""

from __future__ import annotations

import json
import marshal
import math
import re
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import date as Date
from itertools import chain
from json.encoder import encode_basestring as _string
from typing import Any

import numpy as np

from soulscope import collector
from soulscope.controls import json_escaped
from soulscope.errors import SoulscopeError
from soulscope.history import measures
from soulscope.history.kinds import KINDS
from soulscope.history.names import AgentNames
from soulscope.memo import Memo
from soulscope.soul import when
from soulscope.soul.model import ENCODING_ERRORS
from soulscope.soul.parse import parse_heading, yearless_date
from soulscope.world import AgentFile, World

SAMPLED_BETWEENNESS = 2000  # above this many agents betweenness is estimated from SAMPLES
SAMPLES = 16
SEED = 7


class GraphError(SoulscopeError):
    """A window that cannot be read (a date that is not one): one sentence."""


@dataclass(slots=True)
class Arc:
    source: str  # the agent that shaped
    target: str  # the agent whose memory says so
    weight: int = 0  # frames that say so
    # frames that name it in each way, KINDS order (a frame may reply and credit: both count)
    counts: tuple[int, ...] = (0,) * len(KINDS)
    first: str | None = None  # the earliest date of those frames
    last: str | None = None
    # the line that says it most strongly: its kind, and where it is in the target's file (the
    # latest of that kind; 1-based)
    kind: str | None = None
    line: int | None = None

    @property
    def kinds(self) -> Counter[str]:
        """Frames per kind, the kinds that occur."""
        return Counter({k: n for k, n in zip(KINDS, self.counts, strict=True) if n})


@dataclass(frozen=True, slots=True)
class Node:
    agent: str
    present: bool  # the world holds its soul file
    pagerank: float
    influences: int  # out-strength: frames of others that name it
    influenced_by: int  # in-strength: its frames that name others
    betweenness: float
    group: int | None


class ArcTable:
    """The arcs as columns, in the order they were read (arc ``i``: ``source[i] -> target[i]``,
    of ``weight[i]``): what a graph of half a million arcs is measured and ranked from without an
    object per arc. The rest of each arc (its kinds' counts, dates, strongest kind and line) is
    kept as each file gave it, unpacked when an arc is asked for (``arc``, ``details``)."""

    __slots__ = ("source", "target", "_weights", "_weight", "_starts", "_details")

    def __init__(self) -> None:
        self.source: list[str] = []
        self.target: list[str] = []
        self._weights: list[Any] = []  # each file's weights
        self._weight: np.ndarray | None = None
        self._starts: list[int] = []  # where each file's arcs start
        self._details: list[Details | bytes] = []  # each file's, or its marshal bytes

    def __len__(self) -> int:
        return len(self.source)

    @classmethod
    def of(cls, arcs: Iterable[Arc]) -> ArcTable:
        """The table of ``arcs`` (a kept answer's, a test's)."""
        arcs = list(arcs)
        table = cls()
        if arcs:
            table._starts.append(0)
            table.source = [a.source for a in arcs]
            table.target = [a.target for a in arcs]
            table._weights.append([a.weight for a in arcs])
            table._details.append(
                (
                    [a.counts for a in arcs],
                    [a.first for a in arcs],
                    [a.last for a in arcs],
                    [a.kind for a in arcs],
                    [a.line for a in arcs],
                )
            )
        return table

    def add(self, target: str, who: list[str], weight: Any, details: Details | bytes) -> None:
        """A soul file's arcs into ``target``, after those added before."""
        if not len(who):
            return
        self._starts.append(len(self.source))
        self.source += who
        self.target += [target] * len(who)
        self._weights.append(weight)
        self._weight = None
        self._details.append(details)

    @property
    def weight(self) -> np.ndarray:
        if self._weight is None:
            chunks = [np.asarray(w, np.int64) for w in self._weights]
            self._weight = np.concatenate(chunks) if chunks else np.zeros(0, np.int64)
        return self._weight

    def _file(self, k: int) -> Details:
        found = self._details[k]
        if isinstance(found, bytes):
            found = self._details[k] = marshal.loads(found)
        return found  # type: ignore[return-value]

    def details(self) -> Details:
        """Every arc's counts, first and last dates, strongest kind and its line, as columns."""
        files = [self._file(k) for k in range(len(self._details))]
        return tuple(list(chain.from_iterable(f[c] for f in files)) for c in range(5))  # type: ignore[return-value]

    def arc(self, i: int) -> Arc:
        k = bisect_right(self._starts, i) - 1
        j = i - self._starts[k]
        counts, first, last, kind, line = self._file(k)
        w = int(self.weight[i])
        return Arc(
            self.source[i], self.target[i], w, counts[j], first[j], last[j], kind[j], line[j]
        )

    def arcs(self) -> dict[tuple[str, str], Arc]:
        return {(a.source, a.target): a for a in map(self.arc, range(len(self)))}

    def strongest(self, top: int | None = None) -> list[int]:
        """The arcs' places, the heaviest first, those of one weight by name (source, then
        target); the ``top`` first only, where given (found without sorting the rest)."""
        m = len(self)
        weight = self.weight
        if top is not None and top < m:  # the arcs as heavy as the top-th heaviest, or more
            at = np.flatnonzero(weight >= np.partition(weight, m - top)[m - top])
            sources = [self.source[i] for i in at.tolist()]
            targets = [self.target[i] for i in at.tolist()]
        else:
            at, sources, targets = np.arange(m), self.source, self.target
        rank = {x: i for i, x in enumerate(sorted({*sources, *targets}))}
        by_source = np.fromiter(map(rank.__getitem__, sources), np.int64, len(at))
        by_target = np.fromiter(map(rank.__getitem__, targets), np.int64, len(at))
        order = at[np.lexsort((by_target, by_source, -weight[at]))]
        return order[:top].tolist()


class Influence:
    """The influence graph of a world within a window of dates."""

    def __init__(
        self,
        world: str,
        since: str | None,
        until: str | None,
        arcs: dict[tuple[str, str], Arc] | ArcTable,
        nodes: dict[str, Node] | None = None,
        groups: list[list[str]] | None = None,
        frames: int = 0,  # frames read in the window
        agents: int = 0,  # soul files read
        unreadable: list[str] | None = None,  # files not read, one sentence each
    ) -> None:
        self.world, self.since, self.until = world, since, until
        self._arcs = arcs if isinstance(arcs, dict) else None
        self._table = arcs if isinstance(arcs, ArcTable) else None
        self.nodes: dict[str, Node] = nodes or {}
        self.groups: list[list[str]] = groups or []  # largest first, members by PageRank
        self.frames = frames
        self.agents = agents
        self.unreadable: list[str] = unreadable or []
        self._by_end: tuple[dict[str, list[Arc]], dict[str, list[Arc]]] | None = None

    @property
    def table(self) -> ArcTable:
        """The arcs as columns."""
        if self._table is None:
            self._table = ArcTable.of((self._arcs or {}).values())
        return self._table

    @property
    def arcs(self) -> dict[tuple[str, str], Arc]:
        """The arcs by (source, target), in the order they were read (made when first asked)."""
        if self._arcs is None:
            self._arcs = self.table.arcs()
        return self._arcs

    @property
    def summary(self) -> str:
        return _summary(
            len(self.table),
            len(self.nodes),
            self.since,
            self.until,
            self.frames,
            self.agents,
            len(self.groups),
        )

    def ranked(self) -> list[Node]:
        return sorted(self.nodes.values(), key=lambda n: (-n.pagerank, n.agent))

    def bridges(self) -> list[Node]:
        return sorted(self.nodes.values(), key=lambda n: (-n.betweenness, n.agent))

    def strongest(self, top: int | None = None) -> list[Arc]:
        """The arcs (or the ``top`` first), the heaviest first, those of one weight by name
        (source, then target)."""
        return list(map(self.table.arc, self.table.strongest(top)))

    def influencers(self, agent: str) -> list[Arc]:
        """The arcs into ``agent``: who shaped it, strongest first."""
        return sorted(self._ends()[0].get(agent, ()), key=lambda a: (-a.weight, a.source))

    def influenced(self, agent: str) -> list[Arc]:
        """The arcs out of ``agent``: whom it shaped, strongest first."""
        return sorted(self._ends()[1].get(agent, ()), key=lambda a: (-a.weight, a.target))

    def _ends(self) -> tuple[dict[str, list[Arc]], dict[str, list[Arc]]]:
        """The arcs by target and by source, gathered once (half a million at 10,000 agents:
        an agent's influences are asked as it is shown)."""
        if self._by_end is None:
            into: dict[str, list[Arc]] = {}
            out: dict[str, list[Arc]] = {}
            for a in self.arcs.values():
                into.setdefault(a.target, []).append(a)
                out.setdefault(a.source, []).append(a)
            self._by_end = (into, out)
        return self._by_end

    def networkx(self) -> Any:
        """The graph as a ``networkx.DiGraph`` (weights, kinds and measures as attributes)."""
        import networkx as nx

        g = nx.DiGraph(world=self.world)
        for n in self.nodes.values():
            g.add_node(
                n.agent,
                present=n.present,
                pagerank=n.pagerank,
                influences=n.influences,
                influenced_by=n.influenced_by,
                betweenness=n.betweenness,
                group=-1 if n.group is None else n.group,
            )
        for a in self.arcs.values():
            g.add_edge(
                a.source,
                a.target,
                weight=a.weight,
                first=a.first or "",
                last=a.last or "",
                kind=a.kind or "",
                line=-1 if a.line is None else a.line,
                **{k: a.kinds.get(k, 0) for k in KINDS},
            )
        return g


def _summary(
    arcs: int,
    nodes: int,
    since: str | None,
    until: str | None,
    frames: int,
    files: int,
    groups: int,
) -> str:
    window = f" from {since or 'the start'} to {until or 'the end'}" if since or until else ""
    return (
        f"{arcs} influence arcs among {nodes} agents{window} "
        f"({frames} frames of {files} soul files), {groups} groups"
    )


def summary(answer: dict) -> str:
    """``Influence.summary`` of a ``graph_dict`` (a kept ``graph --json`` answer)."""
    return _summary(
        len(answer["edges"]),
        len(answer["nodes"]),
        answer["since"],
        answer["until"],
        answer["frames"],
        answer["files"],
        len(answer["groups"]),
    )


def _day(value: str | None, name: str) -> str | None:
    if value is None:
        return None
    try:
        return Date.fromisoformat(value.strip()).isoformat()
    except ValueError as exc:
        raise GraphError(f"--{name} {value!r} is not a date (YYYY-MM-DD)") from exc


def influence(
    world: World,
    since: str | None = None,
    until: str | None = None,
    names: AgentNames | None = None,
    measures: bool = True,
    workers: int = 1,
) -> Influence:
    """The arcs of influence among ``world``'s agents in frames dated ``since``..``until``
    (inclusive), and the measures over them; the files read by up to ``workers`` processes
    (``PARALLEL_BYTES``)."""
    since, until = _day(since, "since"), _day(until, "until")
    if since and until and since > until:
        raise GraphError(f"--since {since} is after --until {until}")
    names = names or AgentNames.of(world, words=False)
    table = ArcTable()
    frames = files = 0
    present: set[str] = set()
    unreadable: list[str] = []
    with collector.paused():
        # (each file is one agent's: the files of a folder, one name each)
        for a, (counted, who, weight, details) in _tallies(
            world, names, (since, until), unreadable, workers
        ):
            files += 1
            frames += counted
            present.add(a.id)
            table.add(a.id, who, weight, details)
        g = Influence(
            world.name, since, until, table, frames=frames, agents=files, unreadable=unreadable
        )
        if measures:
            _measure(g, present)
    return g


# One file's arcs as ``_tally`` gives them, as columns: the agents it names, in order of first
# mention; each one's units (its weight); then (``Details``) its units per kind, first and last
# date, strongest kind and that kind's line.
Details = tuple[
    list[tuple[int, ...]], list[str | None], list[str | None], list[str | None], list[int | None]
]
Named = tuple[list[str], list[int], Details]
# ``_file_tally``: frames in the window, the agents named, their weights, their details (or the
# details' marshal bytes, as kept)
Tally = tuple[int, list[str], Any, Details | bytes]
Tallied = Iterator[tuple[AgentFile, Tally]]


def _tallies(
    world: World,
    names: AgentNames,
    window: tuple[str | None, str | None],
    unreadable: list[str],
    workers: int,
) -> Tallied:
    """Each soul file and its ``_file_tally``, in id order: of the whole file, kept between
    runs (``tallystore``); in a window, read."""
    if window == (None, None):
        yield from _kept_tallies(world, names, unreadable, workers)
    else:
        size = sum(a.size for a in world.agents())
        yield from _read_tallies(world.sources(unreadable), names, window, workers, size)


def _read_tallies(
    sources: Iterator[tuple[AgentFile, bytes]],
    names: AgentNames,
    window: tuple[str | None, str | None],
    workers: int,
    size: int = 0,
) -> Tallied:
    """``_file_tally`` of each file of ``sources`` (``size`` bytes in all), read here, or where
    they are many (``PARALLEL_BYTES``) by ``workers`` processes, a few files at a time in
    flight."""
    if workers > 1 and size >= PARALLEL_BYTES:
        yield from _parallel(sources, names, window, workers)
        return
    for a, data in sources:
        yield a, _file_tally(names, data, a.id, window)


def _kept_tallies(world: World, names: AgentNames, unreadable: list[str], workers: int) -> Tallied:
    """Each file's whole tally, kept or read (and then kept), in id order."""
    from soulscope.history.tallystore import TallyStore

    files = world.agents()
    with TallyStore(world) as store:
        store.know(names, files)  # (a file it cannot read is said below)
        kept = store.get(files)
        missing = [f for f in files if f.path.name not in kept]
        sources = world.sources(unreadable, missing)
        size = sum(f.size for f in missing)
        read = {
            f.path.name: t for f, t in _read_tallies(sources, names, (None, None), workers, size)
        }
        store.put((f, read[f.path.name]) for f in missing if f.path.name in read)
        if len(read) == len(missing):
            store.complete()
    for f in files:
        t = kept.get(f.path.name) or read.get(f.path.name)
        if t is not None:
            yield f, t


def prepare(
    world: World,
    workers: int = 1,
    starting: Callable[[int, int], object] | None = None,
    stop: Callable[[], bool] | None = None,
) -> int:
    """Read and keep the tallies of the files whose tallies are not kept (a world just indexed:
    its first graph then reads no soul file), kept a batch at a time (stopped, what was read
    stays kept); how many files were read. ``starting`` is told how many files and bytes there
    are to read, before they are read; ``stop`` is asked after each file whether to stop."""
    from soulscope.history.tallystore import TallyStore

    names = AgentNames.of(world, words=False)
    read = 0
    with collector.paused(), TallyStore(world) as store:
        store.know(names, world.agents())
        missing = store.missing(world.agents())
        unreadable: list[str] = []
        sources = world.sources(unreadable, missing)
        size = sum(f.size for f in missing)
        if starting is not None and missing:
            starting(len(missing), size)
        done: list[tuple[AgentFile, Tally]] = []
        stopped = False
        for f, t in _read_tallies(sources, names, (None, None), workers, size):
            done.append((f, t))
            if len(done) == _KEEP_BATCH:
                store.put(done)
                read, done = read + len(done), []
            if stop is not None and stop():
                stopped = True
                break
        store.put(done)
        if not unreadable and not stopped:
            store.complete()
    return read + len(done)


_KEEP_BATCH = 256  # files whose tallies are kept at once by ``prepare``


def _parallel(
    sources: Iterator[tuple[AgentFile, bytes]],
    names: AgentNames,
    window: tuple[str | None, str | None],
    workers: int,
) -> Tallied:
    """``_read_tallies`` by a pool of processes (started afresh, not forked: a dashboard's
    threads stay out of them), the files sent in batches, the results taken in order."""
    import multiprocessing
    from concurrent.futures import Future, ProcessPoolExecutor

    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(workers, context, _worker_start, (names, window)) as pool:
        pending: list[tuple[list[AgentFile], Future]] = []
        batch: list[tuple[AgentFile, bytes]] = []
        size = 0
        for a, data in chain(sources, [(None, b"")]):
            if a is not None:
                batch.append((a, data))
                size += len(data)
            if batch and (a is None or size >= _BATCH_BYTES):
                sent = [(f.id, d) for f, d in batch]
                with _deaf_children():  # (a submit may start a process)
                    future = pool.submit(_worker_tallies, sent)
                pending.append(([f for f, _ in batch], future))
                batch, size = [], 0
            while pending and (a is None or len(pending) > 2 * workers):
                files, future = pending.pop(0)
                yield from zip(files, future.result(), strict=True)


@contextmanager
def _deaf_children() -> Iterator[None]:
    """Processes started here never see Ctrl-C (they inherit SIGINT blocked, and Python leaves
    the mask as it is), not only once they have imported this module: a Ctrl-C while a worker
    starts is the parent's alone. Blocked here, not ignored: one that comes meanwhile is
    delivered once the block ends, never lost."""
    import signal

    if not hasattr(signal, "pthread_sigmask"):  # (not on every platform)
        yield
        return
    before = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


PARALLEL_BYTES = 16_000_000  # below this many bytes of soul files, one process reads them


def cores() -> int:
    """The processors this process may run on: how many read a large world's files."""
    import os

    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # (not on every platform)
        return os.cpu_count() or 1


_BATCH_BYTES = 2_000_000
_WORKER: dict[str, Any] = {}


def _worker_start(names: AgentNames, window: tuple[str | None, str | None]) -> None:
    import os
    import signal
    import threading

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    _WORKER["names"], _WORKER["window"] = names, window
    parent = os.getppid()
    threading.Thread(target=_orphaned, args=(parent,), daemon=True).start()


def _orphaned(parent: int) -> None:
    """A worker ends itself once its parent is gone (killed: nobody is left to end it)."""
    import os
    import time

    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(1)


def _worker_tallies(batch: list[tuple[str, bytes]]) -> list[Tally]:
    with collector.paused():
        return [_file_tally(_WORKER["names"], data, a, _WORKER["window"]) for a, data in batch]


def _file_tally(
    names: AgentNames, data: bytes, agent: str, window: tuple[str | None, str | None]
) -> Tally:
    """One soul file: how many of its frames are in the window, and ``_tally``'s arcs."""
    since, until = window
    starts, ends, dates = frame_dates(data)
    if since is None and until is None:
        inside = [True] * len(dates)
    else:
        inside = [
            d is not None and (not since or d >= since) and (not until or d <= until) for d in dates
        ]
    who, weight, details = _tally(names, data, agent, starts, ends, dates, inside, window)
    return sum(inside), who, weight, details


def _tally(
    names: AgentNames,
    data: bytes,
    target: str,
    starts: list[int],
    ends: list[int],
    dates: list[str | None],
    inside: list[bool],
    window: tuple[str | None, str | None] = (None, None),
) -> Named:
    """The agents a soul file names, in its frames in the window and in the lines outside
    frames (the header's History bullets, each placed by its own date), in order of first
    mention, each as its arc into the file's agent, in columns (``Named``): the units that name
    it, the units per kind in KINDS order, the first and last date, the strongest kind and the
    line that says it (the latest of that kind). A unit is a frame, or outside frames a line (a
    History bullet is one action); each counts once per agent, and once under each kind it
    names the agent in. (Counted in rows of [units, first date, last date, the last unit
    counted, then units per kind, then the last unit counted under each kind, then the
    strongest kind and its place].)"""
    from soulscope.history.links import read  # (a graph of kept tallies never loads it)

    rows: dict[str, list] = {}
    units = _Units(data, starts, ends, dates, inside, window)
    for at, who, kind in chain.from_iterable(
        read(names, data, s, e, target) for s, e in units.spans()
    ):
        place = units.of(at)
        if place is not None:
            _count(rows, who, place, _KIND_INDEX[kind], at)
    _lines_of(rows, data)
    found = rows.values()
    return (
        list(rows),
        [r[0] for r in found],
        (
            [tuple(r[4:_LAST]) for r in found],
            [r[1] for r in found],
            [r[2] for r in found],
            [KINDS[r[_BEST]] for r in found],
            [r[_BEST + 1] for r in found],
        ),
    )


def _count(rows: dict[str, list], who: str, place: tuple[int, str | None], k: int, at: int) -> None:
    """One name of a unit into ``_tally``'s rows: the unit counted once for the agent, and
    once under each kind it names the agent in; the line of its strongest kind kept."""
    unit, d = place
    row = rows.get(who)
    if row is None:
        row = rows[who] = [0, d, d, None, *_NO_COUNTS, *_NO_UNITS, k, at]
    elif k <= row[_BEST]:  # as strong or stronger: the later line cites it
        row[_BEST], row[_BEST + 1] = k, at
    if row[3] != unit:  # the first time this unit names it
        row[0] += 1
        row[3] = unit
        if d is not None:
            if row[1] is None or d < row[1]:
                row[1] = d
            if row[2] is None or d > row[2]:
                row[2] = d
    if row[_LAST + k] != unit:  # the first time this unit names it so
        row[4 + k] += 1
        row[_LAST + k] = unit


def _lines_of(rows: dict[str, list], data: bytes) -> None:
    """Each row's cited offset made a 1-based line number (counted once through the file)."""
    line, last = 1, 0
    for row in sorted(rows.values(), key=lambda r: r[_BEST + 1]):
        at = row[_BEST + 1]
        line += data.count(b"\n", last, at)
        last = at
        row[_BEST + 1] = line


class _Units:
    """Where each name of a file counts: its frame, or outside frames its own line, with the
    date that places it; nothing for a frame or line outside the window."""

    __slots__ = ("data", "starts", "ends", "dates", "inside", "window", "_j", "_stop", "_framed")

    def __init__(
        self,
        data: bytes,
        starts: list[int],
        ends: list[int],
        dates: list[str | None],
        inside: list[bool],
        window: tuple[str | None, str | None],
    ) -> None:
        self.data, self.starts, self.ends, self.dates = data, starts, ends, dates
        self.inside, self.window = inside, window
        # the frame (or the one above) of the last name, where its stretch ends, whether in it
        self._j, self._stop, self._framed = -1, -1, False

    def spans(self) -> list[tuple[int, int]]:
        """The stretches to read: the whole file, or in a window its frames in the window and
        everything outside frames (runs of them read as one)."""
        if all(self.inside):
            return [(0, len(self.data))]
        spans: list[tuple[int, int]] = []
        last = 0
        for start, end, keep in zip(self.starts, self.ends, self.inside, strict=True):
            if keep:
                continue
            if start > last:
                spans.append((last, start))
            last = end
        if last < len(self.data):
            spans.append((last, len(self.data)))
        return spans

    def of(self, at: int) -> tuple[int, str | None] | None:
        """(the unit, its date) of the line at ``at``: a frame's index, or ``-1 - at`` for a
        line outside frames."""
        if at >= self._stop:  # names come in order: the frame is found again past its end
            j = self._j = bisect_right(self.starts, at) - 1
            framed = j >= 0 and at < self.ends[j]
            nxt = self.starts[j + 1] if j + 1 < len(self.starts) else len(self.data)
            self._stop = self.ends[j] if framed else nxt
            self._framed = framed
        j = self._j
        if self._framed:
            return (j, self.dates[j]) if self.inside[j] else None
        d = self._line_date(at, j)
        since, until = self.window
        if (since or until) and (d is None or (since and d < since) or (until and d > until)):
            return None
        return -1 - at, d

    def _line_date(self, at: int, above: int) -> str | None:
        """A line outside frames: its own date (a History bullet), else the frame above's,
        else (the header) the first frame's."""
        from soulscope.history.first import dated_line

        end = self.data.find(b"\n", at)
        dated = dated_line(self.data[at : len(self.data) if end < 0 else end])
        if dated is not None:
            return dated[0]
        if above >= 0:
            return self.dates[above]
        return self.dates[0] if self.dates else None


# A block heading (``## `` at a line's start, as ``parse.block_starts`` finds them), after the
# newline before it; of a frame heading ("Frame" first once ``heading.strip()`` took the spaces
# before it, and not the start of a longer word), the first ISO date after "Frame". (With the
# newline first, the pattern is searched for as fast as ``bytes.find``.)
_HEADING = rb"## [ \t\r\x0b\x0c]*(?:(Frame)(?![A-Za-z0-9])(?:[^\n]*?(\d{4}-\d{2}-\d{2}))?)?"
_BLOCK = re.compile(b"\n" + _HEADING)
_FIRST_BLOCK = re.compile(_HEADING)  # a block at the very start of a file


# After a heading's date, what leaves it the UTC day: no time on the line, or a time in UTC
# ("(09:17 UTC)", "(21:40 UTC sim)"); any other time ("23:30 -05:00", "T23:30-05:00", "10:00
# EST", "22:00 GMT-5") is placed by ``parse_heading``, which turns it to UTC (another day, maybe).
_UTC_OR_NO_TIME = re.compile(
    rb"[ \t]*\(?[ \t]*\d{1,2}:\d\d(?::\d\d)?[ \t]*(?:UTC|GMT|Z)"
    rb"(?![A-Za-z0-9])(?![ \t]*(?:[+-]|\xe2\x88\x92)[ \t]*\d)"  # (not "GMT-5", "UTC +2")
    rb"|(?![^\n]*(?:\d:\d\d|\d[ \t]?[apAP]\.?[mM]\b|[Nn]oon|[Mm]idday))"  # (nor "10pm ET")
)


def frame_dates(data: bytes) -> tuple[list[int], list[int], list[str | None]]:
    """Where each frame of a soul file's bytes starts and ends, and its date as ``soul.when``
    places it (an undated frame takes the latest dated frame's above it, else the earliest's):
    read from the headings alone, each looked at once (by one pattern over the file)."""
    starts: list[int] = []
    ends: list[int] = []
    dates: list[str | None] = []
    undated = False
    above: str | None = None  # the date of the dated frame above
    first = _FIRST_BLOCK.match(data)
    blocks = _BLOCK.finditer(data)
    for m in blocks if first is None else chain((first,), blocks):
        start = m.start() if m is first else m.start() + 1
        if len(ends) < len(starts):
            ends.append(start)
        found = m.lastindex  # 2: a frame with a date, 1: one without, None: another block
        if found is None:
            continue
        if found == 2 and _UTC_OR_NO_TIME.match(data, m.end()):
            date: str | None = m.group(2).decode()
        else:  # a date in words ("March 14, 2026"), a time in another zone, or no date
            eol = data.find(b"\n", start)
            heading = data[start + 3 : len(data) if eol < 0 else eol].strip()
            text = heading.decode("utf-8", ENCODING_ERRORS)
            date = parse_heading(text)[2]
            if not date and above:  # "Tuesday, March 3": the year of the frame above
                date = yearless_date(text, above)
            undated = undated or not date
        above = date or above
        starts.append(start)
        dates.append(date)
    if len(ends) < len(starts):
        ends.append(len(data))
    return starts, ends, _dates(dates) if undated or when.misdated(dates) else dates


_KIND_INDEX = {kind: i for i, kind in enumerate(KINDS)}
_NO_COUNTS = (0,) * len(KINDS)
_NO_UNITS = (None,) * len(KINDS)
_LAST = 4 + len(KINDS)  # where a row of ``_tally`` keeps the last unit counted under each kind
_BEST = _LAST + len(KINDS)  # then the rank of its strongest kind, and that line's offset


def _dates(dates: list[str | None]) -> list[str | None]:
    """Each frame's date, as ``soul.when`` places it: an undated frame takes the latest date of
    the dated frames above it in its file, else the earliest below it; a misdated one, that of
    the frame its file places it by (``when.misdated``)."""
    placed = list(dates)
    for i, (up, down) in when.misdated(dates).items():
        placed[i] = dates[up] if up >= 0 else dates[down]
    dates = placed
    out = list(dates)
    last = None
    for i, d in enumerate(dates):
        if d:
            last = d if last is None else max(last, d)
        elif last:
            out[i] = last
    below = [d for d in dates if d]
    earliest = min(below) if below else None
    return [d or earliest for d in out]


def _measure(g: Influence, present: set[str]) -> None:
    """PageRank, strengths, betweenness and groups (``measures``: on arrays; by networkx where a
    backend it dispatches to, such as nx-cugraph, is installed)."""
    if not present and not len(g.table):
        return
    t = g.table
    m = measures.measure(
        sorted(present),  # (a set: its order moves with the hash seed)
        t.source,
        t.target,
        t.weight,
        measures.Sampling(SAMPLED_BETWEENNESS, SAMPLES, SEED),
    )
    rank = dict(zip(m.nodes, m.pagerank, strict=True))
    groups = [sorted(c, key=lambda x: (-rank[x], x)) for c in m.groups if len(c) > 1]
    groups.sort(key=lambda c: (-len(c), c[0]))
    group_of = {x: i for i, c in enumerate(groups) for x in c}
    g.groups = groups
    g.nodes = {
        x: Node(x, x in present, pagerank, out, into, between, group_of.get(x))
        for x, pagerank, out, into, between in zip(
            m.nodes, m.pagerank, m.influences, m.influenced_by, m.betweenness, strict=True
        )
    }


def estimated(nodes: int) -> str | None:
    """What the measures of a graph of ``nodes`` agents estimate rather than compute, in a
    sentence; None when every measure is exact."""
    if nodes <= SAMPLED_BETWEENNESS:
        return None
    return (
        f"above {SAMPLED_BETWEENNESS:,} agents: bridges (betweenness) estimated from the paths "
        f"of {SAMPLES} agents drawn with a fixed seed; groups by label propagation"
    )


def _significant(x: float) -> float:
    """A measure to six significant digits: at 10,000 agents a PageRank is about 0.0001, and six
    decimals would leave it three digits and tie thousands of agents."""
    return float(f"{x:.6g}")


def graph_dict(g: Influence, top: int | None = None) -> dict:
    """``graph --json``: nodes with their measures, weighted arcs (strongest first; the ``top``
    first only, where given), groups. (``graph_json`` writes its text faster than it is built
    and encoded.)"""
    with collector.paused():
        return {
            "world": g.world,
            "since": g.since,
            "until": g.until,
            "frames": g.frames,
            "files": g.agents,
            "nodes": [
                {
                    "agent": n.agent,
                    "present": n.present,
                    "pagerank": _significant(n.pagerank),
                    "influences": n.influences,
                    "influenced_by": n.influenced_by,
                    "betweenness": _significant(n.betweenness),
                    "group": n.group,
                }
                for n in g.ranked()
            ],
            "edges": [
                {
                    "from": a.source,
                    "to": a.target,
                    "weight": a.weight,
                    "kinds": {k: c for k, c in zip(KINDS, a.counts, strict=True) if c},
                    "first": a.first,
                    "last": a.last,
                    "kind": a.kind,
                    "line": a.line,
                }
                for a in g.strongest(top)
            ],
            "groups": g.groups,
        }


_EDGE = (  # an edge of graph_json, each line as json.dumps(indent=2) writes it
    '{\n      "from": %s,\n      "to": %s,\n      "weight": %s,\n      "kinds": %s,'
    '\n      "first": %s,\n      "last": %s,\n      "kind": %s,\n      "line": %s\n    }'
)
_NODE = (
    '{\n      "agent": %s,\n      "present": %s,\n      "pagerank": %s,\n      "influences": %s,'
    '\n      "influenced_by": %s,\n      "betweenness": %s,\n      "group": %s\n    }'
)
_BATCH = 20_000  # edges per piece of text


def graph_json(g: Influence) -> Iterator[str]:
    """The text of ``json.dumps(graph_dict(g), ensure_ascii=False, indent=2)``, in pieces,
    written from the graph directly: a world of 10,000 agents has half a million edges, and
    building their dicts and indenting them in Python took five times as long. Every value is
    encoded as ``json`` encodes it (strings by its own encoder); the tests hold the two equal."""
    # The collector stays paused to the last piece: it would walk every arc and node built
    # while it was paused (``influence``) once more, and the text holds no cycles.
    with collector.paused():
        yield from _graph_text(g)


def _graph_text(g: Influence) -> Iterator[str]:
    yield "{\n"
    yield (
        f'  "world": {_value(g.world)},\n  "since": {_value(g.since)},\n'
        f'  "until": {_value(g.until)},\n  "frames": {_value(g.frames)},\n'
        f'  "files": {_value(g.agents)},\n  "nodes": '
    )
    nodes = [
        _NODE
        % (
            _string(n.agent),
            _value(n.present),
            _value(_significant(n.pagerank)),
            _value(n.influences),
            _value(n.influenced_by),
            _value(_significant(n.betweenness)),
            _value(n.group),
        )
        for n in g.ranked()
    ]
    yield _items(nodes, "    ")
    yield ',\n  "edges": '
    t = g.table
    order = t.strongest()
    if not order:
        yield "[]"
    source, target, weight = t.source, t.target, t.weight.tolist()
    counts, first, last, kind, line = t.details()
    # Each value of which there are few (the kinds' counts, dates, kinds, the agents' names:
    # a few thousand against half a million edges) encoded once.
    kinds = _Encoded(lambda c: _value({k: n for k, n in zip(KINDS, c, strict=True) if n}, "      "))
    texts = _Encoded(_value)
    for at in range(0, len(order), _BATCH):
        edges = [
            _EDGE
            % (
                texts[source[i]],
                texts[target[i]],
                weight[i],  # (an int: %s writes it as json does)
                kinds[counts[i]],
                texts[first[i]],
                texts[last[i]],
                texts[kind[i]],
                "null" if line[i] is None else line[i],
            )
            for i in order[at : at + _BATCH]
        ]
        yield ("[\n    " if at == 0 else ",\n    ") + ",\n    ".join(edges)
    if order:
        yield "\n  ]"
    yield ',\n  "groups": '
    yield _items([_items([_string(x) for x in c], "      ") for c in g.groups], "    ")
    yield "\n}"


class _Encoded(dict):
    """Values' JSON texts, each encoded the first time it is asked for (a lookup after that)."""

    def __init__(self, encode: Callable[[Any], str]) -> None:
        super().__init__()
        self.encode = encode

    def __missing__(self, value: Any) -> str:
        text = self[value] = self.encode(value)
        return text


def _items(texts: list[str], margin: str) -> str:
    """A JSON array of items already written, each line of an item ``margin`` deep."""
    if not texts:
        return "[]"
    return f"[\n{margin}" + f",\n{margin}".join(texts) + f"\n{margin[:-2]}]"


def _value(value: Any, margin: str = "") -> str:
    """A value as ``json.dumps(value, ensure_ascii=False, indent=2)`` writes it, ``margin``
    deep; a string, a number, a flag or null without a call to json."""
    kind = type(value)
    if kind is str:
        return _string(value)
    if kind is int:
        return int.__repr__(value)
    if kind is float and math.isfinite(value):
        return float.__repr__(value)
    if value is None:
        return "null"
    if kind is bool:
        return "true" if value else "false"
    return json.dumps(value, ensure_ascii=False, indent=2).replace("\n", "\n" + margin)


def graph_text(g: Influence) -> str:
    """What ``graph --json`` prints: the text of ``graph_dict`` as ``emit_json`` prints a value
    (control characters escaped for the terminal), with its newline. The kept answer's text."""
    return "".join(map(json_escaped, graph_json(g))) + "\n"


def graph_memo(world: World, since: str | None = None, until: str | None = None) -> Memo:
    """Where the world's graph for a window is kept (``soulscope.memo``): one key for the
    command line and the dashboard."""
    return Memo(world, "graph.json", since, until)


def kept_influence(memo: Memo) -> Influence | None:
    """The graph a kept answer holds (its measures rounded as printed), or None when none is
    kept or it cannot be read."""
    found = memo.get()
    if found is None:
        return None
    try:
        with collector.paused():
            return influence_of(json.loads(found))
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        memo.unusable(f"not an influence graph: {type(exc).__name__} {exc}")
        return None


def influence_of(answer: dict) -> Influence:
    """An ``Influence`` from ``graph_dict``'s fields (a kept ``graph --json`` answer)."""
    arcs = {
        (e["from"], e["to"]): Arc(
            e["from"],
            e["to"],
            e["weight"],
            tuple(int(e["kinds"].get(k, 0)) for k in KINDS),
            e["first"],
            e["last"],
            e.get("kind"),
            e.get("line"),
        )
        for e in answer["edges"]
    }
    nodes = {
        n["agent"]: Node(
            agent=n["agent"],
            present=n["present"],
            pagerank=n["pagerank"],
            influences=n["influences"],
            influenced_by=n["influenced_by"],
            betweenness=n["betweenness"],
            group=n["group"],
        )
        for n in answer["nodes"]
    }
    return Influence(
        answer["world"],
        answer["since"],
        answer["until"],
        arcs,
        nodes=nodes,
        groups=[list(c) for c in answer["groups"]],
        frames=answer["frames"],
        agents=answer["files"],
    )


def write_graphml(g: Influence, path: str) -> None:
    """The graph as GraphML (Gephi, networkx.read_graphml)."""
    import networkx as nx

    nx.write_graphml(g.networkx(), path)
