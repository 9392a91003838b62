"""The lexical index that persists: soul files prepared once per content, BM25 unchanged."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np
import pytest
from rank_bm25 import BM25Plus

from soulscope.recall import lexical, prepared
from soulscope.recall.chunks import chunk_soul, units_of
from soulscope.recall.hybrid import RecallIndex
from soulscope.recall.lexical import K1, LexicalIndex, TermCounts, tokenize
from soulscope.recall.prepared import PreparedCache, unit_counts
from soulscope.world import World
from tests.support.cli import soulscope
from tests.support.worlds import ADA, BO, CY, write_world

QUERIES = ["who argued about governance", "#5585", "the first post about karma", "rust ownership"]


def rank_bm25_postings(documents: list[list[str]]) -> tuple[dict, dict]:
    """The postings as they were built before term counts: from rank-bm25's BM25Plus."""
    bm25 = BM25Plus(documents, k1=K1)
    norm = K1 * (1 - 0.75 + 0.75 * np.asarray(bm25.doc_len, dtype=np.float64) / bm25.avgdl)
    rows: dict[str, list[int]] = {}
    freqs: dict[str, list[int]] = {}
    for row, counts in enumerate(bm25.doc_freqs):
        for term, tf in counts.items():
            rows.setdefault(term, []).append(row)
            freqs.setdefault(term, []).append(tf)
    out = {}
    for term, found in rows.items():
        r = np.asarray(found, dtype=np.int64)
        tf = np.asarray(freqs[term], dtype=np.float64)
        out[term] = (r, bm25.idf[term] * tf * (K1 + 1) / (norm[r] + tf))
    return bm25.idf, out


def reference_tokenize(text: str) -> list[str]:
    """The tokenizer as it was, token by token (the kept expansions must change nothing)."""
    out: list[str] = []
    for match in lexical._TOKEN.finditer(text.lower()):
        token = match.group()
        if token.startswith("#"):
            out += (token, token[1:])
            continue
        if token in lexical.STOPWORDS:
            continue
        out.append(lexical.stem(token))
        if lexical._JOINERS.search(token):
            out += [
                lexical.stem(p)
                for p in lexical._JOINERS.split(token)
                if p and p not in lexical.STOPWORDS
            ]
    return out


def test_tokens_are_the_same_as_the_tokenizer_of_old(early_world: Path) -> None:
    world = World.open(early_world)
    texts = [world.source(a.id).decode("utf-8", "replace") for a in world.agents()[:40]]
    texts += ["#7448 zion-coder-06 v1.2 the_end don't ΑΣ Straße", "", "#", "a-b-c.d_e"]
    for text in texts:
        for line in text.splitlines():
            assert tokenize(line) == reference_tokenize(line), line


# Forms the corpus may lack: other verbs and endings, accents, other scripts, odd lengths.
STEM_FORMS = (
    "running ran argued arguing governance governed generously skies dying lying news"
    " ownership owned naïveté straße ασ cañones école fiancées dreamt hoping hopped"
    " agreed feed sky sly a y yy consign consigned consigning generate generically"
)


def test_the_compiled_stemmer_stems_as_snowballs_own(early_world: Path) -> None:
    import Stemmer
    from snowballstemmer.english_stemmer import EnglishStemmer

    assert isinstance(lexical._stemmer(), Stemmer.Stemmer)  # Snowball's C code, not Python
    reference = EnglishStemmer()  # the pure-Python Snowball that stemmed before
    world = World.open(early_world)
    words = set(STEM_FORMS.split())
    for a in world.agents()[:30]:
        words.update(lexical._TOKEN.findall(world.source(a.id).decode("utf-8", "replace").lower()))
    for word in words:
        assert lexical.stem(word) == (reference.stemWord(word) if word.isalpha() else word), word


@pytest.mark.slow
def test_bm25_from_counts_is_rank_bm25s_to_the_last_bit(early_world: Path) -> None:
    world = World.open(early_world)
    chunks = [c for a in world.agents() for c in chunk_soul(world.read(a.id), a.id)]
    documents = [tokenize(u.lexical) for u in units_of(chunks)]
    idf, postings = rank_bm25_postings(documents)
    for counts in (TermCounts.of(documents), unit_counts(chunks)):  # one token list, one bullet
        index = LexicalIndex(counts)
        assert index.idf == idf
        for term, (rows, weight) in postings.items():
            assert np.array_equal(index.containing(term), rows)
            mine = index.scores([term])[rows]
            assert np.array_equal(mine, weight), term  # bit for bit, not approximately
        restored = LexicalIndex.restore(index.size, *index.state())
        for query in QUERIES:
            terms = tokenize(query)
            assert np.array_equal(restored.scores(terms), index.scores(terms))


def small_world(tmp_path: Path) -> World:
    return World.open(write_world(tmp_path / "world", {"ada-01": ADA, "bo-02": BO, "cy-03": CY}))


def hits(index: RecallIndex, query: str) -> list[tuple[str, float, int]]:
    return [(h.chunk.id, h.score, h.bullet) for h in index.search(query, k=20, mode="bm25")]


def parses(monkeypatch) -> list[str]:
    """The agent ids of the soul files parsed from now on."""
    seen: list[str] = []
    real = prepared.parse.parse

    def counting(data, agent_id=None):  # noqa: ANN001, ANN202
        seen.append(agent_id)
        return real(data, agent_id=agent_id)

    monkeypatch.setattr(prepared.parse, "parse", counting)
    return seen


def test_an_unchanged_file_is_not_parsed_again_and_a_changed_one_is(
    tmp_path: Path, monkeypatch
) -> None:
    world = small_world(tmp_path)
    cache = PreparedCache(tmp_path / "cache.sqlite3")
    seen = parses(monkeypatch)
    first = RecallIndex.for_world(world, cache=cache)
    assert sorted(seen) == ["ada-01", "bo-02", "cy-03"]
    seen.clear()
    again = RecallIndex.for_world(World.open(world.root), cache=cache)
    assert seen == []
    for query in ("index guide", "contrarian", "#12"):
        assert hits(again, query) == hits(first, query) != []
    path = world.memory_dir / "bo-02.md"
    path.write_text(path.read_text() + "## Frame 5 — 2026-03-05\n- Wrote a ledger of tombstones.\n")
    changed = RecallIndex.for_world(World.open(world.root), cache=cache)
    assert seen == ["bo-02"]
    assert [h.chunk.agent for h in changed.search("tombstones", mode="bm25")] == ["bo-02"]
    # The same as an index made without any cache.
    fresh = RecallIndex.for_world(World.open(world.root), cache=PreparedCache(tmp_path / "other"))
    for query in ("tombstones", "index guide", "ledger"):
        assert hits(changed, query) == hits(fresh, query)


def test_a_copy_of_a_world_reuses_the_entries_of_its_files(tmp_path: Path, monkeypatch) -> None:
    world = small_world(tmp_path)
    cache = PreparedCache(tmp_path / "cache.sqlite3")
    RecallIndex.for_world(world, cache=cache)
    copy = write_world(tmp_path / "copy", {"ada-01": ADA, "bo-02": BO, "cy-03": CY})
    seen = parses(monkeypatch)
    RecallIndex.for_world(World.open(copy), cache=cache)
    assert seen == []


def test_damaged_entries_and_a_damaged_cache_file_are_made_again(
    tmp_path: Path, monkeypatch
) -> None:
    world = small_world(tmp_path)
    path = tmp_path / "cache.sqlite3"
    cache = PreparedCache(path)
    good = hits(RecallIndex.for_world(world, cache=cache), "index guide")
    with sqlite3.connect(path) as db:
        db.execute("UPDATE prepared SET data = substr(data, 1, 40)")
        db.execute("UPDATE joined SET data = x'53535031ffffffff'")
    seen = parses(monkeypatch)
    assert hits(RecallIndex.for_world(world, cache=PreparedCache(path)), "index guide") == good
    assert sorted(seen) == ["ada-01", "bo-02", "cy-03"]
    path.write_bytes(b"not a database at all" * 100)
    assert hits(RecallIndex.for_world(world, cache=PreparedCache(path)), "index guide") == good


def test_cli_search_with_a_cache_folder_it_cannot_write(tmp_path: Path) -> None:
    world = small_world(tmp_path)
    blocked = tmp_path / "blocked"
    blocked.write_text("a file where the cache folder should be")
    out = soulscope(
        "search", "index guide", "-w", str(world.root), "--mode", "bm25", "--json",
        env={"SOULSCOPE_CACHE": str(blocked / "cache")},
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert '"ada-01"' in out.stdout and "Traceback" not in out.stderr
