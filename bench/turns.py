"""Turning points against a reader's: precision and recall within one statement on the labelled
arcs of both eras (tests/support/turn_labels.py), this model against the one of ``--baseline``
(an earlier revision's ``soulscope/soul/chapters.py``, read from git), in the same run.

Run: .venv/bin/python bench/turns.py [--baseline REV] [--before REV] [--misses]
Short arcs (fewer than 10 statements) and long ones are scored apart and together; ``--before``
is the model before short arcs turned by role (seeds and declared words alone, one in two at most).
Also: every real arc of 10+ statements within bounds (1 to max(3, 30%) turning points, at most
n/3 chapters), and how many seed changes of the labelled arcs (a heading naming a new seed) turn.
And each era's kinds: against the previous statement alone (before) and settled with the turning
points (now), with how many turning points each calls a refinement.
Target: precision and recall at least 0.85.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import types
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from soulscope.soul.chapters import SINGLE_OUT, as_words, seed_changes  # noqa: E402
from soulscope.soul.parse import parse  # noqa: E402
from soulscope.soul.trajectory import KINDS, Arc, arc  # noqa: E402
from tests.support.turn_labels import LATER, TURNS, prefixes, score  # noqa: E402

CORPUS = ROOT.parent / "shared" / "corpus"
BASELINE = "1a2c65d"  # the model before turns by seeds, words of change and fragments
BEFORE = "cf87845"  # the model before short arcs turn by role (and kinds settle with turns)


def baseline_outline(rev: str):  # noqa: ANN201
    """``outline`` of ``soulscope/soul/chapters.py`` at ``rev``, as a module of its own."""
    source = subprocess.run(
        ["git", "show", f"{rev}:soulscope/soul/chapters.py"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    module = types.ModuleType("baseline_chapters")
    sys.modules[module.__name__] = module  # (its dataclasses look their module up)
    exec(compile(source, f"{rev}:chapters.py", "exec"), module.__dict__)  # noqa: S102
    return module.outline


def bounds(n: int, turning: list[int], chapters: int) -> bool:
    return 1 <= len(turning) <= max(3, int(0.3 * n)) and 2 <= chapters <= n / 3


def kinds(arcs: list[Arc]) -> tuple[Counter[str], Counter[str], int, int]:
    """The kinds of these arcs before (by the previous statement) and now (settled), and how many
    turning points each calls a refinement."""
    before: Counter[str] = Counter()
    now: Counter[str] = Counter()
    turns_before = turns_now = 0
    refinement = KINDS.index("refinement")
    for statements in arcs:
        settled = statements.kind_codes()
        before.update(KINDS[k] for k in statements.kinds)
        now.update(KINDS[k] for k in settled)
        for p in statements.turning_positions():
            turns_before += statements.kinds[p] == refinement
            turns_now += settled[p] == refinement
    return before, now, turns_before, turns_now


def print_kinds(eras: dict[str, list[Arc]]) -> None:
    print(f"{'era':<18} {'kinds':<6} " + " ".join(f"{k:>10}" for k in KINDS) + "  turn=refinement")
    for era, arcs in eras.items():
        before, now, turns_before, turns_now = kinds(arcs)
        for name, counts, turns in (("before", before, turns_before), ("now", now, turns_now)):
            cells = " ".join(f"{counts[k]:>10}" for k in KINDS)
            print(f"{era:<18} {name:<6} {cells}  {turns:>15}")


def later_prefixes(models_of: dict) -> list[tuple]:
    """The later era's labelled long arcs as they were at 3 to 9 statements (short arcs of that
    era, whose every statement names a new role), scored by each model."""
    labels: tuple[dict, dict] = ({}, {})
    predicted: dict[str, dict] = {"baseline": {}, "before": {}, "now": {}}
    for world, agent in [k for k in TURNS if k[0] == LATER]:
        statements = arc(parse((CORPUS / world / "memory" / f"{agent}.md").read_bytes(), agent))
        if len(statements) < SINGLE_OUT:
            continue
        turns, also = prefixes((world, agent), range(3, SINGLE_OUT))
        labels[0].update(turns)
        labels[1].update(also)
        for key in turns:
            n = int(key[1].rsplit(":", 1)[1])
            prefix = Arc(statements.frames, position=statements.position)
            for s in statements[:n]:
                prefix.append(s)
            predicted["now"][key] = prefix.turning_positions()
            predicted["baseline"][key] = models_of["baseline"](prefix.texts).turning_positions()
            predicted["before"][key] = models_of["before"](
                prefix.texts, headings=prefix.headings()
            ).turning_positions()
    rows = []
    for name, got in predicted.items():
        p, r, _ = score(got, labels[0], labels)
        turns = sum(map(len, got.values()))
        rows.append((f"{name} (later prefixes)", f"3-9 ({len(got)})", p, r, turns, 0))
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", default=BASELINE, help="git revision of the baseline model")
    parser.add_argument(
        "--before", default=BEFORE, help="git revision of the model before short arcs turned"
    )
    parser.add_argument("--misses", action="store_true", help="name each miss and false turn")
    args = parser.parse_args()
    if not CORPUS.is_dir():
        print(f"no corpus at {CORPUS}: nothing to measure")
        return 1
    old, shortless = baseline_outline(args.baseline), baseline_outline(args.before)
    now: dict[tuple[str, str], list[int]] = {}
    before: dict[tuple[str, str], list[int]] = {}
    earlier: dict[tuple[str, str], list[int]] = {}
    short: list[tuple[str, str]] = []
    seeds = found = 0
    for world, agent in TURNS:
        statements = arc(parse((CORPUS / world / "memory" / f"{agent}.md").read_bytes(), agent))
        now[(world, agent)] = statements.turning_positions()
        before[(world, agent)] = old(statements.texts).turning_positions()
        earlier[(world, agent)] = shortless(
            statements.texts, headings=statements.headings()
        ).turning_positions()
        if len(statements) < SINGLE_OUT:
            short.append((world, agent))
        new = seed_changes(as_words(statements.texts, statements.headings()))
        seeds += sum(new)
        found += sum(1 for p, v in enumerate(new) if v and p in now[(world, agent)])
    long = [key for key in TURNS if key not in short]
    rows = []
    models = (
        (f"baseline ({args.baseline})", before),
        (f"before ({args.before})", earlier),
        ("this model", now),
    )
    for name, predicted in models:
        for part, keys in ((f"short ({len(short)})", short), (f"long ({len(long)})", long)):
            p, r, _ = score(predicted, keys)
            turns = sum(len(predicted[k]) for k in keys)
            rows.append((name, part, p, r, turns, sum(len(TURNS[k]) for k in keys)))
        p, r, notes = score(predicted)
        rows.append((name, f"all ({len(TURNS)})", p, r, sum(map(len, predicted.values())), 0))
        if args.misses:
            print(f"{name}:\n  " + "\n  ".join(notes))
    rows += later_prefixes(models_of={"baseline": old, "before": shortless})
    outside = checked = 0
    eras: dict[str, list[Arc]] = {}
    for path in sorted(CORPUS.glob("*/memory/*.md")):
        statements = arc(parse(path.read_bytes(), path.stem))
        eras.setdefault(path.parent.parent.name, []).append(statements)
        if len(statements) >= SINGLE_OUT:
            checked += 1
            shape = statements.outline()
            outside += not bounds(len(statements), shape.turning_positions(), len(shape.chapters))
    labelled = sum(map(len, TURNS.values()))
    print(f"{len(TURNS)} arcs labelled ({len(short)} short), {labelled} reader turns")
    print(f"{'model':<22} {'arcs':<10} {'precision':>9} {'recall':>7} {'turns':>6}")
    for name, part, p, r, count, _ in rows:
        print(f"{name:<22} {part:<10} {p:>9.3f} {r:>7.3f} {count:>6}")
    print(f"seed changes that turn: {found} of {seeds}")
    print(f"arcs of 10+ statements outside bounds: {outside} of {checked}")
    print_kinds(eras)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
