"""One notion of time: frames are ordered by their headings' date and time of day, commits first
only where frames arrived in different commits, and ties are said (``soulscope.soul.when``).

The real-world checks sample their terms from the corpus itself (words used in several files),
so they hold for terms nobody picked by hand; the expected answer is computed here from the
headings with a reader of its own, not with soulscope's parser.
"""

from __future__ import annotations

import random
import re
import shutil
from pathlib import Path

import pytest

from soulscope.history.timeline import first_mention
from soulscope.recall.hybrid import RecallIndex
from soulscope.soul import when
from soulscope.soul.terms import Term
from soulscope.world import World
from tests.support import frametimes
from tests.support.repos import commit, init

_WORD = re.compile(r"[A-Za-z][a-z]{7,}")


def _sample_terms(memory: Path, n: int) -> list[str]:
    counts: dict[str, int] = {}
    for path in sorted(memory.glob("*.md")):
        for w in set(_WORD.findall(path.read_text("utf-8", "replace"))):
            counts[w.lower()] = counts.get(w.lower(), 0) + 1
    common = sorted(w for w, c in counts.items() if 3 <= c <= 40)
    return random.Random(19).sample(common, min(n, len(common)))


def _pattern(term: str) -> re.Pattern[str]:
    return re.compile(rf"(?<!\w){re.escape(term)}(?!\w)", re.I)


def _expected(memory: Path, term: str) -> list[frametimes.Span] | None:
    found: list[frametimes.Span] = []
    for path in sorted(memory.glob("*.md")):
        uses, elsewhere = frametimes.uses(path, _pattern(term))
        if elsewhere:
            return None
        found.extend(uses)
    return found or None


def _check(world: World, memory: Path, terms: list[str]) -> int:
    """Check ``first`` for each term against the headings read apart (``frametimes``): the
    answer and its ties are the agents whose use may be the first, no more and no fewer; return
    how many terms were checked."""
    checked = 0
    for term in terms:
        expected = _expected(memory, term)
        if expected is None:
            continue
        checked += 1
        found = first_mention(world, term)
        assert found is not None, term
        low, high = found.moment.span
        got = frametimes.Span(found.agent_id, found.line, low, high)
        later = [u for u in expected if u.before(got)]
        assert not later, (term, got, later[:3])
        said = {u.agent_id for u in found.ties} | {found.agent_id}
        assert said == frametimes.possible_firsts(expected), term
    return checked


@pytest.fixture(scope="module")
def imported(tmp_path_factory, request) -> Path:
    """The early real world committed at once, as a world imported into git is."""
    from tests.support.paths import corpus_dir

    source = corpus_dir("rappterbook", "memory")
    repo = init(tmp_path_factory.mktemp("imported") / "world")
    shutil.copytree(source, repo / "memory")
    commit(repo, "import the world", date="2026-12-01T12:00:00+00:00")
    return repo


def test_first_orders_a_world_imported_at_once_by_its_frames(imported: Path) -> None:
    terms = _sample_terms(imported / "memory", 70)
    assert _check(World.open(imported), imported / "memory", terms) >= 25


def test_first_without_git_reads_the_frames_times(
    early_world: Path, imported: Path, tmp_path: Path
) -> None:
    # A copy: the corpus itself may sit inside some git repository (a checkout holding it).
    shutil.copytree(early_world / "memory", tmp_path / "plain" / "memory")
    terms = _sample_terms(early_world / "memory", 12)
    plain, repo = World.open(tmp_path / "plain"), World.open(imported)
    for term in terms:
        a, b = first_mention(plain, term), first_mention(repo, term)
        assert (a is None) == (b is None)
        if a is not None:
            assert (a.agent_id, a.line, a.moment) == (b.agent_id, b.line, b.moment)
            assert a.commit is None and b.commit is not None and b.together


def _soul(name: str, frames: list[tuple[str, str]]) -> str:
    body = "".join(f"## Frame {heading}\n- {text}\n\n" for heading, text in frames)
    return f"# {name}\n\n## Identity\n- **ID:** {name}\n\n{body}"


def test_commit_order_first_then_the_frames_own_times(tmp_path: Path) -> None:
    repo = init(tmp_path / "w")
    (repo / "memory").mkdir()
    (repo / "memory" / "aa.md").write_text(
        _soul("aa", [("2026-03-15 (10:00 UTC)", "a Lantern, lit late")])
    )
    (repo / "memory" / "bb.md").write_text(
        _soul("bb", [("2026-03-14", "nothing yet"), ("2026-03-15 (09:00 UTC)", "the lantern")])
    )
    commit(repo, "import")
    world = World.open(repo)
    found = first_mention(world, "lantern")
    # Same commit: bb wrote it at 09:00, before aa's 10:00, though aa sorts first by name.
    assert found.agent_id == "bb" and found.moment.time == "09:00" and found.together
    assert not found.ties
    # A frame dated earlier that arrives in a later commit does not move the answer.
    (repo / "memory" / "cc.md").write_text(_soul("cc", [("2026-03-01 (01:00 UTC)", "lantern")]))
    commit(repo, "frame 2")
    assert first_mention(world, "lantern").agent_id == "bb"
    # Matched as a word in any case; exactly as typed on request.
    assert first_mention(world, "Lantern", "aa").agent_id == "aa"
    assert first_mention(world, Term("Lantern", "exact")).agent_id == "aa"
    assert first_mention(world, "lant") is None


def test_a_date_without_time_of_day_is_a_tie_not_a_winner(tmp_path: Path) -> None:
    repo = init(tmp_path / "w")
    (repo / "memory").mkdir()
    (repo / "memory" / "aa.md").write_text(_soul("aa", [("2026-03-14 (05:45 UTC)", "tidewater")]))
    (repo / "memory" / "zz.md").write_text(_soul("zz", [("2026-03-14", "tidewater again")]))
    (repo / "memory" / "mm.md").write_text(_soul("mm", [("2026-03-13 (23:00 UTC)", "no")]))
    commit(repo, "import")
    found = first_mention(World.open(repo), "tidewater")
    assert {found.agent_id, *(u.agent_id for u in found.ties)} == {"aa", "zz"}


def test_moments_of_undated_frames_keep_their_place() -> None:
    found = when.moments(
        [None, "2026-03-14", None, "2026-03-15"], [None, "10:00", None, None], [None, 5, 6, 7]
    )
    assert [m.inferred for m in found] == ["before", None, "after", None]
    keys = [m.key for m in found]
    assert keys == sorted(keys)
    # Frame numbers of one world order frames of one date without times across files.
    a = when.Moment("2026-03-22", None, 0, 237)
    b = when.Moment("2026-03-22", None, 9, 238)
    assert when.ordered(a, b) and not when.ordered(a, when.Moment("2026-03-22", None, 3))


def test_time_ordered_search_lists_earliest_hits_in_time_order(early_world: Path) -> None:
    world = World.open(early_world)
    index = RecallIndex.for_world(world)
    terms = _sample_terms(early_world / "memory", 25)
    for term in terms:
        found = index.find(f"when did {term} first come up?", k=10, mode="bm25")
        if not found.timely:
            continue
        keys = [h.chunk.moment.key[:3] for h in found.hits[: found.timely]]
        assert keys == sorted(keys), term
        later = index.find(f"what is the latest on {term}?", k=10, mode="bm25")
        keys = [h.chunk.moment.key[:3] for h in later.hits[: later.timely]]
        assert keys == sorted(keys, reverse=True), term


def test_a_bare_date_means_the_end_of_that_day(tmp_path: Path) -> None:
    from soulscope.history.timeline import soul_at

    repo = init(tmp_path / "w")
    (repo / "memory").mkdir()
    path = repo / "memory" / "aa.md"
    path.write_text(_soul("aa", [("2026-03-14 (09:00 UTC)", "one")]))
    commit(repo, "frame 1", date="2026-03-14T20:30:00-04:00")  # 00:30 UTC the next day
    path.write_text(_soul("aa", [("2026-03-14 (09:00 UTC)", "one"), ("2026-03-15", "two")]))
    commit(repo, "frame 2", date="2026-03-15T10:00:00+00:00")
    world = World.open(repo)
    # Commits made during 2026-03-15 (UTC) are there "at 2026-03-15", whatever the clock now.
    assert len(soul_at(world, "aa", "2026-03-15").frames) == 2
    # 2026-03-14 ends (UTC) before the first commit, made at 20:30 in New York.
    with pytest.raises(Exception, match="end of 2026-03-14 .UTC."):
        soul_at(world, "aa", "2026-03-14")


def test_a_world_inside_a_bigger_repository_of_mixed_eras(tmp_path: Path) -> None:
    """The world is a folder of a larger repository whose commits carry other files too; its
    souls are of both eras (timed headings without numbers, numbered headings without times)."""
    repo = init(tmp_path / "big")
    world_dir = repo / "sims" / "one" / "state"
    (world_dir / "memory").mkdir(parents=True)
    (repo / "NOTES.md").write_text("the kiln was an idea here first\n")
    (world_dir / "memory" / "early.md").write_text(
        _soul("early", [("2026-03-22 (08:00 UTC)", "Evolving position: the kiln matters")])
    )
    (world_dir / "memory" / "later.md").write_text(
        _soul("later", [("236 — 2026-03-21", "plain"), ("237 — 2026-03-22", "Becoming: kiln")])
    )
    (world_dir / "memory" / "third.md").write_text(
        _soul("third", [("238 — 2026-03-23", "Becoming: the kiln keeper")])
    )
    commit(repo, "import a world beside other work")
    found = first_mention(World.open(world_dir), "kiln")
    # Not NOTES.md (outside the world); 03-22 08:00 and frame 237 of 03-22 cannot be ordered.
    assert {found.agent_id, *(u.agent_id for u in found.ties)} == {"early", "later"}
    assert found.path.startswith("sims/one/state/memory/")
    assert found.together


def test_the_latest_statement_is_the_latest_by_time(tmp_path: Path) -> None:
    """Parallel writers append frames out of order: the overview's latest statement is the one
    of the latest frame, not the last in the file."""
    from soulscope.soul.parse import parse
    from soulscope.soul.trajectory import arc, summarize

    text = _soul(
        "aa",
        [
            ("2026-03-14 (21:10 UTC)", "Evolving position: first"),
            ("2026-03-14 (21:12 UTC)", "Evolving position: the newest"),
            ("2026-03-14 (21:10 UTC)", "Evolving position: a late copy of an older frame"),
        ],
    )
    soul = parse(text.encode(), agent_id="aa")
    for statements in (arc(soul), None):
        assert summarize("aa", soul, statements=statements).latest.text == "the newest"


def test_a_stemmed_term_finds_endings_not_longer_words() -> None:
    stem = Term("lantern", "stem")
    assert stem.count(b"a lantern, two Lanterns, the lanterned path") == 3
    assert stem.count(b"Lanternfield and the lanternmaker") == 0
    assert Term("sortition", "stem").count(b"sortitions by Sortition") == 2
    assert Term("sortition").count(b"sortitions by Sortition") == 1


def test_the_identity_header_comes_before_the_history_under_it(tmp_path: Path) -> None:
    """A conviction in the identity header was written at registration: before the History
    bullets below it, so before a frame-less use another agent dated later, and before the
    agent's own stamped History line that holds the term."""
    ada = (
        "# Ada\n\n## Convictions\n- The keyboard is faster than the mouse\n\n"
        "## History\n- **2026-02-13T01:26:59Z** — Registered as a founding agent.\n"
        "- **2026-02-22T01:07:26Z** — Posted '#3540 keyboard shortcuts' today.\n\n"
        "## Frame 1 — 2026-03-01\n- Wrote more.\n"
    )
    bo = "# Bo\n\n## Frame 1 — 2026-02-20 (10:00 UTC)\n- Bought a keyboard.\n"
    root = tmp_path / "w"
    (root / "memory").mkdir(parents=True)
    (root / "memory" / "ada-01.md").write_text(ada, encoding="utf-8")
    (root / "memory" / "bo-02.md").write_text(bo, encoding="utf-8")
    found = first_mention(World.open(root), Term("keyboard"))
    assert found is not None and (found.agent_id, found.line) == ("ada-01", 4)
    assert found.moment.date == "2026-02-13" and not found.ties
