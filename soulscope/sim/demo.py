"""``soulscope demo``: a copy of the built-in world with a git history of offline frames."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from soulscope.sim import repo
from soulscope.sim.clock import WORLD_FILE, read_clock
from soulscope.sim.frame import FrameResult, Progress, run_frames
from soulscope.sim.lock import STATE_DIR
from soulscope.sim.offline import OfflineBrain
from soulscope.soul.parse import read_soul
from soulscope.world import DEMO_WORLD, WorldError

DEMO_FRAMES = 30
DEMO_SEED = 2026


@dataclass(frozen=True)
class Demo:
    root: Path
    created: bool  # False: the folder already held a demo world, which was reused
    frames: tuple[FrameResult, ...] = ()


def is_world_repo(path: Path) -> bool:
    return (path / "memory").is_dir() and (path / ".git").exists()


def make_demo(
    dest: Path,
    source: Path = DEMO_WORLD,
    frames: int = DEMO_FRAMES,
    seed: int = DEMO_SEED,
    progress: Progress | None = None,
) -> Demo:
    """Copy ``source`` into ``dest`` as a new git repository and advance it ``frames`` frames.

    A ``dest`` that already holds a world with its repository is reused as it is.
    """
    dest = dest.expanduser()
    if is_world_repo(dest):
        return Demo(dest.resolve(), created=False)
    if dest.exists() and (not dest.is_dir() or any(dest.iterdir())):
        raise WorldError(f"{dest} exists and is not a demo world; choose a new folder")
    if not (source / "memory").is_dir():
        raise WorldError(f"{source} holds no world to copy (no memory folder)")
    shutil.copytree(
        source,
        dest,
        ignore=shutil.ignore_patterns(".git", STATE_DIR, "__pycache__"),
        dirs_exist_ok=True,
    )
    gitignore = dest / ".gitignore"
    if not gitignore.exists():
        gitignore.write_text(f"{STATE_DIR}/\n", encoding="utf-8")
    try:
        souls = (
            ()
            if (dest / WORLD_FILE).exists()
            else [read_soul(p) for p in sorted((dest / "memory").glob("*.md"))]
        )
        clock = read_clock(dest, souls)
        repo.init(dest, clock.date, f"world: {clock.name} (copied from {source.name}/)")
        results = run_frames(dest, OfflineBrain(), steps=frames, seed=seed, progress=progress)
    except BaseException:
        shutil.rmtree(dest, ignore_errors=True)  # half a demo is worse than none: run it again
        raise
    return Demo(dest.resolve(), created=True, frames=tuple(results))
