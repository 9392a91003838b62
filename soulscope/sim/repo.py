"""The world's git repository, driven through plain ``git`` (two processes per frame: add, commit).

Commits are authored by ``soulscope`` and dated by the world's clock, never the wall clock, so
the same seed gives the same history. Hooks and signing are off: a frame commit is machine work.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Sequence
from pathlib import Path

from soulscope.world import PROJECT_ROOT, WorldError

AUTHOR = ("soulscope", "soulscope@localhost")


class RepoError(WorldError):
    """git failed or the world is not in a repository we may write to."""


def _env(date: str | None) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        GIT_AUTHOR_NAME=AUTHOR[0],
        GIT_AUTHOR_EMAIL=AUTHOR[1],
        GIT_COMMITTER_NAME=AUTHOR[0],
        GIT_COMMITTER_EMAIL=AUTHOR[1],
        GIT_TERMINAL_PROMPT="0",
    )
    if date:
        stamp = f"{date}T12:00:00+0000"
        env.update(GIT_AUTHOR_DATE=stamp, GIT_COMMITTER_DATE=stamp)
    return env


def git(
    top: Path, *args: str, stdin: bytes | None = None, date: str | None = None, check: bool = True
) -> subprocess.CompletedProcess[bytes]:
    """Run ``git -C top ARGS``; a failure raises ``RepoError`` with git's own words."""
    try:
        done = subprocess.run(
            ["git", "-C", str(top), "-c", "commit.gpgsign=false", *args],
            input=stdin,
            capture_output=True,
            env=_env(date),
        )
    except FileNotFoundError as exc:
        raise RepoError("git is not installed (soulscope needs it to record frames)") from exc
    if check and done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise RepoError(f"git {args[0]} failed: {message[-1] if message else 'no message'}")
    return done


def toplevel(root: Path) -> Path:
    """The repository holding ``root``; refuses a world outside git or inside soulscope itself."""
    done = git(root, "rev-parse", "--show-toplevel", check=False)
    if done.returncode != 0:
        raise RepoError(
            f"{root} is not in a git repository; create a world with 'soulscope init' "
            "or copy one with 'soulscope demo'"
        )
    top = Path(done.stdout.decode().strip()).resolve()
    if top == PROJECT_ROOT.resolve():
        raise RepoError(
            f"{root} is inside soulscope's own repository; copy it with 'soulscope demo DIR' "
            "and advance the copy"
        )
    return top


def head(top: Path) -> str | None:
    """The commit HEAD points at, or None in a repository without commits."""
    done = git(top, "rev-parse", "--verify", "-q", "HEAD", check=False)
    return done.stdout.decode().strip() or None


def head_message(top: Path) -> str:
    return git(top, "log", "-1", "--format=%s").stdout.decode().strip()


def _pathspec(top: Path, paths: Sequence[Path]) -> bytes:
    return b"\0".join(os.fsencode(os.path.relpath(p, top)) for p in paths)


def commit(top: Path, paths: Sequence[Path], message: str, date: str) -> str:
    """Stage exactly ``paths`` and commit only them (other staged changes stay staged)."""
    spec = _pathspec(top, paths)
    git(top, "add", "-A", "--pathspec-from-file=-", "--pathspec-file-nul", stdin=spec)
    git(
        top,
        "commit",
        "-q",
        "--no-verify",
        "--allow-empty",
        "-m",
        message,
        "--pathspec-from-file=-",
        "--pathspec-file-nul",
        stdin=spec,
        date=date,
    )
    return head(top) or ""


def unstage(top: Path, paths: Sequence[Path]) -> None:
    """Put the index entries of ``paths`` back to HEAD's (after a frame was rolled back)."""
    if head(top) is None:
        return
    git(
        top,
        "reset",
        "-q",
        "HEAD",
        "--pathspec-from-file=-",
        "--pathspec-file-nul",
        stdin=_pathspec(top, paths),
        check=False,
    )


def remove_stale_locks(top: Path) -> list[str]:
    """Remove git's own lock files left by a git process that was killed with the frame runner.

    Only called while soulscope holds the world lock and found an unfinished frame, so the
    process that left them is gone.
    """
    gitdir = Path(git(top, "rev-parse", "--absolute-git-dir").stdout.decode().strip())
    removed = []
    for lock in [gitdir / "index.lock", gitdir / "HEAD.lock", *gitdir.glob("refs/heads/**/*.lock")]:
        if lock.is_file():
            lock.unlink()
            removed.append(str(lock.relative_to(gitdir)))
    return removed


def init(root: Path, date: str, message: str) -> None:
    """``git init`` a new world folder and commit what is in it."""
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "--no-verify", "-m", message, date=date)
