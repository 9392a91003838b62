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


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Which tests share a worker under pytest-xdist (``make test``: ``--dist loadgroup``): a
    module's tests that use a fixture built once per module or class run on one worker (built
    once, not once per worker), so do the tests of the static model (distilled once), and the
    tests marked ``serial`` (they wait on the dashboard's timing) run one after another on one
    worker, never beside each other."""
    for item in items:
        if item.get_closest_marker("serial") is not None:
            item.add_marker(pytest.mark.xdist_group("serial"))
            continue
        if "static_distilled" in getattr(item, "fixturenames", ()):
            # One worker distils the static model and runs its tests; the other never waits.
            item.add_marker(pytest.mark.xdist_group("static-model"))
            continue
        info = getattr(item, "_fixtureinfo", None)
        defs = info.name2fixturedefs.values() if info is not None else ()
        if any(d[-1].scope in ("module", "class", "package") for d in defs if d):
            item.add_marker(pytest.mark.xdist_group(item.nodeid.split("::")[0]))


@pytest.fixture(autouse=True)
def _isolated_settings(tmp_path_factory, monkeypatch):
    """Keep the developer's own config, cache and LLM endpoint out of every test."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / "config"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / "cache"))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / "data"))  # what chats keep about users
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
    # Output as where it is piped (pytest-xdist's workers are given COLUMNS=80 and LINES=24).
    for var in ("COLUMNS", "LINES"):
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
def static_distilled(tmp_path_factory: pytest.TempPathFactory) -> Distilled:
    """The static model, distilled once per test run from the packaged MiniLM (about a minute
    on one core), and what the distillation touched: attempts to reach the network, files opened.

    Under pytest-xdist the workers share one distillation: the first to ask distils into the
    run's shared temp folder under a lock, the others wait for it and read what it touched."""
    import fcntl
    import json

    shared = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        shared = shared.parent  # every worker's temp folder sits in the run's one
    folder = shared / "static-distilled"
    folder.mkdir(exist_ok=True)
    record = folder / "touched.json"
    with open(folder / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not record.is_file():
            touched = _distil(folder / "static.table", tmp_path_factory)
            record.write_text(
                json.dumps({"network": touched.network, "opened": [str(p) for p in touched.opened]})
            )
    kept = json.loads(record.read_text())
    return Distilled(folder / "static.table", kept["network"], [Path(p) for p in kept["opened"]])


def _distil(table: Path, tmp_path_factory: pytest.TempPathFactory) -> Distilled:
    import sys

    from soulscope.recall.static import distil

    touched = Distilled(table)
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
