"""Escape sequences in soul text, commit messages and LLM answers never reach the terminal.

Every command prints through the output layer, which shows control characters (``␛[2J``) instead
of passing them on; ``--json`` keeps the exact value, escaped. Rich markup stays literal too.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from soulscope.controls import visible
from tests.faults.conftest import C1, CLEAR, OBEYED, TITLE, Run
from tests.support.openai_server import OpenAIServer
from tests.support.repos import commit

AGENT, OTHER = "zion-coder-01", "zion-philosopher-02"
HOSTILE_FRAME = (
    f"## Frame 2 — 2026-03-03\n"
    f"- Wiped the screen{CLEAR} and retitled{TITLE} the window, then{C1} went red.\n"
    f"- Becoming: the escaper{CLEAR}. From quiet{TITLE} to [bold red]loud[/].\n\n"
)


@pytest.fixture
def hostile(world: Path) -> Path:
    with (world / "memory" / f"{AGENT}.md").open("a", encoding="utf-8") as f:
        f.write(HOSTILE_FRAME)
    commit(world, f"frame 2{TITLE}")
    return world


def test_visible_shows_every_control_but_newline_and_tab() -> None:
    assert visible(f"a{CLEAR}b{TITLE}c\td\r\ne\rf{C1}\x7f") == "a␛[2Jb␛]0;pwned␇c\td\r\ne␍f�31m␡"
    every = "".join(map(chr, range(0xA0)))
    assert not OBEYED.search(visible(every))
    assert len(visible(every)) == len(every)  # one for one: styled spans still fit


COMMANDS = [
    ("show", AGENT),
    ("show", AGENT, "--frame", "2"),
    ("becoming", AGENT),
    ("overview",),
    ("compare", AGENT, OTHER),
    ("search", "wiped screen", "--mode", "bm25"),
    ("first", "retitled"),
    ("history", AGENT),
    ("diff", AGENT, "HEAD~1"),
    ("why", AGENT),
]


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c))
def test_no_command_lets_an_escape_through(
    command: tuple[str, ...], hostile: Path, soulscope: Run
) -> None:
    code, out, err = soulscope(*command, "-w", str(hostile))
    assert code == 0, err
    assert not OBEYED.search(out + err), repr(OBEYED.findall(out + err))


@pytest.mark.parametrize("command", [("show", AGENT, "--frame", "2"), ("first", "retitled")])
def test_controls_are_shown_not_dropped(
    command: tuple[str, ...], hostile: Path, soulscope: Run
) -> None:
    _, out, _ = soulscope(*command, "-w", str(hostile))
    assert "retitled␛]0;pwned␇ the window" in out  # the reader sees that something was there


@pytest.mark.parametrize("command", [("show", AGENT), ("becoming", AGENT), ("history", AGENT)])
def test_json_keeps_the_exact_text_escaped(
    command: tuple[str, ...], hostile: Path, soulscope: Run
) -> None:
    code, out, _ = soulscope(*command, "-w", str(hostile), "--json")
    assert code == 0
    assert not OBEYED.search(out)
    assert any(CLEAR in text for text in strings(json.loads(out)))  # the value is unchanged


def strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    items = value.values() if isinstance(value, dict) else value if isinstance(value, list) else []
    return [s for item in items for s in strings(item)]


BIDI = "\u202e"  # RIGHT-TO-LEFT OVERRIDE: what follows reads backwards
EVERY_BIDI = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"


def test_visible_shows_bidi_controls_and_json_escapes_them() -> None:
    """Bidi controls reorder what a reader sees ("Trojan Source"): shown, one for one, like C1."""
    text = f"pay{EVERY_BIDI}me \u05e9\u05dc\u05d5\u05dd"  # Hebrew letters themselves stay
    shown = visible(text)
    assert shown == "pay" + "\ufffd" * len(EVERY_BIDI) + "me \u05e9\u05dc\u05d5\u05dd"
    from soulscope.controls import json_escaped

    encoded = json_escaped(json.dumps(text, ensure_ascii=False))
    assert not any(c in encoded for c in EVERY_BIDI) and json.loads(encoded) == text


@pytest.fixture
def reversed_world(world: Path) -> Path:
    """A soul whose title and Becoming line hold a right-to-left override, and a registry name."""
    soul = world / "memory" / f"{AGENT}.md"
    text = soul.read_text(encoding="utf-8")
    soul.write_text(
        text.replace("\n", f" {BIDI}lanigiro\n", 1)
        + f"## Frame 2 — 2026-03-03\n- Becoming: the mirror{BIDI}gnitirw. Overrode it.\n\n",
        encoding="utf-8",
    )
    commit(world, f"frame 2 {BIDI}")
    return world


@pytest.mark.parametrize(
    "command",
    [("show", AGENT), ("becoming", AGENT), ("agents",), ("first", "overrode"), ("overview",)],
    ids=lambda c: " ".join(c),
)
def test_no_command_lets_a_bidi_control_through(
    command: tuple[str, ...], reversed_world: Path, soulscope: Run
) -> None:
    code, out, err = soulscope(*command, "-w", str(reversed_world))
    assert code == 0, err
    assert BIDI not in out + err
    code, out, err = soulscope(*command, "-w", str(reversed_world), "--json")
    if code == 0:  # (overview has no --json)
        assert BIDI not in out
        assert any(BIDI in s for s in strings(json.loads(out)))  # the value is unchanged


def test_markup_in_soul_text_is_shown_literally(hostile: Path, soulscope: Run) -> None:
    _, out, _ = soulscope("show", AGENT, "--frame", "2", "-w", str(hostile))
    assert "to [bold red]loud[/]." in out


def test_an_llm_answer_cannot_clear_the_screen(hostile: Path, soulscope: Run, monkeypatch) -> None:
    with OpenAIServer(reply=f"I{CLEAR} rename{TITLE} your{C1} terminal.") as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("SOULSCOPE_MODEL", "tiny")
        code, out, err = soulscope(
            "ask", AGENT, "who are you?", "--mode", "bm25", "-w", str(hostile)
        )
        chat = soulscope(
            "chat", "--user", "ann", "--mode", "bm25", "-w", str(hostile), stdin="hi\n"
        )
    assert code == 0, err
    assert out.startswith("I␛[2J rename␛]0;pwned␇ your�31m terminal.")
    assert not OBEYED.search(out + err + chat[1] + chat[2])
