"""The kinds of link between two agents, strongest first, as ``links`` reads them: their order,
and how much each says that the other agent moved this one. (A module of their own: the graph counts
by kind without loading the link reader.)"""

from __future__ import annotations

KINDS = ("credit", "reply", "comment", "relationship", "mention", "vote")
RANK = {kind: i for i, kind in enumerate(KINDS)}
# How much a kind says that the other agent moved this one (a reader's weight, 0 to 1).
STRENGTH = {
    "credit": 1.0,
    "reply": 0.8,
    "comment": 0.6,
    "relationship": 0.6,
    "mention": 0.3,
    "vote": 0.1,
}
