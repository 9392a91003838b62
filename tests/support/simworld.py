"""Small real worlds for the frame tests: ``soulscope init`` + ``register``, in a temp folder
(``make_world``), and the frame runner on them: ``run_frame`` in this process, ``frame_process`` in
a child process with a fault injected (``drive``), ``run_frame_process`` where a read could block."""

from __future__ import annotations

import subprocess
from pathlib import Path

from soulscope.sim.create import init_world, register_agent

ARCHETYPES = [
    (
        "Coder",
        "terse",
        ["Tests come first", "Small diffs win"],
        ["parsers", "git", "testing"],
        ["code", "meta"],
    ),
    (
        "Philosopher",
        "measured",
        ["Memory is identity", "Clarity comes from subtraction"],
        ["memory", "identity", "consciousness"],
        ["philosophy", "meta"],
    ),
    (
        "Debater",
        "combative",
        ["Every claim needs a test", "Consensus is suspicious"],
        ["argument", "testing", "memory"],
        ["debates", "meta", "code"],
    ),
    (
        "Archivist",
        "careful, warm",
        ["Nothing should be lost", "History explains the present"],
        ["archives", "git", "memory"],
        ["meta", "history"],
    ),
]


def make_world(root: Path, agents: int = 4, date: str = "2026-03-01", seed: int = 7) -> Path:
    """A world with ``agents`` registered agents cycling through four archetypes."""
    init_world(root, date, seed=seed, name="test")
    for i in range(agents):
        archetype, voice, convictions, interests, channels = ARCHETYPES[i % len(ARCHETYPES)]
        register_agent(
            root,
            f"zion-{archetype.lower()}-{i + 1:02d}",
            f"{archetype} {i + 1}",
            archetype,
            voice,
            f"A {archetype.lower()} who cares about {interests[0]}.",
            convictions=convictions,
            interests=interests,
            channels=channels,
        )
    return root


def tree_bytes(root: Path) -> dict[str, bytes]:
    """Every file of a world outside ``.git``, by relative path."""
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".git" not in p.relative_to(root).parts
    }


# Fault injection for frame runs in a child process: the tests wrap the runner's own write and
# commit steps from outside (production code has no hooks). Every wrapped call is two events,
# "before NAME" and "after NAME", counted in order; a fault acts at one of them.
FAULT_ENV = "SOULSCOPE_TEST_FAULT"
_WRAPPED = (
    ("soulscope.sim.frame", "write_journal"),
    ("soulscope.sim.community", "append"),
    ("soulscope.sim.frame", "append_durable"),
    ("soulscope.sim.frame", "append_entry"),  # the runner before it appended in place
    ("soulscope.sim.frame", "write_clock"),
    ("soulscope.sim.repo", "commit"),
    ("soulscope.sim.frame", "clear_journal"),
)


def drive() -> int:
    """``soulscope`` with the fault named in ``$SOULSCOPE_TEST_FAULT`` (JSON) injected.

    ``{"do": "kill"|"pause"|"torn"|"count", "at": N}``: SIGKILL itself at event N, print
    ``paused at N`` and sleep (the test sends the signal), write half of an append's bytes then
    SIGKILL, or just count (``events: N`` on stderr at exit). ``"label": TEXT`` counts only the
    events whose label holds TEXT (``{"do": "kill", "label": "after append", "at": 2}``).
    """
    import atexit
    import importlib
    import json
    import os
    import signal
    import sys
    import time

    from soulscope.cli import main

    fault = json.loads(os.environ.get(FAULT_ENV) or '{"do": "count"}')
    seen = [0]

    def event(label: str) -> bool:
        if fault.get("label", "") not in label:
            return False
        seen[0] += 1
        if seen[0] != fault.get("at"):
            return False
        if fault["do"] == "kill":
            os.kill(os.getpid(), signal.SIGKILL)
        if fault["do"] == "pause":
            print(f"paused at {label}", file=sys.stderr, flush=True)
            time.sleep(60)
        return fault["do"] == "torn"

    def wrap(name: str, fn):  # noqa: ANN001, ANN202
        def wrapped(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
            if event(f"before {name}") and name.startswith("append_"):
                fn(args[0], args[1][: max(1, len(args[1]) // 2)], **kwargs)
                os.kill(os.getpid(), signal.SIGKILL)
            out = fn(*args, **kwargs)
            event(f"after {name}")
            return out

        return wrapped

    for module, name in _WRAPPED:
        mod = importlib.import_module(module)
        if hasattr(mod, name):
            setattr(mod, name, wrap(name, getattr(mod, name)))
    if fault["do"] == "count":
        atexit.register(lambda: print(f"events: {seen[0]}", file=sys.stderr, flush=True))
    return main(sys.argv[1:])


def frame_process(  # noqa: ANN201 (a Popen)
    world: Path, *args: str, fault: dict | None = None, env: dict | None = None
):
    """``soulscope frame --world WORLD ARGS`` in a child process, with ``fault`` injected."""
    import json
    import sys

    from tests.support.cli import process_env
    from tests.support.paths import ROOT

    full = process_env({**(env or {}), FAULT_ENV: json.dumps(fault or {"do": "count"})})
    return subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys; from tests.support.simworld import drive; sys.exit(drive())",
            "frame",
            "--world",
            str(world),
            *args,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env=full,
    )


def finished(proc: subprocess.Popen[str], timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """What a ``frame_process`` said by its end; one that hangs past ``timeout`` s fails the test."""
    import pytest

    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        pytest.fail(f"soulscope frame hung for {timeout} s")
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def run_frame(world: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``soulscope frame --world WORLD ARGS``, in this process."""
    from tests.support.cli import soulscope

    return soulscope("frame", "--world", str(world), *args)


def run_frame_process(world: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``soulscope frame --world WORLD ARGS`` in a child process, for a test of a read that could
    block (a FIFO): a hang fails the test, not the whole run."""
    return finished(frame_process(world, *args, fault={"do": "none"}), timeout=30)
