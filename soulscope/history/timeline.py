"""Memory over git time: an agent's history by frame, memory at a revision, diffs, first mentions.

Both sides of every comparison go through the same parser (``soulscope.soul.parse``). To keep a
long history fast, a file version is split at its ``## `` headings and each distinct block is
parsed once and cached by its text: consecutive versions share almost every block, so a
1,000-commit history costs about one parse per frame ever written, not one per commit.
"""

from __future__ import annotations

import contextlib
import difflib
import os
import re
import shutil
import tempfile
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from soulscope.history.git import Commit, FileChange, Git, HistoryError
from soulscope.soul.model import Frame, Soul, clean, label_key
from soulscope.soul.parse import parse
from soulscope.soul.trajectory import DEFAULT_LABEL, FALLBACK_LABEL
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
    "soul_at",
    "timeline_for",
    "world_at",
]

_HEADING = re.compile(r"^## ", re.M)
_BECOMING = label_key(DEFAULT_LABEL)
_EVOLVING = label_key(FALLBACK_LABEL)
# A commit that leaves less than this share of the file's bytes is flagged as truncating it.
_TRUNCATED_SHARE = 0.75


@dataclass(frozen=True, slots=True)
class _Block:
    """One ``## `` block of a file version, parsed on its own (cached by its text)."""

    source: str
    heading: str  # display heading, without ``## ``
    key: str  # the heading with whitespace normalised: frames are matched on it
    is_frame: bool
    has_becoming: bool  # any Becoming bullet, even an empty one (decides the arc's label)
    becoming: str | None  # the last non-empty Becoming statement in the block
    evolving: str | None  # the same for the fallback label


@dataclass(frozen=True, slots=True)
class _Version:
    """A file version reduced to what a history needs."""

    size: int
    header: str  # preamble and every section before the first frame
    blocks: tuple[_Block, ...]

    @property
    def frames(self) -> list[_Block]:
        return [b for b in self.blocks if b.is_frame]

    @property
    def becoming(self) -> str | None:
        """The latest identity statement, by the same label rule as ``trajectory.arc``."""
        if any(b.has_becoming for b in self.blocks):
            found = [b.becoming for b in self.blocks if b.becoming]
        else:
            found = [b.evolving for b in self.blocks if b.evolving]
        return found[-1] if found else None


_EMPTY = _Version(0, "", ())


@dataclass(frozen=True, slots=True)
class FrameDiff:
    """Frames added, changed and removed between two versions of a soul, as frame headings."""

    added: tuple[str, ...]
    changed: tuple[str, ...]
    removed: tuple[str, ...]
    rewrote: bool  # a frame older than the last one was edited or removed


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

    @property
    def becoming_changed(self) -> bool:
        return self.becoming_before != self.becoming_after

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


@dataclass(frozen=True, slots=True)
class Mention:
    """Where a term first appeared: the commit, and the agent, frame and line in that version."""

    agent_id: str
    commit: Commit
    path: str
    line: int
    text: str  # the line, for display
    frame: str | None  # frame label (237, 500b, or the date)
    heading: str | None


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
    ) -> None:
        super().__init__(root, memory_dir, only)
        self.live = live  # the world this snapshot was taken from
        self.commit = commit

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
        self._blocks: dict[str, _Block] = {}
        self._versions: dict[str, _Version] = {}
        self._histories: dict[str, list[Change]] = {}

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
        try:
            return self.git.relpath(self.world.soul_path(agent_id))
        except WorldError as exc:
            raise HistoryError(str(exc)) from exc

    def memory_paths(self) -> list[str]:
        """What a world-wide question searches: the memory folder, or the single soul file."""
        return [self.git.relpath(self.world.only or self.world.memory_dir)]

    # -- versions -------------------------------------------------------------------------------

    def _block(self, source: str) -> _Block:
        block = self._blocks.get(source)
        if block is None:
            parsed = parse(source).blocks
            b = parsed[0] if parsed else None
            obs = b.observations if b is not None else ()
            becoming = [o.text for o in obs if o.key == _BECOMING and o.text]
            evolving = [o.text for o in obs if o.key == _EVOLVING and o.text]
            heading = b.heading if isinstance(b, Frame) else (b.title if b else "")
            block = _Block(
                source=source,
                heading=heading,
                key=" ".join(heading.split()),
                is_frame=isinstance(b, Frame),
                has_becoming=any(o.key == _BECOMING for o in obs),
                becoming=becoming[-1] if becoming else None,
                evolving=evolving[-1] if evolving else None,
            )
            self._blocks[source] = block
        return block

    def version(self, blob: str | None) -> _Version:
        """A blob reduced to blocks (cached by blob id)."""
        if blob is None:
            return _EMPTY
        v = self._versions.get(blob)
        if v is None:
            from soulscope.soul.model import ENCODING_ERRORS

            data = self.git.blob(blob)
            text = data.decode("utf-8", ENCODING_ERRORS)
            starts = [m.start() for m in _HEADING.finditer(text)]
            blocks = tuple(
                self._block(text[a:b])
                for a, b in zip(starts, starts[1:] + [len(text)], strict=True)
            )
            first_frame = next((i for i, b in enumerate(blocks) if b.is_frame), len(blocks))
            header = text[: starts[first_frame]] if first_frame < len(starts) else text
            v = _Version(len(data), header, blocks)
            self._versions[blob] = v
        return v

    # -- an agent's history ---------------------------------------------------------------------

    def history(self, agent_id: str) -> list[Change]:
        """Every commit that touched the agent's soul file, newest first, following renames."""
        path = self.path_of(agent_id)
        cached = self._histories.get(path)
        if cached is not None:
            return cached
        self.git.require_full_history()
        changes = [self._change(fc) for fc in self.git.file_history(path)]
        if not changes:
            raise HistoryError(f"no commit touches {path}, so {agent_id} has no history yet")
        self._histories[path] = changes
        return changes

    def _change(self, fc: FileChange) -> Change:
        before, after = self.version(fc.old_blob), self.version(fc.new_blob)
        frames = frame_diff(before, after)
        status = _STATUS.get(fc.status, "modified")
        return Change(
            commit=fc.commit,
            status=status,
            path=fc.path,
            old_path=fc.old_path,
            old_blob=fc.old_blob,
            new_blob=fc.new_blob,
            frames_added=frames.added,
            frames_changed=frames.changed,
            frames_removed=frames.removed,
            header_changed=before.header != after.header and fc.old_blob is not None
            and fc.new_blob is not None,
            becoming_before=before.becoming,
            becoming_after=after.becoming,
            size_before=before.size,
            size_after=after.size,
            rewrote=frames.rewrote,
        )  # fmt: skip

    def path_at(self, agent_id: str, commit: Commit) -> str | None:
        """The name the agent's soul file had at a commit (renames followed), None if absent."""
        path = self.path_of(agent_id)
        if self.git.blob_id(commit.sha, path) is not None:
            return path
        try:
            changes = self.history(agent_id)
        except HistoryError:
            return None
        reachable = self.git.ancestors(commit.sha)
        for ch in changes:  # newest first: the last change the commit can see decides
            if ch.commit.sha in reachable:
                return None if ch.new_blob is None else ch.path
        return None

    def soul_at(self, agent_id: str, rev: str) -> Soul:
        """The agent's parsed memory as it stood at ``rev``."""
        commit = self.git.resolve(rev)
        path = self.path_at(agent_id, commit)
        blob = self.git.blob_id(commit.sha, path) if path else None
        if blob is None:
            raise HistoryError(f"{agent_id} had no soul file at {rev} ({commit.short})")
        return parse(self.git.blob(blob), agent_id=agent_id)

    def diff(self, agent_id: str, rev_a: str, rev_b: str) -> SoulDiff:
        """Compare the agent's memory at two revisions, by frame and as a unified diff."""
        from soulscope.soul.trajectory import arc

        a, b = self.git.resolve(rev_a), self.git.resolve(rev_b)
        path_a, path_b = self.path_at(agent_id, a), self.path_at(agent_id, b)
        if path_a is None and path_b is None:
            raise HistoryError(f"{agent_id} had no soul file at {rev_a} nor at {rev_b}")
        blob_a = self.git.blob_id(a.sha, path_a) if path_a else None
        blob_b = self.git.blob_id(b.sha, path_b) if path_b else None
        va, vb = self.version(blob_a), self.version(blob_b)
        soul_a = parse(self.git.blob(blob_a), agent_id) if blob_a else None
        soul_b = parse(self.git.blob(blob_b), agent_id) if blob_b else None
        rel_a = _latest_relationships(soul_a)
        rel_b = _latest_relationships(soul_b)
        arc_a = arc(soul_a) if soul_a else []
        arc_b = arc(soul_b) if soul_b else []
        return SoulDiff(
            agent_id=agent_id,
            before=a,
            after=b,
            frames=frame_diff(va, vb),
            becoming_before=arc_a[-1].text if arc_a else None,
            becoming_after=arc_b[-1].text if arc_b else None,
            relationships_gained=tuple(r for r in rel_b if r not in rel_a),
            relationships_lost=tuple(r for r in rel_a if r not in rel_b),
            unified=self.git.diff(blob_a, blob_b, path_a or path_b, path_b or path_a),
        )

    def change_diff(self, change: Change) -> str:
        """The unified diff one commit made to the agent's soul file."""
        return self.git.diff(change.old_blob, change.new_blob, change.old_path, change.path)

    # -- first mention --------------------------------------------------------------------------

    def first_mention(self, term: str, agent_id: str | None = None) -> Mention | None:
        """When ``term`` first appeared in one agent's memory or the whole world's (case-sensitive).

        The commit is git's own answer (``git log -S TERM --reverse`` on the same paths); the
        line is the first line of that commit's version that holds the term and is new in it.
        """
        if not term:
            raise HistoryError("the term to look for cannot be empty")
        self.git.require_full_history()
        if agent_id is not None:
            paths = sorted({self.path_of(agent_id)} | {c.path for c in self.history(agent_id)})
        else:
            paths = self.memory_paths()
        for fc in self.git.pickaxe(term, paths):
            if fc.new_blob is None:
                continue
            from soulscope.soul.model import ENCODING_ERRORS

            new = self.git.blob(fc.new_blob).decode("utf-8", ENCODING_ERRORS)
            old = self.git.blob(fc.old_blob).decode("utf-8", ENCODING_ERRORS) if fc.old_blob else ""
            if new.count(term) <= old.count(term):
                continue  # this file lost occurrences in that commit; another one gained them
            seen: dict[str, int] = {}
            for ln in old.splitlines():
                if term in ln:
                    seen[ln] = seen.get(ln, 0) + 1
            lines = new.splitlines()
            line_no = next(i for i, ln in enumerate(lines, 1) if term in ln)
            for i, ln in enumerate(lines, 1):
                if term in ln:
                    if seen.get(ln):
                        seen[ln] -= 1
                    else:
                        line_no = i
                        break
            soul = parse(new)
            frame = soul.frame_at_line(line_no)
            return Mention(
                agent_id=Path(fc.path).stem,
                commit=fc.commit,
                path=fc.path,
                line=line_no,
                text=clean(lines[line_no - 1]),
                frame=frame.label if frame else None,
                heading=frame.heading if frame else None,
            )
        return None

    # -- the whole world at a commit ------------------------------------------------------------

    def world_at(self, rev: str) -> WorldAt:
        """A read-only snapshot of the whole world as it stood at ``rev``."""
        from soulscope.config import cache_dir

        commit = self.git.resolve(rev)
        world = self.world
        rel_root = self.git.relpath(world.root)
        rel_memory = self.git.relpath(world.memory_dir)
        rel_only = self.git.relpath(world.only) if world.only else None
        # Snapshots are immutable (a commit never changes), so one extraction serves every visit.
        repo_key = re.sub(r"[^A-Za-z0-9]+", "-", str(self.git.root)).strip("-")[-80:]
        base = cache_dir() / "snapshots" / repo_key / commit.sha
        if not base.exists():
            base.parent.mkdir(parents=True, exist_ok=True)
            tmp = Path(tempfile.mkdtemp(prefix=".tmp-", dir=base.parent))
            try:
                if not self.git.extract(commit.sha, rel_only or rel_root, tmp):
                    raise HistoryError(f"the world {world.root} did not exist at {rev}")
                _make_read_only(tmp)
                # Another process may have extracted the same commit first: theirs is as good.
                with contextlib.suppress(OSError):
                    os.replace(tmp, base)
            finally:
                if tmp.exists():
                    _make_writable(tmp)
                    shutil.rmtree(tmp, ignore_errors=True)
        return WorldAt(
            base / rel_root,
            base / rel_memory,
            base / rel_only if rel_only else None,
            live=world,
            commit=commit,
        )


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


def frame_diff(before: _Version, after: _Version) -> FrameDiff:
    """Frames added, changed and removed, matched by heading and position (duplicates handled).

    Identical frames pair up in order (longest common subsequence); of the rest, frames with the
    same heading pair up in order of occurrence and count as changed.
    """
    old, new = before.frames, after.frames
    lo = 0
    while lo < len(old) and lo < len(new) and old[lo].source == new[lo].source:
        lo += 1
    hi_old, hi_new = len(old), len(new)
    while hi_old > lo and hi_new > lo and old[hi_old - 1].source == new[hi_new - 1].source:
        hi_old -= 1
        hi_new -= 1
    mid_old, mid_new = old[lo:hi_old], new[lo:hi_new]
    if not mid_old and not mid_new:
        return FrameDiff((), (), (), False)
    gone: list[int] = []  # indexes into old
    came: list[int] = []  # indexes into new
    if mid_old and mid_new:
        matcher = difflib.SequenceMatcher(
            None, [b.source for b in mid_old], [b.source for b in mid_new], autojunk=False
        )
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag != "equal":
                gone.extend(lo + i for i in range(i1, i2))
                came.extend(lo + j for j in range(j1, j2))
    else:
        gone = list(range(lo, hi_old))
        came = list(range(lo, hi_new))
    waiting: dict[str, list[int]] = {}
    for i in gone:
        waiting.setdefault(old[i].key, []).append(i)
    added: list[str] = []
    changed: list[str] = []
    changed_old: set[int] = set()
    for j in came:
        queue = waiting.get(new[j].key)
        if queue:
            changed_old.add(queue.pop(0))
            changed.append(new[j].heading)
        else:
            added.append(new[j].heading)
    removed = [old[i].heading for i in gone if i not in changed_old]
    last = len(old) - 1
    rewrote = any(i != last for i in gone)
    return FrameDiff(tuple(added), tuple(changed), tuple(removed), rewrote)


_REL_ITEM = re.compile(r"([A-Za-z0-9][\w.\-]*)\s*\(")


def relationships(text: str) -> dict[str, str]:
    """``a (nature), b (nature)`` as ``{a: nature}``; separators vary (commas, full stops)."""
    out: dict[str, str] = {}
    i = 0
    while True:
        m = _REL_ITEM.search(text, i)
        if not m:
            break
        depth, j = 1, m.end()
        while j < len(text) and depth:
            depth += {"(": 1, ")": -1}.get(text[j], 0)
            j += 1
        out.setdefault(m.group(1), text[m.end() : j - 1].strip() if not depth else text[m.end() :])
        i = j
    return out


def _latest_relationships(soul: Soul | None) -> list[str]:
    """The agents named in the latest Relationships bullet of a soul."""
    if soul is None:
        return []
    for frame in reversed(soul.frames):
        texts = frame.get("Relationships")
        if texts:
            return list(relationships(" ".join(texts)))
    return []


# -- one timeline per world, shared by every caller ------------------------------------------------

_TIMELINES: weakref.WeakKeyDictionary[World, Timeline] = weakref.WeakKeyDictionary()


def timeline_for(world: World) -> Timeline:
    """The world's timeline, opened once and kept while the World object lives."""
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


def first_mention(world: World, term: str, agent_id: str | None = None) -> Mention | None:
    """When a term first appeared in one agent's memory or the world's; None if it never did."""
    return timeline_for(world).first_mention(term, agent_id)


def diff(world: World, agent_id: str, rev_a: str, rev_b: str) -> SoulDiff:
    """An agent's memory at two revisions compared by frame; raises HistoryError."""
    return timeline_for(world).diff(agent_id, rev_a, rev_b)
