"""Are time answers right: ``first`` where date-only frames lie on the first day, and
earliest-first search, measured on this checkout and on the code of an earlier commit (before).

``first``: 12 words of the early real world whose first day holds a date-only frame
(``tests/support/frametimes.first_day_terms``). A term is right when the answer and its ties are
exactly the agents whose use may be the first, read from the headings apart from soulscope (a
date-only frame between its own file's timed frames of that date): no frame its own file proves
later, no possible first left out.

Search: the questions of ``tests/support/timequestions.py`` (real worlds of both eras and a hand-made one),
BM25. A question is right when its first time-ordered hit is a frame holding the asked words as
words (the phrase, for a phrase), or, where no frame holds them, when the search says so.

Run: ``python bench/timeanswers.py [--before REV]`` (default: the commit before this work).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import time
from io import BytesIO
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CODE = Path(os.environ.get("SOULSCOPE_BENCH_CODE", ROOT))
sys.path[:0] = [str(CODE), str(ROOT)]  # soulscope from CODE; tests.support and bench from here

BEFORE = "1a2c65d"  # main before date-only frames were bounded and time questions tiered
CORPUS = ROOT.parent / "shared" / "corpus"


def measure_first() -> list[dict]:
    from soulscope.history.first import first_in_files
    from soulscope.soul.terms import Term
    from tests.support import frametimes

    memory = CORPUS / "rappterbook" / "memory"
    paths = [(p.stem, p) for p in sorted(memory.glob("*.md"))]
    rows = []
    for term, expected in frametimes.first_day_terms(memory):
        found = first_in_files(paths, Term(term))
        assert found is not None
        low, high = found.moment.span
        got = frametimes.Span(found.agent_id, found.line, low, high)
        said = {found.agent_id, *(u.agent_id for u in found.ties)}
        possible = frametimes.possible_firsts(expected)
        later = sorted(said - possible)
        rows.append(
            {
                "term": term,
                "said": len(said),
                "possible": len(possible),
                "later": len(later),
                "missed": len(possible - said),
                "headline_later": any(u.before(got) for u in expected),
                "ok": said == possible and not any(u.before(got) for u in expected),
            }
        )
    return rows


def measure_search() -> list[dict]:
    from tests.support.timequestions import run_questions

    return run_questions()


def measure_sampled() -> list[dict]:
    from tests.support.timequestions import run_questions, sampled

    return run_questions(sampled(CORPUS / "rappterbook" / "memory"))


def measure() -> dict:
    start = time.perf_counter()
    out = {"first": measure_first(), "search": measure_search(), "sampled": measure_sampled()}
    out["seconds"] = time.perf_counter() - start
    return out


def export(rev: str, into: Path) -> None:
    """The ``soulscope`` package as it was at ``rev``."""
    blob = subprocess.run(
        ["git", "archive", rev, "soulscope"], cwd=ROOT, capture_output=True, check=True
    ).stdout
    with tarfile.open(fileobj=BytesIO(blob)) as tar:
        tar.extractall(into, filter="data")


def run_at(code: Path) -> dict:
    env = {**os.environ, "SOULSCOPE_BENCH_CODE": str(code)}
    done = subprocess.run(
        [sys.executable, __file__, "--measure"], env=env, capture_output=True, text=True
    )
    if done.returncode:
        raise SystemExit(f"measuring {code} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout)


def report(before: dict, after: dict, rev: str) -> None:
    print(f"first, date-only frames on the first day (before = {rev}, after = this checkout)")
    print(f"{'term':14} {'possible':>8}   {'before: said/later/missed':>26}   {'after':>14}")
    for b, a in zip(before["first"], after["first"], strict=True):
        print(
            f"{a['term']:14} {a['possible']:8}   "
            f"{b['said']:>9}/{b['later']}/{b['missed']} {'ok' if b['ok'] else 'WRONG':>7}   "
            f"{a['said']:>5}/{a['later']}/{a['missed']} {'ok' if a['ok'] else 'WRONG':>6}"
        )
    n = len(after["first"])
    right = [sum(r["ok"] for r in side["first"]) for side in (before, after)]
    print(f"right: before {right[0]} of {n}, after {right[1]} of {n}\n")
    print("earliest-first search starts at a frame holding the asked words (or says none does)")
    for b, a in zip(before["search"], after["search"], strict=True):
        mark = lambda r: "ok" if r["ok"] else "WRONG"  # noqa: E731
        print(f"  {mark(b):>5} -> {mark(a):5}  [{a['world']}] {a['question']}")
        if not a["ok"]:
            print(f"{'':16}first hit: {a['first']}")
    n = len(after["search"])
    right = [sum(r["ok"] for r in side["search"]) for side in (before, after)]
    print(f"right: before {right[0]} of {n}, after {right[1]} of {n}\n")
    n = len(after["sampled"])
    right = [sum(r["ok"] for r in side["sampled"]) for side in (before, after)]
    print(
        f"{n} words of the early world sampled at random among those with a stem neighbour "
        f"(tests/support/timequestions.sampled): right before {right[0]}, after {right[1]}"
    )
    for a in after["sampled"]:
        if not a["ok"]:
            print(f"  still wrong: {a['question']} (first hit: {a['first']})")
    print(
        f"seconds for the whole measure: before {before['seconds']:.1f}, after {after['seconds']:.1f}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", default=BEFORE, help="the commit to compare with")
    parser.add_argument("--measure", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if not CORPUS.exists():
        print(f"the shared corpus is not here ({CORPUS})")
        return 1
    if args.measure:
        print(json.dumps(measure()))
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        export(args.before, Path(tmp))
        before = run_at(Path(tmp))
    after = run_at(ROOT)
    report(before, after, args.before)
    return 0


if __name__ == "__main__":
    sys.exit(main())
