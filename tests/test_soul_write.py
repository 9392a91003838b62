"""Entries written by soulscope parse back to exactly what was meant, whatever the text holds."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from soulscope.soul.parse import parse
from soulscope.soul.write import (
    OBSERVATION_LABELS,
    action_line,
    append_entry,
    one_line,
    render_entry,
    render_header,
)

HEADER = render_header(
    "zion-coder-01",
    "Ada Loop",
    "Coder",
    "terse",
    "Ships small diffs.",
    convictions=["Tests first"],
    interests=["parsers", "git"],
    channels=["c/code"],
)

# Any text, line breaks, markdown, comment markers, undecodable bytes (lone surrogates) included.
hostile = st.lists(
    st.one_of(
        st.text(st.characters(blacklist_categories=()), max_size=8),
        st.sampled_from(["\n", "\r", "## ", "# ", "<!--", "-->", "```", "- ", "**X:** ", "Y: "]),
    ),
    max_size=10,
).map("".join)


def test_header_parses_to_the_identity_card() -> None:
    soul = parse(HEADER)
    assert soul.name == "Ada Loop"
    assert soul.identity["ID"] == "zion-coder-01" and soul.identity["Voice"] == "terse"
    assert soul.items("Interests") == ("parsers", "git")
    assert soul.items("Subscribed Channels") == ("c/code",)
    assert soul.problems == () and soul.frames == ()


def test_plain_text_is_written_as_given(tmp_path: Path) -> None:
    path = tmp_path / "a.md"
    path.write_text(HEADER)
    entry = render_entry(
        7,
        "2026-03-22",
        ["Posted #12 in c/code: “Small diffs win”", "Voted +1 on #9"],
        [("Becoming", "the reviewer. From coder to reviewer."), ("Connected", "#12, #9")],
    )
    append_entry(path, entry)
    data = path.read_bytes()
    assert data.startswith(HEADER.encode()) and "\n\n## Frame 7 — 2026-03-22\n" in data.decode()
    frame = parse(data).last_frame
    assert frame is not None and (frame.number, frame.date) == (7, "2026-03-22")
    assert frame.actions == ("Posted #12 in c/code: “Small diffs win”", "Voted +1 on #9")
    assert frame.get("Becoming") == ["the reviewer. From coder to reviewer."]
    assert frame.get("Connected") == ["#12, #9"]


def test_entries_are_separated_by_one_blank_line(tmp_path: Path) -> None:
    path = tmp_path / "a.md"
    path.write_text("# A")  # no newline at the end
    append_entry(path, render_entry(1, "2026-01-01", ["Lurked"], []))
    append_entry(path, render_entry(2, "2026-01-02", ["Lurked"], []))
    assert path.read_text() == (
        "# A\n\n## Frame 1 — 2026-01-01\n- Lurked\n\n## Frame 2 — 2026-01-02\n- Lurked\n"
    )


def test_a_labelled_looking_action_stays_an_action() -> None:
    for text in ("Posted: a thread", "**Voted:** +1", "Note: a: b"):
        frame = parse(render_entry(1, "2026-01-01", [text], [])).frames[0]
        assert frame.observations == () and len(frame.actions) == 1


def test_bad_heading_values_are_refused() -> None:
    with pytest.raises(ValueError):
        render_entry(1, "22 March", [], [])
    with pytest.raises(ValueError):
        render_entry(-1, "2026-01-01", [], [])
    with pytest.raises(ValueError):
        render_entry(1, "2026-01-01", [], [("Not: a label", "x")])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    actions=st.lists(hostile, max_size=4),
    observations=st.lists(st.tuples(st.sampled_from(OBSERVATION_LABELS), hostile), max_size=7),
)
def test_hostile_text_cannot_break_the_file(
    actions: list[str], observations: list[tuple[str, str]]
) -> None:
    before = parse(HEADER + "\n" + render_entry(3, "2026-03-01", ["Lurked"], []))
    entry = render_entry(4, "2026-03-02", actions, observations)
    soul = parse(before.source + "\n" + entry)
    # The old bytes are untouched, exactly one frame was added and it holds exactly what was meant.
    assert soul.source.startswith(before.source)
    assert len(soul.frames) == len(before.frames) + 1
    assert len(soul.sections) == len(before.sections)
    frame = soul.frames[-1]
    assert (frame.number, frame.date, frame.notes) == (4, "2026-03-02", ())
    assert list(frame.actions) == [t for t in map(action_line, actions) if t]
    expected = [(label, one_line(text)) for label, text in observations if one_line(text)]
    assert [(o.label, o.text) for o in frame.observations] == expected
    assert not [p for p in soul.problems if p.kind not in ("empty-frame",)]
    assert all(
        "\n" not in t and "<!--" not in t for t in frame.actions + tuple(x for _, x in expected)
    )
