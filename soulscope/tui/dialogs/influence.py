"""How ideas move through the world, in the dashboard: search, a term's spread, an agent's
influences.

- ``F`` opens the search: type a question or a term, ``enter`` lists cited hits of the world's
  memory (BM25 at once; hybrid when the Chat tab's embeddings are ready); ``enter`` on a hit
  opens its frame in the Soul tab. From the hits, ``f`` opens the term's first mention and ``s``
  its spread.
- The spread view (``history.spread``): every agent that used the term in order of first use,
  the earlier adopters each names, and the adoption curve as a sparkline; ``enter`` opens an
  adopter's first use.
- ``i`` opens the agent's influences (``history.graph``): who shaped it and whom it shaped,
  strongest first; ``enter`` opens that agent's arc (the Becoming tab).

Everything that reads the world runs in a thread worker and posts its answer back.
"""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass
from typing import Any, ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Input, Sparkline, Static

from soulscope.history.graph import (
    Arc,
    GraphError,
    Influence,
    graph_memo,
    graph_text,
    influence,
    kept_influence,
)
from soulscope.history.spread import Adopter, Spread, daily, sentence, spread
from soulscope.recall.hybrid import Hit, RecallError, holding_bullet
from soulscope.recall.temporal import asked_in
from soulscope.soul.model import clean
from soulscope.soul.terms import Term
from soulscope.tui.actions import bindings
from soulscope.tui.dialogs.base import Dialog
from soulscope.tui.widgets.virtual_list import VirtualList
from soulscope.world import World, WorldError

SEARCH_HITS = 30
_GRAPHS: dict[int, tuple[tuple, Influence]] = {}  # id(world) -> (its files' stamp, graph)
_GRAPH_LOCK = threading.Lock()


def _stamp(world: World) -> tuple:
    return tuple((a.id, a.size, a.mtime_ns, a.ctime_ns, a.inode) for a in world.agents())


def world_graph(world: World) -> Influence:
    """The world's influence graph, computed once per state of its files (any thread): read
    back where ``soulscope graph`` or an earlier dashboard kept it, else made and kept."""
    with _GRAPH_LOCK:
        stamp = _stamp(world)
        known = _GRAPHS.get(id(world))
        if known is not None and known[0] == stamp:
            return known[1]
        memo = graph_memo(world)
        g = kept_influence(memo)
        if g is None:
            g = influence(world)
            if not g.unreadable:
                memo.put(graph_text(g).encode("utf-8"))
        _GRAPHS.clear()  # one world at a time
        _GRAPHS[id(world)] = (stamp, g)
        return g


def _fixed(x: float) -> str:
    """A measure to three significant digits in decimals, never in scientific notation
    (0.341, 0.000095, 0)."""
    if x <= 0:
        return "0"
    decimals = min(9, max(0, 2 - math.floor(math.log10(x))))
    return f"{x:.{decimals}f}".rstrip("0").rstrip(".") or "0"


def _text(*parts: tuple[str, str] | str) -> Text:
    """Soul-file text shown as plain text (never markup), control characters made safe."""
    return Text.assemble(
        *((clean(p), "") if isinstance(p, str) else (clean(p[0]), p[1]) for p in parts)
    )


# -- search -------------------------------------------------------------------------------------


@dataclass
class SearchDone(Message):
    query: str
    hits: list[Hit]
    mode: str
    error: str | None = None


@dataclass
class FirstFound(Message):
    found: Spread | None
    error: str | None = None


class SearchScreen(Dialog[None]):
    """Search the world's memory; the hits cite their agent and frame."""

    BINDINGS: ClassVar[list[BindingType]] = [*bindings("search")]

    def __init__(self, query: str = "") -> None:
        super().__init__(id="search")
        self.query_text = query
        self.hits: list[Hit] = []

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(
                Text.assemble(
                    ("Search the world's memory", "bold"),
                    "  (enter: search, then open a hit · f: first mention · s: spread · esc)",
                ),
                classes="dialog-title",
            )
            yield Input(
                value=self.query_text, placeholder="a question or a term", id="search-input"
            )
            yield Static(Text(""), id="search-status")
            yield VirtualList(self._label, id="search-hits")

    def on_mount(self) -> None:
        self.query_one(Input).focus()
        if self.query_text:
            self.run_search(self.query_text)

    def _label(self, key: str, _width: int) -> Text:
        hit = self.hits[int(key)]
        c = hit.chunk
        where = f"frame {c.frame_label}" if c.frame_label else c.heading
        return _text((f"[{c.agent} · {where}] ", "bold"), " ".join(hit.best.split()))

    @property
    def term(self) -> str:
        return self.query_one(Input).value.strip()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if self.term:
            self.run_search(self.term)

    def _status(self, text: str) -> None:
        self.query_one("#search-status", Static).update(Text(text, style="dim"))

    @work(thread=True, exclusive=True, group="search", exit_on_error=False)
    def run_search(self, query: str) -> None:
        self.dashboard.call_from_thread(self._status, "searching…")
        try:
            index = self.dashboard.recall_index()
            mode = "hybrid" if index.dense_ready else "bm25"
            # Each hit by its bullet that holds the words searched for, where one does.
            asked = asked_in(query)
            hits = [holding_bullet(h, asked) for h in index.search(query, k=SEARCH_HITS, mode=mode)]
        except (RecallError, WorldError, OSError) as exc:
            self.post_message(SearchDone(query, [], "", str(exc)))
            return
        self.post_message(SearchDone(query, hits, mode))

    def on_search_done(self, message: SearchDone) -> None:
        self.hits = message.hits
        hits = self.query_one(VirtualList)
        hits.set_keys([str(i) for i in range(len(message.hits))])
        hits.refresh()
        if message.error:
            self._status(message.error)
        elif not message.hits:
            self._status(f"no memory holds '{message.query}'")
        else:
            how = "BM25" if message.mode == "bm25" else "hybrid (BM25 and embeddings)"
            self._status(
                f"{len(message.hits)} hits, {how}; enter opens the frame, f the first mention, "
                "s the spread of the term"
            )
            hits.focus()

    def on_virtual_list_selected(self, event: VirtualList.Selected) -> None:
        event.stop()
        hit = self.hits[int(event.key)]
        self.close_all()
        self.dashboard.open_line(hit.chunk.agent, hit.chunk.line)

    def action_spread(self) -> None:
        if self.term:
            self.dashboard.push_screen(SpreadScreen(self.term))

    def action_first(self) -> None:
        if self.term:
            self._status(f"finding the first mention of '{self.term}'…")
            self.find_first(self.term)

    @work(thread=True, exclusive=True, group="search-first", exit_on_error=False)
    def find_first(self, term: str) -> None:
        try:
            found = spread(self.dashboard.world, Term(term), links=False)
        except (ValueError, WorldError) as exc:
            self.post_message(FirstFound(None, str(exc)))
            return
        self.post_message(FirstFound(found))

    def on_first_found(self, message: FirstFound) -> None:
        s = message.found
        if s is None or not s.adopters:
            self._status(message.error or f"'{self.term}' never appears in this world")
            return
        first = s.adopters[0]
        tied = [a.agent_id for a in s.adopters[1:] if a.tied][:3]
        note = f"; tied with {', '.join(tied)}" if first.tied and tied else ""
        self.close_all()
        self.dashboard.notify(
            f"First mention of '{s.term.text}': {first.agent_id}, "
            f"{first.first.moment.text}, line {first.first.line}{note}"
        )
        self.dashboard.open_line(first.agent_id, first.first.line)

    def action_move(self, action: str) -> None:
        getattr(self.query_one(VirtualList), f"action_{action}")()


# -- spread -------------------------------------------------------------------------------------


@dataclass
class SpreadDone(Message):
    spread: Spread | None
    error: str | None = None


class SpreadScreen(Dialog[None]):
    """Every agent that used a term, in order of first use, from whom, and the curve."""

    BINDINGS: ClassVar[list[BindingType]] = [*bindings("spread")]

    def __init__(self, term: str, mode: str = "word") -> None:
        super().__init__(id="spread")
        self.term = term
        self.mode = mode
        self.spread: Spread | None = None

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(self._title(), id="spread-title", classes="dialog-title")
            yield Sparkline([], id="spread-curve")
            yield Static(Text(""), id="spread-curve-label")
            yield VirtualList(self._label, id="spread-list")

    def _title(self) -> Text:
        s = self.spread
        head = Text.assemble((f"Spread of '{clean(self.term)}'", "bold"))
        if s is None:
            head.append("  reading every soul file…", style="dim")
            return head
        started = ", ".join(a.agent_id for a in s.started) or (
            s.adopters[0].agent_id if s.adopters else "—"
        )
        head.append(
            f"  {len(s.adopters)} of {s.files} agents, matched {s.term.described}; "
            f"ordered by the frames' own times; started by {started}  "
            "(enter: open a first use · t: stem/word · esc)"
        )
        return head

    def on_mount(self) -> None:
        self.query_one(VirtualList).focus()
        self.load()

    @work(thread=True, exclusive=True, group="spread", exit_on_error=False)
    def load(self) -> None:
        try:
            s = spread(self.dashboard.world, Term(self.term, self.mode))
        except (ValueError, WorldError) as exc:
            self.post_message(SpreadDone(None, str(exc)))
            return
        self.post_message(SpreadDone(s))

    def on_spread_done(self, message: SpreadDone) -> None:
        self.spread = s = message.spread
        if s is None:
            self.query_one("#spread-title", Static).update(Text(message.error or ""))
            return
        self.query_one("#spread-title", Static).update(self._title())
        curve = daily(s.timeline)
        self.query_one(Sparkline).data = [n for _, n in curve] or [0]
        label = (
            f"adoption: {curve[0][0]} → {curve[-1][0]}, {curve[-1][1]} agents"
            if curve
            else "adoption: no dated first use"
        )
        if s.undated:
            label += f" (and {s.undated} undated)"
        self.query_one("#spread-curve-label", Static).update(Text(label, style="dim"))
        rows = self.query_one(VirtualList)
        rows.set_keys([a.agent_id for a in s.adopters])
        rows.refresh()

    def _label(self, key: str, _width: int) -> Text:
        s = self.spread
        a = s.adopter(key) if s is not None else None
        if s is None or a is None:
            return Text(key)
        rank = s.adopters.index(a) + 1
        out = _text(
            (f"{rank:>3}{'≈' if a.tied else ' '} ", "dim"),
            (a.agent_id, "bold"),
            f"  {where_used(a)}  ",
        )
        if a.links:
            out.append("← " + ", ".join(f"{link.source} ({link.kind})" for link in a.links))
        else:
            out.append("—", style="dim")
        if a.votes:  # exposure, not a link: shown apart
            out.append("  voted on " + ", ".join(v.source for v in a.votes), style="dim")
        out.append("  " + sentence(a.first.text, s.term), style="dim")
        return out

    def on_virtual_list_selected(self, event: VirtualList.Selected) -> None:
        event.stop()
        a = self.spread.adopter(event.key) if self.spread else None
        if a is not None:
            self.close_all()
            self.dashboard.open_line(a.agent_id, a.first.line)

    def action_toggle_stem(self) -> None:
        self.mode = "word" if self.mode == "stem" else "stem"
        self.spread = None
        self.query_one("#spread-title", Static).update(self._title())
        self.load()


def where_used(a: Adopter) -> str:
    """``frame 12, 2026-01-05 (no time of day)``; a frame known by its date is not named twice."""
    use = a.first
    if use.label is None:
        return f"before its first frame, {use.moment.date or 'undated'}"
    if use.label == use.moment.date:
        return use.moment.text
    return f"frame {use.label}, {use.moment.text}"


# -- an agent's influences ---------------------------------------------------------------------


@dataclass
class GraphDone(Message):
    graph: Influence | None
    error: str | None = None


class InfluenceScreen(Dialog[None]):
    """Who shaped ``agent_id`` and whom it shaped, strongest first; enter opens an arc."""

    BINDINGS: ClassVar[list[BindingType]] = [*bindings("influence")]

    def __init__(self, agent_id: str) -> None:
        super().__init__(id="influence")
        self.agent_id = agent_id
        self.rows: dict[str, tuple[str, Any]] = {}  # key -> ("in" | "out" | "head", Arc | text)

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(
                Text.assemble(
                    (f"Influences of {self.agent_id}", "bold"),
                    "  (enter: that agent's arc · esc)",
                ),
                classes="dialog-title",
            )
            yield Static(Text("reading every soul file…", style="dim"), id="influence-status")
            yield VirtualList(self._label, id="influence-list")

    def on_mount(self) -> None:
        self.query_one(VirtualList).focus()
        self.load()

    @work(thread=True, exclusive=True, group="influence", exit_on_error=False)
    def load(self) -> None:
        try:
            g = world_graph(self.dashboard.world)
        except (GraphError, WorldError) as exc:
            self.post_message(GraphDone(None, str(exc)))
            return
        self.post_message(GraphDone(g))

    def on_graph_done(self, message: GraphDone) -> None:
        g = message.graph
        status = self.query_one("#influence-status", Static)
        if g is None:
            status.update(Text(message.error or ""))
            return
        into, out = g.influencers(self.agent_id), g.influenced(self.agent_id)
        node = g.nodes.get(self.agent_id)
        said = ""
        if node is not None:
            key = (-node.pagerank, node.agent)
            rank = 1 + sum((-n.pagerank, n.agent) < key for n in g.nodes.values())
            said = (
                f"PageRank {_fixed(node.pagerank)} (#{rank:,} of {len(g.nodes):,}), bridge "
                f"{_fixed(node.betweenness)}, group "
                f"{node.group + 1 if node.group is not None else '—'}; weight = frames that cite"
            )
        status.update(Text(said, style="dim"))
        self.rows = {"h-in": ("head", f"shaped by ({len(into)})")}
        self.rows |= {f"in-{a.source}": ("in", a) for a in into}
        self.rows["h-out"] = ("head", f"shaped ({len(out)})")
        self.rows |= {f"out-{a.target}": ("out", a) for a in out}
        rows = self.query_one(VirtualList)
        rows.set_keys(list(self.rows))
        rows.refresh()

    def _label(self, key: str, _width: int) -> Text:
        kind, value = self.rows[key]
        if kind == "head":
            return Text(value, style="bold")
        arc: Arc = value
        who = arc.source if kind == "in" else arc.target
        how = ", ".join(f"{k} {n}" for k, n in arc.kinds.most_common())
        return _text(
            f"  {'←' if kind == 'in' else '→'} ",
            (who, "bold"),
            (
                f"  {arc.weight} frame{'s' if arc.weight != 1 else ''} ({how}), "
                f"{arc.first or '?'} → {arc.last or '?'}"
                + (f", {arc.kind} at line {arc.line} of {arc.target}" if arc.line else ""),
                "dim",
            ),
        )

    def on_virtual_list_selected(self, event: VirtualList.Selected) -> None:
        event.stop()
        kind, value = self.rows.get(event.key, ("head", None))
        if kind == "head":
            return
        who = value.source if kind == "in" else value.target
        self.close_all()
        self.dashboard.select_agent(who)
        self.dashboard.show_tab("becoming")
