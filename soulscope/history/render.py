"""History as Rich renderables, shared by the CLI and the dashboard.

Soul-file text is data: it only ever enters ``rich.text.Text`` as plain strings, never as markup.
Diffs are colored here with difflib and Rich, line by line.
"""

from __future__ import annotations

import difflib

from rich.table import Table
from rich.text import Text

from soulscope.history.dossier import CONTEXT_LABELS, PostInfo, Why, came_from
from soulscope.soul.model import clean
from soulscope.soul.when import ZONE, utc

ADDED = "green"
REMOVED = "red"
HUNK = "cyan"
META = "bold"
HEADING = "bold reverse"  # a frame heading inside a diff stands out from its bullets


def _is_heading(line: str) -> bool:
    return line.startswith("## ")


def unified_text(diff: str) -> Text:
    """A unified diff, colored: additions, removals, hunk headers, frame headings highlighted."""
    out = Text(no_wrap=False, end="")
    in_header = True
    for ln in diff.splitlines():
        if ln.startswith("@@"):
            in_header = False
            style = HUNK
        elif in_header:
            style = META
        elif ln.startswith("+"):
            style = ADDED
        elif ln.startswith("-"):
            style = REMOVED
        else:
            style = ""
        if not in_header and _is_heading(ln[1:]):
            style = f"{style} {HEADING}".strip()
        if ln.startswith("diff --git"):
            in_header = True
            style = META
        out.append(clean(ln) + "\n", style=style)
    return out


def side_by_side(old: str, new: str, context: int = 3) -> Table:
    """Two versions in two columns, only the changed regions and ``context`` lines around them."""
    a, b = clean(old).splitlines(), clean(new).splitlines()
    table = Table(show_header=True, expand=True, box=None, pad_edge=False, show_lines=False)
    table.add_column("before", ratio=1, overflow="fold")
    table.add_column("after", ratio=1, overflow="fold")
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for group in matcher.get_grouped_opcodes(context):
        i0, j0 = group[0][1], group[0][3]
        table.add_row(Text(f"@@ line {i0 + 1}", style=HUNK), Text(f"@@ line {j0 + 1}", style=HUNK))
        for tag, i1, i2, j1, j2 in group:
            left, right = a[i1:i2], b[j1:j2]
            for k in range(max(len(left), len(right))):
                lt = left[k] if k < len(left) else ""
                rt = right[k] if k < len(right) else ""
                if tag == "equal":
                    table.add_row(_cell(lt, ""), _cell(rt, ""))
                else:
                    table.add_row(
                        _cell(lt, REMOVED if k < len(left) else ""),
                        _cell(rt, ADDED if k < len(right) else ""),
                    )
    return table


def _cell(line: str, style: str) -> Text:
    if _is_heading(line):
        style = f"{style} {HEADING}".strip()
    return Text(line, style=style)


def why_text(why: Why) -> Text:
    """The dossier of a statement, readable top to bottom."""
    out = Text(end="")
    for section in _SECTIONS:
        section(out, why)
    return out


def _statement(out: Text, why: Why) -> None:
    st = why.statement
    where = why.frame.heading if why.frame else f"{st.heading}, line {st.line}"
    out.append(f"{why.agent_id} became: ", style="bold")
    out.append(st.text + "\n")
    out.append(f"in {where}  ·  {st.kind}, drift {st.magnitude:.2f}\n", style="dim")
    if came := came_from(why):
        out.append(f"{came}\n", style="yellow")
    if why.previous is not None:
        out.append("before that: ", style="bold")
        out.append(why.previous.text + "\n")
        out.append(f"in {_previous_place(why)}\n", style="dim")
    if why.narrative:
        out.append("\nin short", style="bold")
        out.append(f" ({why.narrative_source}): ", style="dim")
        out.append(why.narrative + "\n")
    out.append("\n")


def _frame_lines(out: Text, why: Why) -> None:
    """The statement's own frame, line by line, numbered as in the file."""
    f = why.frame
    if f is None:
        return
    lines = clean(f.source).splitlines()
    out.append(f"its frame, lines {f.line}-{f.line + len(lines) - 1}:\n", style="bold")
    for n, line in enumerate(lines, f.line):
        out.append(f"{n:>6}  ", style="dim")
        out.append(line + "\n")
    out.append("\n")


def _context(out: Text, why: Why) -> None:
    if why.frame is not None:
        return  # the frame's lines are shown whole
    for label in CONTEXT_LABELS:
        for text in why.context.get(label, []):
            out.append(f"{label}: ", style="bold")
            out.append(text + "\n")


def _relationships(out: Text, why: Why) -> None:
    if not why.relationships:
        return
    first = why.relationships[0]
    if first.since is None:
        out.append("\nrelationships, first listed here (no frame above lists any):\n", "bold")
    else:
        out.append(
            f"\nrelationships against frame {first.since} (line {first.since_line}), the last frame "
            "above to list any:\n",
            style="bold",
        )
    for r in why.relationships:
        if r.before is None:
            out.append(f"  + {r.agent} ({r.after})\n", style=ADDED)
        elif r.after is None:
            out.append(f"  - {r.agent} ({r.before}): listed there, not restated here\n", REMOVED)
        else:
            out.append(f"  ~ {r.agent}: {r.before} → {r.after}\n", style="yellow")


def _links(out: Text, why: Why) -> None:
    """Every line of the frame that names another agent, with its kind."""
    if why.links:
        where = "in this frame" if why.frame else "around the statement"
        out.append(f"\nlinks {where}:\n", style="bold")
        for link in why.links:
            out.append(f"  {link.source}", style="bold")
            out.append(f" ({link.kind}, line {link.line}) ", style="dim")
            out.append(link.text + "\n")
    elif why.agents:
        out.append("\nagents named: ", style="bold")
        out.append(", ".join(why.agents) + "\n")


def _influencers(out: Text, why: Why) -> None:
    if not why.influencer_states:
        return
    out.append("\ninfluencers at the time (the statement or its frame credits them):\n", "bold")
    for s in why.influencer_states:
        out.append(f"  {s.agent}", style="bold")
        as_of = f", its latest statement as of frame {s.as_of}" if s.as_of else ""
        if s.citation:
            out.append(f" {s.citation} (line {s.line}{as_of}): ", style="dim")
            out.append((s.becoming or "no identity statement yet") + "\n")
        elif s.undated and s.becoming:
            out.append(f" (above its first frame, undated, line {s.line}{as_of}): ", style="dim")
            out.append(s.becoming + "\n")
        else:
            out.append(
                ": no frame of theirs before this one\n"
                if s.present
                else ": not in this world's files\n",
                style="dim",
            )
        for m in s.lines:
            out.append(f"    on the same thread · frame {m.frame}, line {m.line}", style="dim")
            out.append(f"  {m.text}\n")


def _run_up(out: Text, why: Why) -> None:
    if not why.run_up:
        return
    out.append(
        f"\nbefore it, while it held the {_held(why)} before (its credits and replies):\n", "bold"
    )
    for _, link in why.run_up:
        out.append(f"  {link.source}", style="bold")
        out.append(f" ({link.kind}, frame {link.label}, line {link.line}) ", style="dim")
        out.append(link.text + "\n")


def _answered(out: Text, why: Why) -> None:
    if not why.answered:
        return
    out.append(
        "\nbefore it, in the others' memories (replies between them, comments on it):\n", "bold"
    )
    for _, link in why.answered:
        out.append(f"  {link.target}", style="bold")
        out.append(f" ({link.kind}, its frame {link.label}, line {link.line}) ", style="dim")
        out.append(link.text + "\n")


def _threads(out: Text, why: Why) -> None:
    if not why.posts:
        return
    out.append("\nthreads:\n", style="bold")
    for p in why.posts:
        out.append(f"  #{p.id}", style="bold")
        if p.title:
            out.append(f" {p.title}")
            if p.citation:
                out.append(f"  {p.citation}", style="dim")
            out.append(f"  ({p.source})\n", style="dim")
            if p.body:
                out.append(f"    {p.body}\n")
        elif p.mentions:
            out.append(f"  ({_mentioned(p)}{_tied(p)}, the closest first)\n", style="dim")
        elif p.own is None and not p.mentions_tied:
            out.append("  (named nowhere before it in this world)\n", style="dim")
        else:
            out.append(f"  (no other agent names it before it{_tied(p)})\n", style="dim")
        if p.own is not None:
            out.append(f"    its own memory first · frame {p.own.frame}", style="dim")
            out.append(f"  {p.own.text}\n")
        for m in p.mentions[:5]:
            out.append(f"    {m.agent} · frame {m.frame}", style="dim")
            out.append(f"  {m.text}\n")


def _mentioned(p: PostInfo) -> str:
    """How much the world named a thread before the statement: every frame, not only those
    shown."""
    n, k = p.mentions_before, p.agents_before
    frames = f"{n} {'frame' if n == 1 else 'frames'}"
    verb = "names" if n == 1 else "name"
    return f"{frames} of {k} other {'agent' if k == 1 else 'agents'} {verb} it before it"


def _tied(p: PostInfo) -> str:
    """Other agents' frames naming the thread that the headings cannot order against the
    statement's (the same minute, a day without a time): neither before it nor after."""
    n = p.mentions_tied
    if not n:
        return ""
    frames = f"{n} {'frame' if n == 1 else 'frames'}"
    return f"; {frames} of others the headings cannot place before or after it"


def _previous_place(why: Why) -> str:
    """Where the previous statement stands: its heading and line, and where that heading is
    the statement's own, repeated (parallel writers), that only the file's order puts it first."""
    prev, st = why.previous, why.statement
    if prev is None:
        return ""
    where = f"{prev.heading}, line {prev.line}"
    if (
        prev.frame_index is not None
        and st.frame_index is not None
        and prev.frame_index != st.frame_index
        and " ".join(prev.heading.split()) == " ".join(st.heading.split())
    ):
        where += " (the same heading written twice: only the file's order puts this one first)"
    return where


def _held(why: Why) -> str:
    """What the agent's statements are: roles ("Becoming: the X"), or an early era's positions,
    which name none."""
    return "position" if why.statement.position else "role"


def _precursors(out: Text, why: Why) -> None:
    if not why.precursors:
        return
    out.append(f"\nbuild-up of the new {_held(why)}'s words:\n", style="bold")
    for p in why.precursors:
        whose = "its own memory" if p.own else f"{p.place.agent}'s memory"
        out.append(f'  "{p.word}" first in {whose} {p.citation}', style="dim")
        n = p.frames_before
        held = f"; {'1 frame' if n == 1 else f'{n} frames'} there held it before the statement"
        out.append(f"{held}\n" if n else "\n", style="dim")
        out.append(f"    {p.place.text}\n")


def _commit(out: Text, why: Why) -> None:
    out.append("\n")
    if why.thin:
        out.append(why.thin + "\n", style="yellow")
    if why.commit is not None:
        c = why.commit
        head = "statement written by commit " if why.frame_commit else "introduced by commit "
        out.append("arrived in commit " if why.together else head, style="bold")
        out.append(f"{c.short} ({utc(c.timestamp)} {ZONE}, {c.author}): {c.message}\n")
    if why.bulk_note:
        out.append(why.bulk_note + "\n", style="yellow")
    if why.note:
        out.append(why.note + "\n", style="yellow")


def _frame_log(out: Text, why: Why) -> None:
    log = why.frame_log
    if log is None:
        return
    out.append("\nframe log: ", style="bold")
    out.append(f"brain {log.get('brain', '?')}")
    if log.get("error"):
        out.append(f", error: {log['error']}", style=REMOVED)
    out.append("\n")
    decision = log.get("decision")
    if decision:
        import json

        out.append(json.dumps(decision, ensure_ascii=False, indent=2)[:2000] + "\n")


def _diff(out: Text, why: Why) -> None:
    if why.diff:
        out.append("\n")
        out.append_text(unified_text(why.diff))


_SECTIONS = (
    _statement,
    _frame_lines,
    _context,
    _relationships,
    _links,
    _influencers,
    _run_up,
    _answered,
    _threads,
    _precursors,
    _commit,
    _frame_log,
    _diff,
)
