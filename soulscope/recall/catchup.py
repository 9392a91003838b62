"""Dense search that catches up: what is ready answers now, embedding goes on elsewhere.

A first embedding of a large world takes many minutes on a CPU; nothing waits for it. A question is
answered with BM25 while the embedding cache lacks some of the index's texts, and the embedding goes
on in the background: in a thread of a long-lived process (``chat``, the dashboard) or in a process
of its own (``soulscope embed``, started by ``search`` and ``ask``). Either way every batch is cached
as it lands, so an interrupted embedding keeps what it did and the next one resumes there.

One embedding per world (and encoder, and choice of agent) runs at a time: it holds a lock file in
the cache folder, and writes how far it got (and its error, if it failed) beside it, so that the
next question can say what is ready.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path

from soulscope.atomic import write_atomic
from soulscope.config import cache_dir
from soulscope.recall.hybrid import RecallIndex
from soulscope.recall.semantic import EmbeddingCache, text_digest
from soulscope.world import World


@dataclass(frozen=True, slots=True)
class Readiness:
    """How much of an index's dense side the cache holds."""

    embedded: int
    total: int

    @property
    def ready(self) -> bool:
        return self.embedded >= self.total


def readiness(index: RecallIndex, model: str, cache: EmbeddingCache) -> Readiness:
    """How many of ``index``'s distinct dense texts have vectors of ``model`` in ``cache``."""
    digests = list(dict.fromkeys(text_digest(t) for t in index.dense_texts))
    return Readiness(cache.count(model, digests), len(digests))


@dataclass(frozen=True, slots=True)
class Status:
    """What a background embedding last wrote: how far it got, or why it stopped."""

    done: int = 0
    total: int = 0
    error: str | None = None
    finished: bool = False


class Catchup:
    """The lock and status files of one world's embedding (for one encoder and choice of agent)."""

    def __init__(self, world: World, model: str, agent: str | None = None) -> None:
        place = f"{model}\0{world.memory_dir}\0{world.only or ''}\0{agent or ''}"
        key = hashlib.sha256(place.encode("utf-8", "surrogatepass")).hexdigest()[:24]
        folder = cache_dir() / "embedding"
        self.lock_path = folder / f"{key}.lock"
        self.status_path = folder / f"{key}.json"

    def status(self) -> Status | None:
        try:
            data = json.loads(self.status_path.read_text(encoding="utf-8"))
            return Status(
                int(data["done"]), int(data["total"]), data.get("error"), bool(data["finished"])
            )
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def write(self, status: Status) -> None:
        with contextlib.suppress(OSError):
            self.status_path.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(self.status_path, json.dumps(asdict(status)).encode(), sync=False)

    def running(self) -> bool:
        """Whether an embedding holds the lock now."""
        with self.held() as mine:
            return not mine

    @contextlib.contextmanager
    def held(self) -> Iterator[bool]:
        """Take the lock without waiting: yields whether it is ours (False: another holds it)."""
        try:
            import fcntl
        except ImportError:  # no advisory locks here: every embedding runs
            yield True
            return
        try:
            self.lock_path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.lock_path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError:
            yield True  # an unwritable cache folder: nothing to share the work through
            return
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                yield False
                return
            try:
                yield True
            finally:
                fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            os.close(fd)


def log_path() -> Path:
    """Where background embeddings write what they say (their errors, mostly)."""
    return cache_dir() / "embedding" / "background.log"
