"""Cheap counterfactuals: a term's spread and the influence graph as if some agents had not been
there, worked out from the answers ``spread`` and ``graph`` give (no frame is run again).

Spread: an adopter is still reached when it started the term itself (it names no earlier adopter)
or when one of the earlier adopters it names is still reached; adopters whose every chain back
went through a removed agent would not have been reached this way. Graph: the arcs that vanish
are those to or from a removed agent; an agent shaped by removed agents alone loses every arc in.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any


def spread_without(answer: dict[str, Any], gone: Collection[str]) -> dict[str, Any]:
    """``spread --json``'s answer without ``gone``: who would still have been reached."""
    reached: list[str] = []
    lost: list[dict[str, Any]] = []
    alive: set[str] = set()
    for a in answer["agents"]:  # in order of first use: every source comes before
        if a["agent"] in gone:
            continue
        sources = list(a.get("from") or [])
        kept = [s for s in sources if s in alive]
        if not sources or kept:
            alive.add(a["agent"])
            reached.append(a["agent"])
        else:
            lost.append({"agent": a["agent"], "through": sources})
    edges = [e for e in answer.get("edges", []) if e["from"] in gone or e["to"] in gone]
    return {
        "term": answer.get("term"),
        "without": sorted(gone),
        "reached": reached,
        "not_reached": lost,
        "vanished_edges": edges,
    }


def graph_without(answer: dict[str, Any], gone: Collection[str]) -> dict[str, Any]:
    """``graph --json``'s answer without ``gone``: the arcs that vanish, who loses all shaping."""
    edges = answer["edges"]
    vanished = [e for e in edges if e["from"] in gone or e["to"] in gone]
    shaped: dict[str, set[str]] = {}
    for e in edges:
        if e["to"] not in gone:
            shaped.setdefault(e["to"], set()).add(e["from"])
    alone = sorted(a for a, sources in shaped.items() if sources <= set(gone))
    return {
        "without": sorted(gone),
        "vanished_arcs": vanished,
        "arcs_left": len(edges) - len(vanished),
        "shaped_only_by_them": alone,
    }
