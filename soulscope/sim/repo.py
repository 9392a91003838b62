"""The world's git repository, driven through plain ``git`` (a frame's commit is a few plumbing
commands, see ``commit``).

Frame commits are authored by ``soulscope`` and dated by the world's clock, never the wall clock,
so the same seed gives the same history; a user's own edits are committed under the user's name.
Hooks and signing are off: a frame commit is machine work.
"""

from __future__ import annotations

import functools
import os
import re
import subprocess
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from soulscope.world import PROJECT_ROOT, WorldError

AUTHOR = ("soulscope", "soulscope@localhost")
GIT_WAIT = 30.0  # seconds recovery waits for a git that a stopped runner left running
# glibc gives freed memory back to the system above 128 KB by default; git compresses each blob
# with buffers of about that size, so a frame's thousands of blobs cost as many trims and fresh
# zeroed pages (most of update-index's time). Short-lived git processes keep up to 8 MB instead.
MALLOC_TUNABLES = "glibc.malloc.trim_threshold=8388608"


class RepoError(WorldError):
    """git failed or the world is not in a repository we may write to."""


def _env(date: str | None, as_soulscope: bool = True) -> dict[str, str]:
    env = dict(os.environ)
    env["GIT_TERMINAL_PROMPT"] = "0"
    env["GLIBC_TUNABLES"] = ":".join(filter(None, (MALLOC_TUNABLES, env.get("GLIBC_TUNABLES"))))
    if as_soulscope:
        env.update(
            GIT_AUTHOR_NAME=AUTHOR[0],
            GIT_AUTHOR_EMAIL=AUTHOR[1],
            GIT_COMMITTER_NAME=AUTHOR[0],
            GIT_COMMITTER_EMAIL=AUTHOR[1],
        )
    if date:
        stamp = f"{date}T12:00:00+0000"
        env.update(GIT_AUTHOR_DATE=stamp, GIT_COMMITTER_DATE=stamp)
    return env


def git(
    top: Path,
    *args: str,
    stdin: bytes | None = None,
    date: str | None = None,
    check: bool = True,
    pidfile: Path | None = None,
    as_soulscope: bool = True,
    index: Path | None = None,
) -> subprocess.CompletedProcess[bytes]:
    """Run ``git -C top ARGS``; a failure raises ``RepoError`` with git's own words.

    ``pidfile``: the child's pid is written there while it runs, so that a runner killed while
    waiting leaves word of a git that may still be working (``wait_for``). ``index``: a
    temporary index file instead of the repository's own.
    """
    cmd = ["git", "-C", str(top), "-c", "commit.gpgsign=false", *args]
    env = _env(date, as_soulscope)
    if index is not None:
        env["GIT_INDEX_FILE"] = str(index)
    try:
        proc = subprocess.Popen(
            cmd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
        )
    except FileNotFoundError as exc:
        raise RepoError("git is not installed (soulscope needs it to record frames)") from exc
    try:
        if pidfile is not None:
            pidfile.write_text(f"{proc.pid}\n")
        out, err = proc.communicate(stdin)
    except BaseException:
        proc.kill()  # an interrupted runner does not leave its git behind
        proc.wait()
        raise
    finally:
        if pidfile is not None and proc.returncode is not None:
            pidfile.unlink(missing_ok=True)
    done = subprocess.CompletedProcess(cmd, proc.returncode, out, err)
    if check and done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise RepoError(f"git {args[0]} failed: {message[-1] if message else 'no message'}")
    return done


def alive(pid: int) -> bool:
    """Whether process ``pid`` runs (a zombie waiting for its parent does not)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return fields[0] != "Z"
    except (OSError, IndexError):
        return True


def wait_for(pidfile: Path, timeout: float = GIT_WAIT) -> int | None:
    """Wait for the git process named in ``pidfile`` to end; its pid if it still runs after
    ``timeout`` seconds, else None."""
    try:
        pid = int(pidfile.read_text().strip())
    except (OSError, ValueError):
        return None
    deadline = time.monotonic() + timeout
    while alive(pid):
        if time.monotonic() > deadline:
            return pid
        time.sleep(0.05)
    return None


def git_processes(top: Path) -> list[int] | None:
    """The live git processes working in the repository at ``top``; None where this system does
    not say (no ``/proc``)."""
    proc = Path("/proc")
    if not (proc / "self").exists():
        return None
    out = []
    for entry in proc.iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            if (entry / "comm").read_text().strip() != "git":
                continue
            cwd = Path(os.readlink(entry / "cwd"))
        except FileNotFoundError:
            continue  # it ended while we looked
        except OSError:
            out.append(int(entry.name))  # a git we may not inspect: assume it works here
            continue
        if cwd == top or cwd.is_relative_to(top):
            out.append(int(entry.name))
    return sorted(out)


def toplevel(root: Path) -> Path:
    """The repository holding ``root``; refuses a world outside git or inside soulscope itself."""
    done = git(root, "rev-parse", "--show-toplevel", check=False)
    if done.returncode != 0:
        raise RepoError(
            f"{root} is not in a git repository; create a world with 'soulscope init' "
            "or copy one with 'soulscope demo'"
        )
    top = Path(os.fsdecode(done.stdout.strip())).resolve()  # a path: any bytes
    if top == PROJECT_ROOT.resolve():
        raise RepoError(
            f"{root} is inside soulscope's own repository; copy it with 'soulscope demo DIR' "
            "and advance the copy"
        )
    return top


# What git leaves in its folder while an operation waits for the user; a frame committed in the
# middle of one would land in the user's rebase, merge or bisect.
_IN_PROGRESS = (
    ("rebase-merge", "a rebase"),
    ("rebase-apply", "a rebase (or git am)"),
    ("MERGE_HEAD", "a merge"),
    ("CHERRY_PICK_HEAD", "a cherry-pick"),
    ("REVERT_HEAD", "a revert"),
    ("BISECT_LOG", "a bisect"),
)


def branch_problem(top: Path) -> str | None:
    """Why frames must not be committed in ``top`` now (one sentence), or None when HEAD is a
    branch with no git operation in progress. On a detached HEAD (a rebase stop, a checked out
    commit or tag, a detached worktree) frames would be commits no branch keeps, gone from
    sight at the next checkout."""
    gitdir = Path(os.fsdecode(git(top, "rev-parse", "--absolute-git-dir").stdout.strip()))
    for marker, what in _IN_PROGRESS:
        if (gitdir / marker).exists():
            return (
                f"{what} is in progress in {top}; finish or abort it before running frames "
                "(they would be committed into it)"
            )
    if git(top, "symbolic-ref", "-q", "HEAD", check=False).returncode != 0:
        return (
            f"HEAD is detached in {top} (no branch is checked out), so frames would be commits "
            "no branch keeps; check out a branch (git switch NAME, or git switch -c NAME)"
        )
    return None


def head(top: Path) -> str | None:
    """The commit HEAD points at, or None in a repository without commits."""
    done = git(top, "rev-parse", "--verify", "-q", "HEAD", check=False)
    return done.stdout.decode().strip() or None


def head_message(top: Path) -> str:
    return git(top, "log", "-1", "--format=%s").stdout.decode().strip()


def relative_path(top: Path, path: Path) -> str:
    """``path`` as git names it in the repository at ``top``."""
    text, prefix = str(path), str(top) + os.sep
    return text[len(prefix) :] if text.startswith(prefix) else os.path.relpath(path, top)


def _pathspec(top: Path, paths: Sequence[Path]) -> bytes:
    return b"\0".join(os.fsencode(relative_path(top, p)) for p in paths)


def commit(
    top: Path, paths: Sequence[Path], message: str, date: str, pidfile: Path | None = None
) -> str:
    """Commit exactly ``paths`` as they are on disk; other staged changes stay staged.

    What ``git commit PATHS`` does, in plumbing: git matches every path against every pathspec
    given, which grows with the square of a frame's thousands of files. The paths are staged
    in the index; when nothing else is staged the index is the new tree, else HEAD's tree plus
    exactly those entries is built in a temporary index. HEAD moves only at the end
    (``update-ref``), so a commit either lands whole or not at all.
    """
    rels = [relative_path(top, p) for p in paths]
    listing = b"".join(os.fsencode(r) + b"\0" for r in rels)
    git(top, *_one_pack(top), "update-index", "--add", "--remove", "-z", "--stdin", stdin=listing)
    parent = head(top)
    staged = set(rels)
    if parent:
        done = git(top, "diff-index", "--cached", "--name-only", "-z", parent)
        staged.update(os.fsdecode(n) for n in done.stdout.split(b"\0") if n)
    if parent and len(staged) == len(rels):
        tree = git(top, "write-tree").stdout.decode().strip()  # nothing else staged: the index
    else:
        tree = _tree_of(top, rels, parent)
    args = ["commit-tree", tree, "-m", message, *(["-p", parent] if parent else [])]
    sha = git(top, *args, date=date, pidfile=pidfile).stdout.decode().strip()
    git(top, "update-ref", "-m", f"commit: {message}", "HEAD", sha, parent or "", pidfile=pidfile)
    # What `git commit` does after every commit: git repacks (in the background) only once its
    # limits are crossed, so a long-lived world does not pile up a pack per frame.
    git(top, "gc", "--auto", "--quiet", check=False)
    return sha


@functools.cache
def _git_version(top: Path) -> tuple[int, int]:
    done = git(top, "--version", check=False)
    found = re.search(rb"(\d+)\.(\d+)", done.stdout)
    return (int(found[1]), int(found[2])) if found else (0, 0)


def _one_pack(top: Path) -> tuple[str, ...]:
    """Options that make ``update-index`` write a frame's blobs into one pack file.

    Every blob above ``core.bigFileThreshold`` is streamed into the pack that update-index
    keeps open for its whole run (git 2.37 and later): one file for a frame's thousands of
    blobs instead of a loose object file each. Older git would write one pack per blob, so it
    keeps loose objects.
    """
    return ("-c", "core.bigFileThreshold=1") if _git_version(top) >= (2, 37) else ()


def _tree_of(top: Path, rels: list[str], parent: str | None) -> str:
    """The tree of ``parent`` with the index's entries for ``rels`` (other staged changes left
    out), built in a temporary index."""
    entries = {}
    for entry in git(top, "ls-files", "--stage", "-z").stdout.split(b"\0"):
        if entry:
            info, _, name = entry.partition(b"\t")
            entries[name] = info
    lines = []
    for r in rels:
        name = os.fsencode(r)
        lines.append((entries.get(name) or b"0 " + b"0" * 40) + b"\t" + name + b"\0")
    with tempfile.TemporaryDirectory(prefix="soulscope-index-") as tmp:
        index = Path(tmp) / "index"
        if parent:
            git(top, "read-tree", parent, index=index)
        git(top, "update-index", "-z", "--index-info", stdin=b"".join(lines), index=index)
        return git(top, "write-tree", index=index).stdout.decode().strip()


def uncommitted(top: Path, paths: Sequence[Path]) -> list[Path]:
    """Those of ``paths`` whose content differs from HEAD's: edited, staged, new or removed."""
    wanted = {relative_path(top, p): p for p in paths}
    # Whole folders as pathspecs: git matches each path against every pathspec given.
    folders = sorted({os.path.dirname(r) or r for r in wanted})
    done = git(
        top,
        "--no-optional-locks",
        "status",
        "--porcelain=v1",
        "-z",
        "--untracked-files=all",
        "--no-renames",
        "--",
        *folders,
    )
    changed = [entry[3:] for entry in done.stdout.decode("utf-8", "surrogateescape").split("\0")]
    return sorted(wanted[c] for c in changed if c in wanted)


def commit_edits(top: Path, paths: Sequence[Path], message: str) -> str:
    """Commit ``paths`` as they are, as the user's own commit (git's configured identity)."""
    spec = _pathspec(top, paths)
    git(top, "add", "-A", "--pathspec-from-file=-", "--pathspec-file-nul", stdin=spec)
    git(
        top,
        "commit",
        "-q",
        "--no-verify",
        "-m",
        message,
        "--pathspec-from-file=-",
        "--pathspec-file-nul",
        stdin=spec,
        as_soulscope=False,
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
    """Remove git's lock files left by a git process that was killed; returns their names.

    A lock is removed only when no git process works in this repository: one that a user's own
    ``git commit`` holds is left alone, and the frame is refused in one sentence instead.
    """
    gitdir = Path(os.fsdecode(git(top, "rev-parse", "--absolute-git-dir").stdout.strip()))
    candidates = [gitdir / "index.lock", gitdir / "HEAD.lock", *gitdir.glob("refs/heads/**/*.lock")]
    locks = [lock for lock in candidates if lock.is_file()]
    if not locks:
        return []
    busy = git_processes(top)
    if busy is None or busy:
        who = f"a running git (pid {', '.join(map(str, busy))})" if busy else "a git process"
        raise RepoError(
            f"{locks[0]} is held by {who}; wait for it to finish and run the frame again "
            "(if no git is running, remove the lock file)"
        )
    for lock in locks:
        lock.unlink()
    return [str(lock.relative_to(gitdir)) for lock in locks]


def init(root: Path, date: str, message: str) -> None:
    """``git init`` a new world folder and commit what is in it."""
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "--no-verify", "-m", message, date=date)
