"""Turning points against a reader's: precision and recall within one statement on the labelled
arcs of both eras (tests/support/turn_labels.py), this model against the one of ``--baseline``
(an earlier revision's ``soulscope/soul/chapters.py``, read from git), in the same run.

Run: .venv/bin/python bench/turns.py [--baseline REV]
Also: every real arc of 10+ statements within bounds (1 to max(3, 30%) turning points, at most
n/3 chapters), and how many seed changes of the labelled arcs (a heading naming a new seed) turn.
Target: precision and recall at least 0.85.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from soulscope.soul.chapters import as_words, outline, seed_changes  # noqa: E402
from soulscope.soul.parse import parse  # noqa: E402
from soulscope.soul.trajectory import arc  # noqa: E402
from tests.support.turn_labels import TURNS, score  # noqa: E402

CORPUS = ROOT.parent / "shared" / "corpus"
BASELINE = "1a2c65d"  # the model before turns by seeds, words of change and fragments


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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", default=BASELINE, help="git revision of the baseline model")
    parser.add_argument("--misses", action="store_true", help="name each miss and false turn")
    args = parser.parse_args()
    if not CORPUS.is_dir():
        print(f"no corpus at {CORPUS}: nothing to measure")
        return 1
    old = baseline_outline(args.baseline)
    now: dict[tuple[str, str], list[int]] = {}
    before: dict[tuple[str, str], list[int]] = {}
    seeds = found = 0
    for world, agent in TURNS:
        statements = arc(parse((CORPUS / world / "memory" / f"{agent}.md").read_bytes(), agent))
        now[(world, agent)] = statements.turning_positions()
        before[(world, agent)] = old(statements.texts).turning_positions()
        new = seed_changes(as_words(statements.texts, statements.headings()))
        seeds += sum(new)
        found += sum(1 for p, v in enumerate(new) if v and p in now[(world, agent)])
    rows = []
    for name, predicted in ((f"baseline ({args.baseline})", before), ("this model", now)):
        p, r, notes = score(predicted)
        rows.append((name, p, r, sum(map(len, predicted.values()))))
        if args.misses:
            print(f"{name}:\n  " + "\n  ".join(notes))
    outside = checked = 0
    for path in sorted(CORPUS.glob("*/memory/*.md")):
        statements = arc(parse(path.read_bytes(), path.stem))
        if len(statements) >= 10:
            checked += 1
            shape = outline(statements.texts, headings=statements.headings())
            outside += not bounds(len(statements), shape.turning_positions(), len(shape.chapters))
    labelled = sum(map(len, TURNS.values()))
    print(f"{len(TURNS)} arcs labelled, {labelled} reader turns")
    print(f"{'model':<22} {'precision':>9} {'recall':>7} {'turns':>6}")
    for name, p, r, count in rows:
        print(f"{name:<22} {p:>9.3f} {r:>7.3f} {count:>6}")
    print(f"seed changes that turn: {found} of {seeds}")
    print(f"arcs of 10+ statements outside bounds: {outside} of {checked}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
