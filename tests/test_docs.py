"""The docs that are generated from the code (scripts/gen-docs) are current, and the README's
links lead somewhere."""

from __future__ import annotations

import json
import re
from importlib.machinery import SourceFileLoader
from importlib.util import module_from_spec, spec_from_loader

from tests.support.paths import ROOT


def gen_docs():
    loader = SourceFileLoader("gen_docs", str(ROOT / "scripts" / "gen-docs"))
    spec = spec_from_loader("gen_docs", loader)
    assert spec is not None
    module = module_from_spec(spec)
    loader.exec_module(module)
    return module


def test_cli_reference_is_the_parser() -> None:
    text = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    new, problems = gen_docs().cli_doc(text)
    assert problems == []
    assert new == text, "docs/cli.md is out of date: run scripts/gen-docs"


def test_cli_reference_notices_a_new_option_and_a_missing_command() -> None:
    docs = gen_docs()
    text = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    stale = text.replace("| `--limit LIMIT` | show only the newest N commits |\n", "")
    assert docs.cli_doc(stale)[0] == text  # the option comes back
    start = text.index("<!-- options: chat -->")
    end = text.index("<!-- end options -->", start) + len("<!-- end options -->")
    assert docs.cli_doc(text[:start] + text[end:])[1] == ["docs/cli.md has no section for 'chat'"]


def test_readme_links_to_files_that_exist() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    links = re.findall(r"\]\(([^)#\s]+)", readme)
    assert "docs/images/dashboard.svg" in links and "docs/cli.md" in links
    assert [link for link in links if not (ROOT / link).exists()] == []
    assert len(readme.encode()) < 12_500


def section(text: str, command: str) -> str:
    start = text.index(f"\n### {command}\n")
    end = text.find("\n## ", start + 1)
    following = text.find("\n### ", start + 1)
    return text[start : min(e for e in (end, following, len(text)) if e > 0)]


def test_cli_reference_names_every_json_key(tmp_path, capsys) -> None:
    """Each command's --json keys (and those of the objects it lists) are named in its section."""
    from soulscope.cli import main

    world = str(tmp_path / "w")
    assert main(["demo", world, "--frames", "3"]) == 0
    agent, other = "coder-ines", "debater-sable"
    commands = {
        "agents": [],
        "becoming": [agent],
        "show": [agent],
        "compare": [agent, other],
        "overview": [],
        "history": [agent],
        "diff": [agent, "HEAD~1"],
        "first": ["lantern"],
        "why": [agent, "--shift", "-1", "--offline"],
        "search": ["lantern", "--mode", "bm25"],
        "spread": ["lantern"],
        "graph": [],
        "frame": [],
    }
    text = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    for command, args in commands.items():
        capsys.readouterr()
        assert main([command, *args, "-w", world, "--json"]) == 0, command
        value = json.loads(capsys.readouterr().out)
        row = value[0] if isinstance(value, list) else value
        missing = [k for k in row if not re.search(rf"\b{re.escape(k)}\b", section(text, command))]
        assert missing == [], f"docs/cli.md does not name {command}'s JSON keys {missing}"
    capsys.readouterr()
    assert main(["becoming", agent, "--chapters", "-w", world, "--json"]) == 0
    chapters = json.loads(capsys.readouterr().out)[0]
    assert all(re.search(rf"\b{k}\b", section(text, "becoming")) for k in chapters)
