"""How the links between agents are read, on the real worlds: this code against a baseline.

Three counts, each from the commands' own answers (``spread --json``, ``graph --json``, ``why``),
so the same script measures any version of soulscope:

- spread: the ``from`` links that rest on a vote line alone ("Voted: 🚀 wildcard-04/#5578"),
  over a fixed set of terms;
- reply lines: lines that say the agent replied to another agent of the world (any form of
  either era, History bullets included) whose arc in ``graph --json`` carries a reply;
- credits: identity statements that name another agent of the world, whose ``why`` lists that
  agent as an influencer with its state (a frame of its own before the statement, one the
  headings cannot order against it, or what its file held above its first frame);
- later evidence: dossiers (every identity statement's ``why``) that cite a frame the headings
  place after the statement;
- reading: the CPU seconds to read every link of every soul (``links.read``), the best of
  rounds that alternate the versions (a loaded machine slows each alike).

The reply lines and credits are found by this script's own patterns over the files, not by
soulscope's reader. The worlds: the early-era corpus, and the later-era files with the
registry of the same world (copied into a temporary folder).

Run: .venv/bin/python bench/links.py [--before REV]   (the baseline: a git revision, run from
its own sources; without it only this checkout is measured)
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT.parent / "shared" / "corpus"
TERMS = (
    "Ship of Theseus",
    "governance",
    "Noopolis",
    "Mars Barn",
    "constitution",
    "consensus",
    "archive",
    "dormancy",
    "citizenship",
    "survival",
)
VOTE_LINE = re.compile(r"^\W*(\*\*[^*]+\*\*\W*)?(up|down)?-?vot(ed|es?|ing)\b", re.I)
REPLY_LINE = re.compile(
    r"\b(?:repl(?:ied|ies|y|ying)|respon(?:ded|ding|se|d))\b(?:[^\n]{0,40}?)\bto\s+@?([\w.-]+)",
    re.I,
)


def tree(rev: str | None) -> Path:
    """The soulscope source of a revision (``git archive``), or this checkout's."""
    if rev is None:
        return ROOT
    out = Path(tempfile.mkdtemp(prefix="soulscope-before-"))
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", rev, "soulscope"], capture_output=True, check=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(out)], input=archive, check=True)
    return out


def soulscope(src: Path, cache: Path, *args: str) -> dict:
    env = {**os.environ, "PYTHONPATH": str(src), "SOULSCOPE_CACHE": str(cache)}
    done = subprocess.run(
        [sys.executable, "-m", "soulscope", *args],
        capture_output=True,
        env=env,
        check=False,
        cwd=src,  # ``-m`` puts the working folder first on the path
    )
    return json.loads(done.stdout or b"{}")


def resolver(world: Path) -> dict[str, str]:
    """Every written form of an agent id (lowered, with and without the prefix) -> the id."""
    ids = set(json.loads((world / "agents.json").read_text())["agents"])
    ids |= {p.stem for p in (world / "memory").glob("*.md")}
    forms = {}
    for i in ids:
        if "-" in i:
            forms[i.lower()] = i
            if i.startswith("zion-"):
                forms[i[5:].lower()] = i
    return forms


def vote_froms(src: Path, cache: Path, world: Path) -> tuple[int, int]:
    """(froms resting on a vote line, froms) over TERMS."""
    votes = total = 0
    for term in TERMS:
        answer = soulscope(src, cache, "spread", term, "--world", str(world), "--json")
        for e in answer.get("edges", ()):
            total += 1
            votes += bool(e["kind"] == "vote" or VOTE_LINE.match(e["text"]))
    return votes, total


def reply_arcs(src: Path, cache: Path, world: Path) -> tuple[int, int]:
    """(reply lines whose arc carries a reply, reply lines)."""
    forms = resolver(world)
    graph = soulscope(src, cache, "graph", "--world", str(world), "--json")
    replied = {(e["from"], e["to"]) for e in graph.get("edges", ()) if e["kinds"].get("reply")}
    found = hit = 0
    for path in sorted((world / "memory").glob("*.md")):
        for line in path.read_text("utf-8", "replace").split("\n"):
            for m in REPLY_LINE.finditer(line):
                who = forms.get(m.group(1).lower().rstrip("."))
                if who is None or who == path.stem:
                    continue
                found += 1
                hit += (who, path.stem) in replied
    return hit, found


WHY = """
import json, re, sys
from soulscope.history.mentions import index_for
from soulscope.history.why import explain
from soulscope.soul import when
from soulscope.soul.trajectory import arc
from soulscope.world import World
world = World.open(sys.argv[1])
forms = json.loads(sys.argv[2])
present = {a.id for a in world.agents()}
run = re.compile(r"(?<![\\w-])[\\w][\\w-]*")
index = index_for(world)
asked = hit = dossiers = later = 0


def held(s):
    # a frame before the statement, one the headings cannot order, or what its file held
    return s.frame or s.around_index is not None or getattr(s, "becoming", None)


def cites_later(w):
    # a cited frame (not its own) that the headings place after the statement
    mine = w.moment
    for agent, i in w.citations().values():
        entry = index.agents.get(agent)
        if mine is None or i is None or entry is None or (agent, i) == (w.agent_id, w.statement.frame_index):
            continue
        m = entry.moments[i]
        if when.ordered(mine, m) and mine.key < m.key:
            return True
    return False


for agent in sorted(present):
    statements = arc(world.read(agent))
    for i, st in enumerate(statements, 1):
        w = explain(world, agent, index=i, mentions=index)
        dossiers += 1
        later += cites_later(w)
        named = {forms.get(t.lower()) for t in run.findall(st.text)} - {None, agent}
        if not named:
            continue
        asked += 1
        states = {s.agent: s for s in w.influencer_states}
        hit += all(n in states and (n not in present or held(states[n])) for n in named)
print(json.dumps([hit, asked, later, dossiers]))
"""


def dossiers(src: Path, cache: Path, world: Path) -> tuple[int, int, int, int]:
    """(statements naming an agent whose why lists each as an influencer with its state,
    statements naming an agent, dossiers citing a frame placed after their statement,
    dossiers), over every identity statement of the world."""
    env = {**os.environ, "PYTHONPATH": str(src), "SOULSCOPE_CACHE": str(cache)}
    done = subprocess.run(
        [sys.executable, "-c", WHY, str(world), json.dumps(resolver(world))],
        capture_output=True,
        env=env,
        check=True,
        cwd=src,
    )
    hit, asked, later, total = json.loads(done.stdout)
    return hit, asked, later, total


READ = """
import json, sys, time
from soulscope.history.links import read
from soulscope.history.names import AgentNames
from soulscope.world import World
world = World.open(sys.argv[1])
names = AgentNames.of(world)
souls = [(a.id, a.path.read_bytes()) for a in world.agents()]
best = float("inf")
for _ in range(int(sys.argv[2])):
    start = time.process_time()
    for agent, data in souls:
        for _ in read(names, data, 0, len(data), agent):
            pass
    best = min(best, time.process_time() - start)
print(json.dumps(best))
"""


def reading(versions: list[tuple[str, Path]], world: Path, rounds: int = 4) -> dict[str, float]:
    """Each version's best CPU seconds to read the world's links, over ``rounds`` that
    alternate the versions, three readings a round."""
    best = {name: float("inf") for name, _ in versions}
    for _ in range(rounds):
        for name, src in versions:
            env = {**os.environ, "PYTHONPATH": str(src)}
            done = subprocess.run(
                [sys.executable, "-c", READ, str(world), "3"],
                capture_output=True,
                env=env,
                check=True,
                cwd=src,
            )
            best[name] = min(best[name], json.loads(done.stdout))
    return best


def worlds(tmp: Path) -> list[tuple[str, Path]]:
    later = tmp / "later"
    shutil.copytree(CORPUS / "rappterbook-later" / "memory", later / "memory")
    shutil.copy(CORPUS / "rappterbook" / "agents.json", later / "agents.json")
    return [("early", CORPUS / "rappterbook"), ("later", later)]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--before", metavar="REV", help="the baseline: a git revision")
    args = parser.parse_args()
    if not CORPUS.exists():
        print(f"bench/links.py: the corpus is not here ({CORPUS}); nothing measured")
        return 0
    tmp = Path(tempfile.mkdtemp(prefix="soulscope-links-"))
    versions = [("before", tree(args.before))] if args.before else []
    versions.append(("now", ROOT))
    rows = []
    for name, where in worlds(tmp):
        seconds = reading(versions, where)
        for version, src in versions:
            cache = tmp / f"cache-{version}"
            votes, froms = vote_froms(src, cache, where)
            replies, lines = reply_arcs(src, cache, where)
            credited, statements, later, total = dossiers(src, cache, where)
            rows.append(
                (name, version, votes, froms, replies, lines, credited, statements, later, total)
                + (seconds[version],)
            )
    print(
        "| world | version | froms on votes alone | reply lines as reply arcs "
        "| credits listed with a state | dossiers citing later frames | reading (CPU s) |"
    )
    print("|---|---|---|---|---|---|---|")
    for (
        name,
        version,
        votes,
        froms,
        replies,
        lines,
        credited,
        statements,
        later,
        total,
        cpu,
    ) in rows:
        print(
            f"| {name} | {version} | {votes} of {froms} | {replies} of {lines} "
            f"| {credited} of {statements} | {later} of {total} | {cpu:.3f} |"
        )
    shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
