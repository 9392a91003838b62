"""The community store: posts, comments, votes and follows as append-only JSON lines.

``community/posts.jsonl`` and its siblings grow by whole lines (``encode`` gives them; the frame
runner appends them under its journal). A crash can leave a torn last line: reading skips it, and
the next frame cuts it first.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

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


def _read(path: Path, kind: type) -> Iterator:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return
    end = data.rfind(b"\n") + 1  # anything after the last newline is a torn write
    for line in data[:end].splitlines():
        try:
            obj = json.loads(line)
            yield kind(**{k: obj[k] for k in kind.__slots__})
        except (ValueError, TypeError, KeyError):
            continue  # a line written by something else: not ours to interpret


@dataclass(frozen=True)
class Community:
    """Everything the community did so far, read once per frame."""

    posts: tuple[Post, ...] = ()
    comments: tuple[Comment, ...] = ()
    votes: tuple[Vote, ...] = ()
    follows: tuple[Follow, ...] = ()

    @classmethod
    def load(cls, root: Path) -> Community:
        folder = root / COMMUNITY_DIR
        return cls(*(tuple(_read(folder / f"{name}.jsonl", _KINDS[name])) for name in FILES))

    @cached_property
    def by_id(self) -> dict[int, Post]:
        return {p.id: p for p in self.posts}

    @cached_property
    def comment_by_id(self) -> dict[int, Comment]:
        return {c.id: c for c in self.comments}

    @property
    def next_post_id(self) -> int:
        return max((p.id for p in self.posts), default=0) + 1

    @property
    def next_comment_id(self) -> int:
        return max((c.id for c in self.comments), default=0) + 1

    @cached_property
    def _following(self) -> dict[str, frozenset[str]]:
        out: dict[str, set[str]] = {}
        for f in self.follows:
            out.setdefault(f.follower, set()).add(f.followee)
        return {k: frozenset(v) for k, v in out.items()}

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

