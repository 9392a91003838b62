"""A big file's lines as the Soul view shows them, decoded one at a time from the file's bytes:
the same lines as cutting the decoded text, whatever the bytes."""

from __future__ import annotations

import pytest

from soulscope.soul.model import clean, decoded_pieces
from soulscope.tui import file_lines
from soulscope.tui.file_lines import FileLines, line_bounds, long_lines
from soulscope.tui.widgets.soul_text import LongLines, Rows, display_lines

FILES = [
    b"",
    b"\n",
    b"one line, no newline",
    b"# Name\n\n## Frame 1\n- a\n",
    b"crlf\r\nlines\r\nend\r\n",
    b"a lone\rcarriage return\n\r\n\r",
    b"bad \xff\xfe bytes\n\xe2\x80 cut\n\xe2\x80\x94 dash\n",
    b"controls \x1b[2J \x07 \x9b \x7f\n[bold]markup[/bold] stays\n",
    b"\n\n\nblank lines\n\n",
]


def shown(data: bytes) -> list[str]:
    """The lines the view shows when it is given the decoded text (small files)."""
    return display_lines([clean(piece) for piece in decoded_pieces(data)])


@pytest.mark.parametrize("split", [None, 1, 5])
@pytest.mark.parametrize("data", FILES)
def test_the_lines_are_those_of_the_decoded_text(
    data: bytes, split: int | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    if split is not None:  # the file split into pieces of a few bytes, as a big one is
        monkeypatch.setattr(file_lines, "_SPLIT_BYTES", split)
    lines = FileLines(data, line_bounds(data))
    assert list(lines) == shown(data)
    assert len(lines) == len(shown(data))
    assert lines[-1] == shown(data)[-1]


def test_undecodable_bytes_show_as_replacement_characters_and_controls_as_pictures() -> None:
    lines = FileLines(FILES[6] + FILES[7], line_bounds(FILES[6] + FILES[7]))
    assert lines[0] == "bad \ufffd\ufffd bytes"
    assert "\x1b" not in lines[3] and "\u241b[2J" in lines[3]
    assert lines[4] == "[bold]markup[/bold] stays"  # text, never markup


@pytest.mark.parametrize("data", FILES)
def test_long_lines_are_found_with_their_lengths(data: bytes) -> None:
    indices, lengths, plain = long_lines(data, 5)
    expected = [i for i, line in enumerate(shown(data)) if len(line) > 5]
    assert list(indices) == expected
    assert list(lengths) == [len(shown(data)[i]) for i in expected]
    assert list(plain) == [shown(data)[i].isascii() for i in expected]


def test_a_big_file_wraps_as_its_decoded_text_does_at_any_width() -> None:
    data = (
        b"short\n"
        + b"a line of words that is long enough to wrap at forty columns or so\n" * 3
        + "an em dash \u2014 and a wide \u4e16\u754c line that wraps too, later on\n".encode()
        + b"\xff" * 90
        + b"\n"
    ) * 50
    lines = FileLines(data, line_bounds(data))
    for width in (10, 24, 40, 80):
        length = max(width // 2 - 8, 20)
        long = LongLines(length, *long_lines(data, length))
        expected = Rows.of(shown(data), width)
        assert Rows.of(lines, width, long) == expected
        assert Rows.of(lines, width) == expected  # (without the long lines: found from sizes)
        assert Rows.of(lines, width // 2, long) == Rows.of(shown(data), width // 2)
