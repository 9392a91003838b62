"""Identity statements as writers really write them: a dash or italics after the label, a label
in lower case, a statement shown as code (not one), a bullet that runs on, the word in running
text (not one). Read through ``becoming --json`` and, for a commit, ``diff --json``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.cli import soulscope
from tests.support.repos import commit, init

FORMS = """# Kai Forms

## Identity
- **ID:** kai-01
- **Archetype:** Tester

## Frame 1 — 2026-03-01
- Becoming: the listener. From talker to listener.

## Frame 2 — 2026-03-02
- Becoming — the gardener of threads.

## Frame 3 — 2026-03-03
- Quoted a peer:
  > Becoming: the quoted impostor.
```
- Becoming: the impostor in a code block.
```
- I am becoming more careful, and Becoming is a hard word.

## Frame 4 — 2026-03-04
- becoming: the weaver, who holds a long line
  that runs on here.
- Becoming:

## Frame 5 — 2026-03-05
- *Becoming:* the italic one.
- **Becoming** - the bold one with a hyphen.

## Frame 6 — 2026-03-06
~~~
- Becoming: the impostor under tildes.
~~~
```
- Becoming: 🌱 the sprout, after a fence never closed.
"""


# Labels off the bullet: a paragraph, a nested bullet, a numbered item; and lines that only
# look like one: a sentence running on in lower case, an indented line under a quote.
LOOSE = """# Nes

## Identity
- **ID:** nes-01

## Frame 1 — 2026-03-01
Becoming: the paragraph one.

## Frame 2 — 2026-03-02
- Reflections:
  - Becoming: the nested one.
  - Influenced by: kai-01.

## Frame 3 — 2026-03-03
1. Becoming: the numbered one.
**Becoming:** the bold paragraph one.

## Frame 4 — 2026-03-04
- Wrote at length about what a soul is and the slow art of
becoming: a sentence, not a statement.
- Quoted kai-01:
  Becoming: kai's words, not mine.
Note: the frame ends here.
"""


@pytest.fixture(scope="module")
def forms(tmp_path_factory: pytest.TempPathFactory) -> Path:
    repo = init(tmp_path_factory.mktemp("forms") / "world")
    (repo / "memory").mkdir()
    soul = repo / "memory" / "kai-01.md"
    cut = FORMS.index("## Frame 3")
    soul.write_text(FORMS[:cut])
    commit(repo, "frames 1-2", date="2026-03-02T10:00:00Z")
    soul.write_text(FORMS[: FORMS.index("## Frame 4")])
    commit(repo, "frame 3", date="2026-03-03T10:00:00Z")
    soul.write_text(FORMS)
    (repo / "memory" / "nes-01.md").write_text(LOOSE)
    commit(repo, "frames 4-6", date="2026-03-06T10:00:00Z")
    return repo


def _json(*args: str) -> object:
    done = soulscope(*args, "--json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_every_written_form_of_the_label_is_a_statement_and_code_is_not(forms: Path) -> None:
    arc = _json("becoming", "kai-01", "--world", str(forms))
    assert [(s["frame"], s["text"]) for s in arc] == [
        (1, "the listener. From talker to listener."),
        (2, "the gardener of threads."),
        (4, "the weaver, who holds a long line\nthat runs on here."),
        (5, "the italic one."),
        (5, "the bold one with a hyphen."),
        (6, "🌱 the sprout, after a fence never closed."),
    ]


def test_a_commit_that_adds_code_changes_no_identity(forms: Path) -> None:
    got = _json("diff", "kai-01", "HEAD~2", "HEAD~1", "--world", str(forms))
    assert (got["becoming_before"], got["becoming_after"]) == (
        "the gardener of threads.",
        "the gardener of threads.",
    )


def test_a_label_off_the_bullet_states_and_a_sentence_running_on_does_not(forms: Path) -> None:
    arc = _json("becoming", "nes-01", "--world", str(forms))
    assert [(s["frame"], s["text"]) for s in arc] == [
        (1, "the paragraph one."),
        (2, "the nested one."),
        (3, "the numbered one."),
        (3, "the bold paragraph one."),
    ]
    frame = _json("show", "nes-01", "--world", str(forms))["frames"][1]
    assert [(o["label"], o["text"]) for o in frame["observations"]] == [
        ("Reflections", ""),
        ("Becoming", "the nested one."),
        ("Influenced by", "kai-01."),
    ]


def test_an_empty_becoming_leaves_the_evolving_positions_the_arc(tmp_path: Path) -> None:
    (tmp_path / "memory").mkdir()
    (tmp_path / "memory" / "evo-01.md").write_text(
        "# Evo\n\n## Identity\n- **ID:** evo-01\n\n"
        "## Frame 2026-03-01 (10:00 UTC)\n- Evolving position: the first position.\n\n"
        "## Frame 2026-03-02 (10:00 UTC)\n- Evolving position: the second position.\n"
        "- Becoming:\n"
    )
    arc = _json("becoming", "evo-01", "--world", str(tmp_path))
    assert [s["text"] for s in arc] == ["the first position.", "the second position."]
    latest = _json("overview", "--world", str(tmp_path))[0]["latest"]
    assert latest["text"] == "the second position."


def test_a_subheading_that_names_the_label_states_what_follows(tmp_path: Path) -> None:
    (tmp_path / "memory").mkdir()
    (tmp_path / "memory" / "sub-01.md").write_text(
        "# Sub\n\n## Identity\n- **ID:** sub-01\n\n"
        "## Frame 1 — 2026-03-01\n### Actions\n- Posted #12.\n### Becoming\n\nthe bridge builder.\n\n"
        "## Frame 2 — 2026-03-02\n#### **Becoming:**\n- the keeper of bridges.\n"
        "### Becoming lessons\n- a subheading, not the label.\n\n"
        "## Frame 3 — 2026-03-03\n### Becoming\n- Becoming: the third, said once.\n\n"
        "## Frame 4 — 2026-03-04\n### Becoming\n- the bridge: from wall to bridge.\n"
    )
    arc = _json("becoming", "sub-01", "--world", str(tmp_path))
    assert [(s["frame"], s["text"]) for s in arc] == [
        (1, "the bridge builder."),
        (2, "the keeper of bridges."),
        (3, "the third, said once."),
        (4, "the bridge: from wall to bridge."),
    ]


def test_a_statement_that_opens_on_the_change_names_the_role_it_changed_to(
    tmp_path: Path,
) -> None:
    (tmp_path / "memory").mkdir()
    frames = [
        "the listener.",
        "From listener to builder.",
        "No longer the builder; now the keeper of bridges.",
        "“the keeper.” Still keeping.",
        "🌱 the sprout — naïve, 漢字.",
    ]
    (tmp_path / "memory" / "rol-01.md").write_text(
        "# Rol\n\n## Identity\n- **ID:** rol-01\n\n"
        + "".join(
            f"## Frame {n} — 2026-03-0{n}\n- Becoming: {t}\n\n" for n, t in enumerate(frames, 1)
        )
    )
    arc = _json("becoming", "rol-01", "--world", str(tmp_path))
    assert [s["role"] for s in arc] == ["listener", "builder", "keeper", "keeper", "sprout"]


def test_a_heading_date_that_is_no_day_dates_nothing(tmp_path: Path) -> None:
    """ "2026-13-04" and "2026-02-30" are no days: those frames are undated (placed after the
    frame above them), not a month 13 that sorts after every real date."""
    (tmp_path / "memory").mkdir()
    (tmp_path / "memory" / "cal-01.md").write_text(
        "# Cal\n\n## Identity\n- **ID:** cal-01\n\n"
        "## Frame 1 — 2026-03-01\n- Quiet.\n\n"
        "## Frame 2 — 2026-13-04\n- Named the almanac rule.\n\n"
        "## Frame 2026-02-30 (10:00 UTC)\n- The almanac again.\n\n"
    )
    (tmp_path / "memory" / "dee-02.md").write_text(
        "# Dee\n\n## Identity\n- **ID:** dee-02\n\n## Frame 7 — 2026-12-30\n- An almanac.\n"
    )
    frames = _json("show", "cal-01", "--world", str(tmp_path))["frames"]
    assert [f["date"] for f in frames] == ["2026-03-01", None, None]
    assert frames[2]["time"] is None
    got = _json("first", "almanac", "--world", str(tmp_path))
    # cal-01's frame 2 came after 2026-03-01, no one knows when: a tie, said as one, and the
    # dated use leads
    assert (got["agent"], got["date"]) == ("dee-02", "2026-12-30")
    assert [(t["agent"], t["frame"], t["date"], t["precision"]) for t in got["ties"]] == [
        ("cal-01", 2, None, "inferred")
    ]


def test_a_frame_without_a_number_comes_after_the_numbered_one_above_it(tmp_path: Path) -> None:
    """The later era writes "## Frame 2026-04-14" below "## Frame 488 — 2026-04-14": the same
    day, written after it. The first use is frame 488's; the latest statement the other's."""
    (tmp_path / "memory").mkdir()
    (tmp_path / "memory" / "lat-01.md").write_text(
        "# Lat\n\n## Identity\n- **ID:** lat-01\n\n"
        "## Frame 488 — 2026-04-14\n- Drew the harbor map.\n- Becoming: the mapper.\n\n"
        "## Frame 2026-04-14\n- The harbor map, again.\n- Becoming: the harbor pilot.\n"
    )
    got = _json("first", "harbor", "--world", str(tmp_path))
    assert (got["frame"], got["line"]) == (488, 7)
    latest = _json("overview", "--world", str(tmp_path))[0]["latest"]
    assert latest["text"] == "the harbor pilot."


def test_a_statement_in_an_html_comment_is_hidden(tmp_path: Path) -> None:
    (tmp_path / "memory").mkdir()
    (tmp_path / "memory" / "com-01.md").write_text(
        "# Com\n\n## Identity\n- **ID:** com-01\n\n"
        "## Frame 1 — 2026-03-01\n- Becoming: the real one.\n\n"
        "## Frame 2 — 2026-03-02\n<!--\n- Becoming: the commented-out one.\n-->\n- Did a thing.\n\n"
        "## Frame 3 — 2026-03-03\n<!-- never closed\n- Becoming: the third.\n"
    )
    arc = _json("becoming", "com-01", "--world", str(tmp_path))
    assert [(s["frame"], s["text"]) for s in arc] == [(1, "the real one."), (3, "the third.")]


def test_a_frame_numbered_with_a_hash_has_its_number(tmp_path: Path) -> None:
    (tmp_path / "memory").mkdir()
    (tmp_path / "memory" / "hash-01.md").write_text(
        "# Hash\n\n## Identity\n- **ID:** hash-01\n\n"
        "## Frame #12 — 2026-03-04\n- Becoming: the twelfth.\n\n"
        "## Frame — #13 in the thread\n- Becoming: no number here.\n"
    )
    arc = _json("becoming", "hash-01", "--world", str(tmp_path))
    assert [(s["frame"], s["date"]) for s in arc] == [(12, "2026-03-04"), (None, None)]
