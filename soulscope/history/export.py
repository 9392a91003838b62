"""History values as plain JSON-ready dicts (the CLI's ``--json`` and the Python API)."""

from __future__ import annotations

from typing import Any

from soulscope.history.dossier import CONTEXT_LABELS, PostInfo, Why
from soulscope.history.first import Mention, Use
from soulscope.history.git import Commit
from soulscope.history.mentions import Place
from soulscope.history.timeline import Change, SoulDiff
from soulscope.soul.export import statement_dict
from soulscope.soul.format import BY_LABEL, label_key
from soulscope.soul.model import clean
from soulscope.soul.when import UNDATED, Moment, utc_iso


def commit_dict(c: Commit) -> dict[str, Any]:
    return {
        "commit": c.sha,
        "date": c.date,
        "utc": utc_iso(c.timestamp),
        "author": c.author,
        "message": c.message,
        "parents": list(c.parents),
    }


def change_dict(c: Change) -> dict[str, Any]:
    return {
        "commit": c.commit.sha,
        "date": c.commit.date,
        "author": c.commit.author,
        "message": c.commit.message,
        "status": c.status,
        "path": c.path,
        "old_path": c.old_path if c.old_path != c.path else None,
        "frames_added": list(c.frames_added),
        "frames_changed": list(c.frames_changed),
        "frames_removed": list(c.frames_removed),
        "header_changed": c.header_changed,
        "becoming_changed": c.becoming_changed,
        "becoming": c.becoming_after,
        "size": c.size_after,
        "flags": list(c.flags),
    }


def diff_dict(d: SoulDiff) -> dict[str, Any]:
    return {
        "agent": d.agent_id,
        "from": d.before.sha,
        "to": d.after.sha,
        "added": list(d.frames.added),
        "removed": list(d.frames.removed),
        "changed": list(d.frames.changed),
        "becoming_before": d.becoming_before,
        "becoming_after": d.becoming_after,
        "relationships_gained": list(d.relationships_gained),
        "relationships_lost": list(d.relationships_lost),
        "unified": d.unified,
    }


def moment_dict(m: Moment) -> dict[str, Any]:
    """A frame's place in time: its date, time of day (UTC), how precisely it is known, and
    the earliest and latest ``YYYY-MM-DD HH:MM`` (UTC) it can have (``Moment.span``; null where
    nothing bounds it: a date-only frame lies between its file's timed frames of its date).
    A use outside frames has no date or time of its own (null): its span says what bounds it."""
    low, high = m.span
    span = [low or None, None if high == UNDATED else high]
    if m.inferred:
        return {"date": None, "time": None, "precision": m.precision, "span": span}
    return {"date": m.date, "time": m.time, "precision": m.precision, "span": span}


def use_dict(u: Use) -> dict[str, Any]:
    return {
        "agent": u.agent_id,
        "frame": u.frame,
        "label": u.label,
        **moment_dict(u.moment),
        "heading_date": u.moment.written,
        "heading": u.heading,
        "line": u.line,
        "text": u.text,
        "path": u.path,
    }


def mention_dict(m: Mention) -> dict[str, Any]:
    """``first``: the frame that first used the term, the commit that brought it (null without
    git), whether that commit brought several frames of the file at once (then the frames' own
    times date them), the uses whose time cannot be told apart from it, and the later commit
    that took the line out of the memory again (null while it is there). ``heading_date`` is
    null unless the frame's heading dates it in a date that runs backwards in its file
    (``precision`` "misdated": it is placed by its file, ``span``); ``misdated``: the uses whose
    headings date them before this one in such dates, which by their files came later."""
    return {
        "agent": m.agent_id,
        "frame": m.frame,
        "label": m.label,
        **moment_dict(m.moment),
        "heading_date": m.moment.written,
        "heading": m.heading,
        "line": m.line,
        "text": m.text,
        "path": m.path,
        "commit": commit_dict(m.commit) if m.commit else None,
        "arrived_together": m.together,
        "ties": [use_dict(u) for u in m.ties],
        "removed_by": commit_dict(m.removed_by) if m.removed_by else None,
        "misdated": [use_dict(u) for u in m.misdated],
    }


def why_dict(w: Why) -> dict[str, Any]:
    """``why``: every frame named as the integer ``frame`` (or null), with ``label``, ``date``,
    ``time`` and ``heading`` in keys of their own, as in every other view."""
    f = w.frame
    return {
        "agent": w.agent_id,
        "statement": statement_dict(w.statement),
        "previous": statement_dict(w.previous) if w.previous else None,
        "came_from": statement_dict(w.came_from) if w.came_from else None,
        "frame": f.number if f else None,
        "label": f.label if f else None,
        "date": f.date if f else None,
        "time": f.time if f else None,
        "heading": f.heading if f else None,
        **{BY_LABEL[label_key(x)].field: w.context.get(x, []) for x in CONTEXT_LABELS},
        "relationships_changed": [
            {
                "agent": r.agent,
                "before": r.before,
                "after": r.after,
                "since": r.since,
                "since_line": r.since_line,
            }
            for r in w.relationships
        ],
        "agents": list(w.agents),
        "influencers": list(w.influencers),
        "links": [
            {
                "agent": k.source,
                "kind": k.kind,
                "strength": k.strength,
                "line": k.line,
                "text": k.text,
            }
            for k in w.links
        ],
        "frame_lines": _frame_lines(w),
        "threads": list(w.threads),
        "posts": [post_dict(p) for p in w.posts],
        "influencer_states": [
            {
                "agent": s.agent,
                "present": s.present,
                "frame": s.number,
                "label": s.frame,
                "date": s.date,
                "time": s.time,
                "line": s.line,
                "becoming": s.becoming,
                "undated": s.undated,
                "as_of": s.as_of,
                "lines": [place_dict(m) for m in s.lines],
            }
            for s in w.influencer_states
        ],
        "precursors": [
            {
                "word": p.word,
                "own": p.own,
                "frames_before": p.frames_before,
                "commit": p.commit,
                **place_dict(p.place),
            }
            for p in w.precursors
        ],
        "run_up": [
            {
                "agent": k.source,
                "kind": k.kind,
                "frame": k.frame,
                "label": k.label,
                "line": k.line,
                "text": k.text,
            }
            for _, k in w.run_up
        ],
        "answered": [
            {
                "agent": k.target,
                "kind": k.kind,
                "frame": k.frame,
                "label": k.label,
                "line": k.line,
                "text": k.text,
            }
            for _, k in w.answered
        ],
        "commit": commit_dict(w.commit) if w.commit else None,
        "frame_commit": commit_dict(w.frame_commit) if w.frame_commit else None,
        "arrived_together": w.together,
        "diff": w.diff,
        "bulk_note": w.bulk_note,
        "thin": w.thin,
        "frame_log": w.frame_log,
        "note": w.note,
        "narrative": w.narrative,
        "narrative_source": w.narrative_source,
        "citations": sorted(w.citations()),
    }


def _frame_lines(w: Why) -> list[dict[str, Any]]:
    """The statement's frame, line by line, numbered as in the file."""
    f = w.frame
    if f is None:
        return []
    return [{"line": n, "text": t} for n, t in enumerate(clean(f.source).splitlines(), f.line)]


def place_dict(p: Place) -> dict[str, Any]:
    return {
        "agent": p.agent,
        "frame": p.number,
        "label": p.frame,
        "date": p.date,
        "time": p.time,
        "line": p.line,
        "text": p.text,
    }


def post_dict(p: PostInfo) -> dict[str, Any]:
    return {
        "id": p.id,
        "source": p.source,
        "author": p.author,
        "title": p.title,
        "body": p.body,
        "frame": int(p.frame) if p.frame and p.frame.isdigit() else None,
        "date": p.date,
        "mentions": [place_dict(m) for m in p.mentions],
        "mentions_before": p.mentions_before,
        "agents_before": p.agents_before,
        "mentions_tied": p.mentions_tied,
        "own_first": place_dict(p.own) if p.own else None,
    }
