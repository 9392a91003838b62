"""A term matches the way people write it: any apostrophe, hyphen, letter case or Unicode form,
emphasis marks around it, and never inside a longer word of any script."""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path

import pytest

from soulscope.history.spread import spread, spread_dict
from soulscope.soul.terms import Term
from soulscope.world import World
from tests.support.cli import soulscope

NFD = unicodedata.normalize("NFD", "Noöpolis")


@pytest.mark.parametrize(
    ("term", "text"),
    [
        ("won't", "I won’t go"),  # typed apostrophe, typographic in the file
        ("won’t", "I won't go"),
        ("Rice's theorem", "by Rice‘s theorem"),
        ("noöpolis", "NOÖPOLIS rises"),  # a letter outside ASCII in any case
        ("Noöpolis", f"{NFD} rises"),  # decomposed: o and its diaeresis
        ("sortition", "the _sortition_ idea"),  # emphasis with underscores
        ("self-model", "a self‑model here"),  # the non-breaking hyphen
        ("self-model", "a self model"),
        ("memory palace", "the **memory** palace"),
        ("memory palace", "a memory-palace"),
        ("memory palace", "a memory\u00a0palace"),
        ("Cash-Value Test", "the cash-value test"),
        ("`inotify`", "built an inotify table"),  # pasted with its marks
        ("**sortition**", "the sortition idea"),
        ("\u201cnovelty cliff\u201d", "the novelty cliff"),
    ],
)
def test_a_term_is_found_as_people_write_it(term: str, text: str) -> None:
    for mode in ("word", "stem"):
        assert Term(term, mode).count(text.encode()) == 1, (mode, term, text)


@pytest.mark.parametrize(
    ("term", "text"),
    [
        ("caf", "café society"),  # a longer word of letters outside ASCII
        ("ber", "über alles"),
        ("polis", "Noöpolis"),
        ("cafe", "cafe\u0301 society"),  # a letter and its decomposed accent
        ("palace", "memory_palace"),  # one name, not emphasis
        ("memory palace", "memory_palace"),
        ("5051", "#5051x"),
        ("résumé", "a clean resume"),  # another word without its marks
    ],
)
def test_a_term_is_not_found_inside_a_longer_word(term: str, text: str) -> None:
    assert Term(term).count(text.encode()) == 0, (term, text)


def test_first_and_spread_find_the_other_forms(tmp_path: Path) -> None:
    """ada wrote the words with a typographic apostrophe and a decomposed ö, bob as typed: both
    used them, and ada first."""
    memory = tmp_path / "memory"
    memory.mkdir()
    (memory / "ada.md").write_text(
        f"# ada\n\n## Frame 1 — 2026-03-01\n- The {NFD} charter won’t hold.\n"
    )
    (memory / "bob.md").write_text(
        "# bob\n\n## Frame 2 — 2026-03-02\n- Read ada: the _Noöpolis charter_ won't hold.\n"
    )
    for term in ("won't", "Noöpolis charter", "NOÖPOLIS"):
        s = spread(World.open(tmp_path), Term(term))
        assert [a.agent_id for a in s.adopters] == ["ada", "bob"], term
        got = json.loads(soulscope("first", term, "-w", str(tmp_path), "--json").stdout)
        assert (got["agent"], got["line"]) == ("ada", 4), term


def _souls(tmp_path: Path, souls: dict[str, str]) -> Path:
    memory = tmp_path / "memory"
    memory.mkdir()
    for agent, text in souls.items():
        (memory / f"{agent}.md").write_text(text)
    return tmp_path


def test_a_word_inside_an_agents_name_is_no_use_of_it(tmp_path: Path) -> None:
    """ "Replied to zion-curator-02" and "curator-02's grades" name an agent: only ben wrote the
    word curator. A term that is a name is found in the longer names too."""
    world = _souls(
        tmp_path,
        {
            "zion-curator-02": "# Curator Two\n\n## Frame 1 — 2026-03-01\n- Graded posts.\n",
            "zion-ada-01": "# Ada\n\n## Frame 1 — 2026-03-02\n- Replied to zion-curator-02 on #4."
            "\n- Read Curator-02's grades.\n",
            "zion-ben-01": "# Ben\n\n## Frame 1 — 2026-03-03\n- Voted: DOWN curator-02-upvote/#5."
            "\n- Read curator-02. A curator should grade less.\n",
        },
    )
    s = spread(World.open(world), Term("curator"))
    assert [a.agent_id for a in s.adopters] == ["zion-ben-01"]
    assert spread_dict(s)["agents"][0]["text"] == "A curator should grade less."
    got = json.loads(soulscope("first", "curator", "-w", str(world), "--json").stdout)
    assert (got["agent"], got["line"]) == ("zion-ben-01", 5)
    s = spread(World.open(world), Term("curator-02"))
    assert [(a.agent_id, a.first.line) for a in s.adopters] == [
        ("zion-ada-01", 4),
        ("zion-ben-01", 4),
    ]


def test_a_frame_dated_before_the_history_above_it_is_misdated(tmp_path: Path) -> None:
    """ada's first frame says 2025-07-24 under History bullets of March 2026 (a wrong year):
    appended after them, it is not the first use by that date. Placed by its file (before its
    frame of 2026-03-13 06:00), the headings cannot order it against bob's: a tie."""
    world = _souls(
        tmp_path,
        {
            "ada": "# ada\n\n## History\n- **2026-03-10T08:00:00Z** — Registered.\n"
            "- **2026-03-12T20:38:35Z** — Posted #4681.\n\n"
            "## Frame 2025-07-24\n- Replied on #4681: the lantern ledger.\n\n"
            "## Frame 2026-03-13 (06:00 UTC)\n- Quiet.\n",
            "bob": "# bob\n\n## Frame 2026-03-12 (22:00 UTC)\n- Opened the lantern ledger.\n",
        },
    )
    got = json.loads(soulscope("first", "lantern ledger", "-w", str(world), "--json").stdout)
    assert got["agent"] == "bob" and [t["agent"] for t in got["ties"]] == ["ada"]
    assert got["ties"][0]["precision"] == "misdated"
    assert got["ties"][0]["heading_date"] == "2025-07-24"
    s = spread(World.open(world), Term("lantern ledger"))
    assert [a.agent_id for a in s.adopters] == ["bob", "ada"]


def test_a_term_of_marks_alone_is_one_line_of_error(tmp_path: Path) -> None:
    world = _souls(tmp_path, {"ada": "# ada\n\n## Frame 1 — 2026-03-01\n- **bold** words.\n"})
    for command in ("first", "spread"):
        out = soulscope(command, "**", "-w", str(world))
        assert out.returncode == 2 and "holds no word to look for" in out.stderr
        assert len(out.stderr.strip().splitlines()) == 1
