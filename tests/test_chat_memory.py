"""Talking to a world changes nothing in it: what chat learns is kept in soulscope's data folder,
recalled by later chats (offline too), listed and deleted with ``soulscope memory``."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from soulscope.chat.distill import extract_facts
from tests.support.cli import one_sentence, soulscope
from tests.support.openai_server import OpenAIServer
from tests.support.users import users_folder


def everything(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


@pytest.fixture
def real_world(early_world: Path, tmp_path: Path) -> Path:
    """A copy of the real early world, as its own git repository."""
    world = tmp_path / "early"
    world.mkdir()
    shutil.copytree(early_world / "memory", world / "memory")
    shutil.copy(early_world / "agents.json", world / "agents.json")
    run = {"cwd": world, "check": True, "capture_output": True}
    subprocess.run(["git", "init", "-q"], **run)
    subprocess.run(["git", "add", "-A"], **run)
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "world"], **run
    )
    return world


def git_status(world: Path) -> str:
    return subprocess.run(
        ["git", "status", "--porcelain", "--ignored"], cwd=world, capture_output=True, text=True
    ).stdout


def test_ask_and_chat_leave_a_real_world_as_it_was(real_world: Path, tmp_path: Path) -> None:
    before = everything(real_world)
    asked = soulscope(
        "ask",
        "zion-coder-01",
        "what does it say about types",
        "-w",
        str(real_world),
        "--mode",
        "bm25",
    )
    assert asked.returncode == 0, asked.stderr
    told = "My cat is named Pixel.\nI keep bees on the roof of the lighthouse.\n"
    chat = soulscope("chat", "--user", "ann", "-w", str(real_world), "--mode", "bm25", stdin=told)
    assert chat.returncode == 0, chat.stderr
    assert everything(real_world) == before and git_status(real_world) == ""
    # A second chat, offline, finds what the first kept.
    again = soulscope(
        "chat",
        "--user",
        "ann",
        "-w",
        str(real_world),
        "--mode",
        "bm25",
        stdin="what is my cat called\n",
    )
    assert again.returncode == 0, again.stderr
    assert "From earlier conversations with you:\n- My cat is named Pixel." in again.stdout
    assert everything(real_world) == before and git_status(real_world) == ""
    listed = json.loads(
        soulscope("memory", "--user", "ann", "-w", str(real_world), "--json").stdout
    )
    assert [b["facts"] for b in listed["blocks"]] == [
        ["My cat is named Pixel.", "I keep bees on the roof of the lighthouse."]
    ]
    assert Path(listed["folder"]) == users_folder(real_world)
    assert not Path(listed["folder"]).is_relative_to(real_world)
    said = one_sentence(
        soulscope("memory", "--user", "ann", "-w", str(real_world), "--forget", "2")
    )
    assert "there is no block 2" in said
    gone = soulscope("memory", "--user", "ann", "-w", str(real_world), "--forget", "1")
    assert gone.returncode == 0 and "forgot 2 facts" in gone.stdout
    listed = json.loads(
        soulscope("memory", "--user", "ann", "-w", str(real_world), "--json").stdout
    )
    assert listed["blocks"] == []


def test_the_data_folder_moves_with_soulscope_data(real_world: Path, tmp_path: Path) -> None:
    data = tmp_path / "elsewhere"
    env = {"SOULSCOPE_DATA": str(data)}
    chat = soulscope(
        "chat",
        "--user",
        "bo",
        "-w",
        str(real_world),
        "--mode",
        "bm25",
        stdin="I play the cello on Sundays.\n",
        env=env,
    )
    assert chat.returncode == 0, chat.stderr
    kept = list(data.glob("worlds/*/users/bo.txt"))
    assert len(kept) == 1 and "I play the cello on Sundays." in kept[0].read_text()


def test_chat_into_world_writes_the_worlds_users_file(real_world: Path) -> None:
    chat = soulscope(
        "chat",
        "--user",
        "cy",
        "-w",
        str(real_world),
        "--mode",
        "bm25",
        "--into-world",
        stdin="I grow tomatoes in the greenhouse.\n",
    )
    assert chat.returncode == 0, chat.stderr
    assert "tomatoes" in (real_world / "users" / "cy.txt").read_text()


def test_a_second_chat_with_an_llm_is_told_what_the_first_kept(real_world: Path) -> None:
    with OpenAIServer(reply="Noted.", models=("m",)) as server:
        env = {"OPENAI_BASE_URL": server.base_url, "SOULSCOPE_MODEL": "m"}
        first = soulscope(
            "chat",
            "--user",
            "di",
            "-w",
            str(real_world),
            "--mode",
            "bm25",
            stdin="I am a beekeeper from Porto.\n",
            env=env,
        )
        assert first.returncode == 0, first.stderr
        server.requests.clear()
        second = soulscope(
            "chat",
            "--user",
            "di",
            "-w",
            str(real_world),
            "--mode",
            "bm25",
            stdin="what do you know about Porto\n",
            env=env,
        )
    assert second.returncode == 0, second.stderr
    systems = [r["messages"][0]["content"] for r in server.requests if not r.get("max_tokens")]
    assert any("beekeeper" in s for s in systems)
    assert git_status(real_world) == ""


def test_a_question_is_never_kept_as_a_fact() -> None:
    said = [
        "remind me what my cat is called",
        "and who started sortition",
        "I wonder whether Pixel likes fish",
        "I'd like to know who coined quorum",
        "Has anyone here used git bisect",
        "any idea why coder-01 changed its mind",
        "So how did the debate end",
        "I was born in Lisbon.",
        "Whatever happens, I keep my notes in git.",
        "Howard is my brother.",
    ]
    assert extract_facts(said) == [
        "I was born in Lisbon.",
        "Whatever happens, I keep my notes in git.",
        "Howard is my brother.",
    ]
