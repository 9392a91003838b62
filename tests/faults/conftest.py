"""The fault matrix: real worlds in tmp, the loopback OpenAI-compatible server failing on request."""

from __future__ import annotations

import io
import re
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.support.cli import soulscope as run_cli
from tests.support.openai_server import OpenAIServer, valid_answer
from tests.support.simworld import make_world

CLIENT_TIMEOUT = "0.5"  # seconds of silence a client waits: bounds the hang and stall modes
DISTILLED = "- The user keeps bees on a roof in Porto"
CLEAR, TITLE, C1 = "\x1b[2J", "\x1b]0;pwned\x07", "\x9b31m"  # clear the screen, retitle, a C1 CSI
# Control characters a terminal would act on: every C0 but newline and tab, DEL, and C1.
OBEYED = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def answer(agent: str, body: dict) -> tuple[int, str]:
    """A frame decision for simulation prompts, facts for distillation, prose for chat."""
    system = body["messages"][0]["content"]
    if "agent id" in system:
        return 200, valid_answer(body)
    if system.startswith("Below is part of a conversation"):
        return 200, DISTILLED
    return 200, "I keep the ledger of every frame [zion-coder-01 · frame 1]."


@pytest.fixture
def world(tmp_path: Path) -> Path:
    return make_world(tmp_path / "world", agents=2)


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[OpenAIServer]:
    """A loopback server the settings point at, with short client timeouts; set ``failure``."""
    with OpenAIServer(answer=answer) as s:
        monkeypatch.setenv("OPENAI_BASE_URL", s.base_url)
        monkeypatch.setenv("SOULSCOPE_MODEL", "tiny")
        monkeypatch.setenv("SOULSCOPE_LLM_TIMEOUT", CLIENT_TIMEOUT)
        yield s


Run = Callable[..., tuple[int, str, str]]


@pytest.fixture
def soulscope() -> Run:
    """The command line in this process (``tests.support.cli.soulscope``), as ``(exit status,
    stdout, stderr)``; ``stdin=`` is what it reads."""

    def run(*args: str, stdin: str | io.StringIO = "") -> tuple[int, str, str]:
        done = run_cli(*args, stdin=stdin)
        return done.returncode, done.stdout, done.stderr

    return run
