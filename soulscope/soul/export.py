"""Souls, frames and arcs as plain JSON-ready dicts (the CLI's ``--json`` and the Python API)."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterator, Sequence
from typing import Any

from soulscope.soul.chapters import Chapter
from soulscope.soul.counters import strip_counters
from soulscope.soul.model import Frame, Observation, Problem, Section, Soul, frame_label
from soulscope.soul.trajectory import HEADLINE_CHARS, KINDS, SHIFT_KINDS, Arc, Statement, shorten


def observation_dict(o: Observation) -> dict[str, Any]:
    return {"label": o.label, "text": o.text, "line": o.line}


def frame_dict(f: Frame) -> dict[str, Any]:
    return {
        "index": f.index,
        "frame": f.number,
        "number": f.number,
        "label": f.label,
        "suffix": f.suffix or None,
        "date": f.date,
        "time": f.time,
        "title": f.title or None,
        "heading": f.heading,
        "line": f.line,
        "end_line": f.end_line,
        "actions": list(f.actions),
        "observations": [observation_dict(o) for o in f.observations],
        "duplicate_of": f.duplicate_of,
    }


def section_dict(s: Section) -> dict[str, Any]:
    return {"title": s.title, "line": s.line, "end_line": s.end_line, "items": list(s.items)}


def problem_dict(p: Problem) -> dict[str, Any]:
    return {"line": p.line, "kind": p.kind, "message": p.message}


def soul_stream(soul: Soul) -> dict[str, Any]:
    """The soul as a dict whose lists are iterators: each frame's dict is made only when it is
    written, so a big soul's export is never held whole (``list()`` them for a plain dict)."""
    return {
        "id": soul.agent_id,
        "name": soul.name,
        "identity": dict(soul.identity),
        "sections": map(section_dict, soul.sections),
        "frames": map(frame_dict, soul.frames),
        "problems": map(problem_dict, soul.problems),
    }


def statement_dict(s: Statement) -> dict[str, Any]:
    return {
        "frame": s.number,
        "suffix": s.suffix or None,
        "label": s.frame_label if s.frame_index is not None else None,
        "date": s.date,
        "time": s.time,
        "heading": s.heading,
        "text": s.text,
        "line": s.line,
        "role": None if s.position else s.role,  # a position names no role: see "headline"
        "from": s.from_role,
        "to": s.to_role,
        "shift": s.shift,
        "kind": s.kind,
        "magnitude": s.magnitude,
        "from_mismatch": s.from_mismatch,
        "repeat": s.repeat,
        "headline": s.headline,
        "turning_point": s.turning_point,
        "chapter": s.chapter or None,
    }


def arc_dicts(
    statements: Arc, magnitudes: Sequence[float] | None = None
) -> Iterator[dict[str, Any]]:
    """``statement_dict`` of each statement of an arc, read off its columns: no ``Statement`` is
    made (a big soul's arc is 70,000 of them), and what is the same for every statement (the
    outline, the settled kinds) is asked once. ``magnitudes``: in place of the arc's own."""
    outline, codes = statements.outline(), statements.kind_codes()
    turning, starts = outline.turning, outline.starts
    f, position, turns = statements.frames, statements.position, statements.turns
    roles, mismatches = statements.roles, statements.mismatches
    kinds = [(k, k in SHIFT_KINDS, k == "repeat") for k in KINDS]
    for i, (text, frame, line, magnitude) in enumerate(
        zip(
            statements.texts,
            statements.frame_indices,
            statements.lines,
            statements.magnitudes if magnitudes is None else magnitudes,
            strict=True,
        )
    ):
        if f is not None and frame >= 0:
            n, suffix, date = f.numbers[frame], f.suffixes[frame], f.dates[frame]
            number = None if n < 0 else n
            label = frame_label(number, suffix, date) or "—"
            heading, time = f.heading(frame), f.times[frame]
        else:
            number, suffix, date, time, label = None, "", None, None, None
            heading = statements.titles[i]
        turn = turns.get(i)
        kind, shift, repeat = kinds[codes[i]]
        role = roles[i]
        chapter = bisect_right(starts, i)
        yield {
            "frame": number,
            "suffix": suffix or None,
            "label": label,
            "date": date,
            "time": time,
            "heading": heading,
            "text": text,
            "line": line,
            "role": None if position else role,
            "from": turn[0] if turn else None,
            "to": turn[1] if turn else None,
            "shift": shift,
            "kind": kind,
            "magnitude": magnitude,
            "from_mismatch": i in mismatches,
            "repeat": repeat,
            "headline": shorten(strip_counters(text), HEADLINE_CHARS) if position else role,
            "turning_point": bool(turning[i]),
            "chapter": chapter or None,
        }


def chapter_dict(c: Chapter, statements: Sequence[Statement]) -> dict[str, Any]:
    """A chapter of an arc: its number, title, and the first and last of its statements."""
    first, last = statements[c.start], statements[c.end - 1]
    return {
        "chapter": c.number,
        "title": c.title,
        "statements": len(c),
        "first_statement": c.start + 1,
        "last_statement": c.end,
        "first_frame": first.number,
        "last_frame": last.number,
        "first_date": first.date,
        "last_date": last.date,
    }
