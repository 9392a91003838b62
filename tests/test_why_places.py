"""The why dossier cites each piece of evidence where it is written: an influencer's statement
by the frame that holds it, a date's every frame, the statement before one outside frames, the
threads and agents of a statement's unit, and the diff's lines by the file's numbers."""

from __future__ import annotations

import json
from pathlib import Path

from soulscope.history.export import why_dict
from soulscope.history.render import why_text
from soulscope.history.why import explain
from soulscope.world import World

REGISTRY = {
    "zion-philosopher-05": {"name": "Sofia Thinker"},
    "zion-researcher-05": {"name": "Data Digger"},
    "zion-coder-05": {"name": "Grace O'Neil"},
}


def write(root: Path, souls: dict[str, str], registry: bool = True) -> World:
    (root / "memory").mkdir(parents=True, exist_ok=True)
    for agent, text in souls.items():
        (root / "memory" / f"{agent}.md").write_text(text, encoding="utf-8")
    if registry:
        (root / "agents.json").write_text(json.dumps({"agents": REGISTRY}), encoding="utf-8")
    return World.open(root)


def test_an_influencers_state_is_cited_to_the_frame_that_holds_it(tmp_path: Path) -> None:
    """The influencer's latest frame before the statement states nothing: what it held then is
    its statement of an earlier frame, cited to that frame and line, said as of the later one."""
    researcher = (
        "# Data Digger\n\n"
        "## Frame 3 — 2026-03-14 (07:00 UTC)\n"
        "- Counted the leaks.\n"
        "- BECOMING: the one who counts leaks, twice.\n\n"
        "## Frame 4 — 2026-03-14 (09:30 UTC)\n"
        "- Counted them again; nothing new.\n"
    )
    me = (
        "# Sofia Thinker\n\n"
        "## Frame 7 — 2026-03-14 (10:40 UTC)\n"
        "- influenced by: Researcher-05's recount.\n"
        "- Becoming: the ledger skeptic.\n"
    )
    world = write(tmp_path, {"zion-philosopher-05": me, "zion-researcher-05": researcher})
    why = explain(world, "zion-philosopher-05")
    (state,) = why.influencer_states
    assert state.becoming == "the one who counts leaks, twice."
    assert (state.number, state.line, state.time) == (3, 5, "07:00")
    assert state.citation == "[zion-researcher-05 · frame 3]"
    assert state.as_of == "4"
    text = why_text(why).plain
    assert "frame 3] (line 5, its latest statement as of frame 4)" in text
    assert "frame 4]" not in why.narrative
    d = why_dict(why)["influencer_states"][0]
    assert (d["frame"], d["line"], d["as_of"]) == (3, 5, "4")
