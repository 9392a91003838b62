"""Commands over git time: history, diff, first, why, and ``show --at REV``."""

from __future__ import annotations

import argparse
from collections.abc import Callable

from soulscope.cli.output import (
    CommandError,
    add_at_option,
    add_json_option,
    add_match_option,
    add_world_option,
    emit_json,
    match_term,
    open_world,
    open_world_at,
    print_table,
    print_text,
)
from soulscope.history.first import Mention
from soulscope.soul.model import clean
from soulscope.soul.when import ZONE, utc
from soulscope.world import World


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("history", help="the commits that changed an agent's memory, newest first")
    p.add_argument("agent")
    p.add_argument("--limit", type=int, default=None, help="show only the newest N commits")
    add_world_option(p)
    add_json_option(p)
    p.set_defaults(run=run_history)

    p = sub.add_parser("diff", help="an agent's memory at two revisions, compared by frame")
    p.add_argument("agent")
    p.add_argument("rev_a", metavar="REV_A", help="sha, tag, branch, HEAD~5 or a date")
    p.add_argument("rev_b", metavar="REV_B", nargs="?", default="HEAD", help="default: HEAD")
    add_world_option(p)
    add_json_option(p)
    p.set_defaults(run=run_diff)

    p = sub.add_parser(
        "first",
        help="when a term first appeared in memory: the first commit that brought it, then "
        "the frames' own times",
    )
    p.add_argument("term", help="a word or phrase, matched as a word in any letter case")
    p.add_argument("--agent", help="only this agent's memory (default: the whole world)")
    add_match_option(p)
    add_at_option(p)
    add_world_option(p)
    add_json_option(p)
    p.set_defaults(run=run_first)

    p = sub.add_parser(
        "why",
        help="why an agent holds a Becoming statement: a dossier of its frame, threads, "
        "influencers, build-up and commit, with a cited narrative",
    )
    p.add_argument("agent")
    which = p.add_mutually_exclusive_group()
    which.add_argument("--frame", help="the frame holding the statement (237, 500b or a date)")
    which.add_argument(
        "--shift",
        type=int,
        metavar="K",
        help="the K-th statement of the arc, as numbered by 'soulscope becoming' (-1: the latest)",
    )
    p.add_argument(
        "--offline",
        action="store_true",
        help="write the narrative without the configured LLM (a deterministic summary)",
    )
    add_at_option(p)
    add_world_option(p)
    add_json_option(p)
    p.set_defaults(run=run_why)

    # ``show`` belongs to the souls area; add the time dimension to it without repeating it
    # (when it is there: a command of this area alone is parsed without the souls area).
    show = sub.choices.get("show")
    if show is not None:
        show.add_argument("--at", metavar="REV", help="the memory as it was at a revision")
        show.set_defaults(run=_with_at(show.get_default("run")))


def _world(args: argparse.Namespace) -> World:
    return open_world(args.world)


def _with_at(run_show: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    def run(args: argparse.Namespace) -> int:
        if not args.at:
            return run_show(args)
        from soulscope.cli.souls import print_soul
        from soulscope.history.timeline import soul_at

        world = _world(args)
        soul = soul_at(world, args.agent, args.at)
        return print_soul(soul, args.frame, args.json)

    return run


def run_history(args: argparse.Namespace) -> int:
    from soulscope.history.export import change_dict
    from soulscope.history.timeline import history

    world = _world(args)
    changes = history(world, args.agent)
    if args.limit is not None:
        changes = changes[: max(args.limit, 0)]
    if args.json:
        emit_json([change_dict(c) for c in changes])
        return 0
    print_table(
        ["commit", f"date ({ZONE})", "+", "~", "-", "becoming", "flags", "message"],
        [
            (
                c.commit.short,
                utc(c.commit.timestamp),
                len(c.frames_added) or "",
                len(c.frames_changed) or "",
                len(c.frames_removed) or "",
                "»" if c.becoming_changed else "",
                " ".join(c.flags),
                c.commit.message,
            )
            for c in changes
        ],
        title=f"{args.agent}: {len(changes)} commits (+ frames added, ~ changed, - removed)",
        wrap=["message"],
    )
    return 0


def run_diff(args: argparse.Namespace) -> int:
    from soulscope.history.export import diff_dict
    from soulscope.history.timeline import diff

    world = _world(args)
    d = diff(world, args.agent, args.rev_a, args.rev_b)
    if args.json:
        emit_json(diff_dict(d))
        return 0
    print_text(f"{args.agent}: {d.before.short} → {d.after.short}", style="bold")
    for word, headings in (
        ("added", d.frames.added),
        ("changed", d.frames.changed),
        ("removed", d.frames.removed),
    ):
        if headings:
            print_text(f"{len(headings)} frames {word}: " + "; ".join(map(clean, headings)))
    if d.becoming_before != d.becoming_after:
        print_text(f"Becoming before: {clean(d.becoming_before or '—')}")
        print_text(f"Becoming after:  {clean(d.becoming_after or '—')}")
    if d.relationships_gained:
        print_text("relationships gained: " + ", ".join(d.relationships_gained))
    if d.relationships_lost:
        print_text("relationships lost: " + ", ".join(d.relationships_lost))
    if not d.unified:
        print_text("no difference")
    else:
        from soulscope.history.render import unified_text

        print_text(unified_text(clean(d.unified)))
    return 0


def run_first(args: argparse.Namespace) -> int:
    from soulscope.history.export import mention_dict
    from soulscope.history.timeline import first_mention

    world = open_world_at(args)
    term = match_term(args)
    found = first_mention(world, term, args.agent)
    if found is None:
        where = f"{args.agent}'s memory" if args.agent else f"the memory of {world.name}"
        raise CommandError(f"'{args.term}' never appears in {where}", code=1)
    if args.json:
        emit_json(mention_dict(found))
        return 0
    print_text(mention_text(found))
    return 0


def mention_text(found: Mention) -> str:
    """``first``'s answer for people: where, when (UTC), which commit, and the ties."""
    where = f"frame {found.label}" if found.label else "outside the frames"
    out = [f"{found.agent_id}, {where}, {found.moment.text}, line {found.line}"]
    c = found.commit
    if c is not None:
        brought = f"commit {c.short} ({utc(c.timestamp)} {ZONE}, {c.author}: {c.message})"
        if found.together:
            brought += "; it brought several frames at once: the frames' own times date them"
        out.append(brought)
    else:
        out.append("no git history: ordered by the frames' own times")
    out.append(found.text)
    gone = found.removed_by
    if gone is not None:
        out.append(
            f"no longer in its memory: commit {gone.short} ({utc(gone.timestamp)} {ZONE}, "
            f"{gone.author}: {gone.message}) took the line out"
        )
    dated = [u for u in found.ties if u.moment.date]
    undated = [u.agent_id for u in found.ties if not u.moment.date]
    if dated:
        out.append(f"tied with {len(dated)} (their headings cannot tell which came first):")
        out.extend(
            f"  {u.agent_id}, frame {u.label or '—'}, {u.moment.text}, line {u.line}" for u in dated
        )
    if undated:
        out.append(
            f"also used in {len(undated)} files with no date to place it by: " + ", ".join(undated)
        )
    if found.misdated:
        out.append(
            f"not taken as first: {len(found.misdated)} dated earlier in a heading whose date "
            "runs backwards in its file (by the file's order it came later):"
        )
        out.extend(
            f"  {u.agent_id}, frame {u.label or '—'}, {u.moment.text}, line {u.line}"
            for u in found.misdated
        )
    return "\n".join(out)


def run_why(args: argparse.Namespace) -> int:
    from soulscope.history.export import why_dict
    from soulscope.history.why import explain

    world = open_world_at(args)
    llm = None
    if not args.offline:
        from soulscope.llm import LLM, Endpoint

        endpoint = Endpoint.from_settings(args.settings)
        llm = LLM(endpoint) if endpoint else None
    why = explain(world, args.agent, frame=args.frame, index=args.shift, llm=llm)
    if args.json:
        emit_json(why_dict(why))
        return 0
    from soulscope.history.render import why_text

    print_text(why_text(why))
    return 0
