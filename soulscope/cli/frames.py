"""Commands that advance worlds: init, register, frame, demo."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from soulscope.cli.output import (
    CommandError,
    add_json_option,
    add_world_option,
    emit_json,
    open_world,
    print_table,
    print_text,
)
from soulscope.config import Settings
from soulscope.world import DEMO_WORLD, WorldError


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("init", help="create an empty world with its own git repository")
    p.add_argument("dir", help="a new (or empty) folder")
    p.add_argument("--date", required=True, help="the world's first date, YYYY-MM-DD")
    p.add_argument("--seed", type=int, default=0, help="the world's seed (default 0)")
    p.add_argument("--name", help="the world's name (default: the folder's name)")
    p.set_defaults(run=run_init)

    p = sub.add_parser(
        "register", help="add an agent to a world: its identity header, written once"
    )
    p.add_argument("dir", help="the world folder")
    p.add_argument("--id", required=True, dest="agent_id", help="agent id: letters, digits, . _ -")
    p.add_argument("--name", required=True)
    p.add_argument("--archetype", required=True)
    p.add_argument("--voice", required=True)
    p.add_argument("--personality", default="", help="one paragraph")
    p.add_argument("--conviction", action="append", default=[], help="repeat for several")
    p.add_argument("--interest", action="append", default=[], help="repeat for several")
    p.add_argument("--channel", action="append", default=[], help="c/name or name; repeat")
    p.set_defaults(run=run_register)

    p = sub.add_parser("frame", help="advance a world by one or more frames (one commit each)")
    add_world_option(p)
    p.add_argument("--steps", type=int, default=1, help="how many frames (default 1)")
    p.add_argument("--brain", choices=("offline", "llm"), default="offline")
    p.add_argument(
        "--agents", action="append", default=[], help="only these agents (comma-separated)"
    )
    p.add_argument("--sample", type=int, help="a seeded sample of this many active agents")
    p.add_argument("--seed", type=int, help="the seed (default: the world's own)")
    p.add_argument(
        "--concurrency",
        type=int,
        help="LLM calls at once per server (default: [llm] concurrency, 8; llm brain)",
    )
    p.add_argument(
        "--commit-edits",
        action="store_true",
        help="commit uncommitted edits to the files a frame appends to first, as your own commit "
        "(without it such a frame is refused)",
    )
    add_json_option(p)
    p.set_defaults(run=run_frame)

    p = sub.add_parser(
        "demo", help="copy the built-in world into DIR as a git repository and advance it offline"
    )
    p.add_argument("dir", nargs="?", default="demo-world", help="default: ./demo-world")
    p.add_argument("--frames", type=int, default=None, help="frames to run (default 30)")
    p.add_argument("--seed", type=int, default=None, help="the seed (default 2026)")
    p.add_argument("--from", dest="source", help="copy this world instead of the built-in one")
    p.set_defaults(run=run_demo)


def _fail(exc: Exception) -> CommandError:
    return CommandError(str(exc))


def run_init(args: argparse.Namespace) -> int:
    from soulscope.sim.create import init_world

    try:
        clock = init_world(Path(args.dir), args.date, seed=args.seed, name=args.name)
    except (WorldError, OSError) as exc:
        raise _fail(exc) from exc
    print_text(f"created world '{clock.name}' in {args.dir} (date {clock.date}, seed {clock.seed})")
    return 0


def run_register(args: argparse.Namespace) -> int:
    from soulscope.sim.create import register_agent

    try:
        path = register_agent(
            Path(args.dir),
            args.agent_id,
            args.name,
            args.archetype,
            args.voice,
            args.personality,
            convictions=args.conviction,
            interests=args.interest,
            channels=args.channel,
        )
    except (WorldError, OSError) as exc:
        raise _fail(exc) from exc
    print_text(f"registered {args.agent_id}: {path}")
    return 0


def make_brain(kind: str, settings: Settings, concurrency: int | None = None):  # noqa: ANN201
    """The brain a command asked for; the LLM one needs an endpoint in the settings."""
    if kind == "offline":
        from soulscope.sim.offline import OfflineBrain

        return OfflineBrain()
    from soulscope.sim.llm import LlmBrain

    if not settings.llm_configured:
        raise CommandError(
            "no LLM endpoint is configured: set OPENAI_BASE_URL (or [llm] base_url in the config "
            "file), or use --brain offline"
        )
    if concurrency is not None and concurrency < 1:
        raise CommandError("--concurrency is at least 1")
    return LlmBrain(settings, concurrency=concurrency)


@contextmanager
def _progress(enabled: bool, total_frames: int) -> Iterator:
    """A Rich progress bar on stderr for interactive runs; a no-op callback otherwise."""
    if not enabled:
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    bar = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        console=Console(stderr=True),
        transient=True,
    )
    frames = bar.add_task("frames", total=total_frames)
    agents = bar.add_task("agents", total=None)
    state = {"frame": 0}

    def update(what: str, done: int, total: int) -> None:
        if what == "deciding":
            bar.update(
                agents,
                description=f"deciding (frame {state['frame'] + 1})",
                completed=done,
                total=total,
            )
            if done == total:
                state["frame"] += 1
                bar.update(frames, completed=state["frame"])

    with bar:
        yield update


def _agents(values: list[str]) -> list[str] | None:
    names = [a.strip() for v in values for a in v.split(",") if a.strip()]
    return names or None


def run_frame(args: argparse.Namespace) -> int:
    from soulscope.sim.frame import FrameInterrupted, frame_errors, run_frames

    world = open_world(args.world)
    brain = make_brain(args.brain, args.settings, args.concurrency)
    interactive = sys.stderr.isatty() and not args.json
    try:
        with _progress(interactive, args.steps) as progress:
            results = run_frames(
                world,
                brain,
                steps=args.steps,
                agents=_agents(args.agents),
                sample=args.sample,
                seed=args.seed,
                progress=progress,
                commit_edits=args.commit_edits,
            )
    except FrameInterrupted as exc:
        print(f"soulscope: interrupted; {exc.args[0]}", file=sys.stderr)
        return 130
    except (WorldError, OSError) as exc:
        raise _fail(exc) from exc
    for r in results:
        for note in r.notes:
            print(f"soulscope: {note}", file=sys.stderr)
    if args.json:
        emit_json(
            [
                {
                    "frame": r.frame,
                    "date": r.date,
                    "agents": r.agents,
                    "posts": r.posts,
                    "comments": r.comments,
                    "votes": r.votes,
                    "follows": r.follows,
                    "commit": r.commit,
                    "errors": [{"agent": a, "error": e} for a, e in r.errors],
                    "skipped": [{"agent": a, "error": e} for a, e in r.skipped],
                    "notes": list(r.notes),
                }
                for r in results
            ]
        )
        return 0
    print_table(
        # Errors are listed one per line below the table (a count column would not fit 80 columns).
        ["frame", "date", "agents", "posts", "comments", "votes", "follows", "commit"],
        [
            (
                r.frame,
                r.date,
                r.agents,
                r.posts,
                r.comments,
                r.votes,
                r.follows,
                r.commit[:8],
            )
            for r in results
        ],
        title=f"{len(results)} frame{'s' * (len(results) != 1)}, {brain.name} brain",
    )
    for r in results:
        for line in frame_errors(r):
            print_text(line, style="yellow")
    return 0


def run_demo(args: argparse.Namespace) -> int:
    from soulscope.sim.demo import DEMO_FRAMES, DEMO_SEED, make_demo
    from soulscope.sim.frame import FrameInterrupted

    source = Path(args.source) if args.source else DEMO_WORLD
    frames = DEMO_FRAMES if args.frames is None else args.frames
    seed = DEMO_SEED if args.seed is None else args.seed
    try:
        with _progress(sys.stderr.isatty(), frames) as progress:
            demo = make_demo(
                Path(args.dir), source=source, frames=frames, seed=seed, progress=progress
            )
    except FrameInterrupted as exc:
        print(f"soulscope: interrupted; {exc.args[0]}", file=sys.stderr)
        return 130
    except (WorldError, OSError) as exc:
        raise _fail(exc) from exc
    if not demo.created:
        print_text(
            f"{demo.root} already holds a demo world; reusing it (open it with: soulscope {args.dir})"
        )
        return 0
    last = demo.frames[-1] if demo.frames else None
    print_text(
        f"demo world in {demo.root}: {len(demo.frames)} frames, seed {seed}"
        + (f", now at frame {last.frame} ({last.date})" if last else "")
    )
    print_text(f"open it with: soulscope {args.dir}")
    return 0
