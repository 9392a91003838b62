"""Becoming arcs: the identity statements of a soul in file order, their roles and shifts."""

from __future__ import annotations

import re
from dataclasses import dataclass

from soulscope.soul.model import Frame, Soul, frame_label, label_key

DEFAULT_LABEL = "Becoming"
FALLBACK_LABEL = "Evolving position"

_FROM_TO = re.compile(r"\bfrom\s+(.+?)\s+to\s+(.+?)(?:[.;]\s|[.;]?$)", re.I | re.S)
_FIRST_CLAUSE = re.compile(r"^(.+?)(?:[.;:!?](?:\s|$)|\s[—–]\s|$)", re.S)
_ROLE_MAX_WORDS = 10


@dataclass(frozen=True, slots=True)
class Statement:
    """One identity statement of an arc."""

    index: int  # position in the arc
    text: str
    line: int
    heading: str  # the frame heading, or the section title for statements outside frames
    frame_index: int | None  # index into soul.frames; None outside frames
    number: int | None
    suffix: str
    date: str | None
    role: str  # "the traceback pragmatist"
    from_role: str | None  # "From Y to Z": Y
    to_role: str | None  # "From Y to Z": Z
    shift: bool  # the role differs from the previous statement's
    repeat: bool  # the same statement as the previous one (a duplicated frame)
    duplicate_frame: bool  # its frame heading repeats an earlier frame's

    @property
    def frame_label(self) -> str:
        return frame_label(self.number, self.suffix, self.date) or "—"


def role_of(text: str) -> str:
    """The role a statement names: its first clause, or its first words when that is long."""
    m = _FIRST_CLAUSE.match(text.strip())
    clause = (m.group(1) if m else text).strip().strip("*_\"' ")
    words = clause.split()
    if len(words) > _ROLE_MAX_WORDS:
        return " ".join(words[:_ROLE_MAX_WORDS]) + "…"
    return clause


def _norm(text: str) -> str:
    return " ".join(re.sub(r"[^\w\s]", " ", text.lower()).split())


def arc_label(soul: Soul, label: str | None = None) -> str:
    """The label this soul's arc uses: the one asked for, else Becoming, else Evolving position."""
    if label:
        return label
    key = label_key(DEFAULT_LABEL)
    for block in soul.blocks:
        if any(o.key == key for o in block.observations):
            return DEFAULT_LABEL
    return FALLBACK_LABEL


def arc(soul: Soul, label: str | None = None) -> list[Statement]:
    """Every identity statement in file order (frames and other sections alike)."""
    key = label_key(arc_label(soul, label))
    out: list[Statement] = []
    prev_role = prev_text = None
    for block in soul.blocks:
        frame = block if isinstance(block, Frame) else None
        for obs in block.observations:
            if obs.key != key or not obs.text:
                continue
            role = role_of(obs.text)
            norm_text, norm_role = _norm(obs.text), _norm(role)
            repeat = prev_text is not None and norm_text == prev_text
            shift = prev_role is not None and not repeat and norm_role != prev_role
            m = _FROM_TO.search(obs.text)
            out.append(
                Statement(
                    index=len(out),
                    text=obs.text,
                    line=obs.line,
                    heading=frame.heading if frame else block.title,
                    frame_index=frame.index if frame else None,
                    number=frame.number if frame else None,
                    suffix=frame.suffix if frame else "",
                    date=frame.date if frame else None,
                    role=role,
                    from_role=m.group(1).strip() if m else None,
                    to_role=m.group(2).strip() if m else None,
                    shift=shift,
                    repeat=repeat,
                    duplicate_frame=bool(frame and frame.duplicate_of is not None),
                )
            )
            prev_role, prev_text = norm_role, norm_text
    return out


def shifts(statements: list[Statement]) -> list[Statement]:
    return [s for s in statements if s.shift]


@dataclass(frozen=True, slots=True)
class ArcRow:
    """One row of two arcs side by side, aligned by frame number or date."""

    key: str
    left: Statement | None
    right: Statement | None


def _align_key(s: Statement) -> tuple:
    if s.number is not None:
        return (0, s.number, s.date or "", s.line)
    return (1, 0, s.date or "9999", s.line)


def compare(left: list[Statement], right: list[Statement]) -> list[ArcRow]:
    """Two arcs side by side: rows with the same frame number (or date) pair up, in time order."""
    buckets: dict[str, list[list[Statement]]] = {}
    order: list[tuple[tuple, str]] = []
    for side, statements in ((0, left), (1, right)):
        for s in statements:
            key = s.frame_label
            if key not in buckets:
                buckets[key] = [[], []]
                order.append((_align_key(s), key))
            buckets[key][side].append(s)
    rows: list[ArcRow] = []
    for _, key in sorted(order):
        a, b = buckets[key]
        for i in range(max(len(a), len(b))):
            rows.append(ArcRow(key, a[i] if i < len(a) else None, b[i] if i < len(b) else None))
    return rows


@dataclass(frozen=True, slots=True)
class ArcSummary:
    """The whole arc of one agent in a line: for the world overview."""

    agent_id: str
    name: str | None
    statements: int
    shifts: int
    latest: Statement | None
    frames: int
    last_date: str | None


def summarize(agent_id: str, soul: Soul, label: str | None = None) -> ArcSummary:
    statements = arc(soul, label)
    dates = [f.date for f in soul.frames if f.date]
    return ArcSummary(
        agent_id=agent_id,
        name=soul.name,
        statements=len(statements),
        shifts=sum(1 for s in statements if s.shift),
        latest=statements[-1] if statements else None,
        frames=len(soul.frames),
        last_date=max(dates) if dates else None,
    )
