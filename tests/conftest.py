"""Fixtures every test shares: settings kept apart from the developer's, the real corpus (where it
is absent, skipped with the reason; see ``tests.support.paths``) and the real embedding model.

Helpers (worlds, git repositories, loopback servers, the command line) are in ``tests.support``."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.embedding_server import EmbeddingServer, NoLocalModel, words
from tests.support.models import Distilled
from tests.support.paths import corpus_dir


@pytest.fixture(autouse=True)
def _isolated_settings(tmp_path_factory, monkeypatch):
    """Keep the developer's own config, cache and LLM endpoint out of every test."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / "config"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / "cache"))
    # Every SOULSCOPE_* variable (SOULSCOPE_ARC_LABEL, SOULSCOPE_DEVICE, SOULSCOPE_USER, ...), not a
    # list that a new setting would slip past; SOULSCOPE_SHARED only says where the corpus is.
    for var in list(os.environ):
        if var.startswith("SOULSCOPE_") and var != "SOULSCOPE_SHARED":
            monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("USER", "tester")
    # No embedding is started in a process of its own unless a test asks for one.
    monkeypatch.setenv("SOULSCOPE_BACKGROUND", "0")
    for var in ("OPENAI_BASE_URL", "OPENAI_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    # The config file is one this test controls: absent unless a test writes it.
    monkeypatch.setenv("SOULSCOPE_CONFIG", str(home / "config" / "soulscope" / "config.toml"))


@pytest.fixture
def early_world() -> Path:
    """116 real soul files of the early era."""
    return corpus_dir("rappterbook")


@pytest.fixture
def later_world() -> Path:
    """3 real soul files of the Becoming era."""
    return corpus_dir("rappterbook-later")


@pytest.fixture
def strays() -> Path:
    return corpus_dir("rappterbook", "strays")


@pytest.fixture(scope="session")
def minilm():
    """The real all-MiniLM-L6-v2 on CPU, loaded once for the whole session."""
    from soulscope.recall.semantic import MiniLM

    return MiniLM(device="cpu")


@pytest.fixture
def embedding_endpoint(monkeypatch: pytest.MonkeyPatch) -> Iterator[EmbeddingServer]:
    """A loopback embeddings server of cheap ``words`` vectors (model ``words``), which the
    settings point at; a face that loads the local model instead fails the test."""
    from soulscope.recall import encoders

    with EmbeddingServer(words, model="words") as served:
        monkeypatch.setenv("SOULSCOPE_EMBED_BASE_URL", served.base_url)
        monkeypatch.setenv("SOULSCOPE_EMBED_MODEL", served.model)
        monkeypatch.setattr(encoders, "MiniLM", NoLocalModel)  # where the factory finds it
        yield served


@pytest.fixture(scope="session")
def static_distilled(tmp_path_factory) -> Distilled:
    """The static model, distilled once per test run from the packaged MiniLM (about a minute
    on one core), and what the distillation touched: attempts to reach the network, files opened."""
    import sys

    from soulscope.recall.static import distil

    touched = Distilled(tmp_path_factory.mktemp("static") / "static.npy")
    watching = [True]

    def watch(event: str, args: tuple) -> None:
        if not watching[0]:
            return
        if event.startswith("socket.") and event not in ("socket.__new__", "socket.gethostname"):
            touched.network.append(f"{event} {args!r}")
        elif event == "open" and isinstance(args[0], (str, bytes, os.PathLike)):
            touched.opened.append(Path(os.fsdecode(args[0])))

    sys.addaudithook(watch)  # (a hook cannot be removed: it stops watching below)
    with pytest.MonkeyPatch.context() as patch:  # (the weights' verdict is kept in a cache)
        patch.setenv("SOULSCOPE_CACHE", str(tmp_path_factory.mktemp("static-cache")))
        try:
            distil(touched.table)
        finally:
            watching[0] = False
    return touched


@pytest.fixture
def static_model(static_distilled: Distilled) -> Path:
    """The static model of the test run, in this test's cache folder, where soulscope looks for it."""
    from soulscope.recall.static import static_path

    path = static_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.link(static_distilled.table, path)
    except OSError:
        shutil.copyfile(static_distilled.table, path)
    return path
