"""Two runs of a world side by side: where they parted, where each agent's memory first differs,
how far their arcs drifted, and how a term spread in each.

The runs are two worlds with a common past (a world and its fork, or two forks): the fork point is
the newest commit both histories hold. An agent's memory first differs at the first byte where its
two soul files differ; that byte's frame is where it diverged (a file that only grew further in
one run diverges at the first frame the other lacks). Post and thread numbers (``#95``) do not
count: when one run made a post more, every later post has the next number, and a reader would
not call "Posted #96" for "Posted #95" a different memory. The first byte that differs, numbers
and all, is kept beside it. Arcs are read with ``soul.trajectory`` and
``soul.chapters`` as they are; their drift is the mean lexical distance of the statements the two
runs made in the same frame after the fork point.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from soulscope.sim import repo
from soulscope.soul.model import Soul
from soulscope.soul.parse import parse
from soulscope.soul.trajectory import ArcRow, Statement, arc, compare, lexical_distance
from soulscope.world import World, WorldError


@dataclass(frozen=True, slots=True)
class Difference:
    """Where two soul files first differ: the frame (None: in the header, before any frame)."""

    line: int  # 1-based line of the first differing byte in the run that has it
    frame: int | None
    heading: str | None
    in_first: bool = True  # the line is in the first file (else only the second grew that far)


@dataclass(frozen=True)
class ArcSide:
    """One run's arc of one agent, from the fork point on."""

    statements: int
    turning_points: int
    chapters: tuple[str, ...]
    latest: str | None


@dataclass(frozen=True)
class AgentRuns:
    agent: str
    difference: Difference | None  # None: the same memory in both runs (post numbers aside)
    left: ArcSide | None  # None: the agent has no soul file in that run
    right: ArcSide | None
    drift: float | None  # 0..1; None where no frame after the fork has a statement in both
    rows: tuple[ArcRow, ...] = ()  # the arcs side by side after the fork point, where they differ
    raw_difference: Difference | None = None  # the first byte that differs, numbers and all


@dataclass(frozen=True)
class RunsComparison:
    left: str
    right: str
    point: str | None  # the newest commit both runs hold
    point_frame: int | None
    agents: tuple[AgentRuns, ...]
    curves: dict[str, tuple[tuple[tuple[str, int], ...], ...]] = field(default_factory=dict)


def _commits(world: World) -> list[str]:
    top = repo.toplevel(world.root)
    return repo.git(top, "rev-list", "--first-parent", "HEAD").stdout.decode().split()


def fork_point(left: World, right: World) -> str | None:
    """The newest commit of ``left``'s history that ``right``'s holds too."""
    theirs = set(_commits(right))
    return next((c for c in _commits(left) if c in theirs), None)


_NUMBER = re.compile(rb"#\d+")  # a post or thread number: #95


def without_numbers(data: bytes) -> bytes:
    """``data`` with every post and thread number made the same (``#95`` -> ``#``); lines stay."""
    return _NUMBER.sub(b"#", data)


def first_difference(a: bytes, b: bytes, numbers: bool = True) -> Difference | None:
    """Where soul files ``a`` and ``b`` first differ, or None when they are the same;
    ``numbers=False``: differences in post and thread numbers alone do not count."""
    if a == b:
        return None
    key_a, key_b = (a, b) if numbers else (without_numbers(a), without_numbers(b))
    if key_a == key_b:
        return None
    n = min(len(key_a), len(key_b))
    at = len(os.path.commonprefix([key_a[:n], key_b[:n]]))
    a_is_source = at != n or len(key_a) > len(key_b)
    key, source = (key_a, a) if a_is_source else (key_b, b)
    start = key.rfind(b"\n", 0, at) + 1  # the line holding the first difference
    line = key.count(b"\n", 0, start) + 1  # (the same line in the file: numbers hold no newline)
    frames = parse(source).frames
    if at == n:  # one file only grew further: the first frame the other lacks
        frame = next((f for f in frames if f.line >= line), None)
        if frame is not None:
            return Difference(frame.line, frame.number, frame.heading, a_is_source)
    frame = next((f for f in reversed(frames) if f.line <= line), None)
    if frame is None:
        return Difference(line, None, None, a_is_source)
    return Difference(line, frame.number, frame.heading, a_is_source)


def _side(soul: Soul | None, frame: int | None) -> tuple[ArcSide | None, list[Statement]]:
    """One run's arc of an agent after ``frame``, and its statements there."""
    if soul is None:
        return None, []
    statements = arc(soul)
    later = [
        i for i, s in enumerate(statements) if frame is None or s.number is None or s.number > frame
    ]
    first = later[0] if later else len(statements)
    outline = statements.outline()
    chapters = tuple(c.title for c in outline.chapters if c.end > first)
    turning = [i for i in outline.turning_positions() if i >= first]
    latest = statements[-1].text if len(statements) else None
    return ArcSide(len(later), len(turning), chapters, latest), [statements[i] for i in later]


def _drift(rows: list[ArcRow]) -> float | None:
    pairs = [(r.left.text, r.right.text) for r in rows if r.left and r.right]
    if not pairs:
        return None
    return round(sum(lexical_distance(a, b) for a, b in pairs) / len(pairs), 3)


def _soul(world: World, agent: str) -> tuple[bytes, Soul | None]:
    path = world.memory_dir / f"{agent}.md"
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return b"", None
    except OSError as exc:
        raise WorldError(f"{path} cannot be read: {exc.strerror}") from exc
    return data, parse(data)


def compare_agent(left: World, right: World, agent: str, frame: int | None) -> AgentRuns:
    a, soul_a = _soul(left, agent)
    b, soul_b = _soul(right, agent)
    side_a, later_a = _side(soul_a, frame)
    side_b, later_b = _side(soul_b, frame)
    rows = [r for r in compare(later_a, later_b) if _texts(r.left) != _texts(r.right)]
    return AgentRuns(
        agent,
        first_difference(a, b, numbers=False),
        side_a,
        side_b,
        _drift(compare(later_a, later_b)),
        tuple(rows),
        first_difference(a, b),
    )


def _texts(s: Statement | None) -> str | None:
    return s.text if s else None


def _point_frame(world: World, sha: str | None) -> int | None:
    from soulscope.runs.fork import frame_at, inside

    top = repo.toplevel(world.root)
    return frame_at(top, sha, inside(top, world.root)) if sha else None


def compare_runs(
    left: World, right: World, terms: Sequence[str] = (), match: str = "word"
) -> RunsComparison:
    """Runs ``left`` and ``right`` compared agent by agent (and for ``term``, its spread)."""
    point = fork_point(left, right)
    frame = _point_frame(left, point)
    agents = sorted({a.id for a in left.agents()} | {a.id for a in right.agents()})
    compared = tuple(compare_agent(left, right, a, frame) for a in agents)
    curves: dict[str, tuple[tuple[tuple[str, int], ...], ...]] = {}
    for text in terms:
        from soulscope.history.spread import spread
        from soulscope.soul.terms import Term

        term = Term(text, match)
        curves[text] = tuple(spread(w, term, links=False).timeline for w in (left, right))
    return RunsComparison(str(left.root), str(right.root), point, frame, compared, curves)


def _side_dict(side: ArcSide | None) -> dict | None:
    if side is None:
        return None
    return {
        "statements": side.statements,
        "turning_points": side.turning_points,
        "chapters": list(side.chapters),
        "latest": side.latest,
    }


def _statement(s: Statement | None) -> dict | None:
    return None if s is None else {"frame": s.number, "text": s.text, "kind": s.kind}


def _difference(d: Difference | None) -> dict | None:
    if d is None:
        return None
    return {
        "frame": d.frame,
        "heading": d.heading,
        "line": d.line,
        "in": "left" if d.in_first else "right",
    }


IGNORED = "post and thread numbers (#N)"  # what the first difference does not count


def comparison_dict(c: RunsComparison) -> dict:
    """``compare-runs --json``."""
    return {
        "left": c.left,
        "right": c.right,
        "fork_point": {"commit": c.point, "frame": c.point_frame},
        "first_difference_ignores": IGNORED,
        "agents": [
            {
                "agent": a.agent,
                "first_difference": _difference(a.difference),
                "first_byte_difference": _difference(a.raw_difference),
                "left": _side_dict(a.left),
                "right": _side_dict(a.right),
                "drift": a.drift,
                "rows": [
                    {"frame": r.key, "left": _statement(r.left), "right": _statement(r.right)}
                    for r in a.rows
                ],
            }
            for a in c.agents
        ],
        "terms": {
            term: {
                side: [{"date": d, "agents": n} for d, n in curve]
                for side, curve in zip(("left", "right"), curves, strict=True)
            }
            for term, curves in c.curves.items()
        },
    }


def curve_pair(
    curves: tuple[tuple[tuple[str, int], ...], ...],
) -> list[tuple[str, int, int]]:
    """Two runs' spread curves on the same days: ``(date, left, right)``, each the agents that
    had used the term by that day."""
    left, right = curves
    days = sorted({d for d, _ in left} | {d for d, _ in right})
    return [(d, _by(left, d), _by(right, d)) for d in days]


def _by(curve: tuple[tuple[str, int], ...], day: str) -> int:
    return max((n for d, n in curve if d <= day), default=0)


def diverged(c: RunsComparison) -> list[AgentRuns]:
    return [a for a in c.agents if a.difference is not None]
