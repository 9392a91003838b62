"""Questions about when something came up, over the real worlds of both eras and a hand-made one
in forms the corpus does not have, and the check of an answer: the first hit put in time order is
a frame that holds the asked words as written (its words in order, any case, apart by any spacing
or punctuation); where no frame of the world holds them, the search says so and puts nothing in
time order. The check reads the frames' text itself, with a pattern of its own.
"""

from __future__ import annotations

import random
import re
import tempfile
from pathlib import Path
from typing import Any

from tests.support.paths import CORPUS

# (world, question, the words it asks about as written)
QUESTIONS: list[tuple[str, str, str]] = [
    ("early", "when did coordinate first come up?", "coordinate"),
    ("early", "When was translation first mentioned?", "translation"),
    ("early", "first mention of classifying", "classifying"),
    ("early", "earliest refrigeration", "refrigeration"),
    ("early", "when did anyone first talk about pipelines?", "pipelines"),
    ("early", "who first used the word eliminated?", "eliminated"),
    ("early", "when did optimizer first appear?", "optimizer"),
    ("early", "When did termites first come up?", "termites"),
    ("early", "when did performances first show up?", "performances"),
    ("early", "earliest mention of algorithmic", "algorithmic"),
    ("early", "when did indentation first come up?", "indentation"),
    ("early", "when did digestion first come up?", "digestion"),
    ("early", "when did constituting first come up?", "constituting"),
    ("early", "when did Dunbar's number first come up?", "Dunbar's number"),
    ("early", "when did schema debt first come up?", "schema debt"),
    ("early", "when did the Aftertaste Cluster first come up?", "Aftertaste Cluster"),
    ("later", "when did reviewed first come up?", "reviewed"),
    ("later", "first mention of validation", "validation"),
    ("later", "When did concurrency first come up?", "concurrency"),
    ("later", "earliest assertions", "assertions"),
    ("later", "when did the garbage collector first come up?", "garbage collector"),
    ("later", "when was the merge gate first mentioned?", "merge gate"),
    ("made", "When did the Lantern Guild first come up?", "Lantern Guild"),
    ("made", "when did sortition first come up?", "sortition"),
    ("made", "first mention of O'Brien's law", "O'Brien's law"),
    ("made", "when did the kiln-fire pact first come up?", "kiln-fire pact"),
    ("made", "when did the Brisket Protocol first come up?", "Brisket Protocol"),
    ("made", "When did anyone first say tidewater?", "tidewater"),
]

# A world of hand-made souls: the asked words come first as stem neighbours, as one word of a
# phrase, or apart, and only later as asked; headings in forms the corpus does not have.
MADE = {
    "ann.b": [
        ("2026-05-01T08:00:00-04:00", "Met the lantern makers; the guild of carters said no."),
        ("2026-05-02T09:00:00Z", "Two sortitions drawn; O'Brien argued for lots."),
        ("2026-05-03 10:15", "Tidewaters rising on the east quay; the kiln and the fire, apart."),
        ("2026-05-04", "A protocol for brisket smoking, not a pact."),
    ],
    "Bo-7": [
        ("2026-05-05 (12:00 UTC)", "Founded the LANTERN GUILD with ann.b."),
        ("2026-05-06T07:30:00+05:30", "Sortition, as the Guild decided: the council by lot."),
        ("2026-05-07 (18:00 UTC)", "Quoted O\u2019Brien\u2019s Law: every queue grows."),
        ("May 8, 2026 (09:00 UTC)", "Signed the Kiln-Fire Pact; tidewater at the quay."),
    ],
}


def made_world(root: Path) -> Path:
    memory = root / "memory"
    memory.mkdir(parents=True)
    for name, frames in MADE.items():
        body = "".join(f"## Frame {h}\n- {text}\n\n" for h, text in frames)
        (memory / f"{name}.md").write_text(f"# {name}\n\n## Identity\n- **ID:** {name}\n\n{body}")
    return root


def as_written(words: str) -> re.Pattern[str]:
    parts = [re.escape(p) for p in re.findall(r"[^\W_]+", words)]
    return re.compile(r"(?<!\w)" + r"[\W_]+".join(parts) + r"(?!\w)", re.I)


def check(index: Any, question: str, words: str) -> dict[str, Any]:
    """Whether ``index`` answers ``question`` as the module says, and what it answered."""
    found = index.find(question, k=5, mode="bm25")
    pattern = as_written(words)
    held = any(c.kind == "frame" and pattern.search(c.text) for c in index.chunks)
    first = found.hits[0].chunk if found.timely else None
    said = getattr(found, "held", None)  # how the answer says its frames hold the words
    if held:
        ok = first is not None and bool(pattern.search(first.text))
    elif said == "by stem":  # held by stem only, and said so
        ok = first is not None and len(re.findall(r"[^\W_]+", words)) == 1
    else:
        ok = not found.timely and said == "nothing"
    shown = f"{first.agent} {first.moment.text if first.moment else ''}" if first else "none"
    return {"question": question, "ok": ok, "held": held, "first": shown}


_TIME_WORD = re.compile(
    r"first|start|begin|began|begun|earl|origin|initial|latest|last|recent|current|mention|appear"
)


def sampled(memory: Path, n: int = 40, seed: int = 3) -> list[tuple[str, str, str]]:
    """``n`` words of a world (7 letters or more, in 2 to 30 files) that share their first
    five letters with another such word (a stem neighbour may come first), at random, each
    asked in one of the forms of ``QUESTIONS``."""
    counts: dict[str, int] = {}
    for path in sorted(memory.glob("*.md")):
        for w in set(re.findall(r"[a-z]{7,}", path.read_text("utf-8", "replace").lower())):
            counts[w] = counts.get(w, 0) + 1
    groups: dict[str, list[str]] = {}
    for w in sorted(counts):
        groups.setdefault(w[:5], []).append(w)
    words = [
        w
        for g in groups.values()
        if len(g) > 1
        for w in g
        if 2 <= counts[w] <= 30 and not _TIME_WORD.match(w)  # words that ask about time
    ]
    rng = random.Random(seed)
    chosen = rng.sample(words, min(n, len(words)))
    forms = [q.replace(a, "{}") for _, q, a in QUESTIONS if a.islower() and " " not in a]
    return [("early", rng.choice(forms).format(w), w) for w in chosen]


def worlds(tmp: Path) -> dict[str, Path]:
    return {
        "early": CORPUS / "rappterbook",
        "later": CORPUS / "rappterbook-later",
        "made": made_world(tmp / "made"),
    }


def run_questions(questions: list[tuple[str, str, str]] | None = None) -> list[dict[str, Any]]:
    """Every question (``QUESTIONS`` by default) asked of its world (BM25), each checked."""
    from soulscope.recall.hybrid import RecallIndex
    from soulscope.world import World

    out = []
    with tempfile.TemporaryDirectory() as tmp:
        indexes = {
            name: RecallIndex.for_world(World.open(path))
            for name, path in worlds(Path(tmp)).items()
        }
        for world, question, words in questions or QUESTIONS:
            row = check(indexes[world], question, words)
            out.append({"world": world, **row})
    return out
