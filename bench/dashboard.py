"""The dashboard on the real corpus, headless: first paint, whole world parsed, switching agents.

Run: .venv/bin/python bench/dashboard.py [WORLD] [--keys]   (--keys: the keypress table alone)
Prints two tables; each figure comes with its baseline measured in the same run:
- first paint against an empty Textual app's first paint (the floor of any Textual app here);
- the whole world parsed in the app (a worker, while the UI runs) against parsing it alone;
- switching to the largest agent (cached, and with a cold cache) against parsing its file alone;
- keypress to paint (p50/p95) for ``]`` (next frame of the largest file), ``j`` (the agent list), a
  tab switch (from the first visit to Becoming after the agent was chosen, then 40 more) and a
  History step (``]`` on a generated 1,000-commit history, the cursor painted and the diff
  painted), against an empty Textual app's keypress to paint; with the process's CPU time
  per key, which the machine's load inflates less than the wall time.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from textual import events  # noqa: E402
from textual.app import App, ComposeResult  # noqa: E402
from textual.widgets import Static  # noqa: E402

from soulscope.soul.parse import parse  # noqa: E402
from soulscope.soul.trajectory import summarize  # noqa: E402
from soulscope.tui.app import SoulscopeApp  # noqa: E402
from soulscope.tui.cache import SoulCache  # noqa: E402
from soulscope.tui.messages import WorldParsed  # noqa: E402
from soulscope.tui.panes.soul import SoulPane  # noqa: E402
from soulscope.world import World  # noqa: E402

DEFAULT = ROOT.parent / "shared" / "corpus" / "rappterbook"
SIZE = (160, 48)
REPEAT = 7
FIRST_PAINT_TARGET_S = 1.0
SWITCH_TARGET_S = 0.1
PRESSES = 40
KEY_TARGET_P95_S = 0.05


def median(samples: list[float]) -> float:
    return statistics.median(samples)


def p95(samples: list[float]) -> float:
    return statistics.quantiles(samples, n=20)[-1]


class Painted:
    """Wakes a waiter when the app next puts a screen update on the terminal (headless too).

    With ``probe``, each update also records ``probe()`` (what it showed), so that a change made
    and painted before anyone looked is still found in the paint that showed it.
    """

    def __init__(self, app: App, probe=None) -> None:
        self.event = asyncio.Event()
        self.last = 0.0  # when the last update was put on the terminal
        self.last_cpu = 0.0  # the process's CPU time then
        self.shown: list[tuple[float, float, object]] = []  # (wall, CPU, probe()) per update
        display = app._display

        def hooked(screen, renderable) -> None:
            display(screen, renderable)
            if renderable is not None:
                self.last = time.perf_counter()
                self.last_cpu = time.process_time()
                if probe is not None:
                    self.shown.append((self.last, self.last_cpu, probe()))
                self.event.set()

        app._display = hooked  # type: ignore[method-assign]


# One keypress: (wall seconds, CPU seconds of the process) from the key to its paint.
Sample = tuple[float, float]


async def press_to_paint(app: App, painted: Painted, key: str, char: str | None, done) -> Sample:
    """From a key reaching the app until its effect (``done()``) is painted.

    The key is posted as the terminal driver posts it; no test-harness waits are timed. The CPU
    time is the process's (every thread), which the machine's load does not inflate as it does the
    wall time.
    """
    started = (time.perf_counter(), time.process_time())
    app.post_message(events.Key(key, char))
    return await paint_after(painted, started, done)


async def paint_after(painted: Painted, started: Sample, done) -> Sample:
    """From ``started`` (wall, CPU) to the first paint after ``done()`` turned true."""
    pending = time.perf_counter()
    while not done():
        pending = time.perf_counter()
        await asyncio.sleep(0)
    if painted.last <= pending:  # not painted yet since the change
        painted.event.clear()
        await asyncio.wait_for(painted.event.wait(), 5)
    return painted.last - started[0], painted.last_cpu - started[1]


async def first_showing(painted: Painted, started: Sample, changed) -> Sample:
    """From ``started`` to the first update whose probe satisfied ``changed``."""
    while True:
        for wall, cpu, state in painted.shown:
            if wall >= started[0] and changed(state):
                return wall - started[0], cpu - started[1]
        painted.event.clear()
        await asyncio.wait_for(painted.event.wait(), 5)


class EmptyApp(App[None]):
    BINDINGS = [("j", "count", "Count")]

    def __init__(self) -> None:
        super().__init__()
        self.count = 0

    def compose(self) -> ComposeResult:
        yield Static("empty")

    def action_count(self) -> None:
        self.count += 1
        self.query_one(Static).update(f"pressed {self.count}")


async def empty_keys() -> list[Sample]:
    """The floor: an empty Textual app's keypress to paint (a binding that updates one line)."""
    app = EmptyApp()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        painted = Painted(app)
        out = []
        for _ in range(PRESSES):
            n = app.count
            out.append(await press_to_paint(app, painted, "j", "j", lambda n=n: app.count > n))
            await pilot.pause()
        return out


async def dashboard_ready(app: SoulscopeApp) -> None:
    """Until the dashboard has shown its first agent and parsed the world."""
    while app.soul is None:
        await asyncio.sleep(0.01)
    await app.workers.wait_for_complete()


async def dashboard_keys(world: World, largest: str) -> dict[str, list[Sample]]:
    """``]`` through the largest file, ``j``/``k`` in the agent list, tab switches: from the
    agent's first visit to Becoming on (its table filled and its drift worker run while timed),
    then as many again."""
    app = SoulscopeApp(world)
    out: dict[str, list[Sample]] = {"]": [], "j": [], "tab": [], "tab again": []}
    async with app.run_test(size=SIZE) as pilot:
        await dashboard_ready(app)
        app.select_agent(largest)
        while app.soul is None or app.soul.agent_id != largest:
            await asyncio.sleep(0.005)
        await pilot.press("1")
        await pilot.pause()
        painted = Painted(app)
        view = app.query_one(SoulPane).view
        for _ in range(PRESSES):
            top = view.top_line
            out["]"].append(
                await press_to_paint(
                    app, painted, "right_square_bracket", "]", lambda t=top: view.top_line != t
                )
            )
            await pilot.pause()
        agents = app.sidebar.list
        agents.focus()
        await pilot.pause()
        for i in range(PRESSES):
            key = "j" if i % 2 == 0 else "k"
            at = agents.highlighted
            out["j"].append(
                await press_to_paint(app, painted, key, key, lambda a=at: agents.highlighted != a)
            )
            await pilot.pause(0.15)  # the cursor's agent is shown once it rests (not timed)
            await app.workers.wait_for_complete()
        tabs = app.query_one("#tabs")  # the tab bar's owner: its ``active`` is the tab shown
        for name in ("tab", "tab again"):
            for i in range(PRESSES):
                key = "2" if i % 2 == 0 else "1"
                want = "becoming" if key == "2" else "soul"
                out[name].append(
                    await press_to_paint(app, painted, key, key, lambda w=want: tabs.active == w)
                )
                await pilot.pause()
    return out


async def history_keys(world: World, agent: str) -> dict[str, list[Sample]]:
    """``]`` in the History tab: to the cursor painted, and to the new commit's diff painted."""
    from soulscope.tui.panes.history import DiffView, HistoryPane

    app = SoulscopeApp(world)
    out: dict[str, list[Sample]] = {"cursor": [], "diff": []}
    async with app.run_test(size=SIZE) as pilot:
        await dashboard_ready(app)
        app.select_agent(agent)
        await pilot.press("4")
        pane = app.query_one(HistoryPane)
        log = app.query_one(DiffView)
        while not pane.commits or len(pane.changes) < len(pane.commits):
            await asyncio.sleep(0.01)
        await app.workers.wait_for_complete()
        await pilot.pause()
        painted = Painted(app, probe=lambda: log.body)
        for _ in range(PRESSES):
            before, row = log.body, pane.table.cursor_row
            started = (time.perf_counter(), time.process_time())
            out["cursor"].append(
                await press_to_paint(
                    app,
                    painted,
                    "right_square_bracket",
                    "]",
                    lambda r=row: pane.table.cursor_row != r,
                )
            )
            # A diff read ahead is shown with the cursor, in the same update.
            out["diff"].append(
                await first_showing(painted, started, lambda body, b=before: body is not b)
            )
            await pilot.pause()
    return out


def history_world(tmp: Path) -> tuple[World, str]:
    from bench.history import GEN_AGENT, generate

    repo = tmp / "generated"
    repo.mkdir()
    generate(repo)
    return World.open(repo / "state"), GEN_AGENT


async def first_paint(make_app) -> float:
    """Seconds from starting the app until its first screen is composed, laid out and painted."""
    app = make_app()
    started = time.perf_counter()
    async with app.run_test(size=SIZE) as pilot:
        painted = time.perf_counter() - started
        await pilot.pause()
        app.exit()
    return painted


async def app_run(world: World, largest: str, other: str) -> dict[str, float]:
    """One run of the dashboard: first paint, world parsed, then timed switches."""
    parsed_at: list[float] = []

    def hook(message: object) -> None:
        if isinstance(message, WorldParsed):
            parsed_at.append(time.perf_counter())

    app = SoulscopeApp(world)
    started = time.perf_counter()
    async with app.run_test(size=SIZE, message_hook=hook) as pilot:
        painted = time.perf_counter() - started
        while not parsed_at:
            await asyncio.sleep(0.005)
        parsed = parsed_at[0] - started
        await app.workers.wait_for_complete()
        await pilot.pause()

        async def switch(to: str) -> float:
            """From the selection to the screen painted with the new soul in every pane."""
            t = time.perf_counter()
            app.select_agent(to)
            while app.soul is None or app.soul.agent_id != to:
                await asyncio.sleep(0.001)
            painted = asyncio.Event()
            app.call_after_refresh(painted.set)
            await painted.wait()
            elapsed = time.perf_counter() - t
            assert app.query_one(SoulPane).soul is app.soul
            await pilot.pause()
            return elapsed

        warm, cold = [], []
        for _ in range(REPEAT):
            await switch(other)
            warm.append(await switch(largest))
        for _ in range(REPEAT):
            await switch(other)
            app.cache = SoulCache(world, app.arc_label)  # forget every parsed soul
            cold.append(await switch(largest))
    return {
        "paint": painted,
        "parsed": parsed,
        "warm": median(warm),
        "cold": median(cold),
    }


def main() -> int:
    args = [a for a in sys.argv[1:] if a != "--keys"]
    only_keys = "--keys" in sys.argv[1:]  # the keypress table alone
    where = Path(args[0]) if args else DEFAULT
    if not where.exists():
        print(f"bench/dashboard.py: the corpus is not here ({where}); nothing measured")
        return 0
    world = World.open(where)
    agents = world.agents()
    largest = max(agents, key=lambda a: a.size)
    other = next(a for a in agents if a.id != largest.id)
    if not only_keys:
        first_paint_and_switches(where, agents, largest, other)
    print_keys(where, largest)
    return 0


def first_paint_and_switches(where: Path, agents, largest, other) -> None:
    """The first table: first paint, the world parsed, switching to the largest agent."""
    data = largest.path.read_bytes()

    def parse_alone() -> float:
        t = time.perf_counter()
        summarize(largest.id, parse(largest.path.read_bytes()))
        return time.perf_counter() - t

    def world_alone() -> float:
        t = time.perf_counter()
        cache = SoulCache(World.open(where))
        for a in agents:
            cache.load(a.id)
        return time.perf_counter() - t

    parse_alone()  # warm-up: imports and regex compilation are not the file's cost
    largest_parse = median([parse_alone() for _ in range(REPEAT)])
    whole_alone = median([world_alone() for _ in range(3)])
    empty_paint = median([asyncio.run(first_paint(EmptyApp)) for _ in range(3)])
    runs = [asyncio.run(app_run(World.open(where), largest.id, other.id)) for _ in range(3)]
    got = {k: median([r[k] for r in runs]) for k in runs[0]}

    print(
        f"World: {where} — {len(agents)} soul files; largest {largest.id} "
        f"({len(data) / 1e3:.0f} KB); terminal {SIZE[0]}x{SIZE[1]}, headless; medians"
    )
    rows = [
        (
            "first paint",
            got["paint"],
            "empty Textual app's first paint",
            empty_paint,
            FIRST_PAINT_TARGET_S,
        ),
        (
            "whole world parsed (worker)",
            got["parsed"],
            "parse + summarize all, no UI",
            whole_alone,
            None,
        ),
        (
            "switch to largest (cached)",
            got["warm"],
            "parse that file alone",
            largest_parse,
            SWITCH_TARGET_S,
        ),
        (
            "switch to largest (cold)",
            got["cold"],
            "parse that file alone",
            largest_parse,
            SWITCH_TARGET_S,
        ),
    ]
    print(f"{'measure':<30} {'seconds':>8}  {'baseline':<32} {'seconds':>8}  {'target':>8}")
    for name, seconds, base_name, base, target in rows:
        verdict = (
            "" if target is None else f"< {target:g} s {'ok' if seconds < target else 'MISSED'}"
        )
        print(f"{name:<30} {seconds:>8.3f}  {base_name:<32} {base:>8.4f}  {verdict:>8}")


def print_keys(where: Path, largest) -> None:
    """The keypress table."""
    floor = asyncio.run(empty_keys())
    keys = asyncio.run(dashboard_keys(World.open(where), largest.id))
    with tempfile.TemporaryDirectory() as tmp:
        gen, agent = history_world(Path(tmp))
        history = asyncio.run(history_keys(gen, agent))
    floor_wall = [wall for wall, _ in floor]
    print()
    print(
        f"Keypress to paint, {PRESSES} presses each, milliseconds; baseline: an empty Textual "
        f"app's keypress to paint in this run (p50 {median(floor_wall) * 1e3:.1f}, "
        f"p95 {p95(floor_wall) * 1e3:.1f}, CPU p50 {median([c for _, c in floor]) * 1e3:.1f}); "
        f"target p95 < {KEY_TARGET_P95_S * 1e3:.0f} ms"
    )
    print(f"{'key':<44} {'p50':>7} {'p95':>7} {'CPU p50':>8}  {'empty p95':>9}  target")
    for name, samples in (
        (f"] next frame ({largest.id})", keys["]"]),
        ("j/k in the agent list", keys["j"]),
        ("tab switch (1 / 2, Becoming filled)", keys["tab"]),
        ("tab switch, 40 more", keys["tab again"]),
        ("] History step, cursor (1,000 commits)", history["cursor"]),
        ("] History step, diff shown (1,000 commits)", history["diff"]),
    ):
        wall = [w for w, _ in samples]
        ok = "ok" if p95(wall) < KEY_TARGET_P95_S else "MISSED"
        print(
            f"{name:<44} {median(wall) * 1e3:>7.1f} {p95(wall) * 1e3:>7.1f} "
            f"{median([c for _, c in samples]) * 1e3:>8.1f}  {p95(floor_wall) * 1e3:>9.1f}  {ok}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
