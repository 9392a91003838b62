"""Advancing worlds: offline frames of 100, 1,000 and 10,000 agents against the floor of appending
the same bytes with plain writes and committing them (git add -A + git commit), measured in the
same run; the LLM brain against a loopback server answering after 200 ms, at concurrency 1, 8, 32.

Run: nice .venv/bin/python bench/frames.py [--no-llm]
Prints the tables. Targets: 100 agents advance one offline frame, commit included, in under 1 s;
1,000 and 10,000 agents per frame within 2x of the floor.
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from soulscope.atomic import write_atomic  # noqa: E402
from soulscope.config import Settings  # noqa: E402
from soulscope.sim import repo  # noqa: E402
from soulscope.sim.create import init_world, registry_bytes  # noqa: E402
from soulscope.sim.frame import FrameRunner  # noqa: E402
from soulscope.sim.llm import LlmBrain  # noqa: E402
from soulscope.sim.offline import OfflineBrain  # noqa: E402
from soulscope.soul.write import render_header  # noqa: E402
from tests.support.openai_server import OpenAIServer, valid_answer  # noqa: E402
from tests.support.simworld import ARCHETYPES  # noqa: E402

TARGET_S = 1.0
TARGET_X_FLOOR = 2.0
LLM_DELAY = 0.2


def build_world(root: Path, agents: int) -> Path:
    """A world of ``agents`` agents, written directly and committed once (registering them one by
    one would cost a commit each)."""
    init_world(root, "2026-01-01", seed=1, name="bench")
    registry = {}
    for i in range(agents):
        archetype, voice, convictions, interests, channels = ARCHETYPES[i % len(ARCHETYPES)]
        agent = f"{archetype.lower()}-{i:04d}"
        header = render_header(
            agent,
            f"{archetype} {i}",
            archetype,
            voice,
            "",
            convictions,
            interests,
            [f"c/{c}" for c in channels],
        )
        write_atomic(root / "memory" / f"{agent}.md", header.encode())
        registry[agent] = {
            "name": f"{archetype} {i}",
            "status": "active",
            "subscribed_channels": channels,
        }
    write_atomic(root / "agents.json", registry_bytes(registry))
    # git's automatic gc would pack in the background of whichever commit crosses its limit
    # (10,000 agents cross it each frame): off, for runner and floor alike.
    repo.git(root, "config", "gc.auto", "0")
    repo.git(root, "add", "-A")
    repo.git(root, "commit", "-qm", "agents", date="2026-01-01")
    return root


def snapshot(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in root.rglob("*")
        if p.is_file() and not p.relative_to(root).parts[0].startswith(".")
    }


def delta(before: dict[str, bytes], after: dict[str, bytes]) -> list[tuple[str, bytes, bool]]:
    """What a frame changed: (path, bytes, appended?) — the new tail of a grown file, or a new file."""
    out = []
    for path, data in after.items():
        old = before.get(path)
        if old == data:
            continue
        grown = old is not None and data.startswith(old)
        out.append((path, data[len(old) :] if grown else data, grown))
    return out


def offline(agents: int, frames: int, work: Path) -> dict:
    world = build_world(work / f"w{agents}x{frames}", agents)
    floor_world = work / f"f{agents}x{frames}"
    shutil.copytree(world, floor_world)
    changes = []  # per frame: (path, bytes appended or whole new file)
    total = git = think = write = 0.0
    before = snapshot(world)
    with FrameRunner(world, OfflineBrain()) as runner:
        for _ in range(frames):
            t = time.perf_counter()
            result = runner.step()
            total += time.perf_counter() - t
            git += result.timings["git"]
            think += result.timings["read"] + result.timings["decide"]
            write += result.timings["write"]
            after = snapshot(world)
            changes.append(delta(before, after))
            before = after
    # The floor: the same bytes, appended with plain writes, then `git add` + `git commit`.
    floor = floor_git = 0.0
    for n, frame in enumerate(changes, 1):
        t = time.perf_counter()
        for path, data, appended in frame:
            target = floor_world / path
            target.parent.mkdir(parents=True, exist_ok=True)
            with open(target, "ab" if appended else "wb") as f:
                f.write(data)
        g = time.perf_counter()
        repo.git(floor_world, "add", "-A")
        repo.git(floor_world, "commit", "-qm", f"frame {n}", date="2026-01-01")
        floor_git += time.perf_counter() - g
        floor += time.perf_counter() - t
    same = snapshot(world) == snapshot(floor_world)
    return {
        "scenario": f"offline {agents} x {frames}",
        "agents/s": agents * frames / total,
        "s/frame": total / frames,
        "read+decide ms": 1000 * think / frames,
        "write+sync ms": 1000 * write / frames,
        "ms/commit": 1000 * git / frames,
        "git share": git / total,
        "floor s/frame": floor / frames,
        "floor ms/commit": 1000 * floor_git / frames,
        "x floor": total / floor,
        "same bytes": same,
    }


def llm(work: Path, agents: int = 32) -> list[dict]:
    world = build_world(work / "llm", agents)
    rows = []
    base = None
    with OpenAIServer(
        answer=lambda agent, body: (200, valid_answer(body)), models=("m",), latency=LLM_DELAY
    ) as server:
        for concurrency in (1, 8, 32):
            brain = LlmBrain(
                Settings(base_url=server.base_url, api_key="k", model="m"), concurrency=concurrency
            )
            with FrameRunner(world, brain) as runner:
                t = time.perf_counter()
                result = runner.step()
                total = time.perf_counter() - t
            assert not result.errors, result.errors
            rate = agents / result.timings["decide"]
            base = base or rate
            rows.append(
                {
                    "concurrency": concurrency,
                    "agents": agents,
                    "decide s": result.timings["decide"],
                    "frame s": total,
                    "agents/s": rate,
                    "speed-up": rate / base,
                    "ideal": min(concurrency, agents),
                    "floor s": agents * LLM_DELAY / min(concurrency, agents),
                }
            )
    return rows


def table(rows: list[dict]) -> None:
    cols = list(rows[0])
    cells = [
        [
            f"{v:.3g}" if isinstance(v, float) and not isinstance(v, bool) else str(v)
            for v in r.values()
        ]
        for r in rows
    ]
    widths = [max(len(c), *(len(row[i]) for row in cells)) for i, c in enumerate(cols)]
    print("  ".join(c.rjust(w) for c, w in zip(cols, widths, strict=True)))
    for row in cells:
        print("  ".join(v.rjust(w) for v, w in zip(row, widths, strict=True)))


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="soulscope-bench-") as tmp:
        work = Path(tmp)
        rows = [offline(100, 10, work), offline(1000, 1, work), offline(10000, 1, work)]
        print("Offline frames (frame = read + decide + write + sync + commit; floor = append the")
        print("same bytes with plain writes, then git add -A + git commit)")
        table(rows)
        target = rows[0]["s/frame"]
        verdict = "met" if target < TARGET_S else "MISSED"
        print(f"target: 100 agents, one frame < {TARGET_S:g} s: {target:.3f} s ({verdict})")
        for r in rows[1:]:
            verdict = "met" if r["x floor"] <= TARGET_X_FLOOR else "MISSED"
            print(
                f"target: {r['scenario']} within {TARGET_X_FLOOR:g}x of the floor: "
                f"{r['x floor']:.2f}x ({verdict})"
            )
        print()
        if "--no-llm" not in sys.argv:
            print(
                f"LLM brain, loopback server answering after {LLM_DELAY * 1000:.0f} ms; "
                "floor = agents x delay / concurrency"
            )
            table(llm(work))
        print(
            json.dumps(
                {
                    "offline_100_s_per_frame": round(target, 4),
                    **{f"x_floor_{r['scenario'].split()[1]}": round(r["x floor"], 3) for r in rows},
                }
            )
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
