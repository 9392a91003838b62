"""The offline brain's text reads like people wrote it: over many seeds of the demo world, no
doubled words, no dangling articles, no cut-off roles, no post said to be on what it is not."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from soulscope.sim.community import Community
from soulscope.sim.frame import run_frames
from soulscope.sim.offline import OfflineBrain
from soulscope.world import DEMO_WORLD, World
from tests.support.repos import commit, init

SEEDS = range(1, 7)
FRAMES = 4
DEMO_FRAMES = 24  # the frames the demo world ships with (its own text, written by hand)
_DOUBLED = re.compile(r"\b(\w+)\s+\1\b", re.I)
_DANGLING = re.compile(r"\b(?:the|a|an|their|his|her|its|my|our|your|this)\s+(?:the|a|an)\b", re.I)
_WORD = re.compile(r"[a-z][a-z'-]{3,}")
_LABELLED = re.compile(
    r"^- (Named|Influenced by|Surprised by|Reinforced|Becoming|Relationships): (.*)$"
)


def _content(text: str) -> set[str]:
    return {w.removesuffix("'s") for w in _WORD.findall(text.lower())}


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[int, Path]]:
    """The demo world advanced FRAMES frames under each seed (one repository per seed)."""
    worlds = []
    for seed in SEEDS:
        root = tmp_path_factory.mktemp(f"seed{seed}") / "world"
        shutil.copytree(DEMO_WORLD, root, ignore=shutil.ignore_patterns("frames"))
        init(root)
        commit(root, "the demo world")
        run_frames(World.open(root), OfflineBrain(), steps=FRAMES, seed=seed)
        worlds.append((seed, root))
    return worlds


def _new_lines(root: Path) -> list[tuple[str, str]]:
    """(agent, line) for every line of the frames the brain wrote."""
    out = []
    for path in sorted((root / "memory").glob("*.md")):
        keep = False
        for line in path.read_text(encoding="utf-8").splitlines():
            m = re.match(r"## Frame (\d+)", line)
            if m:
                keep = int(m.group(1)) > DEMO_FRAMES
            elif keep and line.startswith("- "):
                out.append((path.stem, line))
    return out


def test_the_brain_wrote_frames_for_every_seed(generated) -> None:
    for _, root in generated:
        assert len(_new_lines(root)) > 10 * FRAMES * 3


def test_no_doubled_words_or_dangling_articles(generated) -> None:
    bad = [
        (seed, agent, line)
        for seed, root in generated
        for agent, line in _new_lines(root)
        if _DOUBLED.search(line) or _DANGLING.search(line)
    ]
    assert not bad, bad[:5]


def test_no_identity_statement_is_cut_off(generated) -> None:
    bad = []
    for seed, root in generated:
        for agent, line in _new_lines(root):
            m = _LABELLED.match(line)
            if m and "…" in m.group(2):
                bad.append((seed, agent, line))
    assert not bad, bad[:5]


def test_a_post_is_only_ever_said_to_be_on_what_it_is_about(generated) -> None:
    checked = 0
    bad = []
    for seed, root in generated:
        posts = Community.load(root).by_id
        for agent, line in _new_lines(root):
            for n, topic in re.findall(r"#(\d+) on (“[^”]+”|[^;.]+)", line):
                post = posts[int(n)]
                checked += 1
                if topic.startswith("“"):
                    ok = topic.strip("“”") == post.title.strip().rstrip(".!?")
                else:
                    ok = bool(_content(topic) & _content(f"{post.title} {post.body}"))
                if not ok:
                    bad.append((seed, agent, topic, post.title))
    assert checked > 20 and not bad, bad[:5]
