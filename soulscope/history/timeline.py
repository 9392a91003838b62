"""Memory over git time: an agent's history by frame, memory at a revision, diffs, first mentions.

Both sides of every comparison go through the same parser (``soulscope.soul.parse``), block by
block (see ``versions``): consecutive versions share almost every block, so a 1,000-commit
history costs about one parse per frame ever written, not one per commit.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import posixpath
import re
import shutil
import tempfile
import weakref
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path

from soulscope.history.first import (
    Headings,
    Mention,
    Use,
    earliest,
    first_in_files,
    new_lines,
    uses,
)
from soulscope.history.git import Commit, FileChange, Git, HistoryError
from soulscope.history.names import as_used
from soulscope.history.versions import EMPTY, Block, FrameDiff, Version, Versions, frame_diff
from soulscope.keep import SNAPSHOTS, folders
from soulscope.soul.model import FrameColumns, Soul
from soulscope.soul.parse import parse
from soulscope.soul.terms import Term
from soulscope.soul.trajectory import SHIFT_KINDS, classify
from soulscope.world import World, WorldError

__all__ = [
    "Change",
    "HistoryError",
    "SoulDiff",
    "Timeline",
    "WorldAt",
    "Mention",
    "diff",
    "first_mention",
    "history",
    "live_world",
    "soul_at",
    "timeline_for",
    "world_at",
]

# A commit that leaves less than this share of the file's bytes is flagged as truncating it.
_TRUNCATED_SHARE = 0.75


@dataclass(frozen=True, slots=True)
class Change:
    """What one commit did to an agent's memory."""

    commit: Commit
    status: str  # created, modified, renamed, deleted
    path: str
    old_path: str
    old_blob: str | None
    new_blob: str | None
    frames_added: tuple[str, ...]
    frames_changed: tuple[str, ...]
    frames_removed: tuple[str, ...]
    header_changed: bool  # the identity card or another section before the frames
    becoming_before: str | None
    becoming_after: str | None
    size_before: int
    size_after: int
    rewrote: bool
    becoming_changed: bool  # the commit brought a shift or a return (trajectory.classify)

    @property
    def truncated(self) -> bool:
        """Frames were removed, or the file lost a large share of its bytes (archiving)."""
        if self.status == "deleted":
            return False
        return bool(self.frames_removed) or self.size_after < self.size_before * _TRUNCATED_SHARE

    @property
    def flags(self) -> tuple[str, ...]:
        """Marks for lists: created, renamed, deleted, truncated, rewrote."""
        out = [self.status] if self.status != "modified" else []
        if self.truncated:
            out.append("truncated")
        if self.rewrote:
            out.append("rewrote")
        return tuple(out)


@dataclass(frozen=True, slots=True)
class SoulDiff:
    """Two revisions of one agent's memory compared by frame, and as text."""

    agent_id: str
    before: Commit
    after: Commit
    frames: FrameDiff
    becoming_before: str | None
    becoming_after: str | None
    relationships_gained: tuple[str, ...]
    relationships_lost: tuple[str, ...]
    unified: str


_STATUS = {"A": "created", "D": "deleted", "R": "renamed", "C": "created"}


class WorldAt(World):
    """A world as it stood at a commit: a read-only snapshot extracted from git."""

    read_only = True

    def __init__(
        self,
        root: Path,
        memory_dir: Path,
        only: Path | None,
        *,
        live: World,
        commit: Commit,
        notes: tuple[str, ...] = (),
    ) -> None:
        super().__init__(root, memory_dir, only)
        self.live = live  # the world this snapshot was taken from
        self.commit = commit
        self.notes = notes  # what was done about its kept copy (extracted again), one sentence each

    def __repr__(self) -> str:
        return f"WorldAt({str(self.live.root)!r}, {self.commit.short})"

    @property
    def name(self) -> str:
        return f"{self.live.name}@{self.commit.short}"


class Timeline:
    """A world's memory over git time. Caches blobs and parsed blocks; safe to share."""

    def __init__(self, world: World, git: Git, *, weak: bool = False) -> None:
        # ``timeline_for`` keeps timelines keyed weakly by world: those must not keep it alive.
        self._world: Callable[[], World | None] = weakref.ref(world) if weak else lambda: world
        self.git = git
        self._versions = Versions()
        self._paths: dict[str, str] = {}  # agent id -> its file, relative to the repository
        # By file: the HEAD it was read at and the commits; the commits and what they did.
        self._commits: dict[str, tuple[str | None, list[FileChange]]] = {}
        self._histories: dict[str, tuple[list[FileChange], list[Change]]] = {}

    @classmethod
    def open(cls, world: World, *, weak: bool = False) -> Timeline:
        """The timeline of a world; raises HistoryError when it is not in a git repository."""
        target = world.only or world.memory_dir
        return cls(world, Git.open(target if target.exists() else world.root), weak=weak)

    @property
    def world(self) -> World:
        world = self._world()
        if world is None:
            raise RuntimeError("the world of this timeline is gone")
        return world

    # -- paths ----------------------------------------------------------------------------------

    def path_of(self, agent_id: str) -> str:
        """The agent's soul file relative to the repository root (its current name)."""
        path = self._paths.get(agent_id)
        if path is None:
            try:
                path = self.git.relpath(self.world.soul_path(agent_id))
            except WorldError as exc:
                raise HistoryError(str(exc)) from exc
            self._paths[agent_id] = path
        return path

    def _is_soul(self, path: str, names: list[str] | None) -> bool:
        """Whether a path of the repository is a soul file of the world, as the world lists them
        (``memory/*.md``: not a file in a folder under it, such as ``memory/archive/``), or,
        given ``names``, one of them (an agent's file under every name it had)."""
        if names is not None:
            return path in names
        return path.endswith(".md") and posixpath.dirname(path) == self.memory_paths()[0]

    def memory_paths(self) -> list[str]:
        """What a world-wide question searches: the memory folder, or the single soul file."""
        return [self.git.relpath(self.world.only or self.world.memory_dir)]

    # -- versions -------------------------------------------------------------------------------

    def version(self, blob: str | None) -> Version:
        """A blob as blocks (cached by blob id)."""
        if blob is None:
            return EMPTY
        return self._versions.cached(blob) or self._versions.get(blob, self.git.blob(blob))

    # -- an agent's history ---------------------------------------------------------------------

    def commits(self, agent_id: str) -> list[FileChange]:
        """The commits that touched the agent's soul file, newest first, following renames.

        One ``git log`` and no file contents: the fast list a view shows before the details.
        """
        path = self.path_of(agent_id)
        head = self.git.head()  # a frame that lands makes a new HEAD: the list is read again
        cached = self._commits.get(path)
        if cached is not None and cached[0] == head:
            return cached[1]
        self.git.require_full_history()
        found = self.git.file_history(path) if head else []
        if not found:
            raise HistoryError(f"no commit touches {path}, so {agent_id} has no history yet")
        self._commits[path] = (head, found)
        return found

    def history(self, agent_id: str) -> list[Change]:
        """What every commit did to the agent's memory, by frame, newest first."""
        path = self.path_of(agent_id)
        commits = self.commits(agent_id)
        cached = self._histories.get(path)
        if cached is not None and cached[0] is commits:
            return cached[1]
        self.prefetch([b for fc in commits for b in (fc.old_blob, fc.new_blob)])
        found = [self.change(fc) for fc in commits]
        self._histories[path] = (commits, found)
        return found

    def frame_commits(self, agent_id: str, headings: Sequence[str]) -> list[str | None]:
        """The commit that first brought each of an agent's frames (``headings``, in file
        order), also where a later commit dropped and restored it; None for a frame no commit
        brought (not committed yet)."""
        try:
            changes = self.history(agent_id)
        except HistoryError:
            return [None] * len(headings)  # no commit touches the file yet
        brought: dict[str, list[str]] = {}
        removed: dict[str, list[str]] = {}  # frames a commit took out, for one that puts back
        for change in reversed(changes):  # oldest first
            if change.status == "deleted":
                for key, shas in brought.items():
                    removed.setdefault(key, []).extend(shas)
                brought.clear()
                continue
            for key in change.frames_removed:
                held = brought.get(key)
                if held:
                    removed.setdefault(key, []).append(held.pop())
            for key in change.frames_added:
                # a frame put back (a sync that dropped and restored it) keeps the commit that
                # first brought it, as ``first`` finds it
                back = removed.get(key)
                brought.setdefault(key, []).append(back.pop() if back else change.commit.sha)
        out: list[str | None] = []
        for heading in headings:
            # as ``history.versions.Block.key``: a heading with its spaces folded
            kept = brought.get(" ".join(heading.split()))
            out.append(kept.pop(0) if kept else None)
        return out

    def prefetch(self, blobs: list[str | None]) -> None:
        """Make the versions of many blobs in one streaming read."""
        wanted = list(dict.fromkeys(b for b in blobs if b and not self._versions.cached(b)))
        for sha, data in self.git.blobs(wanted):
            self._versions.get(sha, data)

    def change(self, fc: FileChange) -> Change:
        """What one commit did to a soul file, by frame."""
        before, after = self.version(fc.old_blob), self.version(fc.new_blob)
        frames = frame_diff(before, after)
        both = fc.old_blob is not None and fc.new_blob is not None
        return Change(
            commit=fc.commit,
            status=_STATUS.get(fc.status, "modified"),
            path=fc.path,
            old_path=fc.old_path,
            old_blob=fc.old_blob,
            new_blob=fc.new_blob,
            frames_added=frames.added,
            frames_changed=frames.changed,
            frames_removed=frames.removed,
            header_changed=both and before.header != after.header,
            becoming_before=before.becoming,
            becoming_after=after.becoming,
            size_before=before.size,
            size_after=after.size,
            rewrote=frames.rewrote,
            becoming_changed=identity_shifted(before, after, (*frames.added, *frames.changed)),
        )

    def _read_at(self, agent_id: str, rev: str) -> tuple[str, str, bytes] | None:
        """(path, blob id, bytes) of the agent's soul file at ``rev``, renames followed."""
        path = self.path_of(agent_id)
        found = self.git.read(rev, path)
        if found is not None:
            return path, found[0], found[1]
        # Absent under its current name: it may have had another name then, or not exist.
        commit = self.git.resolve(rev)
        try:
            changes = self.commits(agent_id)
        except HistoryError:
            return None
        reachable = self.git.ancestors(commit.sha)
        for ch in changes:  # newest first: the latest change that commit can see decides
            if ch.commit.sha in reachable:
                if ch.new_blob is None or ch.path == path:
                    return None
                found = self.git.read(commit.sha, ch.path)
                return (ch.path, found[0], found[1]) if found else None
        return None

    def soul_at(self, agent_id: str, rev: str) -> Soul:
        """The agent's parsed memory as it stood at ``rev``."""
        found = self._read_at(agent_id, rev)
        if found is None:
            raise HistoryError(f"{agent_id} had no soul file at {rev}")
        return parse(found[2], agent_id=agent_id)

    def diff(self, agent_id: str, rev_a: str, rev_b: str) -> SoulDiff:
        """Compare the agent's memory at two revisions, by frame and as a unified diff."""
        path = self.path_of(agent_id)
        # git computes the text diff while the two versions are read and cut into frames here.
        with ThreadPoolExecutor(1) as pool:
            text = pool.submit(self.git.diff_revs, rev_a, rev_b, path)
            a, b = self.git.resolve(rev_a), self.git.resolve(rev_b)
            found_a, found_b = self._read_at(agent_id, a.sha), self._read_at(agent_id, b.sha)
            if found_a is None and found_b is None:
                raise HistoryError(f"{agent_id} had no soul file at {rev_a} nor at {rev_b}")
            path_a, blob_a, data_a = found_a or (path, None, None)
            path_b, blob_b, data_b = found_b or (path, None, None)
            va, vb = self._versions.get(blob_a, data_a), self._versions.get(blob_b, data_b)
            try:
                unified = text.result()
            except HistoryError:  # a date, or another name git diff does not take
                unified = None
        if unified is None or path_a != path or path_b != path:  # renamed in between
            unified = self.git.diff(blob_a, blob_b, path_a, path_b)
        rel_a = list(relationships(va.relationships or ""))
        rel_b = list(relationships(vb.relationships or ""))
        return SoulDiff(
            agent_id=agent_id,
            before=a,
            after=b,
            frames=frame_diff(va, vb),
            becoming_before=va.becoming,
            becoming_after=vb.becoming,
            relationships_gained=tuple(r for r in rel_b if r not in rel_a),
            relationships_lost=tuple(r for r in rel_a if r not in rel_b),
            unified=unified,
        )

    def change_diff(self, change: Change) -> str:
        """The unified diff one commit made to the agent's soul file."""
        return self.git.diff(change.old_blob, change.new_blob, change.old_path, change.path)

    # -- first mention --------------------------------------------------------------------------

    def first_mention(
        self, term: Term | str, agent_id: str | None = None, rev: str = "HEAD"
    ) -> Mention | None:
        """When ``term`` first appeared in one agent's memory or the whole world's, in the
        history up to ``rev`` (a snapshot's commit: the answer a checkout of it gives).

        The commit is git's own answer (``git log`` with the term's filter, ``-S`` or ``-G``, on
        the same paths, every name the agent's file has had). Among the lines that commit
        brought (every file it gained the term in), the frames' own times decide
        (``history.first``): a world imported in one commit is ordered by its frames, not by
        its file names.
        """
        term = as_term(term)
        self.git.require_full_history()
        search = term.git_filter()
        if agent_id is None and self.world.only is not None:
            agent_id = self.world.only.stem  # one soul file: its agent, under every name it had
        names: list[str] | None = None  # the agent's file's names, or any soul of the world
        if agent_id is None:
            found = self.git.pickaxe(search, self.memory_paths(), rev)
        else:
            # Search the current name while the follow log tells the older names, if any.
            current = self.path_of(agent_id)
            with ThreadPoolExecutor(1) as pool:
                job = pool.submit(self.git.pickaxe, search, [current], rev)
                names = sorted({current} | {c.path for c in self.commits(agent_id)})
                found = job.result()
            if names != [current]:
                found = self.git.pickaxe(search, names, rev)
        by_commit: dict[str, list[FileChange]] = {}
        for fc in found:  # oldest commit first
            by_commit.setdefault(fc.commit.sha, []).append(fc)
        owner = _Owners(self.git, self.memory_paths(), rev, agent_id)
        for changes in by_commit.values():
            gained: list[Use] = []
            files: list[FrameColumns] = []
            news: dict[str, bytes] = {}
            frames_brought = 0
            for fc in changes:
                if fc.new_blob is None or not self._is_soul(fc.path, names):
                    continue
                new = news[fc.path] = self.git.blob(fc.new_blob)
                old = self.git.blob(fc.old_blob) if fc.old_blob else b""
                if term.count(new) <= term.count(old):
                    continue  # this file lost uses in that commit (or only changed around them)
                headings = Headings.of(new)
                lines = new_lines(old, new, term)
                gained.extend(uses(owner.of(fc), fc.path, new, term, lines, headings))
                files.append(headings.columns)
                # every frame the commit brought to the file, not only those with the term:
                # an import of whole files dates none of them
                brought = frame_diff(
                    self._versions.get(fc.old_blob, old), self._versions.get(fc.new_blob, new)
                )
                frames_brought += len(brought.added) + len(brought.changed)
            if gained:
                m = earliest(gained, changes[0].commit, frames_brought > 1, files)
                raw = news[m.path].split(b"\n")[m.line - 1]
                return replace(m, removed_by=self._removal(m, raw, found, owner))
        return None

    def _removal(
        self, m: Mention, raw: bytes, found: list[FileChange], owner: _Owners
    ) -> Commit | None:
        """The first commit after ``m``'s (among ``found``, those that changed the term's
        uses) that left its file without its line ``raw``: deleted, reverted or rewritten;
        None where the line is still there."""
        names = {m.path}
        after = False
        for fc in found:
            if not after:
                after = m.commit is not None and fc.commit.sha == m.commit.sha
                continue
            names.update(owner.renamed(names, fc.commit))
            if fc.old_path not in names:
                continue
            names.add(fc.path)
            new = self.git.blob(fc.new_blob) if fc.new_blob else b""
            if raw not in new.split(b"\n"):
                return fc.commit
        return None

    # -- the whole world at a commit ------------------------------------------------------------

    def world_at(self, rev: str) -> WorldAt:
        """A read-only snapshot of the whole world as it stood at ``rev``.

        Snapshots are kept (``keep.SNAPSHOTS``): a commit never changes, so one extraction
        serves every visit of the same part of the repository, while every file its manifest
        lists is still there as extracted; one that is not whole is extracted again, which the
        snapshot's ``notes`` say."""
        commit = self.git.resolve(rev)
        world = self.world
        rel_root = self.git.relpath(world.root)
        rel_memory = self.git.relpath(world.memory_dir)
        rel_only = self.git.relpath(world.only) if world.only else None
        # A single soul file's snapshot is not its world's.
        repo_key = re.sub(r"[^A-Za-z0-9]+", "-", str(self.git.root)).strip("-")[-80:]
        part = rel_only or rel_root
        part_key = hashlib.sha256(os.fsencode(part)).hexdigest()[:12]
        base = SNAPSHOTS.path / repo_key / f"{commit.sha}-{part_key}"
        try:
            base.parent.mkdir(parents=True, exist_ok=True)
        except OSError:
            # A cache folder that cannot be written: a snapshot of this run's own, removed at exit.
            base = _scratch() / f"{commit.sha}-{part_key}"
        notes: tuple[str, ...] = ()
        if base.exists():
            problem = folders.check(base, SNAPSHOTS.name, SNAPSHOTS.fingerprint())
            if problem is not None:
                notes = (SNAPSHOTS.rebuilt(base, problem),)
                folders.remove(base)
        if not base.exists():
            self._extract(commit.sha, part, base, rev)
        return WorldAt(
            base / rel_root,
            base / rel_memory,
            base / rel_only if rel_only else None,
            live=world,
            commit=commit,
            notes=notes,
        )

    def _extract(self, sha: str, part: str, base: Path, rev: str) -> None:
        """The snapshot of ``part`` at ``sha``, put at ``base`` whole and sealed, or not at all."""
        tmp = Path(tempfile.mkdtemp(prefix=".tmp-", dir=base.parent))
        try:
            if not self.git.extract(sha, part, tmp):
                raise HistoryError(f"the world {self.world.root} did not exist at {rev}")
            _make_read_only(tmp)
            folders.seal(tmp, SNAPSHOTS.name, SNAPSHOTS.fingerprint(), at=base)
            # Another process may have extracted the same commit first: theirs is as good.
            with contextlib.suppress(OSError):
                os.replace(tmp, base)
            folders.trim(base.parent, SNAPSHOTS.max_entries, SNAPSHOTS.max_bytes)
        finally:
            if tmp.exists():
                _make_writable(tmp)
                shutil.rmtree(tmp, ignore_errors=True)


class _Owners:
    """Whose memory a soul file's path held in a commit: the agent asked about, else the name
    the file came to have by the revision, each later rename followed (``memory/dan.md``,
    renamed since to ``dan-04.md``, was dan-04's memory; a deleted file keeps its last name)."""

    def __init__(self, git: Git, paths: list[str], rev: str, agent_id: str | None) -> None:
        self.git, self.paths, self.rev, self.agent_id = git, paths, rev, agent_id
        self._renames: list[FileChange] | None = None
        self._before: dict[str, set[str]] = {}  # a rename's commit -> the commits up to it

    def of(self, fc: FileChange) -> str:
        if self.agent_id is not None:
            return self.agent_id
        if self._renames is None:
            self._renames = self.git.renames(self.paths, self.rev)
        path = fc.path
        for r in self._renames:
            if r.old_path == path and r.commit.sha != fc.commit.sha:
                sha = r.commit.sha
                if sha not in self._before:
                    self._before[sha] = self.git.ancestors(sha)
                if fc.commit.sha in self._before[sha]:
                    path = r.path
        return Path(path).stem

    def renamed(self, names: set[str], before: Commit) -> set[str]:
        """The names the files called ``names`` were given by renames up to ``before``."""
        if self._renames is None:
            self._renames = self.git.renames(self.paths, self.rev)
        out = set(names)
        for r in self._renames:
            if r.old_path in out and r.commit.timestamp <= before.timestamp:
                out.add(r.path)
        return out


_scratch_dir: Path | None = None


def _scratch() -> Path:
    """A temporary folder for this process's snapshots, removed when it exits."""
    global _scratch_dir
    if _scratch_dir is None:
        import atexit

        _scratch_dir = Path(tempfile.mkdtemp(prefix="soulscope-snapshots-"))

        def remove(folder: Path = _scratch_dir) -> None:
            _make_writable(folder)
            shutil.rmtree(folder, ignore_errors=True)

        atexit.register(remove)
    return _scratch_dir


def _make_read_only(root: Path) -> None:
    for dirpath, dirnames, filenames in os.walk(root):
        for name in filenames:
            os.chmod(os.path.join(dirpath, name), 0o444)
        for name in dirnames:
            os.chmod(os.path.join(dirpath, name), 0o555)


def _make_writable(root: Path) -> None:
    for dirpath, _, filenames in os.walk(root):
        os.chmod(dirpath, 0o755)
        for name in filenames:
            os.chmod(os.path.join(dirpath, name), 0o644)


_REL_OPEN = re.compile(r"\(")
# The name right before an item's "(": an id ("storyteller-02", "zion-coder-06"), else the run of
# capitalised words a display name is ("Grace Debugger", "Lisp Macro" in "tension with Lisp
# Macro"), else the last word ("the reviewer" -> "reviewer").
_CAPITAL = "A-ZÀ-ÖØ-ÞĀ-ſΑ-ΩА-Я"  # capitals beyond ASCII too ("Zoë Ångström")
_REL_NAME = re.compile(
    r"(?:(?<![\w.-])([A-Za-z0-9][\w.]*-[\w.-]*\w)"  # an id: words joined by hyphens
    rf"|((?<![\w'-])[{_CAPITAL}][\w'.-]*(?:[ \t]+[{_CAPITAL}][\w'.-]*)*)"  # capitalised words
    r"|((?<![\w.-])[A-Za-z0-9][\w.\-]*))[ \t]*$"
)
# An item written without parentheses: "coder-01 — mentor", "Nova Quinn: guide".
_REL_DASHED = re.compile(
    r"^[ \t]*([^\s:—–(][^:—–(]*?)[ \t]*(?:—|–|--?[ \t]|:)[ \t]*(\S.*?)[ \t.]*$"
)
# Markup around a name: "**coder-01**", "[coder-01](https://...)".
_REL_MARKUP = re.compile(r"\[([^\]\n]+)\]\([^)\n]*\)|\*\*|__")


def relationships(text: str) -> dict[str, str]:
    """``a (nature), b (nature)`` as ``{a: nature}``; separators vary (commas, full stops), and a
    name is written as an id or as a display name of several words ("Grace Debugger (her
    tests)", "tension with Lisp Macro (...)"): the whole name is kept, words before it left."""
    text = _REL_MARKUP.sub(lambda m: m.group(1) or "", text)
    if "(" not in text:
        return _dashed(text)
    out: dict[str, str] = {}
    i = 0
    while True:
        m = _REL_OPEN.search(text, i)
        if not m:
            break
        # the item's own text: after the previous item's ")" and its separator
        head = text[i : m.start()]
        cut = max(head.rfind(","), head.rfind(";"), head.rfind(". "))
        head = head[cut + 1 :]
        depth, j = 1, m.end()
        while j < len(text) and depth:
            depth += {"(": 1, ")": -1}.get(text[j], 0)
            j += 1
        found = _REL_NAME.search(head)
        if found:
            name = next(g for g in found.groups() if g)
            nature = text[m.end() : j - 1].strip() if not depth else text[m.end() :]
            out.setdefault(name, nature)
        i = j
    return out


def _dashed(text: str) -> dict[str, str]:
    """Relationships written without parentheses, one an item: "coder-01 — mentor; Nova Quinn
    — guide", "coder-01: mentor, debater-07: rival"."""
    out: dict[str, str] = {}
    for item in re.split(r"[;,]", text):
        m = _REL_DASHED.match(item)
        if m is None:
            continue
        found = _REL_NAME.search(m.group(1))
        if found is not None and found.end() - found.start() == len(m.group(1)):
            out.setdefault(next(g for g in found.groups() if g), m.group(2))
    return out


# -- one timeline per world, shared by every caller ------------------------------------------------

_TIMELINES: weakref.WeakKeyDictionary[World, Timeline] = weakref.WeakKeyDictionary()


def live_world(world: World) -> World:
    """The world whose repository holds the history: a snapshot's own files are not a repo."""
    return world.live if isinstance(world, WorldAt) else world


def timeline_for(world: World) -> Timeline:
    """The world's timeline, opened once and kept while the World object lives.

    A snapshot (``world_at``) shares the timeline of the world it was taken from.
    """
    world = live_world(world)
    t = _TIMELINES.get(world)
    if t is None:
        t = Timeline.open(world, weak=True)
        _TIMELINES[world] = t
    return t


def history(world: World, agent_id: str) -> list[Change]:
    """The commits that touched an agent's soul file, newest first (see ``Timeline.history``)."""
    return timeline_for(world).history(agent_id)


def soul_at(world: World, agent_id: str, rev: str) -> Soul:
    """An agent's memory at a revision (sha, tag, ``HEAD~5``, a date); raises HistoryError."""
    return timeline_for(world).soul_at(agent_id, rev)


def world_at(world: World, rev: str) -> World:
    """A read-only snapshot of the whole world as of ``rev``; raises HistoryError."""
    return timeline_for(world).world_at(rev)


def as_term(term: Term | str) -> Term:
    """A term as typed is matched as a word (``soul.terms``); an empty one is refused."""
    if isinstance(term, Term):
        return term
    try:
        return Term(term)
    except ValueError as exc:
        raise HistoryError(str(exc)) from exc


def first_mention(world: World, term: Term | str, agent_id: str | None = None) -> Mention | None:
    """When a term first appeared in one agent's memory or the world's; None if it never did.

    A world outside git is answered from its files alone, by their frames' times (the
    mention's ``commit`` is then None). A term is not found inside the name of one of the
    world's agents (``names.as_used``)."""
    term = as_used(as_term(term), world)
    try:
        timeline = timeline_for(world)
    except HistoryError:
        if isinstance(world, WorldAt):
            raise
        if agent_id is not None:
            pairs = [(agent_id, world.soul_path(agent_id))]
        else:
            pairs = [(a.id, a.path) for a in world.agents()]
        return first_in_files(pairs, term, world.root)
    rev = world.commit.sha if isinstance(world, WorldAt) else "HEAD"
    return timeline.first_mention(term, agent_id, rev)


def diff(world: World, agent_id: str, rev_a: str, rev_b: str) -> SoulDiff:
    """An agent's memory at two revisions compared by frame; raises HistoryError."""
    return timeline_for(world).diff(agent_id, rev_a, rev_b)


def identity_shifted(before: Version, after: Version, headings: tuple[str, ...]) -> bool:
    """Whether the frames a commit added or changed hold a shift (or return) of identity.

    Each of their statements is classified against the statement before it in time in the new
    version (``soul.when``: a frame's date, time and number, then its place in the file), so a
    bulk import that ends on a refinement still shows the shifts it carried, frames appended
    out of order compare with what came before them, and an edit that only rewords the same
    role is not a change.
    """
    position = not any(b.has_becoming for b in after.blocks)
    wanted = {" ".join(h.split()) for h in headings}
    if not wanted:
        old, new = before.becoming, after.becoming
        return bool(old and new and classify(new, old, position=position) in SHIFT_KINDS)

    def statement(block: Block) -> str | None:
        return block.evolving if position else block.becoming

    held = [
        (block.when, i, text)
        for i, block in enumerate(after.frames)
        if (text := statement(block)) is not None
    ]
    held.sort(key=lambda e: (e[0], e[1]))
    for k in range(1, len(held)):
        _, i, text = held[k]
        if after.frames[i].key in wanted:
            previous = held[k - 1][2]
            if classify(text, previous, position=position) in SHIFT_KINDS:
                return True
    return False
