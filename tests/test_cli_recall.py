"""search, ask and chat as a user runs them: JSON shapes, streaming, and a chat ended by a signal."""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support.cli import process_env, soulscope
from tests.support.openai_server import OpenAIServer
from tests.support.paths import ROOT
from tests.support.users import users_folder

HIT_KEYS = {"time", "precision", "tied",
    "agent", "frame", "label", "date", "heading", "line", "score", "citation", "text", "best",
    "time_order", "holds",
}  # fmt: skip


def test_search_json_hits_cite_their_frames(later_world: Path) -> None:
    out = soulscope(
        "search", "#10751 governance", "-w", str(later_world), "--mode", "bm25", "--json"
    )
    assert out.returncode == 0, out.stderr
    hits = json.loads(out.stdout)
    assert set(hits[0]) == HIT_KEYS
    assert hits[0]["agent"] == "zion-reviewer-01" and hits[0]["frame"] == 406
    assert hits[0]["citation"] == "[zion-reviewer-01 · frame 406 · 2026-03-28]"
    ranged = soulscope(
        "search",
        "ownership",
        "-w",
        str(later_world),
        "--mode",
        "bm25",
        "--json",
        "--agent",
        "zion-coder-06",
        "--frames",
        "230-235",
        "-k",
        "20",
    )
    frames = {h["frame"] for h in json.loads(ranged.stdout)}
    assert frames and frames <= set(range(230, 236))


def test_search_errors_are_one_line(later_world: Path) -> None:
    for args, needle in [
        (("search", "x", "--agent", "nobody"), "no agent 'nobody'"),
        (("search", "x", "--frames", "soon"), "not a frame range"),
        (("search",), "give a query"),
        (("search", "--queries", "/nonexistent/q.txt"), "cannot read queries"),
    ]:
        out = soulscope(*args, "-w", str(later_world), "--mode", "bm25")
        assert out.returncode != 0 and needle in out.stderr
        assert out.stderr.count("\n") == 1 and "Traceback" not in out.stderr


def test_many_queries_one_load_json_lines(later_world: Path, tmp_path: Path) -> None:
    queries = tmp_path / "q.jsonl"
    queries.write_text('{"query": "#10751", "id": 1}\nownership of types.py\n\n')
    out = soulscope(
        "search", "--queries", str(queries), "-w", str(later_world), "--mode", "bm25", "-k", "2"
    )
    assert out.returncode == 0, out.stderr
    lines = [json.loads(x) for x in out.stdout.splitlines()]
    assert [x["query"] for x in lines] == ["#10751", "ownership of types.py"]
    assert all(len(x["hits"]) == 2 and set(x["hits"][0]) == HIT_KEYS for x in lines)


@pytest.mark.slow
def test_hybrid_search_loads_the_model_and_caches_embeddings(
    later_world: Path, tmp_path: Path
) -> None:
    env = {"SOULSCOPE_CACHE": str(tmp_path / "cache")}
    out = soulscope(
        "search", "a fan of the Rust language", "-w", str(later_world), "--json", "-k", "3",
        "--mode", "hybrid", env=env,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    hits = json.loads(out.stdout)
    assert hits[0]["agent"] == "zion-coder-06"
    assert (tmp_path / "cache" / "embeddings.sqlite3").is_file()
    table = soulscope(
        "search", "a fan of the Rust language", "-w", str(later_world), "-k", "3", env=env
    )
    assert table.stdout.startswith("1. [zion-coder-06 · ")


def test_ask_offline_answers_with_the_evidence(later_world: Path) -> None:
    out = soulscope(
        "ask",
        "zion-coder-06",
        "what did you propose for types.py?",
        "-w",
        str(later_world),
        "--mode",
        "bm25",
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("Offline mode")
    assert "[zion-coder-06 · frame 220 · 2026-03-22]" in out.stdout
    assert "offline mode" in out.stderr


def test_ask_streams_from_the_endpoint_and_lists_sources(later_world: Path) -> None:
    with OpenAIServer(reply="Types first, [zion-coder-06 · frame 220 · 2026-03-22].") as server:
        bare = server.base_url.removesuffix("/v1")
        out = soulscope(
            "ask",
            "zion-coder-06",
            "what did you propose for types.py?",
            "-w",
            str(later_world),
            "--mode",
            "bm25",
            env={"OPENAI_BASE_URL": bare, "SOULSCOPE_MODEL": "tiny"},
        )
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith(
        "Types first, [zion-coder-06 · frame 220 · 2026-03-22].\n\nSources:\n  1. ["
    )
    assert "added /v1" in out.stderr


def test_ask_with_the_server_down_is_one_sentence(later_world: Path) -> None:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    out = soulscope(
        "ask",
        "zion-coder-06",
        "anything",
        "-w",
        str(later_world),
        "--mode",
        "bm25",
        env={"OPENAI_BASE_URL": f"http://127.0.0.1:{port}/v1"},
    )
    assert out.returncode != 0
    assert f"cannot connect to the LLM at http://127.0.0.1:{port}/v1" in out.stderr
    assert "Traceback" not in out.stderr


def copy_world(later_world: Path, tmp_path: Path) -> Path:
    shutil.copytree(later_world, tmp_path / "w")
    return tmp_path / "w"


def test_chat_distils_what_the_user_said_at_the_end(later_world: Path, tmp_path: Path) -> None:
    world = copy_world(later_world, tmp_path)
    out = soulscope(
        "chat",
        "--user",
        "ann",
        "-w",
        str(world),
        "--mode",
        "bm25",
        stdin="I maintain a Rust crate for parsers.\nWhat does coder-06 think of ownership?\n",
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.count("Offline mode") == 2
    soul = (users_folder(world) / "ann.txt").read_text()
    assert "## Turns 1-2\n- I maintain a Rust crate for parsers.\n" in soul


def test_sigterm_distils_before_exit(later_world: Path, tmp_path: Path) -> None:
    world = copy_world(later_world, tmp_path)
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "soulscope",
            "chat",
            "--user",
            "bo",
            "-w",
            str(world),
            "--mode",
            "bm25",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env=process_env(),
    )
    buffer = users_folder(world) / "bo.buffer.jsonl"
    try:
        proc.stdin.write("My boat is called Heron.\nI sail on Lake Geneva.\n")
        proc.stdin.flush()
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:  # wait until both exchanges are buffered on disk
            if buffer.exists() and buffer.read_text().count('"assistant"') == 2:
                break
            time.sleep(0.1)
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 128 + signal.SIGTERM, err
    soul = (users_folder(world) / "bo.txt").read_text()
    assert "## Turns 1-2\n- My boat is called Heron.\n- I sail on Lake Geneva.\n" in soul
    assert buffer.read_text() == '{"through": 2}\n'


def test_search_and_ask_at_a_revision_see_memory_as_it_stood(tmp_path: Path) -> None:
    from tests.support.repos import HEADER, commit, frame, init

    repo = init(tmp_path / "repo")
    soul = repo / "memory" / "ada.md"
    soul.parent.mkdir()
    soul.write_text(HEADER + frame(1, "the reader."))
    first = commit(repo, "frame 1: 1 agents, 0 posts, 0 comments")
    soul.write_text(HEADER + frame(1, "the reader.") + frame(2, "the lighthouse keeper."))
    commit(repo, "frame 2: 1 agents, 0 posts, 0 comments")

    def frames(*extra: str) -> set[int]:
        out = soulscope(
            "search", "lighthouse keeper", "-w", str(repo), "--mode", "bm25", "--json", *extra
        )
        assert out.returncode == 0, out.stderr
        return {h["frame"] for h in json.loads(out.stdout)}

    assert frames() == {2}
    assert frames("--at", first) == set()
    assert frames("--at", "HEAD~1") == set()
    asked = soulscope(
        "ask", "ada", "what of #101 and #102?", "-w", str(repo), "--mode", "bm25", "--at", first
    )
    assert (
        asked.returncode == 0
        and "frame 2" not in asked.stdout
        and "[ada · frame 1 · 2026-03-01]" in asked.stdout
    )
    bad = soulscope("search", "x", "-w", str(repo), "--mode", "bm25", "--at", "no-such-rev")
    assert bad.returncode != 0 and bad.stderr.count("\n") == 1 and "Traceback" not in bad.stderr
