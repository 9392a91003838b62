"""``soulscope memory``: what chats kept about you, listed and deleted."""

from __future__ import annotations

import argparse

from soulscope.cli.output import (
    CommandError,
    add_json_option,
    add_world_option,
    emit_json,
    open_world,
    print_table,
    print_text,
)
from soulscope.world import WorldError, check_id


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "memory", help="what chats on a world kept about you: list it, or delete a block or all"
    )
    p.add_argument("--user", help="whose (default: [chat] user, $SOULSCOPE_USER or $USER)")
    forget = p.add_mutually_exclusive_group()
    forget.add_argument("--forget", type=int, metavar="N", help="delete block N of the list")
    forget.add_argument(
        "--forget-all", action="store_true", help="delete all that is kept about you on this world"
    )
    p.add_argument(
        "--into-world",
        action="store_true",
        help="the world's own users/ folder (what chat --into-world wrote) instead",
    )
    add_world_option(p)
    add_json_option(p)
    p.set_defaults(run=run_memory)


def run_memory(args: argparse.Namespace) -> int:
    from soulscope.chat.memory import KeptError, forget, kept, users_dir

    user = args.user or args.settings.chat_user
    if not user:
        raise CommandError("say whose memory with --user ID (or [chat] user in the config file)")
    try:
        check_id(user)
        folder = users_dir(open_world(args.world), into_world=args.into_world)
        if args.forget is not None or args.forget_all:
            gone = forget(folder, user, None if args.forget_all else args.forget)
            print_text(f"forgot {gone} fact{'s' * (gone != 1)} about {user}")
            return 0
        blocks = kept(folder, user)
    except (KeptError, WorldError, OSError) as exc:
        raise CommandError(str(exc)) from exc
    if args.json:
        emit_json(
            {
                "user": user,
                "folder": str(folder),
                "blocks": [
                    {"block": i, "turns": [b.first, b.last], "facts": list(b.facts)}
                    for i, b in enumerate(blocks, 1)
                ],
            }
        )
        return 0
    if not blocks:
        print_text(f"nothing is kept about {user} for this world (in {folder})")
        return 0
    print_table(
        ["block", "turns", "fact"],
        [(i, f"{b.first}-{b.last}", f) for i, b in enumerate(blocks, 1) for f in b.facts],
        title=f"kept about {user}, in {folder}",
        wrap=["fact"],
    )
    return 0
