"""The community store: posts, comments, votes and follows as append-only JSON lines.

``community/posts.jsonl`` and its siblings grow by whole lines (``encode`` gives them; the frame
runner appends them under its journal). A crash can leave a torn last line: reading skips it, and
the next frame cuts it first (or, when that line was committed, ends it with a newline).

Anyone can append to these files, so every record is checked before it is used: a field of the
wrong type (an author that is a list, an id that is text or a float such as ``1e308``) makes the
record skipped and reported in ``Community.problems``, never a crash and never a wrong next id.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

COMMUNITY_DIR = "community"
FILES = ("posts", "comments", "votes", "follows")


def channel_name(channel: str) -> str:
    """``c/code``, ``/c/code`` and ``code`` are the same channel: ``code``."""
    name = channel.strip().lstrip("/")
    return name[2:] if name.startswith("c/") else name


@dataclass(frozen=True, slots=True)
class Post:
    id: int
    frame: int
    date: str
    author: str
    channel: str
    title: str
    body: str


@dataclass(frozen=True, slots=True)
class Comment:
    id: int
    post: int
    parent: int | None
    frame: int
    date: str
    author: str
    body: str


@dataclass(frozen=True, slots=True)
class Vote:
    frame: int
    voter: str
    post: int
    value: int


@dataclass(frozen=True, slots=True)
class Follow:
    frame: int
    follower: str
    followee: str


Record = Post | Comment | Vote | Follow
_KINDS: dict[str, type] = {"posts": Post, "comments": Comment, "votes": Vote, "follows": Follow}


def record_line(record: Record) -> bytes:
    """One record as one JSON line (key order fixed, so equal worlds are equal bytes)."""
    fields = {name: getattr(record, name) for name in record.__slots__}  # flat: no asdict copy
    return (json.dumps(fields, ensure_ascii=False) + "\n").encode("utf-8")


# Ids and frame numbers are whole numbers a float holds exactly (a JSON reader elsewhere may
# read them as floats); vote values may be negative.
MAX_NUMBER = 2**53
_NATURAL = frozenset({"id", "post", "parent", "frame"})


def _field_problem(name: str, kind: str, value: object) -> str | None:
    """Why ``value`` cannot be the field ``name`` (annotated ``kind``), or None."""
    if value is None and kind.endswith("| None"):
        return None
    if kind.startswith("int"):
        if type(value) is not int:
            return f"'{name}' is not a whole number"
        if not -MAX_NUMBER < value < MAX_NUMBER or (name in _NATURAL and value < 0):
            return f"'{name}' is out of range"
        return None
    if type(value) is not str:
        return f"'{name}' is not text"
    return None


def _record(line: bytes, kind: Any) -> Record | str:
    """The record on one line, or why it is not one."""
    try:
        obj = json.loads(line)
    except RecursionError:
        return "nested too deep"
    except ValueError:
        return "not JSON"
    if not isinstance(obj, dict):
        return "not a JSON object"
    fields = kind.__annotations__
    missing = [k for k in kind.__slots__ if k not in obj]
    if missing:
        return f"'{missing[0]}' is missing"
    for k in kind.__slots__:
        problem = _field_problem(k, fields[k], obj[k])
        if problem:
            return problem
    return kind(**{k: obj[k] for k in kind.__slots__})


def _file_bytes(path: Path, problems: list[str]) -> bytes | None:
    """A community file's bytes; None when there is none, or (said in ``problems``) none to read."""
    try:
        # O_NONBLOCK: a FIFO in its place would block the read forever; it is no store.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        with os.fdopen(fd, "rb") as f:
            if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
                problems.append(f"{COMMUNITY_DIR}/{path.name} is not a regular file: skipped")
                return None
            return f.read()
    except FileNotFoundError:
        return None
    except OSError as exc:
        problems.append(f"{COMMUNITY_DIR}/{path.name} cannot be read ({exc.strerror}): skipped")
        return None


@dataclass
class _Lines:
    """A community file as far as it was read: its whole lines (anything after the last newline
    is a torn write, read when it is ended), their records and the lines that held none, and what
    ``Community`` looks up in them, kept up to date as records come."""

    keep: bool = True  # whether ``records`` holds the records, or stays empty
    data: bytes = b""
    lines: int = 0
    records: list[Any] = field(default_factory=list)  # of the file's one kind
    bad: list[tuple[int, str]] = field(default_factory=list)  # (line, why it is no record)
    by_id: dict[int, Any] = field(default_factory=dict)  # posts and comments: the last of an id
    top: int = 0  # their highest id
    by_frame: dict[int, list[Any]] = field(default_factory=dict)  # their records, by frame
    following: dict[str, frozenset[str]] = field(default_factory=dict)  # follows: by follower

    def _add(self, record: Record) -> None:
        if self.keep:
            self.records.append(record)
        if isinstance(record, Follow):
            self.following[record.follower] = self.following.get(record.follower, frozenset()) | {
                record.followee
            }
        elif isinstance(record, (Post, Comment)):
            self.by_id[record.id] = record
            self.top = max(self.top, record.id)
            self.by_frame.setdefault(record.frame, []).append(record)

    def read_on(self, data: bytes, kind: Any) -> None:
        """Read the whole lines ``data`` holds after ``self.data`` (which it begins with)."""
        end = data.rfind(b"\n") + 1
        if end <= len(self.data):
            return
        for number, line in enumerate(data[len(self.data) : end].split(b"\n")[:-1], self.lines + 1):
            if not line.strip():
                continue
            record = _record(line, kind)
            if isinstance(record, str):
                self.bad.append((number, record))
            else:
                self._add(record)
        self.lines += data.count(b"\n", len(self.data), end)
        self.data = data if end == len(data) else data[:end]

    def problem(self, name: str) -> str | None:
        if not self.bad:
            return None
        number, why = self.bad[0]
        more = f", and {len(self.bad) - 1} more" if len(self.bad) > 1 else ""
        return (
            f"{COMMUNITY_DIR}/{name}: skipped {len(self.bad)} bad "
            f"{'record' if len(self.bad) == 1 else 'records'} (line {number}: {why}{more})"
        )


class CommunityReader:
    """A world's community store, read again each frame: a file that only grew since it was last
    read is read on from where that reading ended (appended lines are all a frame adds), any
    other is read whole again. Every file is read each time: the files stay the truth.

    ``records``: the kinds (``FILES``) whose records the communities it loads hold; the others
    are read and checked, but only their lookups are kept (whom each agent follows): a frame reads
    no vote, and every record held is one more object for the garbage collector's every walk."""

    def __init__(self, root: Path, records: Collection[str] = FILES) -> None:
        self.root = root
        self.records = frozenset(records)
        self._files: dict[str, _Lines] = {}

    def load(self) -> Community:
        problems: list[str] = []
        read = []
        for name, path in paths(self.root).items():
            data = _file_bytes(path, problems)
            seen = self._files.get(name)
            if data is None:
                seen = _Lines(name in self.records)
            elif seen is None or not data.startswith(seen.data):
                seen = _Lines(name in self.records)
                seen.read_on(data, _KINDS[name])
            else:
                seen.read_on(data, _KINDS[name])
            self._files[name] = seen
            problem = seen.problem(path.name)
            if problem:
                problems.append(problem)
            read.append(seen)
        posts, comments, votes, follows = read
        # Copies: the community of this frame stays as it is while the files grow.
        lookups = _Lookups(
            dict(posts.by_id),
            dict(comments.by_id),
            posts.top + 1,
            comments.top + 1,
            dict(follows.following),
            {f: tuple(v) for f, v in posts.by_frame.items()},
            {f: tuple(v) for f, v in comments.by_frame.items()},
        )
        return Community(
            tuple(posts.records),
            tuple(comments.records),
            tuple(votes.records),
            tuple(follows.records),
            problems=tuple(problems),
            lookups=lookups,
        )


@dataclass(frozen=True)
class _Lookups:
    """What ``Community`` looks up, as a ``CommunityReader`` kept it up to date."""

    by_id: dict[int, Post]
    comment_by_id: dict[int, Comment]
    next_post_id: int
    next_comment_id: int
    following: dict[str, frozenset[str]]
    posts_of: dict[int, tuple[Post, ...]]  # by frame
    comments_of: dict[int, tuple[Comment, ...]]


def newest_first(x: Post | Comment) -> tuple[int, int]:
    """A sort key: the latest frame first, and in a frame the highest id."""
    return (-x.frame, -x.id)


@dataclass(frozen=True)
class Community:
    """Everything the community did so far, read once per frame."""

    posts: tuple[Post, ...] = ()
    comments: tuple[Comment, ...] = ()
    votes: tuple[Vote, ...] = ()
    follows: tuple[Follow, ...] = ()
    problems: tuple[str, ...] = ()  # one sentence per file with records that were skipped
    # (A ``CommunityReader`` may leave out the records of some kinds: see its ``records``.)
    # What a reader worked out as the records came (None: worked out here from all of them).
    lookups: _Lookups | None = field(default=None, repr=False, compare=False)

    @classmethod
    def load(cls, root: Path) -> Community:
        return CommunityReader(root).load()

    @cached_property
    def by_id(self) -> dict[int, Post]:
        if self.lookups:
            return self.lookups.by_id
        return {p.id: p for p in self.posts}

    @cached_property
    def comment_by_id(self) -> dict[int, Comment]:
        if self.lookups:
            return self.lookups.comment_by_id
        return {c.id: c for c in self.comments}

    @cached_property
    def next_post_id(self) -> int:
        if self.lookups:
            return self.lookups.next_post_id
        return max((p.id for p in self.posts), default=0) + 1

    @cached_property
    def next_comment_id(self) -> int:
        if self.lookups:
            return self.lookups.next_comment_id
        return max((c.id for c in self.comments), default=0) + 1

    @cached_property
    def _following(self) -> dict[str, frozenset[str]]:
        if self.lookups:
            return self.lookups.following
        out: dict[str, set[str]] = {}
        for f in self.follows:
            out.setdefault(f.follower, set()).add(f.followee)
        return {k: frozenset(v) for k, v in out.items()}

    def since(self, frame: int) -> tuple[list[Post], list[Comment]]:
        """The posts and the comments of frame ``frame`` and later, each newest first."""
        if self.lookups:
            posts_of, comments_of = self.lookups.posts_of, self.lookups.comments_of
            posts = [p for f in sorted(f for f in posts_of if f >= frame) for p in posts_of[f]]
            comments = [
                c for f in sorted(f for f in comments_of if f >= frame) for c in comments_of[f]
            ]
        else:
            posts = [p for p in self.posts if p.frame >= frame]
            comments = [c for c in self.comments if c.frame >= frame]
        # (Stable: records of one frame and id stay in file order, however they were gathered.)
        posts.sort(key=newest_first)
        comments.sort(key=newest_first)
        return posts, comments

    @cached_property
    def activity(self) -> dict[str, tuple[int, int]]:
        """Posts and comments written, by author."""
        out: dict[str, list[int]] = {}
        for p in self.posts:
            out.setdefault(p.author, [0, 0])[0] += 1
        for c in self.comments:
            out.setdefault(c.author, [0, 0])[1] += 1
        return {k: (v[0], v[1]) for k, v in out.items()}

    def following(self, agent_id: str) -> set[str]:
        """Whom ``agent_id`` follows (a new set: callers may add to it)."""
        return set(self._following.get(agent_id, ()))


def paths(root: Path) -> dict[str, Path]:
    """The four files of a world's community store, by name."""
    return {name: root / COMMUNITY_DIR / f"{name}.jsonl" for name in FILES}


def encode(root: Path, records: Iterable[Record]) -> dict[Path, bytes]:
    """The lines that ``records`` add, by file, in record order."""
    by_file: dict[str, list[bytes]] = {}
    for r in records:
        name = next(n for n, k in _KINDS.items() if isinstance(r, k))
        by_file.setdefault(name, []).append(record_line(r))
    files = paths(root)
    return {files[name]: b"".join(lines) for name, lines in by_file.items()}
