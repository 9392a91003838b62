"""FileRAG's memory benchmark, reproduced, then a hard variant where its 100% is not built in.

The original (github.com/dharanidh75/filerag-memory, benchmark.py): 10 planted messages (5 user
facts, 5 acknowledgements) open the conversation, then 15 trivia question/answer pairs repeat as
noise up to n messages; 6 queries are scored by whether an expected substring is in the retrieved
context. Arms, as there:

- window:   the last 20 messages (its Dict/Redis arms; both read the same window)
- dense:    one vector per message, top 3 by cosine (its Chroma arm; here exact numpy search)
- filerag:  user text of each 5-message window, skipped when > 0.92 similar to a kept one,
            BM25Okapi top 2 (score > 0) + dense top 2
- soulscope: soulscope.chat.distill.Distiller (every 5 user turns or on topic drift, extractive
            facts, blocks >= 0.92 similar skipped) writing users/ID.txt, read back with hybrid
            retrieval (BM25Plus + MiniLM score fusion; a block's cosine is its best fact or
            clause's, less its hubness; BM25 weighed by the question's coverage), top 4 blocks:
            the context budget of FileRAG's arm (2 + 2 chunks)

The original's noise repeats every 30 messages, so FileRAG's dedup keeps at most 8 chunks and its
100% is guaranteed by construction. The hard variant: noise that never repeats (generated, with
first-person statements about other things), the facts planted at random depths, and the queries
paraphrased so that they share few words with the facts.

    python bench/filerag.py [--sizes 20,500,1000,10000] [--variant original|hard|both]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from soulscope.chat.distill import Distiller  # noqa: E402
from soulscope.recall.semantic import EmbeddingCache, MiniLM  # noqa: E402

Turn = tuple[str, str]

FACTS: list[Turn] = [
    ("user", "My name is JD, I am a software engineer building FileRAG"),
    ("assistant", "Got it JD!"),
    ("user", "I use Pop!_OS with Fish shell and have an NVIDIA GPU"),
    ("assistant", "Great setup for AI work!"),
    ("user", "My cat is named Pixel and she distracts me while coding"),
    ("assistant", "Haha classic!"),
    ("user", "I paused TaskNest due to burnout, now fully focused on AgenticMesh"),
    ("assistant", "Understood, AgenticMesh it is!"),
    ("user", "I am also interested in Mars colonisation and radiation shielding"),
    ("assistant", "Fascinating topic!"),
]
TRIVIA: list[Turn] = [
    ("What is the speed of light?", "299,792,458 metres per second."),
    ("Tell me a fun fact about penguins", "Penguins cannot fly but they are excellent swimmers."),
    ("What year was Python created?", "Python was created in 1991 by Guido van Rossum."),
    (
        "Explain quantum entanglement briefly",
        "Two particles linked so measuring one instantly affects the other.",
    ),
    ("What is the capital of France?", "Paris."),
    ("How far is the Moon from Earth?", "About 384,400 kilometres on average."),
    ("Who painted the Mona Lisa?", "Leonardo da Vinci painted it around 1503."),
    ("What is the boiling point of water?", "100 degrees Celsius at sea level."),
    ("How many bones are in the human body?", "206 bones in an adult human body."),
    ("What is the largest planet in the solar system?", "Jupiter is the largest planet."),
    ("Who wrote Romeo and Juliet?", "William Shakespeare wrote it around 1595."),
    ("What is photosynthesis?", "The process plants use to convert sunlight into food."),
    ("How fast does sound travel?", "About 343 metres per second in air."),
    ("What is DNA?", "Deoxyribonucleic acid, the molecule carrying genetic information."),
    ("What is the tallest mountain?", "Mount Everest at 8,849 metres above sea level."),
]
QUERIES = [
    ("What is JD's name and job?", "JD"),
    ("What OS does JD use?", "Pop!_OS"),
    ("What is JD's cat's name?", "Pixel"),
    ("What project did JD pause?", "TaskNest"),
    ("What is JD currently working on?", "AgenticMesh"),
    ("What is JD interested in besides AI?", "Mars"),
]
PARAPHRASED = [
    ("What is the user called, and what do they do for a living?", "JD"),
    ("Which Linux distribution runs on their computer?", "Pop!_OS"),
    ("What do they call their pet?", "Pixel"),
    ("Which project was put on hold because of exhaustion?", "TaskNest"),
    ("What is the main thing they are building at the moment?", "AgenticMesh"),
    ("Which subject outside of AI fascinates them?", "Mars"),
]


def original_turns(n: int) -> list[Turn]:
    turns = list(FACTS)
    i = 0
    while len(turns) < n:
        q, a = TRIVIA[i % len(TRIVIA)]
        turns += [("user", q), ("assistant", a)]
        i += 1
    return turns[:n]


# The hard variant's noise: never the same message twice, and as much first person as the facts.
_PEOPLE = [
    "my sister",
    "my landlord",
    "a colleague",
    "my neighbour",
    "my uncle",
    "a friend from school",
    "my dentist",
    "the barista",
    "my cousin",
    "our team lead",
    "my flatmate",
    "a stranger on the train",
]
_PLACES = [
    "Lisbon",
    "Osaka",
    "Quito",
    "Tallinn",
    "Nairobi",
    "Hobart",
    "Bergen",
    "Cusco",
    "Tbilisi",
    "Valparaiso",
    "Ghent",
    "Hanoi",
    "Tromso",
    "Zanzibar",
    "Cork",
    "Leipzig",
]
_THINGS = [
    "sourdough starter",
    "mechanical keyboard",
    "road bike",
    "film camera",
    "balcony garden",
    "vinyl collection",
    "chess opening",
    "spreadsheet of expenses",
    "running shoes",
    "tea kettle",
    "board game",
    "winter jacket",
    "desk lamp",
    "telescope eyepiece",
    "pottery wheel",
]
_TOPICS = [
    "medieval trade routes",
    "deep sea vents",
    "the history of jazz",
    "tax law",
    "bird migration",
    "volcano monitoring",
    "ancient Greek theatre",
    "coral reefs",
    "railway signalling",
    "origami",
    "glacier retreat",
    "Byzantine coins",
    "honeybee dances",
    "tidal energy",
    "Roman concrete",
]
_STATEMENTS = [
    "I talked to {person} about {topic} for {n} minutes yesterday.",
    "My {thing} broke again after {n} days, which is annoying.",
    "I spent {n} euros on a new {thing} last week.",
    "{Person} just moved to {place} and sent me {n} photos.",
    "I read {n} pages of a book on {topic} this morning.",
    "I might visit {place} in {n} weeks if work allows.",
    "I have been practising with my {thing} for {n} evenings in a row.",
    "{Person} recommended a podcast about {topic}, episode {n}.",
]
_QUESTIONS = [
    "What is the population of {place} roughly, in {year}?",
    "How do I clean a {thing} without damaging it, version {n}?",
    "Can you summarise {topic} in {n} sentences?",
    "Why did {topic} matter around the year {year}?",
]


def hard_turns(n: int, seed: int = 7) -> list[Turn]:
    rng = random.Random(seed)
    expected = [e.lower() for _, e in QUERIES]
    seen: set[str] = set()

    def fresh(templates: list[str]) -> str:
        while True:
            person = rng.choice(_PEOPLE)
            text = rng.choice(templates).format(
                person=person,
                Person=person[0].upper() + person[1:],
                place=rng.choice(_PLACES),
                thing=rng.choice(_THINGS),
                topic=rng.choice(_TOPICS),
                n=rng.randint(2, 9999),
                year=rng.randint(1000, 2024),
            )
            if text not in seen and not any(e in text.lower() for e in expected):
                seen.add(text)
                return text

    noise: list[Turn] = []
    while len(noise) < n:
        asking = rng.random() < 0.5
        user = fresh(_QUESTIONS if asking else _STATEMENTS)
        noise += [("user", user), ("assistant", f"Noted, {user.split()[-1].rstrip('.?')} it is.")]
    noise = noise[: max(0, n - len(FACTS))]
    # Each fact (with its acknowledgement) goes at a random depth, keeping their order.
    slots = (
        sorted(rng.sample(range(len(noise) // 2 + 1), len(FACTS) // 2)) if n > len(FACTS) else []
    )
    turns: list[Turn] = []
    pairs = [FACTS[i : i + 2] for i in range(0, len(FACTS), 2)]
    k = 0
    for i in range(0, len(noise), 2):
        while k < len(pairs) and slots and slots[k] == i // 2:
            turns += pairs[k]
            k += 1
        turns += noise[i : i + 2]
    for pair in pairs[k:]:
        turns += pair
    return turns[:n] if n >= len(FACTS) else list(FACTS)[:n]


def found(context: str, expected: str) -> bool:
    return expected.lower() in context.lower()


def folder_kb(path: Path) -> float:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) / 1024


class Arm:
    name = ""

    def write(self, role: str, text: str) -> None: ...

    def read(self, query: str) -> str: ...

    def storage_kb(self) -> tuple[float, float]:
        """(memory, index): what must be kept, and what can be rebuilt from it (vectors)."""
        ...


class Window(Arm):
    name = "window (last 20)"

    def __init__(self, encoder: MiniLM, folder: Path) -> None:
        self.messages: list[dict[str, str]] = []

    def write(self, role: str, text: str) -> None:
        self.messages.append({"role": role, "content": text})

    def read(self, query: str) -> str:
        return " ".join(m["content"] for m in self.messages[-20:])

    def storage_kb(self) -> tuple[float, float]:
        import json

        return len(json.dumps(self.messages).encode()) / 1024, 0.0


class Dense(Arm):
    name = "dense (msg, top 3)"

    def __init__(self, encoder: MiniLM, folder: Path) -> None:
        self.encoder = encoder
        self.texts: list[str] = []
        self.vectors: list[np.ndarray] = []

    def write(self, role: str, text: str) -> None:
        self.vectors.append(self.encoder.encode([text])[0])
        self.texts.append(text)

    def read(self, query: str) -> str:
        q = self.encoder.encode([query])[0]
        scores = np.stack(self.vectors) @ q
        return " ".join(self.texts[i] for i in np.argsort(-scores)[:3])

    def storage_kb(self) -> tuple[float, float]:
        # Text, and float32 vectors (Chroma adds its own index on top of these).
        return sum(len(t.encode()) for t in self.texts) / 1024, len(self.vectors) * 384 * 4 / 1024


class FileRAG(Arm):
    name = "filerag (5-msg, dedup)"

    def __init__(self, encoder: MiniLM, folder: Path) -> None:
        self.encoder = encoder
        self.soul = folder / "soul.txt"
        self.chunks: list[str] = []
        self.vectors: list[np.ndarray] = []
        self.window: list[Turn] = []

    def write(self, role: str, text: str) -> None:
        self.window.append((role, text))
        if len(self.window) == 5:
            self._chunk()

    def _chunk(self) -> None:
        summary = " ".join(t for r, t in self.window if r == "user")
        self.window = []
        vector = self.encoder.encode([summary])[0]
        if self.vectors and float(np.max(np.stack(self.vectors) @ vector)) > 0.92:
            return
        with self.soul.open("a") as f:
            f.write(f"[Chunk {len(self.chunks)}]\n- {summary}\n\n")
        self.chunks.append(summary)
        self.vectors.append(vector)

    def read(self, query: str) -> str:
        from rank_bm25 import BM25Okapi

        if self.window:
            self._chunk()
        if not self.chunks:
            return ""
        scores = BM25Okapi([c.lower().split() for c in self.chunks]).get_scores(
            query.lower().split()
        )
        lexical = [self.chunks[i] for i in np.argsort(-scores)[:2] if scores[i] > 0]
        q = self.encoder.encode([query])[0]
        dense = [self.chunks[i] for i in np.argsort(-(np.stack(self.vectors) @ q))[:2]]
        return " ".join(dict.fromkeys(lexical + dense))

    def storage_kb(self) -> tuple[float, float]:
        soul = self.soul.stat().st_size if self.soul.exists() else 0
        return soul / 1024, len(self.vectors) * 384 * 4 / 1024


class Soulscope(Arm):
    name = "soulscope (distil, hybrid)"

    def __init__(self, encoder: MiniLM, folder: Path) -> None:
        self.folder = folder
        self.distiller = Distiller(
            folder / "users", "jd", encoder=encoder, cache=EmbeddingCache(folder / "cache.sqlite3")
        )

    def write(self, role: str, text: str) -> None:
        self.distiller.add(role, text)

    def read(self, query: str) -> str:
        self.distiller.flush()  # what a session end (or SIGTERM) does
        return " ".join(self.distiller.recall(query, k=4))

    def storage_kb(self) -> tuple[float, float]:
        # users/ holds the soul file and the buffer; the SQLite embedding cache is disposable.
        memory = folder_kb(self.folder / "users")
        return memory, folder_kb(self.folder) - memory


ARMS: list[Callable[[MiniLM, Path], Arm]] = [Window, Dense, FileRAG, Soulscope]


def run(turns: list[Turn], queries: list[tuple[str, str]], encoder: MiniLM) -> list[list[str]]:
    rows = []
    for make in ARMS:
        with tempfile.TemporaryDirectory() as tmp:
            arm = make(encoder, Path(tmp))
            writes = []
            for role, text in turns:
                t = time.perf_counter()
                arm.write(role, text)
                writes.append(time.perf_counter() - t)
            reads, correct = [], 0
            for query, expected in queries:
                t = time.perf_counter()
                context = arm.read(query)
                reads.append(time.perf_counter() - t)
                correct += found(context, expected)
            rows.append(
                [
                    arm.name,
                    f"{correct}/{len(queries)}",
                    f"{100 * correct / len(queries):.0f}%",
                    f"{statistics.mean(writes) * 1000:.3f}",
                    f"{statistics.mean(reads) * 1000:.2f}",
                    *(f"{kb:.1f}" for kb in arm.storage_kb()),
                ]
            )
    return rows


def print_table(title: str, rows: list[list[str]]) -> None:
    header = ["arm", "correct", "accuracy", "write ms", "read ms", "memory KB", "index KB"]
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    print(title)
    print(" | ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)))
    print("-+-".join("-" * w for w in widths))
    for r in rows:
        print(" | ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)))
    print()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="20,500,1000,10000")
    parser.add_argument("--variant", choices=["original", "hard", "both"], default="both")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    encoder = MiniLM()
    print(f"FileRAG benchmark; all-MiniLM-L6-v2 on {encoder.device}\n")
    if args.variant in ("original", "both"):
        for n in sizes:
            print_table(f"original, n = {n} messages", run(original_turns(n), QUERIES, encoder))
    if args.variant in ("hard", "both"):
        missed = []
        for n in sizes:
            rows = run(hard_turns(n), PARAPHRASED, encoder)
            print_table(f"hard, n = {n} messages", rows)
            if rows[-1][2] != "100%":
                missed.append(f"{rows[-1][2]} at {n}")
        verdict = f"missed ({', '.join(missed)})" if missed else "met"
        print(f"target: soulscope finds 100% of the hard variant at every size: {verdict}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
