"""Commands that read soul files: agents, becoming, show, compare, overview."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from contextlib import suppress

from soulscope.cli.output import (
    CommandError,
    add_at_option,
    add_json_option,
    add_world_option,
    emit_json,
    open_world,
    open_world_at,
    print_error,
    print_table,
    print_text,
)
from soulscope.config import Settings
from soulscope.index import Entry, world_entries
from soulscope.soul import export
from soulscope.soul.chapters import TURN_MARK
from soulscope.soul.model import Frame, Soul
from soulscope.soul.trajectory import Arc, Statement, arc, compare
from soulscope.world import World


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("agents", help="list the agents of a world")
    add_at_option(p)
    add_world_option(p)
    add_json_option(p)
    p.set_defaults(run=run_agents)

    p = sub.add_parser("becoming", help="an agent's identity arc (its Becoming statements)")
    p.add_argument("agent")
    p.add_argument("--label", help="the arc's label (default: Becoming, else Evolving position)")
    p.add_argument(
        "--semantic",
        action="store_true",
        help="shift magnitudes, turning points and chapters by meaning (the embedding model's "
        "cosine distance; default: by words)",
    )
    p.add_argument(
        "--chapters",
        action="store_true",
        help="the arc's chapters (stretches of one identity between turning points), titled",
    )
    add_world_option(p)
    add_json_option(p)
    p.set_defaults(run=run_becoming)

    p = sub.add_parser("show", help="an agent's parsed soul, or one frame of it")
    p.add_argument("agent")
    p.add_argument(
        "--frame",
        help="frame number or label (237, 500b), a date (2026-03-15, 2026-03-15 19:50), or #K for "
        "the K-th frame in the file (#-1: the last); the nearest frame is named when none matches",
    )
    add_world_option(p)
    add_json_option(p)
    p.set_defaults(run=run_show)

    p = sub.add_parser("compare", help="two agents' arcs side by side")
    p.add_argument("left")
    p.add_argument("right")
    p.add_argument("--label", help="the arcs' label")
    add_world_option(p)
    add_json_option(p)
    p.set_defaults(run=run_compare)

    p = sub.add_parser("overview", help="every agent's latest Becoming, shifts and frames")
    p.add_argument("--label", help="the arcs' label")
    add_at_option(p)
    add_world_option(p)
    add_json_option(p)
    p.set_defaults(run=run_overview)


def read_soul(world: World, agent_id: str) -> Soul:
    return world.read(agent_id)


def indexed(world: World, label: str | None = None) -> tuple[list[Entry], list[Entry]]:
    """Every agent's summary from the world index (only changed files are parsed again): the
    readable ones, and those that cannot be read. An unreadable file does not hide the others:
    it is listed with its problem, as junk files are (``report_skipped``)."""
    notes: list[str] = []
    entries = world_entries(world, label, notes)
    for note in notes:
        print_error(note)
    return [e for e in entries if e.error is None], [e for e in entries if e.error is not None]


def keep_links(args: argparse.Namespace, world: World) -> None:
    """After a listing, with its answer out: the link tallies of the files whose tallies are
    not kept read and kept too (``graph.prepare``), so that the world's first graph reads no
    soul file. A process that ends with the command lets its standard output go first (a pipe's
    reader has the whole answer and goes on); Ctrl-C stops the reading, the answer stands."""
    from soulscope.history.tallystore import prepared

    if not args.settings.keep_links or prepared(world):
        return
    from soulscope.history.graph import PARALLEL_BYTES, cores, prepare

    sys.stdout.flush()
    if args.ends and sys.stdout is sys.__stdout__ and not os.isatty(1):
        with open(os.devnull, "w") as nowhere:
            os.dup2(nowhere.fileno(), 1)

    def starting(files: int, size: int) -> None:
        if size >= PARALLEL_BYTES and sys.stderr.isatty():  # seconds: said where someone waits
            print_error(
                f"keeping the links of {files:,} soul files ({size / 1e6:,.0f} MB) for graph: "
                "Ctrl-C skips it ([index] links = false: never)"
            )

    with suppress(KeyboardInterrupt):  # what was read is kept; the next listing reads the rest
        prepare(world, workers=cores(), starting=starting)


def report_skipped(world: World, unreadable: Sequence[Entry], as_json: bool) -> None:
    """Say which files of the memory folder are not in the listing, and why: junk that is no
    agent, and soul files that cannot be read. On stderr beside JSON (which stays a list of
    agents), after the table otherwise."""
    skipped = [(j.path, j.problem) for j in world.junk()]
    skipped += [(e.file.path, e.error) for e in unreadable]
    for path, problem in skipped:
        if as_json:
            print_error(f"skipped {path}: {problem}")
        else:
            print_text(f"skipped {path}: {problem}", style="yellow")


def run_agents(args: argparse.Namespace) -> int:
    world = open_world_at(args)
    entries, unreadable = indexed(world)
    _list_agents(args, world, entries, unreadable)
    keep_links(args, world)
    return 0


def _list_agents(
    args: argparse.Namespace, world: World, entries: list[Entry], unreadable: list[Entry]
) -> None:
    rows = [
        {
            "id": e.file.id,
            "name": summary.name or world.display_name(e.file.id),
            "path": str(e.file.path),
            "frames": summary.frames,
            "becoming": summary.statements,
            "bytes": e.file.size,
            "last_frame": e.last_frame,
            "problems": e.problems,
        }
        for e in entries
        if (summary := e.summary) is not None  # (always: the unreadable ones have none)
    ]
    if args.json:
        emit_json(rows)
        report_skipped(world, unreadable, as_json=True)
        return
    print_table(
        ["id", "name", "frames", "becoming", "KB", "last frame", "problems"],
        [
            (
                r["id"],
                r["name"],
                r["frames"],
                r["becoming"],
                f"{r['bytes'] / 1024:.1f}",
                r["last_frame"],
                r["problems"],
            )
            for r in rows
        ],
        title=f"{world.name}: {len(rows)} agents",
    )
    report_skipped(world, unreadable, as_json=False)


def run_becoming(args: argparse.Namespace) -> int:
    world = open_world(args.world)
    soul = read_soul(world, args.agent)
    # The statements' JSON names chapters by number: their titles are not made for it.
    statements = arc(soul, args.label, titled=args.chapters or not args.json)
    magnitudes = statements.magnitudes.tolist()  # (read off the arc, no statement made)
    if args.semantic and statements:
        magnitudes = semantic_arc(statements, args.settings)
    if args.chapters:
        return print_chapters(args, soul, statements)
    if args.json:
        # One statement at a time: a big soul's arc is never held as dicts, nor as one string.
        emit_json(export.arc_dicts(statements, magnitudes))
        return 0
    if not statements:
        print_text(f"{args.agent} has no identity statements yet.")
        return 0
    titles = {c.start: c for c in statements.outline().chapters}
    by = "meaning" if args.semantic else "words"

    def chapter_cell(s: Statement) -> str:
        c = titles.get(s.index)
        return f"{c.number} {c.title}" if c else ""

    columns = ["#", "frame", "when", "kind", "drift", "turn", "chapter"]
    columns += ["statement"] if statements.position else ["role", "statement"]
    print_table(
        columns,
        [
            (
                s.index + 1,
                s.frame_label,
                s.when,
                s.kind + (" (from ≠ previous)" if s.from_mismatch else ""),
                f"{m:.2f}",
                TURN_MARK if s.turning_point else "",
                chapter_cell(s),
                *(() if statements.position else (s.role,)),
                s.text,
            )
            for s, m in zip(statements, magnitudes, strict=True)
        ],
        title=f"{soul.name or args.agent}: "
        + ", ".join(
            f"{n} {noun}{'' if n == 1 else 's'}"
            for n, noun in (
                (len(statements), "statement"),
                (statements.shift_count(), "shift"),
                (len(statements.turning_positions()), "turning point"),
                (len(titles), "chapter"),
            )
        )
        + f" (by {by})",
        wrap=["statement", "role", "chapter"],
    )
    late = out_of_file_order(statements.lines)
    if late:
        lines = ", ".join(str(n) for n in late[:10]) + (", ..." if len(late) > 10 else "")
        print_text(
            f"Listed by the frames' times: {len(late)} statement"
            f"{'' if len(late) == 1 else 's'} written out of that order in the file "
            f"(line{'' if len(late) == 1 else 's'} {lines}).",
            style="yellow",
        )
    return 0


def out_of_file_order(lines: Sequence[int]) -> list[int]:
    """The lines, of an arc's statements in time order, that come above a statement listed
    before them: where the file wrote them out of the frames' order of time."""
    out, highest = [], 0
    for line in lines:
        if line < highest:
            out.append(line)
        highest = max(highest, line)
    return out


def print_chapters(args: argparse.Namespace, soul: Soul, statements: Arc) -> int:
    """``becoming AGENT --chapters``: one row per chapter."""
    chapters = statements.outline().chapters
    if args.json:
        emit_json([export.chapter_dict(c, statements) for c in chapters])
        return 0
    if not statements:
        print_text(f"{args.agent} has no identity statements yet.")
        return 0

    def span(a: object, b: object) -> str:
        a, b = a or "—", b or "—"
        return str(a) if a == b else f"{a} – {b}"

    rows = []
    for c in chapters:
        first, last = statements[c.start], statements[c.end - 1]
        rows.append(
            (
                c.number,
                span(f"#{c.start + 1}", f"#{c.end}"),
                span(
                    first.frame_label if first.number is not None else None,
                    last.frame_label if last.number is not None else None,
                ),
                span(first.when, last.when),
                len(c),
                c.title,
            )
        )
    print_table(
        ["chapter", "statements", "frames", "when", "n", "title"],
        rows,
        title=f"{soul.name or args.agent}: {len(chapters)} chapters, "
        f"{len(statements.turning_positions())} turning points "
        f"(by {'meaning' if args.semantic else 'words'})",
        wrap=["title"],
    )
    return 0


def semantic_arc(statements: Arc, settings: Settings) -> list[float]:
    """Shift magnitudes from the configured encoder, and the arc's turning points and chapters
    judged by meaning (the encoder is loaded here only: ``becoming`` stays light)."""
    from soulscope.recall.encoders import load_encoder
    from soulscope.recall.semantic import EmbeddingCache, embed
    from soulscope.soul.trajectory import drift

    encoder, cache = load_encoder(settings), EmbeddingCache()
    vectors = embed(statements.texts, encoder, cache)
    statements.set_outline(statements.by_meaning(vectors))
    return drift(statements, lambda _texts: vectors)


def select_frame(soul: Soul, spec: str) -> Frame:
    """The frame ``spec`` names (number, label, date, ``#K``), as the dashboard's ``:`` finds it."""
    from soulscope.soul.lookup import find_frame

    found = find_frame(soul, spec)
    if found.frame is None:
        raise CommandError((found.problem or f"no frame {spec}").rstrip("."))
    return found.frame


def print_soul(soul: Soul, frame_spec: str | None, as_json: bool) -> int:
    if frame_spec:
        frame = select_frame(soul, frame_spec)
        if as_json:
            emit_json(export.frame_dict(frame))
        else:
            from soulscope.soul.model import clean

            print_text(clean(frame.source))
        return 0
    if as_json:
        emit_json(export.soul_stream(soul))
        return 0
    print_text(f"{soul.name or soul.agent_id} ({soul.agent_id})", style="bold")
    for label, value in soul.identity.items():
        print_text(f"{label}: {value}")
    print_table(
        ["#", "frame", "date", "title", "observations"],
        [
            (
                f.index + 1,
                f.label,
                f.when,
                f.title,
                ", ".join(sorted({o.label for o in f.observations})),
            )
            for f in soul.frames
        ],
        wrap=["title", "observations"],
    )
    for p in soul.problems[:20]:
        print_text(str(p), style="yellow")
    if len(soul.problems) > 20:
        print_text(f"... and {len(soul.problems) - 20} more problems", style="yellow")
    return 0


def run_show(args: argparse.Namespace) -> int:
    world = open_world(args.world)
    return print_soul(read_soul(world, args.agent), args.frame, args.json)


def run_compare(args: argparse.Namespace) -> int:
    world = open_world(args.world)
    left, right = read_soul(world, args.left), read_soul(world, args.right)
    rows = compare(arc(left, args.label), arc(right, args.label))
    if args.json:
        emit_json(
            [
                {
                    "frame": (r.left or r.right).number,
                    "label": r.key,
                    "date": (r.left or r.right).date,
                    "time": (r.left or r.right).time,
                    "left": export.statement_dict(r.left) if r.left else None,
                    "right": export.statement_dict(r.right) if r.right else None,
                }
                for r in rows
            ]
        )
        return 0

    def cell(s):  # noqa: ANN001
        if s is None:
            return ""
        return ("» " if s.shift else "") + (f"{TURN_MARK} " if s.turning_point else "") + s.headline

    print_table(
        ["frame", "when (UTC)", args.left, args.right],
        [(r.key, r.when or "", cell(r.left), cell(r.right)) for r in rows],
        wrap=[args.left, args.right],
    )
    return 0


def run_overview(args: argparse.Namespace) -> int:
    world = open_world_at(args)
    entries, unreadable = indexed(world, args.label)
    _overview(args, world, entries, unreadable)
    keep_links(args, world)
    return 0


def _overview(
    args: argparse.Namespace, world: World, entries: list[Entry], unreadable: list[Entry]
) -> None:
    summaries = [e.summary for e in entries if e.summary is not None]
    if args.json:
        emit_json(
            [
                {
                    "id": s.agent_id,
                    "name": s.name,
                    "statements": s.statements,
                    "shifts": s.shifts,
                    "turning_points": s.turning_points,
                    "chapters": s.chapters,
                    "frames": s.frames,
                    "last_date": s.last_date,
                    "latest": export.statement_dict(s.latest) if s.latest else None,
                }
                for s in summaries
            ]
        )
        report_skipped(world, unreadable, as_json=True)
        return
    print_table(
        ["id", "frames", "shifts", "turns", "last", "becoming"],
        [
            (
                s.agent_id,
                s.frames,
                s.shifts,
                s.turning_points,
                s.last_date,
                s.latest.headline if s.latest else "",
            )
            for s in summaries
        ],
        wrap=["becoming"],
    )
    report_skipped(world, unreadable, as_json=False)
