"""``soulscope mcp``: a read-only Model Context Protocol server over stdio, for agents that write code.

Its tools are the command line's views, each answering with the JSON the command prints with
``--json`` (the same text: a tool runs the command itself on the server's world). No tool writes
to the world: frame, init, register, demo, embed and export are not offered.
"""

from __future__ import annotations

import argparse
import io
import threading
from collections.abc import Callable
from contextlib import redirect_stderr, redirect_stdout
from typing import Any

from soulscope.cli.output import CommandError, add_world_option, open_world


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "mcp",
        help="a read-only MCP server over stdio: the views (agents, show, becoming, why, first, "
        "spread, graph, search, log, compare) as tools for agents that write code",
    )
    add_world_option(p)
    p.set_defaults(run=run_mcp)


def run_mcp(args: argparse.Namespace) -> int:
    try:
        from mcp.server.mcpserver import MCPServer
    except ImportError as exc:
        raise CommandError("soulscope mcp needs the mcp package (pip install mcp)") from exc
    world = open_world(args.world)  # a world that cannot be opened: said before serving
    server = MCPServer(
        "soulscope",
        instructions=f"Read-only views of the memory of the AI agents of {world.name} "
        f"({world.root}): soul files of frames and Becoming statements. Every tool answers "
        "with the JSON of the soulscope command of the same name.",
    )
    _SERVED[:] = [str(world.root if world.only is None else world.only)]
    for tool in TOOLS:
        _add(server, tool)
    server.run("stdio")
    return 0


def _add(server: Any, tool: Callable[..., str]) -> None:
    from mcp.types import ToolAnnotations

    read_only = ToolAnnotations(
        read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False
    )
    server.tool(name=tool.__name__, annotations=read_only, structured_output=False)(tool)


_LOCK = threading.Lock()  # one command at a time: each takes stdout and stderr while it runs


def answer(argv: list[str]) -> str:
    """What ``soulscope ARGV`` prints on stdout; its one sentence as the error when it fails."""
    from mcp.server.mcpserver.exceptions import ToolError

    from soulscope.cli import main

    out, err = io.StringIO(), io.StringIO()
    with _LOCK, redirect_stdout(out), redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exc:  # argparse: a value it refuses
            code = exc.code if isinstance(exc.code, int) else 2
    if code:
        said = [ln.removeprefix("soulscope: ") for ln in err.getvalue().splitlines() if ln]
        raise ToolError(said[-1] if said else f"soulscope {argv[0]} failed (exit status {code})")
    return out.getvalue()


def _opt(name: str, value: object) -> list[str]:
    """An option for the command line, or nothing when not given."""
    if value is None or value is False or value == "":
        return []
    return [name] if value is True else [name, str(value)]


_SERVED: list[str] = []  # the world the server answers about (set once, by ``run_mcp``)


def _w() -> list[str]:
    return ["--world", _SERVED[0], "--json"] if _SERVED else ["--json"]


def agents(at: str | None = None) -> str:
    """Every agent of the world: id, name, frames, Becoming statements, size, last frame.
    ``at``: the world as it stood then (a revision, a date YYYY-MM-DD or a frame number)."""
    return answer(["agents", *_w(), *_opt("--at", at)])


def show(agent: str, frame: str | None = None) -> str:
    """An agent's parsed soul (identity, sections, frames), or one frame of it: ``frame`` is
    a frame number or label (237, 500b), a date, or #K for the K-th frame in the file."""
    return answer(["show", agent, *_w(), *_opt("--frame", frame)])


def becoming(agent: str, chapters: bool = False) -> str:
    """An agent's identity arc: each Becoming statement with its frame, date, kind (first,
    refinement, shift, return, repeat), drift (0-1), turning point and chapter; with
    ``chapters``, the arc's chapters instead."""
    return answer(["becoming", agent, *_w(), *_opt("--chapters", chapters)])


def why(
    agent: str, frame: str | None = None, shift: int | None = None, at: str | None = None
) -> str:
    """Why an agent's identity changed at a frame (default: its latest shift; ``shift`` K:
    its K-th shift): the statement and the one before, the frame's context, who influenced
    it and what they were, posts, precursors, the commit, and an offline narrative citing
    all of it."""
    opts = [*_opt("--frame", frame), *_opt("--shift", shift), *_opt("--at", at)]
    return answer(["why", agent, *_w(), "--offline", *opts])


def first(term: str, agent: str | None = None, match: str = "word", at: str | None = None) -> str:
    """The first use of a term in the world (or one agent's memory): frame, line, sentence,
    commit. ``match``: word (any letter case, default), exact, or stem (other endings)."""
    return answer(
        ["first", term, *_w(), *_opt("--agent", agent), *_match(match), *_opt("--at", at)]
    )


def spread(term: str, match: str = "word", at: str | None = None) -> str:
    """How a term spread: every agent that used it in order of first use (the frames' own
    times), the earlier adopters each names (edges), and the adoption timeline."""
    return answer(["spread", term, *_w(), *_match(match), *_opt("--at", at)])


def graph(since: str | None = None, until: str | None = None, at: str | None = None) -> str:
    """Who shapes whom: nodes with PageRank, strengths, betweenness and group; weighted arcs
    (strongest first) by kind; groups. ``since``/``until``: a window of dates."""
    opts = [*_opt("--since", since), *_opt("--until", until), *_opt("--at", at)]
    return answer(["graph", *_w(), *opts])


def search(
    query: str, agent: str | None = None, k: int = 10, mode: str = "auto", at: str | None = None
) -> str:
    """Search the world's memory: the ``k`` best frames for ``query`` (mode auto, hybrid,
    bm25 or dense), each with agent, frame, line and text."""
    opts = [*_opt("--agent", agent), "-k", str(k), "--mode", mode, *_opt("--at", at)]
    return answer(["search", query, *_w(), *opts])


def log(start: str | None = None, end: str | None = None, agent: str | None = None) -> str:
    """Every frame of every agent in the frames' own time, each with the commit that
    brought it; ``start``/``end``: a date, a frame number or a revision."""
    opts = [*_opt("--from", start), *_opt("--to", end), *_opt("--agent", agent)]
    return answer(["log", *_w(), *opts])


def compare(left: str, right: str) -> str:
    """Two agents' identity arcs side by side, frame by frame."""
    return answer(["compare", left, right, *_w()])


TOOLS: tuple[Callable[..., str], ...] = (
    agents,
    show,
    becoming,
    why,
    first,
    spread,
    graph,
    search,
    log,
    compare,
)


def _match(match: str) -> list[str]:
    if match not in ("word", "exact", "stem"):
        raise CommandError(f"match must be word, exact or stem, not {match!r}")
    return [] if match == "word" else [f"--{match}"]
