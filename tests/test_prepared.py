"""The lexical index that persists: soul files prepared once per content, BM25 unchanged."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np
import pytest
from rank_bm25 import BM25Plus

from soulscope.recall import hybrid, lexical, prepared
from soulscope.recall.chunks import chunk_soul, units_of
from soulscope.recall.hybrid import FrameRange, RecallIndex
from soulscope.recall.lexical import K1, KeptTerms, LexicalIndex, TermCounts, tokenize
from soulscope.recall.prepared import KeptChunks, PreparedCache, unit_counts
from soulscope.world import World
from tests.support.cli import soulscope
from tests.support.paths import corpus_dir
from tests.support.worlds import ADA, BO, CY, frame, soul, write_world

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
        terms, ends, arrays = index.columns()
        kept = LexicalIndex.kept(KeptTerms(terms, ends), arrays)
        assert len(index.ids) == len(kept.ids) == len(idf)
        for n, (term, (rows, weight)) in enumerate(postings.items()):
            assert index.idf(term) == kept.idf(term) == idf[term]
            assert np.array_equal(index.containing(term), rows)
            assert np.array_equal(kept.containing(term), rows)
            assert np.array_equal(index.scores([term])[rows], weight), term  # bit for bit
            if n % 16 == 0:  # (the queries below add up many terms of the kept index)
                assert np.array_equal(kept.scores([term])[rows], weight), term
        for query in QUERIES:
            terms = tokenize(query)
            assert np.array_equal(kept.scores(terms), index.scores(terms))


def expected_scores(postings: dict, size: int, terms: list[str]) -> np.ndarray:
    """rank-bm25's weights of ``terms``, added in their order: every unit's score."""
    expected = np.zeros(size)
    for t in terms:
        if t in postings:
            expected[postings[t][0]] += postings[t][1]
    return expected


def ranked_as_before(
    index: RecallIndex,
    scores: np.ndarray,
    k: int = 20,
    agent: str | None = None,
    frames: FrameRange | None = None,
) -> list[tuple[str, float, int]]:
    """The BM25 hits as search ranked unit scores with numpy before: the units searched that
    score above zero; a chunk by its best unit (the first of equals); the best first, ties to
    the earlier chunk."""
    chunks = list(index.chunks)
    per_chunk = np.array([len(c.bullets) or 1 for c in chunks])
    owner = np.repeat(np.arange(len(chunks)), per_chunk)
    first_unit = np.cumsum(per_chunk) - per_chunk
    keep = scores > 0
    if agent is not None:
        keep &= np.array([c.agent == agent for c in chunks])[owner]
    if frames is not None:
        numbers = np.array([-1 if c.number is None else c.number for c in chunks])[owner]
        dates = np.array([c.date or "" for c in chunks], dtype="U10")[owner]
        if frames.first is not None or frames.last is not None:
            keep &= numbers >= 0
        if frames.first is not None:
            keep &= numbers >= frames.first
        if frames.last is not None:
            keep &= numbers <= frames.last
        if frames.since is not None or frames.until is not None:
            keep &= dates != ""
        if frames.since is not None:
            keep &= dates >= frames.since
        if frames.until is not None:
            keep &= dates <= frames.until
    rows = np.flatnonzero(keep)
    if not len(rows):
        return []
    owners, scored = owner[rows], scores[rows]
    starts = np.flatnonzero(np.r_[True, owners[1:] != owners[:-1]])
    ends = np.r_[starts[1:], len(rows)]
    best = np.maximum.reduceat(scored, starts)
    out = []
    for c in np.lexsort((owners[starts], -best))[:k]:
        chunk = owners[starts[c]]
        unit = rows[starts[c] + np.argmax(scored[starts[c] : ends[c]])]
        out.append((chunks[chunk].id, float(best[c]), int(unit - first_unit[chunk])))
    return out


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
    cache = PreparedCache(tmp_path / "cache")
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
    cache = PreparedCache(tmp_path / "cache")
    RecallIndex.for_world(world, cache=cache)
    copy = write_world(tmp_path / "copy", {"ada-01": ADA, "bo-02": BO, "cy-03": CY})
    seen = parses(monkeypatch)
    RecallIndex.for_world(World.open(copy), cache=cache)
    assert seen == []


def world_entry(cache: PreparedCache) -> Path:
    """The one world's index kept in ``cache``."""
    (found,) = (cache.folder / "worlds").iterdir()
    return found


def test_damaged_entries_and_a_damaged_cache_file_are_made_again(
    tmp_path: Path, monkeypatch
) -> None:
    world = small_world(tmp_path)
    folder = tmp_path / "cache"
    cache = PreparedCache(folder)
    good = hits(RecallIndex.for_world(world, cache=cache), "index guide")
    with sqlite3.connect(cache.path) as db:
        db.execute("UPDATE prepared SET data = substr(data, 1, 40)")
    kept = world_entry(cache)
    kept.write_bytes(kept.read_bytes()[:-9])  # cut short
    seen = parses(monkeypatch)
    again = RecallIndex.for_world(world, cache=PreparedCache(folder))
    assert hits(again, "index guide") == good
    assert sorted(seen) == ["ada-01", "bo-02", "cy-03"]
    (note,) = again.notes
    assert note.startswith(f"the search index {kept} was unreadable (") and note.endswith(
        " bytes); it was rebuilt"
    )
    cache.path.write_bytes(b"not a database at all" * 100)
    assert hits(RecallIndex.for_world(world, cache=PreparedCache(folder)), "index guide") == good


# Forms the corpus lacks: other verbs, mixed case, names with punctuation, numbers and joins.
ODD = soul(
    "Dee O'Hara-Smith",
    "dee.o-04",
    "Cartographer",
    [
        frame(7, "2026-04-01", "MAPPED the Harbour; re-mapped it (v2.1).", "the mapper."),
        frame(8, "2026-04-02", "Re-mapping #7448 with Zion-Coder-06.", "the re-mapper."),
        frame(9, "2026-04-03", "Governed nothing; argued for maps.", "the governor? No."),
        frame(10, "2026-04-03", "mapped mapped mapped — straße, naïve, ΑΣ.", "the mapper."),
    ],
)
FILTERS = [
    ("ada-01", None),
    ("dee.o-04", FrameRange(8, 9)),
    (None, FrameRange(last=3)),
    (None, FrameRange(since="2026-03-02", until="2026-04-02")),
    ("nobody-99", None),
]
RANKED = [
    "catalogued cataloguer",
    "Argued with bo-02",
    "mapped the harbour",
    "re-mapping #7448",
    "zion-coder-06",
    "governance argued",
    "Straße naïve",
    "index guide contrarian",
    "nothing at all here",
]


def plain_python(monkeypatch, plain: bool) -> None:
    """BM25 search as a process without numpy runs it (``plain``), or with numpy."""
    monkeypatch.setattr(hybrid, "_numpy_loaded", lambda: not plain)


def same_weights(index: RecallIndex, terms: list[str], expected: np.ndarray) -> bool:
    """``weights`` (plain Python) and ``scores`` (numpy) are ``expected``, to the bit."""
    found = index.lexical.weights(terms)
    nonzero = {int(r): float(expected[r]) for r in np.flatnonzero(expected)}
    return found == nonzero and np.array_equal(index.lexical.scores(terms), expected)


@pytest.mark.parametrize("plain", [True, False], ids=["plain", "numpy"])
def test_the_kept_index_ranks_as_rank_bm25_scores(tmp_path: Path, monkeypatch, plain) -> None:
    plain_python(monkeypatch, plain)
    souls = {"ada-01": ADA, "bo-02": BO, "cy-03": CY, "dee.o-04": ODD}
    world = World.open(write_world(tmp_path / "world", souls))
    cache = PreparedCache(tmp_path / "cache")
    built = RecallIndex.for_world(world, cache=cache)
    kept = RecallIndex.for_world(World.open(world.root), cache=cache)
    assert isinstance(kept.chunks, KeptChunks) and not isinstance(built.chunks, KeptChunks)
    plain = RecallIndex(list(built.chunks))  # no cache at all: tokenized here
    documents = [tokenize(u.lexical) for u in units_of(plain.chunks)]
    idf, postings = rank_bm25_postings(documents)
    for query in RANKED:
        terms = tokenize(query)
        # rank-bm25's weights, added in the query's order: the score of every unit, to the bit
        expected = expected_scores(postings, len(documents), terms)
        assert same_weights(kept, terms, expected) and same_weights(built, terms, expected), query
        assert hits(kept, query) == hits(built, query) == hits(plain, query), query
        # ranked as before, ties (the frames that repeat a line) and filters included
        assert hits(kept, query) == ranked_as_before(plain, expected), query
        for agent, frames in FILTERS:
            found = kept.search(query, k=20, mode="bm25", agent=agent, frames=frames)
            assert [(h.chunk.id, h.score, h.bullet) for h in found] == ranked_as_before(
                plain, expected, 20, agent, frames
            ), (query, agent, frames)
        for index in (kept, built):
            assert sum(index.lexical.idf(t) for t in set(terms)) == sum(
                idf.get(t, 0.0) for t in set(terms)
            )
    found = kept.search("mapped the harbour", mode="bm25")
    assert found[0].chunk.agent == "dee.o-04" and found[0].chunk.number in (7, 10)
    assert kept.search("#7448", mode="bm25")[0].chunk.number == 8
    assert [h.chunk.agent for h in kept.search("contrarian", mode="bm25", agent="bo-02")] == [
        "bo-02"
    ] * len(kept.search("contrarian", mode="bm25", agent="bo-02"))


def test_a_link_in_place_of_a_kept_index_is_never_followed(tmp_path: Path) -> None:
    world = small_world(tmp_path)
    cache = PreparedCache(tmp_path / "cache")
    good = hits(RecallIndex.for_world(world, cache=cache), "index guide")
    kept = world_entry(cache)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.write_bytes(kept.read_bytes())  # a whole entry, reached through a link
    kept.unlink()
    kept.symlink_to(elsewhere)
    again = RecallIndex.for_world(World.open(world.root), cache=PreparedCache(tmp_path / "cache"))
    assert hits(again, "index guide") == good
    assert len(again.notes) == 1 and "(a link)" in again.notes[0]
    assert elsewhere.exists() and not kept.is_symlink()  # the link removed, never its target
    assert isinstance(RecallIndex.for_world(world, cache=cache).chunks, KeptChunks)


def test_a_tampered_kept_index_is_rebuilt_and_said_once_from_the_cli(tmp_path: Path) -> None:
    world = small_world(tmp_path)
    env = {"SOULSCOPE_CACHE": str(tmp_path / "cache")}
    args = ("search", "index guide", "-w", str(world.root), "--mode", "bm25", "--json")
    first = soulscope(*args, env=env)
    assert first.returncode == 0 and first.stderr == ""
    (kept,) = (tmp_path / "cache" / "search" / "worlds").iterdir()
    data = bytearray(kept.read_bytes())
    data[-3] ^= 0xFF  # one byte of a chunk changed, the length the same
    kept.write_bytes(bytes(data))
    second = soulscope(*args, env=env)
    assert second.returncode == 0 and second.stdout == first.stdout
    assert second.stderr.strip().splitlines() == [
        f"soulscope: the search index {kept} was unreadable (its checksum does not match); "
        "it was rebuilt"
    ]
    third = soulscope(*args, env=env)
    assert third.stdout == first.stdout and third.stderr == ""


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


@pytest.fixture(scope="module")
def real_souls(tmp_path_factory) -> tuple[RecallIndex, RecallIndex, dict, list[str]]:
    """A sixth of the real early souls: their index as built and as kept, rank-bm25's postings
    of its units, and the agents."""
    root = corpus_dir("rappterbook")
    ids = [a.id for a in World.open(root).agents()][::6]
    cache = PreparedCache(tmp_path_factory.mktemp("real-souls") / "cache")
    built = RecallIndex.for_world(World.open(root), ids, cache=cache)
    kept = RecallIndex.for_world(World.open(root), ids, cache=cache)
    assert isinstance(kept.chunks, KeptChunks)
    _, postings = rank_bm25_postings([tokenize(u.lexical) for u in units_of(built.chunks)])
    return built, kept, postings, ids


@pytest.mark.parametrize("plain", [True, False], ids=["plain", "numpy"])
def test_a_kept_index_of_real_souls_scores_and_ranks_as_before(
    real_souls, monkeypatch, plain: bool
) -> None:
    plain_python(monkeypatch, plain)
    built, kept, postings, ids = real_souls
    words = sorted(postings, key=lambda t: (-len(postings[t][0]), t))  # the commonest first
    queries = [tokenize(q) for q in QUERIES]
    queries += [[t] for t in words[:: len(words) // 60]]
    queries += [list(pair) for pair in zip(words[:40:3], words[7::301], strict=False)]
    dates = sorted(c.date for c in built.chunks if c.date)
    filters = [
        (None, None),
        (ids[3], None),
        (None, FrameRange(since=dates[len(dates) // 3], until=dates[2 * len(dates) // 3])),
    ]
    size = kept.lexical.size
    for terms in queries:
        expected = expected_scores(postings, size, terms)
        assert same_weights(kept, terms, expected), terms
        for agent, frames in filters:
            found = kept.search("", k=10, mode="bm25", agent=agent, frames=frames, tokens=terms)
            assert [(h.chunk.id, h.score, h.bullet) for h in found] == ranked_as_before(
                built, expected, 10, agent, frames
            ), (terms, agent, frames)
