"""The narrative of a why-dossier: a few sentences, every claim cited ``[agent · frame N]``.

Offline it is a deterministic summary of the dossier's facts. With an LLM it is written from the
dossier alone, and any citation the dossier does not hold is taken out before it is shown, so
the narrative never points at a frame that is not there.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

from soulscope.history.dossier import came_from, statement_citation, unknown_credit
from soulscope.soul.counters import strip_counters
from soulscope.soul.format import CITATION, citation, cite
from soulscope.soul.trajectory import HEADLINE_CHARS, Statement, role_of, shorten

if TYPE_CHECKING:
    from soulscope.history.dossier import Why

_MAX_TOKENS = 400
_WITHIN_S = 60.0
MAX_THREADS = 3  # threads the offline narrative speaks of
_KIND_WORDS = {
    "first": "first said",
    "repeat": "repeated",
    "refinement": "went on as",  # no turn: the stretch goes on, whatever its role's words
    "return": "went back to",
    "shift": "shifted to",
}


def citations_in(text: str) -> list[str]:
    """The citations a text holds, as written (``[agent · frame N]``)."""
    return [citation(*groups) for groups in CITATION.findall(text)]


def narrate(why: Why, llm: Any = None) -> tuple[str, str, str | None]:
    """(narrative, who wrote it: "offline" or the model, a note when the LLM could not)."""
    if llm is None:
        return offline(why), "offline", None
    from soulscope.llm import LLMError

    try:
        text = llm.complete(messages(why), max_tokens=_MAX_TOKENS, within=_WITHIN_S)
    except LLMError as exc:
        return offline(why), "offline", f"the narrative is offline: {exc}"
    text = keep_known_citations(text.strip(), set(why.citations()))
    if not citations_in(text):
        return offline(why), "offline", "the LLM's narrative cited nothing in the dossier"
    return text, llm.model, None


def keep_known_citations(text: str, known: set[str]) -> str:
    """``text`` with every citation that is not in ``known`` taken out."""

    def check(m: re.Match[str]) -> str:
        c = citation(*m.groups())
        return c if c in known else ""

    return re.sub(r"\s{2,}", " ", CITATION.sub(check, text)).strip()


def messages(why: Why) -> list[dict[str, str]]:
    """The prompt: the dossier as JSON and the citations it allows."""
    from soulscope.history.export import why_dict

    dossier = why_dict(why)
    for key in ("diff", "narrative", "frame_log"):
        dossier.pop(key, None)
    allowed = "\n".join(sorted(why.citations()))
    return [
        {
            "role": "system",
            "content": (
                "You explain why an agent's identity statement changed, in three to six plain "
                "sentences, using only the dossier you are given. Put a citation after every "
                "claim, written exactly as one of the allowed citations. Never invent a fact, a "
                "frame or a citation."
            ),
        },
        {
            "role": "user",
            "content": (
                f"Allowed citations:\n{allowed}\n\nDossier:\n"
                + json.dumps(dossier, ensure_ascii=False)[:12000]
            ),
        },
    ]


def offline(why: Why) -> str:
    """The dossier's facts in a few sentences, each cited."""
    out: list[str] = []
    for part in (_said, _influences, _run_up, _answered, _threads, _build_up, _arrival):
        out += part(why)
    if why.thin:
        out.append("Little in the world's memory from before it explains it.")
    return " ".join(out)


def _said(why: Why) -> list[str]:
    st = why.statement
    said = f'{why.agent_id} {_KIND_WORDS.get(st.kind, "said")} "{_quoted(st)}" {why.citation}'
    if why.previous is not None:
        prev = why.previous
        from_ = f'"{_quoted(prev)}" {statement_citation(why.agent_id, prev)}'
        said += f", after {from_}" if st.kind != "repeat" else ""
    out = [said + "."]
    if came := came_from(why):
        out.append(f"{came[0].upper()}{came[1:]} {why.citation}.")
    return out


def _quoted(st: Statement) -> str:
    return quoted(st.text, st.headline)


def quoted(text: str, headline: str | None = None) -> str:
    """What a narrative quotes of a statement: its headline (its role, or a position's own
    words), else its role; only words the file holds in that order. A role read with its
    counters left out ("the first falsifiable seed" read as "falsifiable seed") or from a
    later sentence is no quote: then the statement's own opening words are."""
    flat = " ".join(text.split())
    for words in (headline, role_of(text)):
        if words and words.rstrip("…").casefold() in flat.casefold():
            return words
    return shorten(strip_counters(flat), HEADLINE_CHARS)


def _influences(why: Why) -> list[str]:
    out: list[str] = []
    if not why.influencers and (credit := unknown_credit(why)):
        out.append(f'It credits "{credit}" {why.citation}, naming no agent this world knows.')
    for state in why.influencer_states:
        if state.citation and state.becoming:
            out.append(
                f"It credits {state.agent} {why.citation}, who was then "
                f'"{quoted(state.becoming)}" {state.citation}.'
            )
        elif state.citation:
            out.append(f"It credits {state.agent} {why.citation} {state.citation}.")
        else:
            out.append(f"It credits {state.agent} {why.citation}.")
        if state.lines:
            m = state.lines[0]
            out.append(
                f'On the same thread {state.agent} had written "{m.text}" {cite(m.agent, m.frame)}.'
            )
    return out


_DID = {"credit": "credited", "reply": "had an exchange with", "comment": "commented on"}


def _run_up(why: Why) -> list[str]:
    """The latest credit before the statement of each agent it does not credit in the frame,
    else its latest reply or comment."""
    out: list[str] = []
    seen = set(why.influencers)
    for kind in ("credit", "reply", "comment"):
        for _, link in reversed(why.run_up):
            if link.kind != kind or link.source in seen:
                continue
            seen.add(link.source)
            where = cite(why.agent_id, link.label or "")
            out.append(f'Before it, it {_DID[kind]} {link.source}: "{link.text}" {where}.')
    return out[:3]


def _answered(why: Why) -> list[str]:
    """The latest reply or comment on it in each other agent's memory, of those the agent
    names nowhere above (its influencers, its run-up), at most two."""
    out: list[str] = []
    seen = set(why.influencers) | {link.source for _, link in why.run_up}
    for _, link in reversed(why.answered):
        if link.target in seen:
            continue
        seen.add(link.target)
        did = "had an exchange with" if link.kind == "reply" else "commented on"
        where = cite(link.target, link.label or "")
        out.append(f'Before it, {link.target} {did} it: "{link.text}" {where}.')
    return out[:2]


def _threads(why: Why) -> list[str]:
    out: list[str] = []
    for post in why.posts[:MAX_THREADS]:
        if post.source in ("community", "frame log") and post.title:
            by = f" by {post.author}" if post.author else ""
            tail = f" {post.citation}" if post.citation else f" {why.citation}"
            out.append(f'The frame names #{post.id}, "{post.title}"{by}{tail}.')
        elif post.mentions:
            last = post.mentions[0]  # the closest before the statement
            others = post.agents_before
            out.append(
                f"The frame names #{post.id} {why.citation}, a thread {others} other "
                f"{'agent names' if others == 1 else 'agents name'} before it, last "
                f"{last.agent} {cite(last.agent, last.frame)}."
            )
        if post.own is not None:
            out.append(
                f"Its own memory had named #{post.id} before {cite(post.own.agent, post.own.frame)}."
            )
    return out


def _build_up(why: Why) -> list[str]:
    out: list[str] = []
    own = [p for p in why.precursors if p.own and p.frames_before > 0]
    if own:
        p = own[0]
        out.append(
            f'The word "{p.word}" had built up in its memory over {p.frames_before} earlier '
            f"{'frame' if p.frames_before == 1 else 'frames'}, first {p.citation}."
        )
    elsewhere = [p for p in why.precursors if not p.own and p.frames_before > 0]
    if elsewhere:
        p = elsewhere[0]
        out.append(f'Before that, "{p.word}" appeared in {p.place.agent}\'s memory {p.citation}.')
    return out


def _arrival(why: Why) -> list[str]:
    if why.together and why.moment is not None and why.commit is not None:
        return [
            f"Its frame arrived together with others (commit {why.commit.short}); "
            f"its heading dates it {why.moment.text} {why.citation}."
        ]
    if why.commit is not None and why.frame_commit is not None:
        return [
            f"Commit {why.frame_commit.short} wrote its frame, and commit {why.commit.short} "
            f"the statement as it reads now {why.citation}."
        ]
    if why.commit is not None:
        return [f"Commit {why.commit.short} wrote it {why.citation}."]
    return []
