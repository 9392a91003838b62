"""A chat's messages survive a kill during distillation, and chats running at once for one user."""

from __future__ import annotations

import itertools
import json
import signal
import subprocess
import sys
import threading
from pathlib import Path

from soulscope.chat.distill import DISTIL_PROMPT, Distiller, DistillSettings
from soulscope.llm import LLM, Endpoint
from tests.support.cli import process_env
from tests.support.openai_server import OpenAIServer
from tests.support.paths import ROOT
from tests.support.users import users_folder


def chat_process(world: Path, env: dict[str, str], user: str = "ann") -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "soulscope", "chat", "--user", user, "--mode", "bm25"]
        + ["--world", str(world)],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env=process_env(env),
    )


def config(tmp_path: Path, interval: int) -> dict[str, str]:
    path = tmp_path / "config.toml"
    path.write_text(f"[chat]\ninterval = {interval}\n")
    return {"SOULSCOPE_CONFIG": str(path)}


def buffered(world: Path, user: str = "ann", folder: Path | None = None) -> list[str]:
    path = (folder or users_folder(world)) / f"{user}.buffer.jsonl"
    lines = path.read_text().splitlines() if path.exists() else []
    return [e["text"] for e in map(json.loads, lines) if "text" in e]


def test_the_message_is_on_disk_before_the_llm_is_asked(tmp_path: Path) -> None:
    seen: list[list[str]] = []

    def answer(agent: str, body: dict) -> tuple[int, str]:
        seen.append(buffered(tmp_path, folder=tmp_path / "users"))  # what a kill now would leave
        return 200, "- The user keeps bees"

    with OpenAIServer(answer=answer) as server:
        llm = LLM(Endpoint(server.base_url, "k", "tiny", 5.0))
        d = Distiller(tmp_path / "users", "ann", llm=llm, settings=DistillSettings(interval=1))
        d.add("user", "I keep bees.")  # nothing to distil before it
        d.add("user", "I sail on Sundays.")  # the turn before it is distilled now
    assert seen == [["I keep bees.", "I sail on Sundays."]]
    assert buffered(tmp_path, folder=tmp_path / "users") == ["I sail on Sundays."]


def test_a_kill_while_the_llm_distils_loses_no_message(tmp_path: Path, world: Path) -> None:
    asked = threading.Event()

    def answer(agent: str, body: dict) -> tuple[int, str]:
        if body["messages"][0]["content"] == DISTIL_PROMPT:
            asked.set()
            threading.Event().wait(30)  # the distillation hangs: the process is killed meanwhile
        return 500, "the answer fails, so the next message triggers distillation"

    with OpenAIServer(answer=answer) as server:
        env = {"OPENAI_BASE_URL": server.base_url, "SOULSCOPE_MODEL": "tiny"}
        chat = chat_process(world, {**env, **config(tmp_path, interval=1)})
        chat.stdin.write("I keep bees on a roof.\nMy sister Rui sails.\n")
        chat.stdin.flush()
        assert asked.wait(60), chat.stderr.read() if chat.poll() is not None else "no request"
        chat.send_signal(signal.SIGKILL)
        chat.wait(10)
    assert buffered(world) == ["I keep bees on a roof.", "My sister Rui sails."]


def test_chats_at_once_for_one_user_keep_every_message(tmp_path: Path, world: Path) -> None:
    chats, messages = 3, 40
    env = config(tmp_path, interval=2)  # offline, distilling every two turns: much rewriting
    procs = [chat_process(world, env) for _ in range(chats)]
    for c, proc in enumerate(procs):
        told = "".join(f"Chat {c} says I own bee hive number {i}.\n" for i in range(messages))
        proc.stdin.write(told)
        proc.stdin.close()
    for proc in procs:
        assert proc.wait(120) == 0, proc.stderr.read()
    users = users_folder(world)
    kept = (users / "ann.txt").read_text() + "\n".join(buffered(world))
    missing = [
        (c, i)
        for c in range(chats)
        for i in range(messages)
        if f"Chat {c} says I own bee hive number {i}." not in kept
    ]
    assert missing == []
    blocks = [
        tuple(map(int, line.split()[2].split("-")))
        for line in kept.splitlines()
        if line.startswith("## Turns")
    ]
    assert blocks == sorted(blocks)  # blocks follow one another...
    assert all(a[1] < b[0] for a, b in itertools.pairwise(blocks))  # ...and never overlap
