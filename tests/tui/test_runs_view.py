"""The runs view (``R``) and the context view (``C``), driven with keys on a demo world's forks."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest
from rich.console import Console
from textual.widgets import DataTable, Input, Static

from soulscope.sim.demo import make_demo
from soulscope.soul.parse import read_soul
from soulscope.tui.app import SoulscopeApp
from soulscope.tui.dialogs.context import ContextScreen
from soulscope.tui.dialogs.runs import RunsScreen
from soulscope.tui.dialogs.why import WhyScreen
from soulscope.tui.widgets.tabbed_panes import TabbedPanes
from soulscope.tui.widgets.virtual_table import VirtualTable
from soulscope.world import World
from tests.support.cli import soulscope
from tests.support.pilot import settle, until

SIZE = (160, 45)


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The demo world run to frame 28; a fork at 26 without coder-ines, run on to 28; a fork at
    28 run one frame with the LLM brain (a loopback OpenAI server)."""
    from tests.support.openai_server import OpenAIServer, valid_answer

    top = tmp_path_factory.mktemp("runs")
    world = make_demo(top / "world", frames=4).root
    without = top / "without"
    assert (
        soulscope(
            "fork", str(without), "--at", "26", "--without", "coder-ines", "-w", str(world)
        ).returncode
        == 0
    )
    assert soulscope("frame", "-w", str(without), "--steps", "2").returncode == 0
    llm = top / "llm"
    assert soulscope("fork", str(llm), "--at", "28", "-w", str(world)).returncode == 0
    with OpenAIServer(
        answer=lambda agent, body: (200, valid_answer(body)), models=("m",)
    ) as server:
        env = {"OPENAI_BASE_URL": server.base_url, "SOULSCOPE_MODEL": "m"}
        ran = soulscope("frame", "-w", str(llm), "--brain", "llm", env=env)
    assert ran.returncode == 0, ran.stderr
    (top / "prompts.json").write_text(json.dumps([r["messages"] for r in server.requests]))
    return {"world": world, "without": without, "llm": llm, "prompts": top / "prompts.json"}


def entries(path: Path) -> dict[int, str]:
    """Each frame's entry of a soul file by number, its post numbers (#N) made the same."""
    parts = path.read_text().split("\n## Frame ")[1:]
    return {int(p.split(" ", 1)[0]): re.sub(r"#[0-9]+", "#", p) for p in parts}


def shown_text(widget: Static) -> str:
    """What a widget holding a Rich renderable (a table) shows, as plain text."""
    console = Console(width=150, file=io.StringIO(), record=True)
    console.print(widget.content)
    return console.export_text()


async def test_the_runs_view_shows_where_each_agent_parted_and_both_arcs(
    runs: dict[str, Path],
) -> None:
    app = SoulscopeApp(World.open(runs["without"]))
    async with app.run_test(size=SIZE) as pilot:
        app.query_one("#filter", Input).cursor_blink = False
        await settle(pilot)
        await pilot.press("R")
        await settle(pilot)
        await pilot.press("enter")  # empty: the fork's original
        screen = app.screen
        assert isinstance(screen, RunsScreen)
        await until(pilot, lambda: screen.comparison is not None)
        await settle(pilot)
        title = str(screen.query_one("#runs-title", Static).render())
        assert "without · world: parted at frame 26" in title
        table = screen.query_one(DataTable)
        shown = {
            str(table.get_row_at(i)[0]): [str(c) for c in table.get_row_at(i)[1:]]
            for i in range(table.row_count)
        }
        assert len(shown) == 10
        # coder-ines took no part in the fork after frame 26: no statement there, two here.
        assert shown["coder-ines"][:2] == ["frame 27", "0 / 2"]
        # Each agent's first differing frame, post numbers aside, as both files say.
        for agent, row in shown.items():
            left = entries(runs["without"] / "memory" / f"{agent}.md")
            right = entries(runs["world"] / "memory" / f"{agent}.md")
            parted = [n for n in sorted(right) if left.get(n) != right[n]]
            assert row[0].split(" (")[0] == (f"frame {parted[0]}" if parted else "same"), agent
        # The highlighted agent's two arcs side by side: both runs named, their statements.
        table.move_cursor(row=list(shown).index("coder-ines"))
        await settle(pilot)
        heading = str(screen.query_one("#runs-heading", Static).render())
        assert heading.startswith("coder-ines  first differs: frame 27")
        text = " ".join(shown_text(screen.query_one("#runs-arcs", Static)).split())
        assert text.startswith("without world statements 0 2 turns")
        theirs = (runs["world"] / "memory" / "coder-ines.md").read_text()
        said = theirs.split("\n## Frame 28 ")[1].split("- Becoming: ")[1].split(".")[0]
        assert f"28 — {said}." in text  # its frame-28 statement in the world, none in the fork
        # t: a term's two spread curves, each ending at the agents that run's spread counts.
        await pilot.press("t")
        app.screen.query_one(Input).value = "rope"
        await pilot.press("enter")
        await until(pilot, lambda: bool(screen.comparison and screen.comparison.curves))
        await settle(pilot)
        curves = str(screen.query_one("#runs-curves", Static).render()).splitlines()
        for run, line in zip(("without", "world"), curves[1:3], strict=True):
            out = soulscope("spread", "rope", "-w", str(runs[run]), "--json")
            used = json.loads(out.stdout)["timeline"][-1]["agents"]
            assert line.split()[0] == run and line.split()[-1] == str(used)
        await pilot.press("enter")  # coder-ines has no frame 27 in this run: said, stays open
        await settle(pilot)
        assert isinstance(app.screen, RunsScreen)
        # enter on an agent that parted in both runs: its file here, at the frame it parted.
        agent = next(a for a, row in shown.items() if row[0].startswith("frame 28"))
        table.move_cursor(row=list(shown).index(agent))
        await pilot.press("enter")
        await settle(pilot)
        assert not isinstance(app.screen, RunsScreen)
        assert app.agent_id == agent and app.query_one(TabbedPanes).active == "soul"
        assert str(app.query_one("#soul-header", Static).render()).startswith("Frame 28 —")


async def test_a_world_that_is_no_run_of_this_one_is_said_in_one_sentence(
    runs: dict[str, Path], tmp_path: Path
) -> None:
    app = SoulscopeApp(World.open(runs["without"]))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("R")
        await settle(pilot)
        app.screen.query_one(Input).value = str(tmp_path / "nowhere")
        await pilot.press("enter")
        screen = app.screen
        assert isinstance(screen, RunsScreen)
        await settle(pilot)
        title = str(screen.query_one("#runs-title", Static).render())
        assert title == f"Runs: no such file or folder: {tmp_path / 'nowhere'}"


def _body(screen: ContextScreen) -> str:
    return str(screen.query_one("#context-body", Static).render())


async def test_the_context_view_shows_what_the_llm_brain_saw_and_not_known_elsewhere(
    runs: dict[str, Path],
) -> None:
    prompts = json.loads(runs["prompts"].read_text())
    app = SoulscopeApp(World.open(runs["llm"]))
    async with app.run_test(size=SIZE) as pilot:
        app.query_one("#filter", Input).cursor_blink = False
        await settle(pilot)
        frames = [f.number for f in read_soul(runs["llm"] / "memory" / "debater-sable.md").frames]
        app.open_frame("debater-sable", frames.index(29))  # the frame the LLM brain wrote
        await settle(pilot)
        await pilot.press("C")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ContextScreen)
        body = _body(screen)
        assert body.startswith("llm brain · model m  (frames/29/debater-sable.json)")
        sent = next(p for p in prompts if "debater-sable" in p[0]["content"])
        assert sent[-1]["content"].splitlines()[0] in body  # the prompt, as it was sent
        assert "── answer ──" in body and "tokens:" in body
        await pilot.press("escape")
        app.open_frame("debater-sable", frames.index(3))  # of the shipped world: written elsewhere
        await settle(pilot)
        await pilot.press("C")
        await settle(pilot)
        assert isinstance(app.screen, ContextScreen)
        body = _body(app.screen)
        assert body.startswith("Not known.")
        assert "frames/3/debater-sable.json" in body and "written elsewhere" in body
        await pilot.press("escape")
        # From the why panel: the statement of frame 29, what its brain saw.
        await pilot.press("2")
        await settle(pilot)
        arc = app.query_one("#arc", VirtualTable)
        arc.focus()
        arc.move_cursor(arc.row_count - 1)
        await pilot.press("w")
        await settle(pilot)
        assert isinstance(app.screen, WhyScreen)
        await pilot.press("C")
        await settle(pilot)
        assert isinstance(app.screen, ContextScreen) and app.screen.frame == 29
        assert _body(app.screen).startswith("llm brain · model m")


@pytest.mark.parametrize("size", [(80, 24), (160, 45)], ids=["80x24", "160x45"])
def test_runs_view_snapshot(snap_compare, runs: dict[str, Path], size: tuple[int, int]) -> None:
    """The fork without coder-ines beside its original: the table of agents, coder-ines's arcs."""

    async def run_before(pilot) -> None:  # noqa: ANN001
        pilot.app.query_one("#filter", Input).cursor_blink = False
        await settle(pilot)
        await pilot.press("R")
        await settle(pilot)
        await pilot.press("enter")
        await until(pilot, lambda: getattr(pilot.app.screen, "comparison", None) is not None)
        await pilot.press("j")
        await settle(pilot)

    app = SoulscopeApp(World.open(runs["without"]))
    assert snap_compare(app, terminal_size=size, run_before=run_before)


def test_context_view_snapshot(snap_compare, runs: dict[str, Path]) -> None:
    """What debater-sable's LLM brain saw in frame 29, at the smallest usual terminal."""

    async def run_before(pilot) -> None:  # noqa: ANN001
        pilot.app.query_one("#filter", Input).cursor_blink = False
        await settle(pilot)
        frames = [f.number for f in read_soul(runs["llm"] / "memory" / "debater-sable.md").frames]
        pilot.app.open_frame("debater-sable", frames.index(29))
        await settle(pilot)
        await pilot.press("C")
        await settle(pilot)

    app = SoulscopeApp(World.open(runs["llm"]))
    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)
