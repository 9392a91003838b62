"""``soulscope mcp``: a real MCP client session over stdio with the server in its own process."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.support.cli import process_env, soulscope
from tests.support.paths import ROOT
from tests.support.worlds import soul, write_small_world

pytest.importorskip("mcp", reason="soulscope mcp needs the mcp package")

from mcp import ClientSession, StdioServerParameters  # noqa: E402
from mcp.client.stdio import stdio_client  # noqa: E402

VIEWS = {
    "agents",
    "show",
    "becoming",
    "why",
    "first",
    "spread",
    "graph",
    "search",
    "log",
    "compare",
}


def server(world: Path) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "soulscope", "mcp", "--world", str(world)],
        env=process_env(),
        cwd=str(ROOT),
    )


@pytest.fixture
def world(tmp_path: Path) -> Path:
    root = write_small_world(tmp_path / "w")
    # a fourth agent takes up the cataloguer's word from Ada, naming her in mixed case
    (root / "memory" / "dee-04.md").write_text(
        soul(
            "Dee O'Brien-Vale",
            "dee-04",
            "Curator",
            [
                "## Frame 3 — 2026-03-03 (10:05 UTC)\n- Influenced by: ADA-01, whose Ledger "
                "habit I copied\n- Becoming: a keeper of the ledger.\n\n"
            ],
        ),
        encoding="utf-8",
    )
    return root


def text_of(result) -> str:  # noqa: ANN001
    assert not result.is_error, result.content
    return "".join(c.text for c in result.content)


async def test_lists_read_only_views_and_answers_as_the_cli(world: Path):
    async with stdio_client(server(world)) as (read, write), ClientSession(read, write) as s:
        await s.initialize()
        listed = (await s.list_tools()).tools
        assert {t.name for t in listed} == VIEWS
        for t in listed:
            assert t.annotations is not None and t.annotations.read_only_hint is True
            assert t.annotations.destructive_hint is False
        spread = json.loads(text_of(await s.call_tool("spread", {"term": "ledger"})))
        agents = json.loads(text_of(await s.call_tool("agents", {})))
        arc = json.loads(text_of(await s.call_tool("becoming", {"agent": "dee-04"})))
    cli = soulscope("spread", "ledger", "--world", str(world), "--json")
    assert spread == json.loads(cli.stdout)
    assert [a["agent"] for a in spread["agents"]][-1] == "dee-04"
    assert agents == json.loads(soulscope("agents", "--world", str(world), "--json").stdout)
    assert [s["text"] for s in arc] == ["a keeper of the ledger."]


async def test_a_question_that_fails_is_a_tool_error_of_one_sentence(world: Path):
    async with stdio_client(server(world)) as (read, write), ClientSession(read, write) as s:
        await s.initialize()
        result = await s.call_tool("show", {"agent": "nobody-99"})
        assert result.is_error
        said = "".join(c.text for c in result.content)
        assert "nobody-99" in said and "\n" not in said.strip()
        # the server is still there after it
        assert json.loads(
            text_of(await s.call_tool("compare", {"left": "ada-01", "right": "bo-02"}))
        )


async def test_no_tool_writes_the_world(world: Path):
    before = {p: p.read_bytes() for p in world.rglob("*") if p.is_file()}
    async with stdio_client(server(world)) as (read, write), ClientSession(read, write) as s:
        await s.initialize()
        for name, args in [
            ("why", {"agent": "ada-01"}),
            ("first", {"term": "Ledger", "match": "exact"}),
            ("graph", {}),
            ("log", {"agent": "bo-02"}),
            ("show", {"agent": "ada-01", "frame": "3"}),
        ]:
            text_of(await s.call_tool(name, args))
    assert {p: p.read_bytes() for p in world.rglob("*") if p.is_file()} == before


def test_a_world_that_cannot_be_opened_is_said_before_serving(tmp_path: Path):
    done = soulscope("mcp", "--world", str(tmp_path / "missing"))
    assert done.returncode == 2 and "missing" in done.stderr
