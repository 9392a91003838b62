"""Text -> Soul. Tolerant (never raises on content) and lossless (``parse(b).render() == b``)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

from soulscope.soul.model import (
    ENCODING_ERRORS,
    UNDECODED,
    Frame,
    Observation,
    Problem,
    Section,
    Soul,
    clean,
)

_BOLD_LABEL = re.compile(r"[-*+] \*\*([^*\n]{1,48}?)(?::\*\*|\*\*\s*:)\s?(.*)", re.S)
_PLAIN_LABEL = re.compile(r"[-*+] ([A-Za-z][A-Za-z'’/&\- ]{0,39}?):(?:\s(.*)|$)", re.S)
_LINE = re.compile(r"[^\n]*\n|[^\n]+\Z")
_BLOCK = re.compile(r"^## ", re.M)
_BULLET = re.compile(r"[-*+] ")
_DATE = re.compile(r"(\d{4})-(\d{2})-(\d{2})")
_TIME = re.compile(r"(?<![\d:])(\d{1,2}):(\d{2})(?::\d{2})?")
_MONTH_DATE = re.compile(
    r"(January|February|March|April|May|June|July|August|September|October|November|December)"
    r"\s+(\d{1,2}),?\s+(\d{4})",
    re.I,
)
_MONTHS = {
    m: i + 1
    for i, m in enumerate(
        [
            "january",
            "february",
            "march",
            "april",
            "may",
            "june",
            "july",
            "august",
            "september",
            "october",
            "november",
            "december",
        ]
    )
}
_NUMBER = re.compile(r"(\d{1,6})([A-Za-z]?)(?![\d-])")
_SEPARATOR = re.compile(r"(?:^|\s+)(?:—|–|--|-)(?:\s+|$)")
_ARCHIVE = re.compile(r"<!--\s*(\d+)\s+earlier entries archived")
_MAX_LABEL_WORDS = 4


def read_soul(path: str | Path, agent_id: str | None = None) -> Soul:
    """Parse a soul file from disk. Raises OSError only for an unreadable file."""
    data = Path(path).read_bytes()
    return parse(data, agent_id=agent_id or Path(path).stem)


def parse(data: bytes | str, agent_id: str | None = None) -> Soul:
    """Parse a soul file's bytes (or text). Never raises on content."""
    problems: list[Problem] = []
    text = data.decode("utf-8", ENCODING_ERRORS) if isinstance(data, bytes) else data
    if not text.isascii():
        line, pos, reported = 1, 0, 0
        for m in UNDECODED.finditer(text):
            line, pos = line + text.count("\n", pos, m.start()), m.start()
            if line != reported:
                problems.append(Problem(line, "encoding", "undecodable bytes, shown as \ufffd"))
                reported = line

    # Split into the preamble and blocks at every "## " heading: each block's text is a slice of
    # the file, cut into lines only while it is parsed (the whole file is never held as lines).
    offsets = [m.start() for m in _BLOCK.finditer(text)]
    first = offsets[0] if offsets else len(text)
    preamble = text[:first]
    name = _name_from_preamble(_LINE.findall(preamble), problems)

    blocks: list[Section | Frame] = []
    seen_headings: dict[str, int] = {}
    prev_when: tuple[str, str] | None = None
    frame_count = 0
    hi = preamble.count("\n")  # 0-based line where the next block starts
    for b, start in enumerate(offsets):
        source = text[start : offsets[b + 1] if b + 1 < len(offsets) else len(text)]
        lines = _LINE.findall(source)  # with their newlines: they concatenate back to source
        lo, hi = hi, hi + len(lines)
        heading = lines[0][3:].strip()
        body = lines[1:]
        if _is_frame_heading(heading):
            index = frame_count
            frame_count += 1
            frame = _frame(index, heading, lo + 1, hi, source, body, problems)
            key = " ".join(heading.split())
            dup = seen_headings.get(key)
            if dup is None:
                seen_headings[key] = index
            else:
                problems.append(
                    Problem(
                        lo + 1,
                        "duplicate",
                        f"frame heading repeats frame {dup + 1} ({clean(heading)})",
                    )
                )
            reversed_ = False
            if frame.date:
                when = (frame.date, frame.time or "")
                if prev_when is not None:
                    a, b_ = (
                        (when, prev_when)
                        if (when[1] and prev_when[1])
                        else (when[:1], prev_when[:1])
                    )
                    if a < b_:
                        reversed_ = True
                        problems.append(
                            Problem(
                                lo + 1, "time", f"dated {frame.when}, before the frame above it"
                            )
                        )
                prev_when = when
            if dup is not None or reversed_:
                frame = _replace(frame, duplicate_of=dup, time_reversed=reversed_)
            blocks.append(frame)
        else:
            blocks.append(_section(heading, lo + 1, hi, source, body))

    identity = _identity(blocks)
    if not text or text.isspace():  # (strip() would copy the whole text)
        problems.append(Problem(1, "empty", "the file is empty"))
    elif name is None and not identity:
        problems.append(Problem(1, "header", "no '# Name' title and no Identity section"))
    problems.sort(key=lambda p: p.line)
    return Soul(
        preamble=preamble,
        blocks=tuple(blocks),
        problems=tuple(problems),
        name=name,
        identity=identity,
        agent_id=identity.get("ID") or agent_id,
    )


def _replace(frame: Frame, **changes: object) -> Frame:
    from dataclasses import replace

    return replace(frame, **changes)


def _is_frame_heading(heading: str) -> bool:
    return heading.startswith("Frame") and (len(heading) == 5 or not heading[5].isalnum())


def _name_from_preamble(lines: list[str], problems: list[Problem]) -> str | None:
    name = None
    for i, ln in enumerate(lines, 1):
        s = ln.strip().lstrip("\ufeff")
        if not s:
            continue
        if name is None and s.startswith("# "):
            name = clean(s[2:].strip())
        elif s.startswith("<!--"):
            continue
        else:
            problems.append(Problem(i, "stray", "text before the first section"))
            break
    return name


def _bullets(body: list[str], first_line: int) -> list[tuple[int, str, bool]]:
    """Group body lines into (line, text, is_bullet); continuation lines join the bullet above."""
    out: list[tuple[int, str, bool]] = []
    open_bullet = False
    for i, raw in enumerate(body):
        ln = raw.rstrip("\r\n")
        s = ln.strip()
        if not s:
            open_bullet = False
            continue
        if _BULLET.match(ln):
            out.append((first_line + i, ln, True))
            open_bullet = True
        elif open_bullet and (ln[0] in " \t" or not s.startswith(("#", "<!--"))):
            line, text, _ = out[-1]
            out[-1] = (line, text + "\n" + s, True)
        else:
            out.append((first_line + i, s, False))
            open_bullet = False
    return out


def _observation(text: str, line: int) -> Observation | None:
    m = _BOLD_LABEL.match(text)
    if m:
        return Observation(sys.intern(m.group(1).strip()), clean((m.group(2) or "").strip()), line)
    m = _PLAIN_LABEL.match(text)
    if m and len(m.group(1).split()) <= _MAX_LABEL_WORDS:
        return Observation(sys.intern(m.group(1).strip()), clean((m.group(2) or "").strip()), line)
    return None


def _frame(
    index: int,
    heading: str,
    line: int,
    end: int,
    source: str,
    body: list[str],
    problems: list[Problem],
) -> Frame:
    number, suffix, date, time, title = parse_heading(heading)
    actions: list[str] = []
    observations: list[Observation] = []
    notes: list[str] = []
    for ln_no, text, is_bullet in _bullets(body, line + 1):
        if not is_bullet:
            notes.append(clean(text))
            m = _ARCHIVE.search(text)
            if m:
                problems.append(
                    Problem(ln_no, "archived", f"{m.group(1)} earlier entries were archived")
                )
            continue
        obs = _observation(text, ln_no)
        if obs is not None:
            observations.append(obs)
        else:
            actions.append(clean(text[2:].strip()))
    if number is None and date is None:
        problems.append(
            Problem(line, "heading", f"frame heading without number or date: {clean(heading)}")
        )
    if not actions and not observations and not notes:
        problems.append(Problem(line, "empty-frame", "frame heading with no body"))
    return Frame(
        index=index,
        line=line,
        end_line=end,
        source=source,
        number=number,
        # the same few dates, times, titles and suffixes recur in thousands of frames: one string each
        suffix=sys.intern(suffix),
        date=date and sys.intern(date),
        time=time and sys.intern(time),
        title=sys.intern(clean(title)),
        actions=tuple(actions),
        observations=tuple(observations),
        notes=tuple(notes),
    )


def parse_heading(heading: str) -> tuple[int | None, str, str | None, str | None, str]:
    """``Frame 408 solo — 2026-03-28 (seed note)`` -> (408, "solo", "2026-03-28", None, "seed note")."""
    rest = heading[5:].strip() if heading.startswith("Frame") else heading.strip()
    rest = rest.lstrip(":").strip()
    number: int | None = None
    suffix = ""
    m = _NUMBER.match(rest)
    if m and not _DATE.match(rest):
        number = int(m.group(1))
        suffix = m.group(2)
        rest = rest[m.end() :].strip()
    parts = _SEPARATOR.split(rest, maxsplit=1)
    lead, tail = parts[0].strip(), (parts[1].strip() if len(parts) > 1 else "")
    if number is not None and lead and not _DATE.search(lead) and not _MONTH_DATE.search(lead):
        suffix = (suffix + " " + lead).strip() if suffix else lead
        lead = ""

    date = time = None
    dm = _DATE.search(heading)
    if dm:
        date = dm.group(0)
        tm = _TIME.search(heading, dm.end())
        if tm and tm.start() - dm.end() <= 4:
            time = f"{int(tm.group(1)):02d}:{tm.group(2)}"
    else:
        mm = _MONTH_DATE.search(heading)
        if mm:
            date = f"{mm.group(3)}-{_MONTHS[mm.group(1).lower()]:02d}-{int(mm.group(2)):02d}"

    if tail:
        title = tail
        if date and title.startswith(date):
            title = title[len(date) :].strip()
            if title.startswith("(") and title.endswith(")"):
                title = title[1:-1].strip()
    elif lead and not _DATE.match(lead) and not _MONTH_DATE.match(lead):
        title = lead
    else:
        title = ""
    return number, suffix, date, time, title


def _section(heading: str, line: int, end: int, source: str, body: list[str]) -> Section:
    items: list[str] = []
    observations: list[Observation] = []
    for ln_no, text, is_bullet in _bullets(body, line + 1):
        if is_bullet:
            items.append(clean(text[2:].strip()))
            obs = _observation(text, ln_no)
            if obs is not None:
                observations.append(obs)
    return Section(
        title=clean(heading),
        line=line,
        end_line=end,
        source=source,
        items=tuple(items),
        observations=tuple(observations),
    )


def _identity(blocks: list[Section | Frame]) -> dict[str, str]:
    for b in blocks:
        if isinstance(b, Section) and b.title.lower() == "identity":
            fields: dict[str, str] = {}
            for obs in b.observations:
                fields.setdefault(obs.label, obs.text)
            return fields
    return {}
