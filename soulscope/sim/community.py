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
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
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


def _read(path: Path, kind: Any, problems: list[str]) -> Iterator:
    try:
        # O_NONBLOCK: a FIFO in its place would block the read forever; it is no store.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        with os.fdopen(fd, "rb") as f:
            if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
                problems.append(f"{COMMUNITY_DIR}/{path.name} is not a regular file: skipped")
                return
            data = f.read()
    except FileNotFoundError:
        return
    except OSError as exc:
        problems.append(f"{COMMUNITY_DIR}/{path.name} cannot be read ({exc.strerror}): skipped")
        return
    end = data.rfind(b"\n") + 1  # anything after the last newline is a torn write
    bad: list[tuple[int, str]] = []
    for number, line in enumerate(data[:end].split(b"\n")[:-1], 1):
        if not line.strip():
            continue
        record = _record(line, kind)
        if isinstance(record, str):
            bad.append((number, record))
        else:
            yield record
    if bad:
        number, why = bad[0]
        more = f", and {len(bad) - 1} more" if len(bad) > 1 else ""
        problems.append(
            f"{COMMUNITY_DIR}/{path.name}: skipped {len(bad)} bad "
            f"{'record' if len(bad) == 1 else 'records'} (line {number}: {why}{more})"
        )


@dataclass(frozen=True)
class Community:
    """Everything the community did so far, read once per frame."""

    posts: tuple[Post, ...] = ()
    comments: tuple[Comment, ...] = ()
    votes: tuple[Vote, ...] = ()
    follows: tuple[Follow, ...] = ()
    problems: tuple[str, ...] = ()  # one sentence per file with records that were skipped

    @classmethod
    def load(cls, root: Path) -> Community:
        folder = root / COMMUNITY_DIR
        problems: list[str] = []
        posts, comments, votes, follows = (
            tuple(_read(folder / f"{name}.jsonl", _KINDS[name], problems)) for name in FILES
        )
        return cls(posts, comments, votes, follows, problems=tuple(problems))

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
