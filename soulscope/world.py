"""A World: a folder of soul files (``memory/*.md``), its registry and what else lives beside them."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from soulscope.bundled import SOURCE_ROOT, bundled
from soulscope.errors import SoulscopeError
from soulscope.soul.model import Soul
from soulscope.soul.parse import parse

MAX_ID_LENGTH = 64
_AGENT_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
# soulscope's own checkout (its worlds are not advanced in place) and the built-in demo world.
PROJECT_ROOT = SOURCE_ROOT
DEMO_WORLD = bundled("state")


class WorldError(SoulscopeError):
    """A problem a user can fix (bad path, bad id, unknown agent); its text is one sentence."""


def id_problem(agent_id: str) -> str | None:
    """Why ``agent_id`` is not a valid agent id, or None when it is."""
    if not agent_id:
        return "an agent id cannot be empty"
    if len(agent_id) > MAX_ID_LENGTH:
        return f"an agent id has at most {MAX_ID_LENGTH} characters"
    if ".." in agent_id or not _AGENT_ID.fullmatch(agent_id):
        return "an agent id uses only letters, digits, '.', '_' and '-', and no '..'"
    return None


def check_id(agent_id: str) -> str:
    problem = id_problem(agent_id)
    if problem:
        raise WorldError(f"'{agent_id}' is not a valid agent id: {problem}")
    return agent_id


@dataclass(frozen=True, slots=True)
class AgentFile:
    """A soul file as listed: no parsing, only what the folder tells."""

    id: str
    path: Path
    size: int
    mtime: float
    problem: str | None = None  # set for junk that is listed but is not an agent
    mtime_ns: int = 0  # the exact mtime, for telling a changed file (the world index)
    # Also changed by an edit that keeps the size and puts the mtime back: the world index
    # tells a changed file by all four.
    ctime_ns: int = 0
    inode: int = 0


def _file_name(a: AgentFile) -> str:
    return a.path.name


class World:
    """A world folder. Listing is lazy and cheap; souls are parsed on demand."""

    # A snapshot of the past (``soulscope.history.timeline.world_at``) is read-only: writers check.
    read_only: bool = False

    def __init__(self, root: Path, memory_dir: Path, only: Path | None = None) -> None:
        self.root = root
        self.memory_dir = memory_dir
        self.only = only  # a world of a single soul file
        # The agents, the junk, and the agents by id (all three replaced at once: threads read them).
        self._listing: tuple[list[AgentFile], list[AgentFile], dict[str, AgentFile]] | None = None
        self._registry: dict[str, dict] | None = None

    def __repr__(self) -> str:
        return f"World({str(self.root)!r})"

    @classmethod
    def open(cls, path: str | Path) -> World:
        """Open a world folder, a memory folder, a repository holding ``state/``, or one soul file."""
        p = Path(path).expanduser()
        if not p.exists():
            raise WorldError(f"no such file or folder: {p}")
        p = p.resolve()
        if p.is_file():
            return cls(p.parent.parent if p.parent.name == "memory" else p.parent, p.parent, only=p)
        if (p / "memory").is_dir():
            return cls(p, p / "memory")
        if (p / "state" / "memory").is_dir():
            return cls(p / "state", p / "state" / "memory")
        if any(e.name.endswith(".md") for e in os.scandir(p)):
            return cls(p.parent if p.name == "memory" else p, p)
        raise WorldError(f"{p} holds no soul files (expected {p / 'memory'}/*.md)")

    @property
    def name(self) -> str:
        return self.root.name

    def _scan(self) -> tuple[list[AgentFile], list[AgentFile], dict[str, AgentFile]]:
        if self._listing is None:
            files: list[AgentFile]
            if self.only is not None:
                files = [self._listed(self.only)]
            elif self.memory_dir.is_dir():
                # Directory entries know whether they are files or links without asking the
                # system again: a world of 10,000 agents is listed with one call per file.
                # Each is let go once listed, and the listing sorted after (50,000 entries
                # held to be sorted, with their stat results, held 70 MB to the end).
                with os.scandir(self.memory_dir) as found:
                    files = [self._listed(e) for e in found if e.name.endswith(".md")]
                files.sort(key=_file_name)
            else:
                files = []
            agents = [a for a in files if a.problem is None]
            junk = [a for a in files if a.problem is not None]
            # One lookup per agent, not a scan of the list: listing a world asks for every agent.
            self._listing = (agents, junk, {a.id: a for a in agents})
        return self._listing

    def _listed(self, entry: Path | os.DirEntry[str]) -> AgentFile:
        """A file of the memory folder as listed: an agent, or junk with its problem."""
        path = entry if isinstance(entry, Path) else self.memory_dir / entry.name
        try:
            st = entry.stat()
        except OSError as exc:
            return AgentFile(path.stem, path, 0, 0.0, f"unreadable: {exc.strerror}")
        agent_id = path.name[:-3]
        problem = id_problem(agent_id)
        if problem is None and not entry.is_file():
            problem = "not a regular file"
        if problem is None and entry.is_symlink():
            target = path.resolve()
            if not target.is_relative_to(self.root.resolve()):
                problem = f"a link to {target}, outside the world: never read or written"
        return AgentFile(
            agent_id,
            path,
            st.st_size,
            st.st_mtime,
            problem,
            st.st_mtime_ns,
            st.st_ctime_ns,
            st.st_ino,
        )

    def refresh(self) -> None:
        """Forget the listing (after files changed on disk)."""
        self._listing = None
        self._registry = None

    def agents(self) -> list[AgentFile]:
        """The agents, sorted by id."""
        return self._scan()[0]

    def junk(self) -> list[AgentFile]:
        """Files in the memory folder that are not agents, each with its problem."""
        return self._scan()[1]

    def agent(self, agent_id: str) -> AgentFile:
        check_id(agent_id)
        found = self._scan()[2].get(agent_id)
        if found is not None:
            return found
        raise WorldError(f"no agent '{agent_id}' in {self.memory_dir}")

    def soul_path(self, agent_id: str) -> Path:
        """Where an agent's soul file is (or would be); the id is validated."""
        check_id(agent_id)
        return self.memory_dir / f"{agent_id}.md"

    def source(self, agent_id: str) -> bytes:
        """An agent's soul file as it is on disk."""
        a = self.agent(agent_id)
        try:
            return a.path.read_bytes()
        except OSError as exc:
            raise WorldError(f"cannot read {a.path}: {exc.strerror}") from exc

    def sources(
        self, unreadable: list[str] | None = None, files: Iterable[AgentFile] | None = None
    ) -> Iterator[tuple[AgentFile, bytes]]:
        """Every agent's soul file (or each of ``files``) as it is on disk, in id order; a file
        that cannot be read is skipped and said in ``unreadable`` (one sentence each), never
        silently dropped."""
        for a in self.agents() if files is None else files:
            try:
                data = a.path.read_bytes()
            except OSError as exc:
                if unreadable is not None:
                    unreadable.append(f"cannot read {a.path}: {exc.strerror or exc}")
                continue
            yield a, data

    def read(self, agent_id: str) -> Soul:
        """Parse an agent's soul file."""
        return parse(self.source(agent_id), agent_id=agent_id)

    def registry(self) -> dict[str, dict]:
        """``agents.json`` as ``{id: fields}``, without entries whose key is no valid agent id (a
        control character in a graph node id makes a GraphML file nobody reads); empty when
        absent or unreadable."""
        if self._registry is None:
            self._registry = {}
            path = self.root / "agents.json"
            try:
                # Not a regular file (a FIFO would block the read): no registry.
                data = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None
            except (OSError, ValueError, RecursionError):
                return self._registry
            agents = data.get("agents", data) if isinstance(data, dict) else {}
            if isinstance(agents, dict):  # its ids pass the rule of ids from file names
                self._registry = {
                    k: v for k, v in agents.items() if isinstance(v, dict) and not id_problem(k)
                }
        return self._registry

    def display_name(self, agent_id: str) -> str | None:
        entry = self.registry().get(agent_id) or {}
        name = entry.get("name")
        return name if isinstance(name, str) else None
