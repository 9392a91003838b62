"""Real git repositories in temp folders, made with plain git as a user would make them.

- ``git`` runs git in a repository as a fixed author, away from the user's own git config;
  ``git_out`` runs it as the user does and gives its output (what a command committed).
- ``init`` and ``commit`` make a history; ``HEADER`` and ``frame`` are a soul for it to hold.
- ``history_world``: a code repository whose ``state/`` world gained a frame a commit.
- ``shallow_clone``: a repository's last commit only. ``clone_bundle``: the real 198-commit
  history of the shared corpus.
- ``everything_written``: what a world holds, files and history, as text.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from tests.support.paths import corpus_dir
from tests.support.worlds import soul, write_world

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


def git_out(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(root), *args], capture_output=True, text=True, check=True
    ).stdout


def everything_written(world: Path) -> str:
    """The world's files and every commit of its history, as text."""
    files = "".join(
        p.read_text(errors="replace")
        for p in world.rglob("*")
        if p.is_file() and ".git" not in p.parts
    )
    history = subprocess.run(
        ["git", "-C", str(world), "log", "-p", "--all", "--format=%B"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return files + history


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


def shallow_clone(repo: Path, dest: Path) -> Path:
    """A clone of ``repo`` at ``dest`` with only its last commit (``git clone --depth 1``)."""
    subprocess.run(
        ["git", "clone", "-q", "--depth", "1", f"file://{repo}", str(dest)], check=True, timeout=60
    )
    return dest


def history_frame(n: int, action: str, becoming: str, influence: str, relationships: str) -> str:
    """A frame of ``history_world``'s souls, dated 2026-03-0N."""
    return (
        f"## Frame {n} — 2026-03-0{n}\n- {action}\n- Influenced by: {influence}\n"
        f"- Becoming: {becoming}\n- Relationships: {relationships}\n\n"
    )


_ADA_FRAMES = [
    history_frame(
        1, "Catalogued the commons.", "the cataloguer.", "the old index.", "bo-02 (stranger)"
    ),
    history_frame(
        2, "Indexed #12 and #15.", "the cataloguer.", "the old index.", "bo-02 (stranger)"
    ),
    history_frame(
        3,
        "Answered bo-02 on #15.",
        "the indexer. From cataloguer to indexer.",
        "bo-02's rebuttal on #15.",
        "bo-02 (sparring partner), cy-03 (reader)",
    ),
    history_frame(4, "Wrote the guide.", "the archivist.", "cy-03's questions.", "cy-03 (reader)"),
]
_BO_FRAMES = [
    history_frame(1, "Challenged ada-01.", "the contrarian.", "nobody.", "ada-01 (target)"),
    history_frame(3, "Conceded a point.", "the listener.", "ada-01's answer.", "ada-01 (peer)"),
]


def history_world(tmp_path: Path) -> Path:
    """A code repository whose ``state/`` world gained one frame per commit."""
    repo = init(tmp_path / "lantern")
    (repo / "README.md").write_text("a simulation\n")
    root = repo / "state"
    names = {"ada-01": "Ada Ledger", "bo-02": "Bo Debater", "cy-03": "Cy Reader"}
    write_world(root, {"cy-03": soul("Cy Reader", "cy-03", "Reader", [])}, names)
    for n in range(1, 5):
        ada = [f for f in _ADA_FRAMES if int(f.split()[2]) <= n]
        bo = [f for f in _BO_FRAMES if int(f.split()[2]) <= n]
        (root / "memory" / "ada-01.md").write_text(soul("Ada Ledger", "ada-01", "Archivist", ada))
        if bo:
            (root / "memory" / "bo-02.md").write_text(soul("Bo Debater", "bo-02", "Debater", bo))
        commit(repo, f"frame {n}: 3 agents, 1 posts, 0 comments", date=f"2026-03-0{n}T12:00:00Z")
    return root
