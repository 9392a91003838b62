"""What a user says is never lost to deduplication: an embeddings endpoint that gives near-identical
vectors for everything (a lying server, a collapsed model) must not make distinct facts
duplicates; a fact left out as a repeat is named, with the fact it repeats."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from soulscope.chat.distill import Distiller, DistillSettings
from tests.faults.conftest import Run
from tests.support.embedding_server import EmbeddingServer
from tests.support.users import users_folder

FACTS = [
    "I keep bees on a roof in Porto.",
    "My sister Ines teaches chemistry in Braga.",
    "I restore old motorbikes on weekends.",
    "My cat is named Pixel.",
    "I am training for a marathon in April.",
    "Our bakery opens at six every morning.",
    "I learned Dutch while living in Utrecht.",
    "My favourite composer is Arvo Part.",
    "I repair clocks for the village museum.",
    "My daughter plays the cello in an orchestra.",
    "We grow tomatoes and basil on the balcony.",
    "I drive a green van to the market on Saturdays.",
]


def near_identical(texts: Sequence[str]) -> np.ndarray:
    """Vectors all within a hair of one another: every cosine above 0.999."""
    rng = np.random.default_rng(len(texts))
    return np.ones((len(texts), 16)) + rng.normal(0, 1e-3, (len(texts), 16))


class Collapsed:
    name = "collapsed"
    device = "cpu"

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        rows = near_identical(texts)
        return (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)


def test_distinct_facts_with_near_identical_vectors_are_all_kept(
    world: Path, soulscope: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    with EmbeddingServer(near_identical) as server:
        monkeypatch.setenv("SOULSCOPE_EMBED_BASE_URL", server.base_url)
        monkeypatch.setenv("SOULSCOPE_EMBED_MODEL", "minilm")
        code, out, err = soulscope(
            "chat", "--user", "u", "-w", str(world), stdin="".join(f + "\n" for f in FACTS)
        )
    assert code == 0, err
    kept = (users_folder(world) / "u.txt").read_text()
    assert [f for f in FACTS if f not in kept] == []


def test_a_repeat_is_left_out_only_when_its_words_say_it_too(tmp_path: Path) -> None:
    d = Distiller(tmp_path, "ann", encoder=Collapsed(), settings=DistillSettings(interval=2))
    for text in ["My cat is named Pixel.", "I keep bees on a roof in Porto."]:
        d.add("user", text)
    d.flush()
    for text in ["my cat is named pixel", "My cat is called Pixel.", "I sing in a choir."]:
        d.add("user", text)
    d.flush()
    facts = [f for b in d.blocks() for f in b.facts]
    assert "I sing in a choir." in facts and "My cat is called Pixel." not in facts
    assert [fact for fact, _ in d.duplicates] == [
        "my cat is named pixel",
        "My cat is called Pixel.",
    ]
    assert {same for _, same in d.duplicates} == {"My cat is named Pixel."}


def test_the_chat_command_names_what_it_did_not_write_again(world: Path, soulscope: Run) -> None:
    talk = "My cat is named Pixel.\nI sing in a choir.\n"
    soulscope("chat", "--user", "u", "-w", str(world), "--mode", "bm25", stdin=talk)
    code, out, err = soulscope(
        "chat", "--user", "u", "-w", str(world), "--mode", "bm25", stdin=talk
    )
    assert code == 0, err
    assert "'My cat is named Pixel.' repeats 'My cat is named Pixel.'" in err
