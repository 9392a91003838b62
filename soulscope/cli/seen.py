"""``show AGENT --frame N --context``: what the agent's brain was given in that frame."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from soulscope.cli.output import CommandError, emit_json, open_world, print_text


def register(sub: argparse._SubParsersAction) -> None:
    # ``show`` belongs to the souls area; the context of a frame is added to it (when it is
    # there: a command of this area alone is parsed without the souls area).
    show = sub.choices.get("show")
    if show is not None:
        show.add_argument(
            "--context",
            action="store_true",
            help="with --frame: what the agent's brain was given in that frame (its frame log)",
        )
        show.set_defaults(run=_with_context(show.get_default("run")))


def _with_context(
    run_show: Callable[[argparse.Namespace], int],
) -> Callable[[argparse.Namespace], int]:
    def run(args: argparse.Namespace) -> int:
        if not args.context:
            return run_show(args)
        if not args.frame:
            raise CommandError("--context needs --frame N: the frame whose context to show")
        from soulscope.cli.souls import read_soul, select_frame
        from soulscope.runs.seen import seen

        world = open_world(args.world)
        frame = select_frame(read_soul(world, args.agent), args.frame)
        found = seen(world, args.agent, frame.number)
        if args.json:
            emit_json(found)
        else:
            _print(found)
        return 0

    return run


def _print(found: dict[str, Any]) -> None:
    head = f"{found['agent']}, frame {found['frame']}"
    if not found["known"]:
        print_text(f"{head}: not known: {found['why']}")
        return
    model = f", model {found['model']}" if found.get("model") else ""
    print_text(f"{head}: {found['brain']} brain{model} ({found['log']})", style="bold")
    if found.get("error"):
        print_text(f"no usable answer: {found['error']}", style="yellow")
    soul = found.get("soul") or {}
    if soul:
        print_text(
            f"soul: {soul.get('path')}, {soul.get('frames')} frames, last {soul.get('last_frame')}"
        )
    for kind, items in found["community"].items():
        print_text(f"{kind} read: {len(items)}")
        for item in items:
            number = item.get("post") if "comment" not in item else item.get("comment")
            print_text(
                f"  #{number} {item.get('author')}: {item.get('title') or item.get('body', '')[:80]}"
            )
    for message in found.get("messages") or []:
        print_text(f"--- {message.get('role')} ---", style="bold")
        print_text(str(message.get("content", "")))
    if found.get("answer"):
        print_text("--- answer ---", style="bold")
        print_text(found["answer"])
    if found.get("tokens"):
        print_text("tokens: " + ", ".join(f"{k} {v}" for k, v in found["tokens"].items()))
