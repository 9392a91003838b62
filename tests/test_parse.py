"""The parser on crafted text: headings, labels, continuations, odd bytes, and any text at all."""

from __future__ import annotations

from array import array

from hypothesis import given, settings
from hypothesis import strategies as st

from soulscope.soul.parse import _repeated, parse, parse_heading
from soulscope.soul.trajectory import arc, compare, role_of

SOUL = b"""# Rustacean

## Identity

- **ID:** agent-a
- **Archetype:** Coder
- **Voice:** terse

## Convictions

- The borrow checker is your friend

## Frame 220 \xe2\x80\x94 2026-03-22
- Replied to coder-01 on #7422.
- Named: semantic conflicts.
- **Influenced by:** coder-01's category theory.
- Becoming: the ownership designer. Mapping owners.
## Frame 221 \xe2\x80\x94 2026-03-22
- becoming: the traceback pragmatist. From humble executor to specifically requiring evidence.
  It still matters.
- Relationships: coder-01 (ally)

## Frame 221 \xe2\x80\x94 2026-03-22
- Becoming: the traceback pragmatist. From humble executor to specifically requiring evidence.
  It still matters.

## Notes
stray text \xff\xfe here
"""


def test_frames_observations_and_identity() -> None:
    soul = parse(SOUL)
    assert soul.render() == SOUL
    assert soul.name == "Rustacean"
    assert soul.identity["ID"] == "agent-a" and soul.agent_id == "agent-a"
    assert soul.items("Convictions") == ("The borrow checker is your friend",)
    f220, f221, dup = soul.frames
    assert (f220.number, f220.date, f220.line) == (220, "2026-03-22", 13)
    assert f220.actions == ("Replied to coder-01 on #7422.",)
    assert f220.first("influenced by") == "coder-01's category theory."
    assert f221.first("Becoming").endswith("requiring evidence.\nIt still matters.")
    assert dup.duplicate_of == f221.index
    assert [s.title for s in soul.sections] == ["Identity", "Convictions", "Notes"]


def test_undecodable_bytes_are_reported_shown_replaced_and_kept() -> None:
    soul = parse(SOUL)
    assert any(p.kind == "encoding" and p.line == 28 for p in soul.problems)
    assert "\ufffd" in soul.display_text
    assert soul.render() == SOUL


def test_arc_roles_shifts_and_repeats() -> None:
    statements = arc(parse(SOUL))
    assert [s.role for s in statements] == [
        "ownership designer",
        "traceback pragmatist",
        "traceback pragmatist",
    ]
    assert [s.kind for s in statements] == ["first", "shift", "repeat"]
    assert [s.shift for s in statements] == [False, True, False]
    assert [s.repeat for s in statements] == [False, False, True]
    assert statements[1].from_role == "humble executor"
    assert statements[1].to_role == "specifically requiring evidence"
    assert statements[2].duplicate_frame


def test_custom_label_and_compare() -> None:
    soul = parse(SOUL)
    named = arc(soul, label="Named")
    assert [s.text for s in named] == ["semantic conflicts."]
    rows = compare(arc(soul), named)
    assert rows[0].key == "220" and rows[0].left and rows[0].right


def test_heading_variants() -> None:
    assert parse_heading("Frame 408 solo — 2026-03-28 (seed note)") == (
        408,
        "solo",
        "2026-03-28",
        None,
        "seed note",
    )
    assert parse_heading("Frame 500b — 2026-04-16")[:3] == (500, "b", "2026-04-16")
    assert parse_heading("Frame 2026-03-15 (19:50 UTC) — Seed")[1:] == (
        "",
        "2026-03-15",
        "19:50",
        "Seed",
    )
    assert parse_heading("Frame 2026-03-15T17:33:00Z — x")[2:4] == ("2026-03-15", "17:33")
    assert parse_heading("Frame March 14, 2026")[2] == "2026-03-14"
    assert parse_heading("Frame 2026-03-15 -- title")[4] == "title"
    assert parse_heading("Frame 492") == (492, "", None, None, "")


def test_role_of_is_the_opening_noun_phrase_without_its_article() -> None:
    assert role_of("the sim evangelist. From a to b.") == "sim evangelist"
    assert "…" not in role_of(" ".join(["word"] * 30))


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=2000))
def test_any_bytes_round_trip(data: bytes) -> None:
    assert parse(data).render() == data


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                "# N\n",
                "## Frame 1 — 2026-01-01\n",
                "## Identity\n",
                "- Becoming: the x. From a to b.\n",
                "- **Named:** y\n",
                "  cont\n",
                "\n",
                "text\n",
                "- plain\n",
                "## Frame\n",
                "\r\n",
                "- Voted:",
            ]
        ),
        max_size=40,
    )
)
def test_soul_shaped_text_round_trips(parts: list[str]) -> None:
    text = "".join(parts)
    soul = parse(text)
    assert soul.source == text
    arc(soul)


def test_a_big_soul_shares_what_its_frames_repeat() -> None:
    """Dates, times and labels recur across thousands of frames; a parsed soul holds each once,
    and text without undecodable bytes is not copied for display (a 20 MB soul stays in memory)."""
    from tests.support.bigworld import frame_entries

    soul = parse("# A\n\n" + "".join(frame_entries(200)))
    same_day = [f for f in soul.frames if f.date == "2026-01-02"]
    assert len(same_day) == 24 and len({id(f.date) for f in same_day}) == 1
    labels = [o.label for f in soul.frames for o in f.observations if o.label == "Becoming"]
    assert len(labels) > 50 and len({id(label) for label in labels}) == 1
    assert soul.render() == ("# A\n\n" + "".join(frame_entries(200))).encode()


def test_frames_are_read_from_the_file_in_order_with_the_sections_between() -> None:
    soul = parse(SOUL)
    kinds = [type(b).__name__ for b in soul.blocks]
    assert kinds == ["Section", "Section", "Frame", "Frame", "Frame", "Section"]
    assert soul.preamble + "".join(b.source for b in soul.blocks) == soul.source
    assert soul.blocks[2] == soul.frames[0] and soul.blocks[-1].title == "Notes"
    later = soul.frames[1:]
    assert len(later) == 2 and later[0].index == 1 and later[-1] == soul.frames[2]
    assert [f.index for f in reversed(soul.frames)] == [2, 1, 0]
    assert soul.frame_at_line(soul.frames[1].line + 1) == soul.frames[1]
    assert soul.frame_at_line(1) is None
    assert [f.index for f in soul.find_frames("221")] == [1, 2]
    assert [f.index for f in soul.duplicates] == [2]


def test_the_problems_of_frames_are_found_without_building_them() -> None:
    text = (
        "# A\n\n"
        "## Frame 1 \u2014 2026-01-02\n\u00a0\n"  # a body of no-break spaces only
        "## Frame 2 \u2014 2026-01-03\n- Voted\n<!-- 40 earlier entries archived -->\n"
        "## Frame\n"
        "## Frame  2 \u2014  2026-01-03\n- Voted again\n"  # the heading of frame 2, spaced out
        "## Frame 3 \u2014 2026-01-01\n- Read\n"
    )
    problems = [(p.line, p.kind) for p in parse(text).problems]
    assert problems == [
        (3, "empty-frame"),
        (7, "archived"),
        (8, "heading"),
        (8, "empty-frame"),
        (9, "duplicate"),
        (11, "time"),
    ]
    assert parse(" \u00a0\n\u3000").problems[0].kind == "empty"


def test_undecodable_bytes_are_reported_on_their_line_in_a_file_of_megabytes() -> None:
    lines = [f"- line {i} \u2014 padding padding padding padding\n".encode() for i in range(60_000)]
    lines[45_000] = b"- bad \xff byte\n"
    data = b"# A\n\n## Frame 1\n" + b"".join(lines)
    soul = parse(data)
    assert len(data) > 2_000_000
    assert [(p.line, p.kind) for p in soul.problems] == [(45_004, "encoding")]
    assert soul.render() == data
    assert "- bad \ufffd byte" in soul.display_text


def test_an_arc_label_is_found_in_any_case() -> None:
    soul = parse("# A\n\n## Frame 1\n- BECOMING: the archivist.\n## Frame 2\n- Voted\n")
    assert [s.role for s in arc(soul)] == ["archivist"]


def test_repeated_headings_are_found_among_hashes_that_collide() -> None:
    # Values that share their low bits probe the same slots of the table.
    keys = array("q", [0, 1 << 20, 2 << 20, 0, 1 << 20, -5, 7, -5, 3 << 40])
    assert _repeated(keys) == {0, 1 << 20, -5}
    assert _repeated(array("q")) == set()


def test_a_time_that_says_its_zone_is_read_wherever_it_stands() -> None:
    from soulscope.soul.parse import parse_heading

    assert parse_heading("Frame 2026-03-13 (morning sim 07:00 UTC)")[3] == "07:00"
    assert parse_heading("Frame 2026-03-15 — Sol 12:30 report")[3] is None


def test_the_latest_line_of_a_label_is_found_from_the_end() -> None:
    soul = parse(SOUL)
    assert soul.latest("Becoming") == [soul.frames[-1].get("Becoming")[0]]
    assert soul.latest("relationships") == ["coder-01 (ally)"]
    assert soul.latest("Surprised by") == []
    # Far back, past frames that only mention the label in passing.
    entries = "".join(
        f"## Frame {n} — 2026-01-01\n- Read about Relationships\n" for n in range(2, 90)
    )
    soul = parse(SOUL + entries.encode())
    assert soul.latest("Relationships") == ["coder-01 (ally)"]


MENTIONS = """# Mentions

## Notes

- becoming: in a section, not a frame

## Frame 1 — 2026-01-01
- BECOMING: shouted

## Frame 2 — 2026-01-02
- Posted about nothing in particular

## Frame 3 — 2026-01-03
- **BeCoMiNg:** mixed case, then becoming again and Becoming once more

## Frame 4 — 2026-01-04
- Bécoming: an accent is another word; becomin g is not it either

## Frame 5 — 2026-01-05
- Influenced by: the word at the very end: becoming"""


def test_frames_mentioning_a_word_in_any_case(monkeypatch) -> None:
    """The frames whose text holds a word in any ASCII case, each once, sections left out; the
    same when the file is searched a few bytes at a time (a word across two windows)."""
    from soulscope.soul.model import _FoldedSearch

    frames = parse(MENTIONS.encode()).frames
    assert list(frames.mentioning("becoming")) == [0, 2, 4]
    assert list(frames.mentioning("Bécoming")) == [3]
    assert list(frames[1:3].mentioning("BECOMING")) == [2]
    assert list(frames.mentioning_from_end("becoming")) == [4, 2, 0]
    for window in range(1, 40):
        monkeypatch.setattr(_FoldedSearch, "WINDOW", window)
        assert list(frames.mentioning("becoming")) == [0, 2, 4], window
