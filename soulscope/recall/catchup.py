"""Dense search that catches up: what is ready answers now, embedding goes on elsewhere.

A first embedding of a large world takes many minutes on a CPU; nothing waits for it. A question is
answered with what is ready while the embedding cache lacks some of the index's texts, and the
embedding goes on in the background: in a thread of a long-lived process (``chat``, the dashboard) or in a process
of its own (``soulscope embed``, started by ``search`` and ``ask``). Either way every batch is cached
as it lands, so an interrupted embedding keeps what it did and the next one resumes there.

The embedding comes in stages (``catch_up``): with the bundled MiniLM, the static model distilled
from it (``static``) embeds every text first, in seconds, then MiniLM fills in behind. A question
is answered by the best stage whose vectors are all cached (``best_stage``): MiniLM, else the
static model, else BM25. Each stage is a new index (``RecallIndex.dense_copy``): one that a query
reads is never changed under it. With an ``[embeddings]`` endpoint there is one stage, its own.

One embedding per world (and encoder, and choice of agent) runs at a time: it holds a lock file in
the cache folder, and writes how far it got (and its error, if it failed) beside it, so that the
next question can say what is ready.
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path

from soulscope.atomic import write_atomic
from soulscope.config import Settings, cache_dir
from soulscope.keep import place_key
from soulscope.recall.background import check
from soulscope.recall.encoders import encoder_name, load_encoder, static_first
from soulscope.recall.hybrid import RecallIndex
from soulscope.recall.semantic import EmbeddingCache, EncoderError, text_digest
from soulscope.recall.static import STATIC_NAME, distilled, load_static
from soulscope.world import World

# Texts the configured encoder lacks from which distilling the static model first pays: distilling
# costs about what MiniLM takes for 2,000 texts on one core (bench/stages.py), so a smaller world
# is embedded by MiniLM sooner than the static model could be made. Once made it is always used.
DISTIL_FROM = 2_000
DISTILLING = "distilling"  # the stage while the static model is being distilled


@dataclass(frozen=True, slots=True)
class Readiness:
    """How much of an index's dense side the cache holds."""

    embedded: int
    total: int

    @property
    def ready(self) -> bool:
        return self.embedded >= self.total


def readiness(
    index: RecallIndex, model: str, cache: EmbeddingCache, digests: list[bytes] | None = None
) -> Readiness:
    """How many of ``index``'s distinct dense texts have vectors of ``model`` in ``cache``
    (``digests``: those texts' digests, when the caller has them)."""
    digests = digests or _digests(index)
    return Readiness(cache.count(model, digests), len(digests))


def _digests(index: RecallIndex) -> list[bytes]:
    return list(dict.fromkeys(text_digest(t) for t in index.dense_texts))


def best_stage(
    index: RecallIndex, settings: Settings, cache: EmbeddingCache
) -> tuple[str | None, Readiness]:
    """The name of the encoder whose vectors of every dense text of ``index`` are cached, the
    configured one before the static model (None: BM25 answers), and how far the configured one
    is."""
    final = encoder_name(settings)
    digests = _digests(index)
    ready = readiness(index, final, cache, digests)
    if ready.ready:
        return final, ready
    early = static_first(settings) and distilled()
    if early and readiness(index, STATIC_NAME, cache, digests).ready:
        return STATIC_NAME, ready
    return None, ready


StageProgress = Callable[[str, int, int], None]  # (stage, done, total): DISTILLING or a model


def catch_up(
    index: RecallIndex,
    settings: Settings,
    cache: EmbeddingCache,
    ready: Callable[[RecallIndex], None] | None = None,
    progress: StageProgress | None = None,
    stop: threading.Event | None = None,
) -> RecallIndex:
    """Embed ``index``'s dense texts stage by stage, each batch cached as it lands: the static
    model first (distilled when absent and the world is large enough, see ``DISTIL_FROM``), then
    the configured encoder. After each stage ``ready`` gets a new index that searches with it;
    ``index`` is left as it is. Returns the last one. The static stage failing (the table cannot
    be made or kept) leaves it out; the configured encoder failing raises ``EncoderError``.
    ``stop`` set, it raises ``background.Stopped`` at the next batch's end (or before loading
    the next model), what it cached kept."""
    final = encoder_name(settings)
    missing = readiness(index, final, cache)
    worth = distilled() or missing.total - missing.embedded >= DISTIL_FROM
    if static_first(settings) and not missing.ready and worth:
        try:
            static = load_static(_stage(progress, DISTILLING, stop))
            early = index.dense_copy(static, cache, _stage(progress, static.name, stop))
        except (EncoderError, OSError) as exc:
            cache.notes.append(f"the static model is left out ({exc})")
        else:
            if ready:
                ready(early)
    check(stop)
    encoder = load_encoder(settings)
    check(stop)
    last = index.dense_copy(encoder, cache, _stage(progress, encoder.name, stop))
    if ready:
        ready(last)
    return last


def _stage(
    progress: StageProgress | None, stage: str, stop: threading.Event | None = None
) -> Callable[[int, int], None] | None:
    """The progress of one stage; it raises ``Stopped`` between batches once ``stop`` is set."""
    if progress is None and stop is None:
        return None

    def report(done: int, total: int) -> None:
        check(stop)
        if progress is not None:
            progress(stage, done, total)

    return report


@dataclass(frozen=True, slots=True)
class Status:
    """What a background embedding last wrote: how far it got, or why it stopped."""

    done: int = 0
    total: int = 0
    error: str | None = None
    finished: bool = False
    stage: str = ""  # DISTILLING, or the name of the model embedding now


class Catchup:
    """The lock and status files of one world's embedding (for one encoder and choice of agent)."""

    def __init__(self, world: World, model: str, agent: str | None = None) -> None:
        key = place_key(model, world.memory_dir, world.only or "", agent or "")
        folder = cache_dir() / "embedding"
        self.lock_path = folder / f"{key}.lock"
        self.status_path = folder / f"{key}.json"

    def status(self) -> Status | None:
        try:
            data = json.loads(self.status_path.read_text(encoding="utf-8"))
            return Status(
                int(data["done"]),
                int(data["total"]),
                data.get("error"),
                bool(data["finished"]),
                str(data.get("stage") or ""),
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
