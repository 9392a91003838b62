"""Real git repositories built in temp folders for history tests (plain git, as a user would)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from tests.conftest import corpus_dir

GIT_ENV = {
    "GIT_AUTHOR_NAME": "Ada Writer",
    "GIT_AUTHOR_EMAIL": "ada@example.org",
    "GIT_COMMITTER_NAME": "Ada Writer",
    "GIT_COMMITTER_EMAIL": "ada@example.org",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
}


def git(repo: Path, *args: str, date: str | None = None) -> str:
    env = {**os.environ, **GIT_ENV}
    if date:
        env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = date
    out = subprocess.run(
        ["git", *args], cwd=repo, env=env, capture_output=True, check=True, timeout=60
    )
    return out.stdout.decode("utf-8", "replace")


def init(repo: Path) -> Path:
    repo.mkdir(parents=True, exist_ok=True)
    git(repo, "init", "-q", "-b", "main")
    return repo


def commit(repo: Path, message: str, date: str | None = None, allow_empty: bool = False) -> str:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message, *(["--allow-empty"] if allow_empty else []), date=date)
    return git(repo, "rev-parse", "HEAD").strip()


def frame(n: int, becoming: str, extra: str = "", relationships: str = "") -> str:
    rel = f"- Relationships: {relationships}\n" if relationships else ""
    return (
        f"## Frame {n} — 2026-03-{n:02d}\n- Replied on #{100 + n}.\n{extra}"
        f"- Becoming: {becoming}\n{rel}\n"
    )


HEADER = "# Ada\n\n## Identity\n- **ID:** ada\n- **Archetype:** Coder\n\n"


def clone_bundle(dest: Path) -> Path:
    """The real 198-commit history of three soul files, as a working repository."""
    bundle = corpus_dir("rappterbook", "history.bundle")
    subprocess.run(["git", "clone", "-q", str(bundle), str(dest)], check=True, timeout=120)
    return dest
