"""A terminal or pipe that takes only ASCII (``LANG=C``): every view writes what it can take.

JSON comes out ``\\u``-escaped, the same value a UTF-8 terminal gets; tables and lines show a
character the terminal lacks as its escape. Child processes: the encoding of stdout is the
process's own, set from its locale at start-up.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.cli import soulscope_process
from tests.support.repos import commit
from tests.support.simworld import make_world

AGENT = "zion-coder-01"
ASCII = {"LC_ALL": "C", "LANG": "C", "PYTHONUTF8": "0", "PYTHONIOENCODING": ""}
UTF8 = {"LC_ALL": "C.UTF-8", "LANG": "C.UTF-8", "PYTHONUTF8": "1", "PYTHONIOENCODING": ""}
WORDS = "Zoë drew a café sign — naïve 🐝 bees, \\ and “quotes”"


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = make_world(tmp_path_factory.mktemp("ascii") / "world", agents=2)
    soul = root / "memory" / f"{AGENT}.md"
    _, rest = soul.read_text(encoding="utf-8").split("\n", 1)
    soul.write_text(
        f"# Zoë — the café coder 🐝\n{rest}"
        f"## Frame 2 — 2026-03-04\n- Posted: {WORDS}.\n- Becoming: {WORDS}.\n\n",
        encoding="utf-8",
    )
    commit(root, "frame 2 — café")
    return root


JSON_VIEWS = [
    ("spread", "sign", "--json"),
    ("spread", "sign", "--json"),  # the second time from the kept answer
    ("first", "sign", "--json"),
    ("agents", "--json"),
    ("becoming", AGENT, "--json"),
    ("show", AGENT, "--json"),
]


@pytest.mark.parametrize("command", JSON_VIEWS, ids=lambda c: " ".join(c))
def test_json_views_write_escaped_json_of_the_same_value(
    command: tuple[str, ...], world: Path
) -> None:
    ascii_run = soulscope_process(*command, "-w", str(world), env=ASCII)
    assert ascii_run.returncode == 0, ascii_run.stderr[-600:]
    assert ascii_run.stdout.isascii()
    value = json.loads(ascii_run.stdout)
    assert "café" in json.dumps(value, ensure_ascii=False)
    utf8_run = soulscope_process(*command, "-w", str(world), env=UTF8)
    assert value == json.loads(utf8_run.stdout)
    if command[0] == "becoming":
        assert value[-1]["text"].startswith(WORDS)  # the bee (a pair of escapes) whole


@pytest.mark.parametrize(
    "command",
    [("agents",), ("becoming", AGENT), ("show", AGENT, "--frame", "2"), ("first", "sign")],
    ids=lambda c: " ".join(c),
)
def test_text_views_show_what_the_terminal_lacks_as_escapes(
    command: tuple[str, ...], world: Path
) -> None:
    done = soulscope_process(*command, "-w", str(world), env=ASCII)
    assert done.returncode == 0, done.stderr[-600:]
    assert "Traceback" not in done.stderr
    assert done.stdout.isascii()
    assert "caf\\u00e9" in done.stdout
