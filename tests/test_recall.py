"""Retrieval: chunks that cite frames, BM25 and its quirks, MiniLM, the cache, fusion and filters."""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path

import numpy as np
import pytest
from rank_bm25 import BM25Okapi, BM25Plus

from soulscope.atomic import append_atomic
from soulscope.config import load_settings
from soulscope.recall.chunks import Chunk, chunk_soul
from soulscope.recall.hybrid import FrameRange, RecallError, RecallIndex, bfloat16_product
from soulscope.recall.lexical import LexicalIndex, tokenize
from soulscope.recall.semantic import EmbeddingCache, EncoderError, pick_device, verify_weights
from soulscope.world import World
from tests.support.paths import corpus_dir


def test_tokenizer_keeps_thread_numbers_and_agent_ids() -> None:
    tokens = tokenize("Replied to zion-coder-06 on #7448, see #7422.")
    assert {"#7448", "7448", "#7422", "zion-coder-06", "coder"} <= set(tokens)
    assert "to" not in tokens and "on" not in tokens


def test_bm25_matches_other_forms_of_a_word() -> None:
    # "started" / "starts", "tombstones" / "tombstone": stemmed alike, so either form finds the other
    assert tokenize("who started arguing for tombstones") == tokenize("who starts argue tombstone")
    index = RecallIndex(
        [
            Chunk("a", "frame", "Frame 1", 1, "x", bullets=("- Argued for a tombstone policy",)),
            Chunk("a", "frame", "Frame 2", 5, "x", bullets=("- Voted on the archive",)),
        ]
    )
    hits = index.search("who argues for tombstones", mode="bm25")
    assert [h.chunk.heading for h in hits] == ["Frame 1"]


def test_every_chunk_names_its_frame(later_world: Path) -> None:
    world = World.open(later_world)
    soul = world.read("zion-coder-06")
    chunks = chunk_soul(soul, "zion-coder-06", max_chars=300)
    frame_chunks = [c for c in chunks if c.kind == "frame"]
    assert {c.frame_index for c in frame_chunks} == set(range(len(soul.frames)))
    split = [c for c in frame_chunks if c.part > 0]
    assert split, "a 300-character budget must split some frames"
    for c in split:
        frame = soul.frames[c.frame_index]
        assert c.text.startswith(frame.heading)  # the heading is repeated in every part
        assert frame.line < c.line <= frame.end_line
        assert c.citation == f"[zion-coder-06 · frame {frame.label} · {frame.date}]"
    identity = next(c for c in chunks if c.heading == "Identity")
    assert (
        identity.text.startswith("# Rustacean")
        and identity.citation == "[zion-coder-06 · Identity]"
    )


def test_bm25_numbers_are_rank_bm25s_and_common_words_still_count() -> None:
    docs = [tokenize(t) for t in ["rust ownership", "rust borrow checker", "python", "go"]]
    ours = LexicalIndex(docs)
    query = tokenize("rust ownership")
    reference = BM25Plus(docs, k1=ours.k1).get_scores(query)
    constant = sum(BM25Plus(docs).idf[t] for t in query)  # BM25Plus's idf * delta per term
    assert np.allclose(ours.scores(query) + constant, reference)
    # "rust" is in half of the documents: BM25Okapi's IDF for it is zero, so it cannot tell
    # the documents that mention rust from those that do not. Ours can.
    okapi = BM25Okapi(docs).get_scores(["rust"])
    assert okapi[0] == okapi[2] == 0
    rust = ours.scores(["rust"])
    assert rust[0] > 0 and rust[1] > 0 and rust[2] == rust[3] == 0


def test_empty_corpus_and_empty_documents_match_nothing() -> None:
    assert RecallIndex([]).search("anything", mode="bm25") == []
    assert LexicalIndex([[], []]).scores(["x"]).tolist() == [0.0, 0.0]


def test_bm25_finds_a_thread_number_and_filters_apply(later_world: Path) -> None:
    index = RecallIndex.for_world(World.open(later_world))
    hits = index.search("#10751", k=3, mode="bm25")
    assert hits[0].chunk.agent == "zion-reviewer-01" and hits[0].chunk.number == 406
    mine = index.search("ownership", k=50, mode="bm25", agent="zion-coder-06")
    assert mine and {h.chunk.agent for h in mine} == {"zion-coder-06"}
    ranged = index.search("ownership", k=50, mode="bm25", frames=FrameRange.parse("220-225"))
    assert ranged and all(220 <= h.chunk.number <= 225 for h in ranged)
    assert index.search("ownership", mode="bm25", agent="nobody") == []


def test_frame_range_parsing() -> None:
    assert FrameRange.parse("220-240") == FrameRange(220, 240)
    assert FrameRange.parse("231") == FrameRange(231, 231)
    assert FrameRange.parse("-240") == FrameRange(None, 240)
    with pytest.raises(RecallError, match="not a frame range"):
        FrameRange.parse("soon")


def test_dense_mode_without_the_model_says_so(later_world: Path) -> None:
    index = RecallIndex.for_world(World.open(later_world))
    with pytest.raises(RecallError, match="needs the embedding model"):
        index.search("ownership", mode="hybrid")
    with pytest.raises(RecallError, match="unknown search mode"):
        index.search("ownership", mode="fuzzy")


@pytest.mark.slow
def test_dense_finds_a_paraphrase_that_bm25_misses(later_index: RecallIndex) -> None:
    index = later_index  # the later world, embedded once for the module
    query = "someone obsessed with preventing crashes caused by unsafe pointers"
    header = {"Identity", "Interests", "Convictions"}
    dense = index.search(query, k=3, mode="dense")
    assert {h.chunk.agent for h in dense} == {"zion-coder-06"}
    assert {h.chunk.heading for h in dense} <= header
    lexical = index.search(query, k=3, mode="bm25")
    assert not {h.chunk.heading for h in lexical} & header
    fused = index.search(query, k=10, mode="hybrid")
    assert any(h.chunk.heading in header for h in fused)
    best = [h.best.lower() for h in dense]  # the bullet that found each hit
    assert any("memory safety" in b or "undefined behavior" in b for b in best), best


@pytest.mark.slow
def test_reopening_embeds_nothing_and_a_new_frame_embeds_only_its_bullets(
    later_world: Path, tmp_path: Path, minilm
) -> None:
    shutil.copytree(later_world, tmp_path / "w")
    world = World.open(tmp_path / "w")
    cache = EmbeddingCache(tmp_path / "cache.sqlite3")
    start = minilm.texts_encoded
    first = RecallIndex.for_world(world)
    first.attach(minilm, cache)
    assert minilm.texts_encoded - start == len(set(first.dense_texts))

    before = minilm.texts_encoded
    again = RecallIndex.for_world(World.open(tmp_path / "w"))
    again.attach(minilm, cache)
    assert minilm.texts_encoded == before
    assert np.array_equal(again.vectors, first.vectors)

    entry = (
        "\n## Frame 999 — 2026-04-20\n- Wrote a lifetime checker for the governance diffs.\n"
        "- Becoming: the lifetime auditor. From owner to auditor.\n"
    )
    append_atomic(world.soul_path("zion-coder-09"), entry.encode())
    grown = RecallIndex.for_world(World.open(tmp_path / "w"))
    grown.attach(minilm, cache)
    assert minilm.texts_encoded == before + 2  # the new frame's two bullets, nothing else
    assert grown.search("lifetime auditor", k=1, mode="dense")[0].chunk.number == 999


def test_weights_are_checked_once(tmp_path: Path) -> None:
    weights = tmp_path / "model.safetensors"
    weights.write_bytes(b"weights v1")
    digest = hashlib.sha256(b"weights v1").hexdigest()
    verify_weights(tmp_path, expected=digest)
    # Same size and time: the cached verdict stands, the file is not read again.
    stat = weights.stat()
    weights.write_bytes(b"weights v2")
    os.utime(weights, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    verify_weights(tmp_path, expected=digest)
    # A newer file is hashed again, and a tampered one refused.
    os.utime(weights, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))
    with pytest.raises(EncoderError, match="do not match the expected sha256"):
        verify_weights(tmp_path, expected=digest)
    with pytest.raises(EncoderError, match="missing"):
        verify_weights(tmp_path / "absent", expected=digest)


def test_the_installed_weights_match_the_published_digest() -> None:
    from soulscope.recall.semantic import model_path

    verify_weights(model_path())


def test_device_choice(monkeypatch: pytest.MonkeyPatch) -> None:
    import torch

    assert pick_device("cpu") == "cpu"
    monkeypatch.setenv("SOULSCOPE_DEVICE", "cpu")
    assert pick_device(load_settings().embed_device) == "cpu"
    with pytest.raises(EncoderError, match="unknown embedding device 'tpu'"):
        pick_device("tpu")
    if not torch.cuda.is_available():
        with pytest.raises(EncoderError, match="CUDA is not available"):
            pick_device("cuda")
    monkeypatch.delenv("SOULSCOPE_DEVICE")
    expected = (
        "cuda"
        if torch.cuda.is_available()
        else "mps"
        if torch.backends.mps.is_available()
        else "cpu"
    )
    assert pick_device() == expected


@pytest.fixture(scope="module")
def later_index(tmp_path_factory, minilm) -> RecallIndex:
    root = corpus_dir("rappterbook-later")
    index = RecallIndex.for_world(World.open(root))
    index.attach(minilm, EmbeddingCache(tmp_path_factory.mktemp("cache") / "e.sqlite3"))
    return index


QUESTIONS = [  # real questions about the real files, and the frame that answers each
    ("who proposed an ownership model for types.py?", "zion-coder-06", 220),
    ("which agent reads the source code before joining a debate?", "zion-coder-09", 491),
    ("what did the reviewer find in governance_diff.rs?", "zion-reviewer-01", 406),
    ("who was challenged about the missing resolution pipeline?", "zion-coder-06", 221),
]


@pytest.mark.slow
@pytest.mark.parametrize(("question", "agent", "frame"), QUESTIONS)
def test_real_questions_find_the_frame_that_answers(
    later_index: RecallIndex, question: str, agent: str, frame: int
) -> None:
    hits = later_index.search(question, k=3)
    cited = [(h.chunk.agent, h.chunk.number) for h in hits]
    assert (agent, frame) in cited, cited
    answer = next(h for h in hits if (h.chunk.agent, h.chunk.number) == (agent, frame))
    assert answer.chunk.citation.startswith(f"[{agent} · frame {frame}")


def test_the_bfloat16_product_finds_what_float32_finds(later_index: RecallIndex, minilm) -> None:
    """A large world's dense side may read a bfloat16 copy of the matrix (where the CPU
    multiplies it faster): real questions still cite the same frames."""
    half = RecallIndex(later_index.chunks)
    half.attach(minilm, vectors=later_index.vectors)
    half._product = bfloat16_product(half.vectors)
    for question, agent, _ in QUESTIONS:
        for scope in ({}, {"agent": agent}, {"frames": FrameRange(215, 500)}):
            full = [h.chunk.id for h in later_index.search(question, k=5, **scope)]
            assert [h.chunk.id for h in half.search(question, k=5, **scope)][:3] == full[:3]


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["hybrid", "bm25", "dense"])
def test_the_first_hits_do_not_depend_on_k(later_index: RecallIndex, mode: str) -> None:
    for question, agent, _ in QUESTIONS:
        for scope in ({}, {"agent": agent}, {"frames": FrameRange(215, 500)}):
            wide = later_index.search(question, k=50, mode=mode, **scope)
            for k in (1, 3, 10):
                narrow = later_index.search(question, k=k, mode=mode, **scope)
                assert [(h.chunk.id, h.score) for h in narrow] == [
                    (h.chunk.id, h.score) for h in wide[:k]
                ]


def test_frames_of_one_day_are_cited_apart_by_their_time() -> None:
    """Early-era frames carry a date and a time, no number: an answer cites each by both, as
    the why dossier does, not four frames of a day by the day alone."""
    from soulscope.soul.parse import parse

    text = (
        "# Coder\n\n## Frame 2026-03-13 (05:00 UTC)\n- Mapped the grammar.\n\n"
        "## Frame 2026-03-13 (14:00 UTC)\n- Formalized decidability.\n\n"
        "## Frame 2026-03-13\n- A day's note.\n"
    )
    cites = [c.citation for c in chunk_soul(parse(text, "zion-coder-04"), "zion-coder-04")]
    frames = [c for c in cites if "frame" in c]
    assert frames == [
        "[zion-coder-04 · frame 2026-03-13 05:00]",
        "[zion-coder-04 · frame 2026-03-13 14:00]",
        "[zion-coder-04 · frame 2026-03-13]",
    ]
