"""The static model distilled from the packaged MiniLM: what it gives, what it reads, and the stage
it answers in before MiniLM's vectors are all made. The model is distilled once per test run
(``static_distilled`` in conftest: about a minute on one core)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from soulscope.config import load_settings
from soulscope.recall.catchup import catch_up, readiness
from soulscope.recall.hybrid import RecallIndex
from soulscope.recall.semantic import LOCAL_NAME, EmbeddingCache, embed, model_path
from soulscope.recall.static import STATIC_NAME, StaticModel, load_static, tokenizer
from soulscope.world import World
from tests.support.models import Distilled
from tests.support.paths import ROOT
from tests.support.worlds import ADA, BO, CY, write_world

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


@pytest.fixture
def world(tmp_path: Path) -> Path:
    return write_world(tmp_path / "world", {"ada-01": ADA, "bo-02": BO, "cy-03": CY})


def test_the_static_stage_answers_before_minilm_has_embedded_anything(
    world: Path, static_model
) -> None:
    index, cache = RecallIndex.for_world(World.open(world)), EmbeddingCache()
    stages: list[tuple[str | None, int, str]] = []

    def ready(staged: RecallIndex) -> None:
        minilm = readiness(index, LOCAL_NAME, cache).embedded
        hit = staged.search("who wrote the index guide?", k=1)[0]
        stages.append((staged.model, minilm, hit.chunk.agent))

    last = catch_up(index, load_settings(), cache, ready)
    total = readiness(index, LOCAL_NAME, cache).total
    assert stages == [(STATIC_NAME, 0, "ada-01"), (LOCAL_NAME, total, "ada-01")]
    assert last.model == LOCAL_NAME and index.model is None  # each stage a new index


def run(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "soulscope", *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=300,
    )


def static_stage(world: Path) -> None:
    """The static model's vectors of every text, cached (what the catch-up's first stage does)."""
    RecallIndex.for_world(World.open(world)).dense_copy(load_static(), EmbeddingCache())


def test_search_and_ask_say_the_static_model_answered(world: Path, static_model) -> None:
    static_stage(world)
    early = run("search", "the index guide", "-w", str(world), "--json")
    assert early.returncode == 0, early.stderr
    assert json.loads(early.stdout)[0]["agent"] == "ada-01"
    assert "answered with hybrid search on the static model while MiniLM is not ready" in (
        early.stderr
    )
    asked = run("ask", "--json", "-w", str(world), "ada-01", "the index guide")
    answer = json.loads(asked.stdout)
    assert (answer["mode"], answer["model"]) == ("hybrid", STATIC_NAME)
    assert answer["dense"]["embedded"] == 0  # MiniLM's


def test_chat_answers_from_the_static_model_while_minilm_loads(world: Path, static_model) -> None:
    static_stage(world)
    out = run("chat", "--user", "ann", "-w", str(world), stdin="who wrote the index guide?\n")
    assert out.returncode == 0, out.stderr
    assert "[ada-01 · frame 3 · 2026-03-03]" in out.stdout
    said = [line for line in out.stderr.splitlines() if "answered with" in line]
    assert said and said[0].startswith("soulscope: answered with hybrid (static model); "), said
