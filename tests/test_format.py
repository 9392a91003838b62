"""The soul-file grammar (``soulscope.soul.format``): the Soul tab's highlighter and the parser read
every line alike, frame headings and labels, and the labels' table drives what is written."""

from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from soulscope.soul.format import ENTRY_LABELS, TEXT_LABELS, cite, is_frame_heading
from soulscope.soul.parse import parse, read_soul
from soulscope.tui.widgets.soul_text import display_lines, line_spans
from tests.support.paths import corpus_dir

# Lines built from the pieces the two rules turn on, and any text after them.
_PREFIXES = [
    "",
    "## ",
    "##",
    "#",
    "# ",
    "###",
    "##  ",
    "- ",
    "* ",
    "+ ",
    "-  ",
    " - ",
    "\t- ",
    "- **",
]
_WORDS = [
    "Frame",
    "frame",
    "FRAME",
    "Frames",
    "Becoming",
    "Key insight",
    "Influenced by",
    "R&D",
    "What’s new",
    "Step 2",
    "Key (draft) idea",
    "a b c d e",
    "Identity",
]
_AFTER = [
    "",
    " ",
    ":",
    ": ",
    ":**",
    ":** ",
    "**:",
    "** :",
    ":x",
    "_3 x",
    " 3",
    " — 2026-03-01",
    "**",
]
_TEXT = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cc", "Cs")), max_size=30)
LINES = st.one_of(
    _TEXT,
    st.builds(
        lambda *parts: "".join(parts),
        st.sampled_from(_PREFIXES),
        st.sampled_from(_WORDS),
        st.sampled_from(_AFTER),
        _TEXT,
    ),
)


def parser_reads(line: str) -> tuple[bool, list[str]]:
    """Whether the parser takes ``line``, written below a frame heading, for a frame heading of its
    own, and the labels it reads in it."""
    soul = parse(f"# Ada\n\n## Frame 1 — 2026-03-01\n{line}\n".encode())
    frames = list(soul.frames)
    return len(frames) == 2, [o.label for o in frames[0].observations]


def highlighter_reads(line: str) -> tuple[bool, list[str]]:
    spans = line_spans(line)
    return (
        any(name == "frame" for name, _, _ in spans),
        [line[a:b] for name, a, b in spans if name == "label"],
    )


# The headings and labels the highlighter used to show otherwise than the parser read them.
@example("## frame 3")
@example("##Frame 3")
@example("## FRAME 4")
@example("## Frame_3 x")
@example("- Step 2: the second")
@example("- Key (draft) idea: x")
@example("- a b c d e: x")
@example("- What’s new: x")
@example("- R&D: x")
@example("-  Becoming: x")
@example("  - Becoming: x")
@example("- **Becoming:**x")
@example("### Becoming")
@example("Becoming: x")
@example("1. Becoming: x")
@given(LINES)
def test_the_highlighter_shows_what_the_parser_reads(line: str) -> None:
    frame, labels = parser_reads(line)
    shown_frame, shown = highlighter_reads(line)
    assert shown_frame == frame
    assert len(shown) == len(labels)
    for label, span in zip(labels, shown, strict=True):
        assert label in span  # the span is the label with its markup: "**Becoming:**"


def test_frame_headings() -> None:
    frames = ["Frame 3", "Frame", "Frame — 2026-03-15", "Frame: x", "Frame 408 solo — 2026-03-28"]
    sections = ["Frames", "Frame_3 x", "frame 3", "FRAME 4", "Framework", "Identity"]
    assert all(is_frame_heading(h) for h in frames)
    assert not any(is_frame_heading(h) for h in sections)


def test_an_entry_is_written_in_the_tables_order_and_read_back() -> None:
    from soulscope.soul.write import OBSERVATION_LABELS, render_entry

    assert tuple(x.label for x in ENTRY_LABELS) == OBSERVATION_LABELS
    texts = [(x.label, f"text of {x.label}") for x in ENTRY_LABELS]
    soul = parse(("# Ada\n\n" + render_entry(1, "2026-03-01", ["Wrote."], texts)).encode())
    frame = soul.frames[0]
    assert [o.label for o in frame.observations] == [x.label for x in ENTRY_LABELS]


def test_the_decision_schema_has_a_field_per_text_label() -> None:
    from soulscope.sim.brain import DECISION_SCHEMA, TEXT_FIELDS

    assert tuple(x.field for x in TEXT_LABELS) == TEXT_FIELDS
    assert set(TEXT_FIELDS) | {"relationships"} <= set(DECISION_SCHEMA["properties"])


def test_citations() -> None:
    assert cite("coder-06", "221") == "[coder-06 · frame 221]"
    assert cite("coder-06", "221", "2026-03-22") == "[coder-06 · frame 221 · 2026-03-22]"


@pytest.mark.parametrize("era", ["rappterbook", "rappterbook-later"])
def test_the_soul_tab_shows_the_corpus_as_the_parser_reads_it(era: str) -> None:
    # Every line of the real files below the header: a frame on screen where the parser has a
    # frame, a label where it has an observation, and the same label.
    for path in sorted(corpus_dir(era, "memory").glob("*.md")):
        soul = read_soul(path)
        frames = set(soul.frames.columns.lines)
        labels = {o.line: o.label for block in soul.blocks for o in block.observations}
        lines = display_lines([path.read_bytes().decode("utf-8", "replace")])
        for number, line in enumerate(lines, 1):
            if number <= soul.preamble.count("\n"):
                continue
            shown_frame, shown = highlighter_reads(line)
            assert shown_frame == (number in frames), (path.name, number)
            assert len(shown) == (number in labels), (path.name, number)
            assert not shown or labels[number] in shown[0], (path.name, number)
