"""soulscope's history operations against the plain git command that answers the same question.

Two histories, measured in the same run:
- the real 116-commit history of zion-debater-06 (cloned from ../shared/corpus/rappterbook/history.bundle);
- a generated 1,000-commit history of a soul file kept near 60 KB (a frame appended per commit,
  old frames archived when it grows past 60 KB, an older frame edited now and then), built with
  ``git fast-import``.

Each soulscope figure is cold: a fresh World and timeline, nothing cached. The git command
beside each is the one that gives the same answer: the commit list against ``git log --format``;
what each commit did to the frames against ``git log -p`` (git's own per-commit changes);
memory at every commit against one ``git show`` per commit; a diff against ``git diff``; first
mention against ``git log -S``. Run: ``python bench/history.py``.
"""

from __future__ import annotations

import asyncio
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from soulscope.history.timeline import Timeline  # noqa: E402
from soulscope.soul.terms import Term  # noqa: E402
from soulscope.world import World  # noqa: E402

BUNDLE = ROOT.parent / "shared" / "corpus" / "rappterbook" / "history.bundle"
TARGET_RATIO = 2.0
TAB_TARGET_S = 0.5
GEN_AGENT = "zion-coder-42"


def best_of(fn: Callable[[], object], runs: int = 3, budget: float = 0.5) -> float:
    """The fastest of at least ``runs`` runs, more (up to 30) while within ``budget`` seconds:
    millisecond operations on a shared machine need many tries to see their real cost."""
    best = float("inf")
    spent = 0.0
    n = 0
    while n < runs or (spent < budget and n < 30):
        t = time.perf_counter()
        fn()
        took = time.perf_counter() - t
        best = min(best, took)
        spent += took
        n += 1
    return best


def git(repo: Path, *args: str) -> bytes:
    return subprocess.run(["git", *args], cwd=repo, capture_output=True, check=True).stdout


def generate(repo: Path, commits: int = 1000, size: int = 60_000, seed: int = 7) -> None:
    """A soul file's history: one frame per commit, archived near ``size`` bytes."""
    rnd = random.Random(seed)
    words = [
        "type",
        "tests",
        "review",
        "merge",
        "cache",
        "parser",
        "frame",
        "seed",
        "colony",
        "vote",
        "thread",
        "rival",
        "market",
        "signal",
        "noise",
        "proof",
        "refactor",
        "schema",
        "lattice",
        "archive",
        "compiler",
        "governance",
    ]

    def sentence(n: int) -> str:
        return " ".join(rnd.choice(words) for _ in range(n)).capitalize() + "."

    header = (
        "# Coder Forty-Two\n\n## Identity\n- **ID:** zion-coder-42\n- **Archetype:** Coder\n"
        "- **Voice:** terse\n- **Personality:** "
        + sentence(30)
        + "\n\n## Convictions\n"
        + "".join(f"- {sentence(8)}\n" for _ in range(4))
        + "\n"
    )
    frames: list[str] = []
    archived = 0
    stream: list[bytes] = []
    for n in range(1, commits + 1):
        role = f"the {rnd.choice(words)} {rnd.choice(words)}"
        frames.append(
            f"## Frame {n} — 2026-{1 + n // 300:02d}-{1 + n % 28:02d}\n"
            f"- Posted #{1000 + n} on {rnd.choice(words)}: {sentence(25)}\n"
            f"- Replied to zion-debater-{n % 9:02d} on #{900 + n}: {sentence(20)}\n"
            f"- Named: {sentence(6)}\n- Influenced by: zion-wildcard-{n % 7:02d}. {sentence(10)}\n"
            f"- Reinforced: {sentence(8)}\n- Becoming: {role}. From the last role to {role}.\n"
            f"- Relationships: debater-{n % 9:02d} (rival), wildcard-{n % 7:02d} (source)\n"
            f"- Connected: #{1000 + n}, #{900 + n}\n\n"
        )
        if n % 50 == 0 and len(frames) > 5:  # a parallel writer edits an older frame
            k = rnd.randrange(len(frames) - 5)
            frames[k] = frames[k].replace("\n\n", f"\n- UPDATE: {sentence(6)}\n\n", 1)
        marker = f"<!-- {archived} earlier entries archived for context window efficiency -->\n\n"
        text = header + (marker if archived else "") + "".join(frames)
        while len(text.encode()) > size:  # compaction: archive the oldest quarter
            cut = max(1, len(frames) // 4)
            archived += cut
            frames = frames[cut:]
            marker = (
                f"<!-- {archived} earlier entries archived for context window efficiency -->\n\n"
            )
            text = header + marker + "".join(frames)
        data = text.encode()
        msg = f"frame {n}: 1 agents, 1 posts, 1 comments".encode()
        ts = 1_772_000_000 + n * 600
        stream.append(b"blob\nmark :%d\ndata %d\n" % (2 * n, len(data)) + data + b"\n")
        stream.append(
            b"commit refs/heads/main\nmark :%d\n" % (2 * n + 1)
            + b"author Sim <sim@example.org> %d +0000\n" % ts
            + b"committer Sim <sim@example.org> %d +0000\n" % ts
            + b"data %d\n" % len(msg)
            + msg
            + b"\n"
            + (b"from :%d\n" % (2 * n - 1) if n > 1 else b"")
            + b"M 100644 :%d state/memory/%s.md\n\n" % (2 * n, GEN_AGENT.encode())
        )
    git(repo, "init", "-q", "-b", "main")
    subprocess.run(["git", "fast-import", "--quiet"], cwd=repo, input=b"".join(stream), check=True)
    git(repo, "reset", "-q", "--hard", "main")


def measure(repo: Path, agent: str, term: str) -> list[tuple[str, float, float]]:
    path = f"state/memory/{agent}.md"
    shas = git(repo, "log", "--format=%H", "--", path).decode().split()

    def fresh() -> Timeline:
        return Timeline.open(World.open(repo))

    def soulscope_commits() -> None:
        t = fresh()
        t.commits(agent)
        t.git.close()

    def soulscope_history() -> None:
        t = fresh()
        t.history(agent)
        t.git.close()

    def soulscope_memory() -> None:
        t = fresh()
        for sha in shas:
            t.soul_at(agent, sha)
        t.git.close()

    def soulscope_diff() -> None:
        t = fresh()
        t.diff(agent, shas[-1], shas[0])
        t.git.close()

    def soulscope_first(mode: str) -> Callable[[], None]:
        def run() -> None:
            t = fresh()
            t.first_mention(Term(term, mode), agent)
            t.git.close()

        return run

    return [
        (
            "list history (commits)",
            best_of(soulscope_commits),
            best_of(lambda: git(repo, "log", "--follow", "--format=%H %aI %an %s", "--", path)),
        ),
        (
            "history by frame (vs log -p)",
            best_of(soulscope_history),
            best_of(
                lambda: git(repo, "log", "--follow", "-p", "--format=%H %aI %an %s", "--", path)
            ),
        ),
        (
            "memory at every commit",
            best_of(soulscope_memory, 1, 0),
            best_of(lambda: [git(repo, "show", f"{s}:{path}") for s in shas], 1, 0),
        ),
        (
            "diff first vs last",
            best_of(soulscope_diff),
            best_of(lambda: git(repo, "diff", shas[-1], shas[0], "--", path)),
        ),
        (
            "first mention, exact (git log -S)",
            best_of(soulscope_first("exact")),
            best_of(lambda: git(repo, "log", f"-S{term}", "--reverse", "--format=%H", "--", path)),
        ),
        (
            "first mention, as a word (git log -G -i)",
            best_of(soulscope_first("word")),
            best_of(
                lambda: git(repo, "log", f"-G{term}", "-i", "--reverse", "--format=%H", "--", path)
            ),
        ),
    ]


async def tab_open_seconds(world: World) -> float:
    """Seconds from pressing the History tab's key to its commits and first diff on screen."""
    from soulscope.tui.app import SoulscopeApp
    from soulscope.tui.panes.history import DiffView, HistoryPane

    app = SoulscopeApp(world)
    async with app.run_test(size=(160, 50)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        pane = app.query_one(HistoryPane)
        log = app.query_one(DiffView)
        started = time.perf_counter()
        # What the tab's key does; pilot.press would also wait for the app to go idle.
        app.show_tab(HistoryPane.TAB_ID)
        while not (pane.table.row_count and log.lines):
            await asyncio.sleep(0.002)
        return time.perf_counter() - started


def main() -> int:
    rows: list[tuple[str, str, float, float]] = []
    with tempfile.TemporaryDirectory() as tmp:
        if BUNDLE.exists():
            real = Path(tmp) / "rappterbook"
            subprocess.run(["git", "clone", "-q", str(BUNDLE), str(real)], check=True)
            for op, ours, theirs in measure(real, "zion-debater-06", "god seed"):
                rows.append(("zion-debater-06 (116 commits)", op, ours, theirs))
        else:
            print(f"(skipping the real history: {BUNDLE} is absent)")
        gen = Path(tmp) / "generated"
        gen.mkdir()
        t = time.perf_counter()
        generate(gen)
        built = time.perf_counter() - t
        size = (gen / "state" / "memory" / f"{GEN_AGENT}.md").stat().st_size
        for op, ours, theirs in measure(gen, GEN_AGENT, "compiler governance"):
            rows.append((f"generated (1,000 commits, {size // 1000} KB)", op, ours, theirs))

        def open_tab() -> None:
            t = Timeline.open(World.open(gen))
            t.history(GEN_AGENT)
            t.git.close()

        tab_data = best_of(open_tab)
        tab = min(asyncio.run(tab_open_seconds(World.open(gen))) for _ in range(3))

    from rich.console import Console
    from rich.table import Table

    table = Table(
        title="soulscope history vs git (seconds, best run; memory at every commit: 1 run)"
    )
    for col in ("history", "operation", "soulscope", "git", "ratio", "target ≤2x"):
        table.add_column(col)
    failed = False
    for data, op, ours, theirs in rows:
        ratio = ours / theirs if theirs else float("inf")
        ok = ratio <= TARGET_RATIO
        failed |= not ok
        table.add_row(
            data, op, f"{ours:.3f}", f"{theirs:.3f}", f"{ratio:.2f}x", "ok" if ok else "MISSED"
        )
    console = Console()
    console.print(table)
    console.print(
        f"Opening the History tab on the 1,000-commit file, from the tab's action to the commits "
        f"listed and the newest diff on screen (headless dashboard, best of 3): {tab:.3f} s "
        f"(target {TAB_TARGET_S} s: {'ok' if tab <= TAB_TARGET_S else 'MISSED'}); "
        f"every commit's frames, read after that (cold, core only): {tab_data:.3f} s. "
        f"Generating that history with git fast-import took {built:.2f} s."
    )
    return 0 if not failed and tab <= TAB_TARGET_S else 1


if __name__ == "__main__":
    sys.exit(main())
