"""The settings are read once, by the CLI entry: a broken config file is one sentence, every command."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from soulscope.cli import main
from soulscope.world import DEMO_WORLD


@pytest.fixture
def config() -> Path:
    path = Path(os.environ["SOULSCOPE_CONFIG"])
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


@pytest.mark.parametrize(
    "command",
    [
        ["agents", "--world", str(DEMO_WORLD), "--json"],
        ["becoming", "archivist-hale", "--world", str(DEMO_WORLD), "--json"],
        ["search", "archive", "--world", str(DEMO_WORLD), "--mode", "bm25", "--json"],
    ],
)
def test_a_broken_config_file_is_one_sentence_and_the_command_still_runs(
    config: Path, command: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    config.write_text("[llm\nbase_url = 'x'\n")
    assert main(command) == 0
    out = capsys.readouterr()
    json.loads(out.out)  # the output is untouched
    lines = out.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("soulscope: the config file ")
    assert "cannot be read" in lines[0] and "Traceback" not in out.err


def test_a_sound_config_file_says_nothing_and_its_arc_label_is_used(
    config: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config.write_text('[soul]\narc_label = "Named"\n')
    assert main(["becoming", "archivist-hale", "--world", str(DEMO_WORLD), "--json"]) == 0
    out = capsys.readouterr()
    assert out.err == ""
    named = json.loads(out.out)
    config.write_text("")
    assert main(["becoming", "archivist-hale", "--world", str(DEMO_WORLD), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) != named
