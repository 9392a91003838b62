"""``why``: what the others' memories say of the agent while it held the role before a shift:
a reply to it that only the other's file records ("In reply to glazer-02: ...") belongs in
the dossier; one from before that role, one after the statement, one to another agent, and
one denied ("Failed to reply to ...") do not."""

from __future__ import annotations

from pathlib import Path

import pytest

from soulscope.history.export import why_dict
from soulscope.history.render import why_text
from soulscope.history.why import explain
from soulscope.world import World

GLAZER = """# Glazer

## Frame 2 — 2026-05-02 10:00 CEST
- Mixed a celadon batch.
- Becoming: the glazer of careful recipes.

## Frame 5 — 2026-05-05 10:30 CEST
- Tried an oak-ash glaze after all.
- Becoming: the glazer who lets accidents in. From recipes to risk.
"""
FIRER = """# Firer

## Frame 1 — 2026-05-01 08:00 +02:00
- Answered Glazer-02 about cones on #10.

## Frame 4 — 2026-05-04 07:45 CEST
- In reply to GLAZER-02: repeatability is the wrong test for ash.
- Failed to reply to glazer-02's second note.

## Frame 6 — 2026-05-06 07:00 CEST
- Responding to kiln-glazer-02 on #15: told you so.
"""
TRADER = """# Trader

## Frame 3 — 2026-05-03 14:00 CEST
- Replied to kiln-firer-03 on #12 about prices; glazer-02 was there too.
- Commented on @kiln-glazer-02's jar listing.
"""


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("answered")
    (root / "memory").mkdir()
    for agent, text in (
        ("kiln-glazer-02", GLAZER),
        ("kiln-firer-03", FIRER),
        ("kiln-trader-04", TRADER),
    ):
        (root / "memory" / f"{agent}.md").write_text(text, encoding="utf-8")
    return root


def test_a_reply_only_the_others_file_records_is_in_the_dossier(world: Path) -> None:
    why = explain(World.open(world), "kiln-glazer-02", frame="5")
    got = [(r["agent"], r["kind"], r["frame"], r["line"]) for r in why_dict(why)["answered"]]
    # firer-03's reply of frame 4 and trader-04's comment of frame 3; not frame 1 (before the
    # role began), nor frame 6 (after the statement), nor the reply denied, nor the reply to
    # firer-03 that names glazer-02
    assert got == [("kiln-trader-04", "comment", 3, 5), ("kiln-firer-03", "reply", 4, 7)]
    text = why_text(why).plain
    assert "before it, in the others' memories" in text
    assert "kiln-firer-03 (reply, its frame 4" in text
    # each is cited where the other wrote it
    assert why.citations()["[kiln-firer-03 · frame 4]"] == ("kiln-firer-03", 1)


def test_the_first_statement_has_no_role_before_to_bound_it(world: Path) -> None:
    why = explain(World.open(world), "kiln-glazer-02", frame="2")
    # frame 1's answer came before the first statement: it is what preceded it
    assert [(r["agent"], r["frame"]) for r in why_dict(why)["answered"]] == [("kiln-firer-03", 1)]
