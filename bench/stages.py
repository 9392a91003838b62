"""Time to hybrid search on a real world from an empty cache folder: the static model's stage
beside MiniLM on torch for every bullet, in the same run.

`soulscope embed` runs as the background catch-up runs it (a process of its own, an empty cache
folder); its status file says how far each stage got. Hybrid search is ready once the static
model's vectors of every text are cached: from then on a search answers with it (one is run then,
and what answered is printed). Measured twice: with the static model still to be distilled (a
first run on a machine), and with it already distilled (any later world).

The baseline, MiniLM on torch for every text of the world, is MiniLM's load time plus the world's
texts at the rate MiniLM embeds a random sample of them (``--sample``, fixed seed) in this process,
cut and batched as the catch-up does: the whole world takes 15 to 30 minutes on a laptop's CPU.

Target: hybrid ready within 25% of the baseline.

Run: python bench/stages.py [--world DIR] [--sample 2000]
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REAL_WORLD = ROOT.parent / "shared" / "corpus" / "rappterbook"
QUESTION = "who argued about governance?"
sys.path.insert(0, str(ROOT))

from soulscope.recall.catchup import DISTILLING, Catchup  # noqa: E402
from soulscope.recall.hybrid import RecallIndex  # noqa: E402
from soulscope.recall.semantic import LOCAL_NAME, MiniLM, embed  # noqa: E402
from soulscope.recall.static import STATIC_NAME, static_path  # noqa: E402
from soulscope.world import World  # noqa: E402


def env_for(cache: Path) -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "SOULSCOPE_CACHE": str(cache)}
    env["SOULSCOPE_BACKGROUND"] = "0"  # the search below must not start a second embedding
    for var in ("OPENAI_BASE_URL", "SOULSCOPE_CONFIG"):
        env.pop(var, None)
    return env


def to_hybrid(world: Path, cache: Path) -> tuple[float, float, float, str]:
    """Run `soulscope embed` from ``cache`` until the static stage is complete: seconds to that,
    seconds spent distilling, wall seconds of a search then, and what it said answered."""
    os.environ["SOULSCOPE_CACHE"] = str(cache)  # (where Catchup finds the status file)
    catchup = Catchup(World.open(world), LOCAL_NAME)
    env = env_for(cache)
    started = time.perf_counter()
    distilling = [0.0, 0.0]  # first and last seen
    with subprocess.Popen(
        [sys.executable, "-m", "soulscope", "embed", "--quiet", "-w", str(world)],
        env=env,
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    ) as proc:
        try:
            while True:
                status = catchup.status()
                now = time.perf_counter() - started
                stage = status.stage if status is not None else ""
                if stage == DISTILLING:
                    distilling = [distilling[0] or now, now]
                if stage == STATIC_NAME and status and status.total == status.done > 0:
                    break
                if stage == LOCAL_NAME:
                    raise SystemExit("the static stage was left out (see the background log)")
                if proc.poll() is not None:
                    raise SystemExit(f"soulscope embed stopped with status {proc.returncode}")
                time.sleep(0.05)
            ready = time.perf_counter() - started
            asked = time.perf_counter()
            search = subprocess.run(
                [sys.executable, "-m", "soulscope", "search", QUESTION, "-w", str(world), "--json"],
                env=env,
                cwd=ROOT,
                capture_output=True,
                text=True,
                check=True,
            )
            searched = time.perf_counter() - asked
        finally:
            proc.terminate()  # MiniLM's stage is the baseline's business
            proc.wait()
    said = next((line for line in search.stderr.splitlines() if "answered with" in line), "")
    said = said.removeprefix("soulscope: ").split(" while ")[0]
    return ready, distilling[1] - distilling[0], searched, said or "(nothing said)"


def minilm_everything(world: Path, sample: int) -> tuple[float, float, int, int]:
    """MiniLM's load seconds, its texts per second on a sample, the sample's and world's size."""
    texts = RecallIndex.for_world(World.open(world)).dense_texts
    unique = list(dict.fromkeys(texts))
    picked = random.Random(0).sample(unique, min(sample, len(unique)))
    started = time.perf_counter()
    encoder = MiniLM(device="cpu")
    loaded = time.perf_counter() - started
    started = time.perf_counter()
    embed(picked, encoder, None)
    rate = len(picked) / (time.perf_counter() - started)
    return loaded, rate, len(picked), len(unique)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--world", type=Path, default=REAL_WORLD)
    parser.add_argument("--sample", type=int, default=2000, help="texts MiniLM's rate is taken on")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory(prefix="soulscope-stages-") as tmp:
        first, second = Path(tmp) / "empty", Path(tmp) / "distilled"
        cold = to_hybrid(args.world, first)
        second.mkdir()
        os.environ["SOULSCOPE_CACHE"] = str(first)
        table = static_path()
        os.environ["SOULSCOPE_CACHE"] = str(second)
        static_path().parent.mkdir(parents=True)
        shutil.copy(table, static_path())
        warm = to_hybrid(args.world, second)
    loaded, rate, sampled, total = minilm_everything(args.world, args.sample)
    baseline = loaded + total / rate
    rows.append(
        (
            f"baseline: MiniLM for every text ({total:,} at {rate:.1f}/s on {sampled:,}, "
            f"+ {loaded:.1f} s load)",
            baseline,
        )
    )
    rows.append((f"hybrid ready, static model distilled first ({cold[1]:.0f} s of it)", cold[0]))
    rows.append(("hybrid ready, static model already distilled", warm[0]))
    print(f"world {args.world}: {total:,} texts, empty cache folder")
    print(f"{'measure':<78}{'s':>9}{'x baseline':>12}")
    for name, seconds in rows:
        print(f"{name:<78}{seconds:>9.1f}{seconds / baseline:>12.3f}")
    print(f"a search then: {cold[3]} ({cold[2]:.2f} s; already distilled: {warm[2]:.2f} s)")
    met = cold[0] <= 0.25 * baseline
    print(f"target: hybrid within 25% of the baseline: {'met' if met else 'MISSED'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
