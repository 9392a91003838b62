"""The docs that are generated from the code (scripts/gen-docs) are current, and the README's
links lead somewhere."""

from __future__ import annotations

import re
from importlib.machinery import SourceFileLoader
from importlib.util import module_from_spec, spec_from_loader
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


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
