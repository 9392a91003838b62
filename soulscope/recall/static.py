"""A static embedding model distilled from the bundled MiniLM: dense search within seconds.

Each word piece of MiniLM's vocabulary is read once by MiniLM itself (``[CLS] piece [SEP]``, the
mean of its output), the table is centred and cut to its ``DIMENSIONS`` principal components, and
each row is weighted down by how common its piece is (SIF weighting, a piece's frequency taken
from its rank in the vocabulary, Zipf's law). A text is then the mean of its pieces' rows, scaled
to unit length: no network of layers runs, so a world of 38,000 bullets is embedded in seconds
where MiniLM takes a quarter of an hour. This is model2vec's recipe (Tulkens and van Dongen, 2024),
written out here in numpy and ``tokenizers`` so that encoding never imports torch.

The table is distilled on this machine, from the packaged MiniLM's files only (never from the
network), into the cache folder, named by the MiniLM weights' digest and ``RECIPE``: a minute or
two on one core, done by the background embedding (``catchup``), never while a question waits.

On LoCoMo (bench/locomo.py) it keeps hybrid search close to MiniLM's (recall@10 0.754 against
0.772), so it answers while MiniLM's vectors are being made, and hands over to MiniLM when they are.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from soulscope.config import cache_dir
from soulscope.keep import STATIC_MODEL
from soulscope.keep.entries import read_entry, write_entry
from soulscope.recall.semantic import (
    LOCAL_NAME,
    WEIGHTS_SHA256,
    EncoderError,
    Progress,
    model_path,
    readable,
    verify_weights,
)

DIMENSIONS = 256  # principal components kept (MiniLM has 384): recall as with 384, a third less
SIF = 1e-3  # SIF weighting: a piece of probability p weighs SIF / (SIF + p)
RECIPE = "static-v1"  # changes with the recipe above: the cache then holds both models apart
STATIC_NAME = f"{LOCAL_NAME}/{RECIPE}"  # the static model's vectors in the embedding cache
BATCH = 256  # vocabulary pieces per forward pass while distilling
ENCODE_BATCH = 1024  # texts gathered at once while encoding (their rows, not the table, in memory)
_UNUSED = re.compile(r"\[unused\d+\]")  # placeholders in BERT's vocabulary, never produced


def static_path() -> Path:
    """Where the distilled table of the installed MiniLM lives."""
    return cache_dir() / "models" / f"{RECIPE}-{WEIGHTS_SHA256[:16]}.table"


def tokenizer() -> Any:
    """MiniLM's own tokenizer, as the static model reads it: no padding, no truncation, no
    ``[CLS]``/``[SEP]``. (The package's ``tokenizer.json`` pads every text to 128 pieces.)"""
    from tokenizers import Tokenizer

    try:
        tok = Tokenizer.from_file(str(model_path() / "tokenizer.json"))
    except Exception as exc:  # (tokenizers raises plain Exceptions)
        raise EncoderError(f"the embedding model's tokenizer cannot be read ({exc})") from exc
    tok.no_padding()
    tok.no_truncation()
    return tok


def distil(path: Path | None = None, progress: Progress | None = None) -> Path:
    """Distil the static model from the packaged MiniLM into ``path`` (default ``static_path()``).

    Needs torch and transformers (MiniLM reads every piece of its vocabulary once); runs on half
    of torch's threads, as MiniLM's batches do. ``progress(done, total)`` counts pieces."""
    path = path or static_path()
    folder = model_path()
    verify_weights(folder)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    import torch
    from transformers import AutoModel
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()
    hf_logging.set_verbosity_error()
    tok = tokenizer()
    vocabulary = tok.get_vocab_size()
    used = np.array([not _UNUSED.fullmatch(tok.id_to_token(i) or "") for i in range(vocabulary)])
    pieces = torch.from_numpy(np.flatnonzero(used))
    cls, sep = tok.token_to_id("[CLS]"), tok.token_to_id("[SEP]")
    model = AutoModel.from_pretrained(str(folder), local_files_only=True).eval()
    threads = torch.get_num_threads()
    torch.set_num_threads(max(1, threads // 2))  # (see MiniLM: two threads wait on each other)
    rows = np.zeros((len(pieces), model.config.hidden_size), dtype=np.float32)
    try:
        with torch.inference_mode():
            for lo in range(0, len(pieces), BATCH):
                ids = pieces[lo : lo + BATCH]
                x = torch.stack([torch.full_like(ids, cls), ids, torch.full_like(ids, sep)], 1)
                out = model(
                    input_ids=x, attention_mask=torch.ones_like(x), token_type_ids=x * 0
                ).last_hidden_state
                rows[lo : lo + len(ids)] = out.mean(dim=1).float().numpy()
                if progress:
                    progress(lo + len(ids), len(pieces))
    finally:
        torch.set_num_threads(threads)
    table = np.zeros((vocabulary, DIMENSIONS), dtype=np.float32)
    table[used] = _weighted(_principal(rows, DIMENSIONS))
    buffer = io.BytesIO()
    np.save(buffer, table.astype(np.float16))
    write_entry(path, STATIC_MODEL.name, _key(), buffer.getvalue())
    return path


def _key() -> str:
    """What the table is made from: the recipe and the MiniLM weights' digest (its entry
    header says so, with the table's own sha256, checked on every load)."""
    return f"{RECIPE}-{WEIGHTS_SHA256}"


def _principal(rows: np.ndarray, k: int) -> np.ndarray:
    """``rows`` centred and projected onto their ``k`` principal components."""
    wide = rows.astype(np.float64)
    centred = wide - wide.mean(axis=0)
    _, vectors = np.linalg.eigh(centred.T @ centred)  # ascending eigenvalues
    return (centred @ vectors[:, ::-1][:, :k]).astype(np.float32)


def _weighted(rows: np.ndarray) -> np.ndarray:
    """Rows weighted by SIF, the ``r``-th piece's probability taken as ``1 / (r + 1)`` (Zipf)."""
    inverse = 1.0 / np.arange(2, len(rows) + 2)
    probability = inverse / inverse.sum()
    return (rows * (SIF / (SIF + probability))[:, None]).astype(np.float32)


class StaticModel:
    """An :class:`~soulscope.recall.semantic.Encoder` over the distilled table (numpy only)."""

    name = STATIC_NAME
    device = "cpu"

    def __init__(self, path: Path | None = None) -> None:
        path = path or static_path()
        self._tok = tokenizer()
        kept = read_entry(path, STATIC_MODEL.name, _key())  # (its checksum checked)
        if kept.payload is None:
            raise EncoderError(
                f"the static model {path} cannot be read ({kept.problem or 'absent'})"
            )
        try:
            table = np.load(io.BytesIO(kept.payload), allow_pickle=False)
        except (OSError, ValueError, EOFError) as exc:
            raise EncoderError(f"the static model {path} cannot be read ({exc})") from exc
        if table.shape != (self._tok.get_vocab_size(), DIMENSIONS) or not np.all(
            np.isfinite(table)
        ):
            raise EncoderError(f"the static model {path} is not one (shape {table.shape})")
        self._table = table.astype(np.float32)
        self._unknown = self._tok.token_to_id("[UNK]")
        self.texts_encoded = 0

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), DIMENSIONS), dtype=np.float32)
        for lo in range(0, len(texts), ENCODE_BATCH):
            batch = [readable(t) for t in texts[lo : lo + ENCODE_BATCH]]
            encodings = self._tok.encode_batch(batch, add_special_tokens=False)
            for row, e in enumerate(encodings, lo):
                # (text by text: a text's rows stay in the CPU's cache, 3x faster than one gather)
                ids = [i for i in e.ids if i != self._unknown] or [self._unknown]
                out[row] = self._table[ids].sum(axis=0)
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        out /= np.where(norms > 0, norms, 1.0)
        self.texts_encoded += len(texts)
        return out


_loaded: dict[Path, StaticModel] = {}  # by the table's path (the cache folder may change)
_loading = threading.Lock()


def distilled() -> bool:
    """Whether the static model is in the cache folder (it may still prove unreadable)."""
    return static_path().is_file()


def load_static(progress: Progress | None = None, distil_absent: bool = True) -> StaticModel:
    """The static model, shared by the process; distilled first when absent (and
    ``distil_absent``). One process distils at a time: another waits for its table."""
    path = static_path()
    with _loading:
        model = _loaded.get(path)
        if model is not None and path.is_file():
            return model
        with _file_lock(path.with_suffix(".lock")):
            try:
                model = StaticModel(path)
            except EncoderError:
                if not distil_absent:
                    raise
                path.unlink(missing_ok=True)  # absent or unreadable: made again
                distil(path, progress)
                model = StaticModel(path)
        _loaded[path] = model
        return model


@contextlib.contextmanager
def _file_lock(path: Path):  # noqa: ANN202
    """Hold an advisory lock on ``path``, waiting for it (none where there are none)."""
    try:
        import fcntl
    except ImportError:
        yield
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError:
        yield
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)
