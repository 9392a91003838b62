"""The static model distilled from the packaged MiniLM: what it gives and what it reads. The model
is distilled once per test run (``static_distilled`` in conftest: about a minute on one core)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from soulscope.recall.semantic import LOCAL_NAME, EmbeddingCache, embed, model_path
from soulscope.recall.static import STATIC_NAME, StaticModel, load_static, tokenizer
from tests.conftest import Distilled

pytestmark = pytest.mark.slow  # distils the static model once, loads MiniLM

LIKE = ("Ada wrote the guide to the index.", "The index guide was written by Ada.")
UNLIKE = "Rain fell on the harbour all afternoon."


def test_vectors_are_unit_length_deterministic_and_near_for_like_texts(static_model) -> None:
    model = StaticModel()
    texts = [*LIKE, UNLIKE, "", "a lone surrogate \udcff in a soul file", "word " * 5000]
    vectors = model.encode(texts)
    assert vectors.dtype == np.float32 and vectors.shape[0] == len(texts)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert np.array_equal(vectors, StaticModel().encode(texts))  # a second load, the same
    assert np.array_equal(vectors[1:3], model.encode(texts[1:3]))  # in any batch
    like, unlike = vectors[0] @ vectors[1], vectors[0] @ vectors[2]
    assert like > unlike + 0.3, (like, unlike)


def test_a_text_is_read_without_padding() -> None:
    # The package's tokenizer.json pads every text to 128 pieces: the static model's does not.
    assert len(tokenizer().encode("the index guide", add_special_tokens=False).ids) == 3


def test_distilling_reads_the_packaged_model_and_never_the_network(
    static_distilled: Distilled,
) -> None:
    assert static_distilled.network == []
    package = model_path().resolve()
    read = {p.resolve() for p in static_distilled.opened}
    assert package / "model.safetensors" in read and package / "config.json" in read
    models = [p for p in read if p.suffix in (".safetensors", ".bin", ".onnx", ".pt", ".gguf")]
    assert all(p.is_relative_to(package) for p in models), models


def test_vectors_of_the_two_models_never_mix_in_the_cache(
    static_model, minilm, tmp_path: Path
) -> None:
    static, cache = load_static(distil_absent=False), EmbeddingCache(tmp_path / "e.sqlite3")
    texts = [*LIKE, UNLIKE]
    mine = embed(texts, static, cache)
    assert static.name == STATIC_NAME != minilm.name == LOCAL_NAME
    before = minilm.texts_encoded
    theirs = embed(texts, minilm, cache)  # nothing of the static model's is taken for MiniLM's
    assert minilm.texts_encoded - before == len(texts)
    assert mine.shape[1] != theirs.shape[1]
    again = StaticModel()  # (a fresh one: nothing is encoded, all is read from the cache)
    assert np.array_equal(embed(texts, again, cache), mine) and again.texts_encoded == 0
    assert np.allclose(embed(texts, minilm, cache), theirs)
