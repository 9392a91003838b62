"""A real OpenAI-compatible embeddings server on 127.0.0.1, for tests of the endpoint backend.

``/v1/embeddings`` answers with ``encode(texts)`` (the tests pass the real MiniLM), as float lists
or, when asked, base64. ``failure`` makes it misbehave: ``"garbage"`` (a body that is not JSON),
``"dimension"`` (the first request is answered with ``encode``'s vectors, later ones with vectors of
another size), ``"short"`` (one vector fewer than texts), ``"slow"`` (answers after ``SLOW_S``,
longer than any test timeout), ``"echo401"``/``"echo500"`` (that status, with a body echoing the
request's line and headers). ``/v1/models`` lists ``model``. Every request's texts are kept in
``requests``; ``max_inflight`` is the most requests handled at once.

``words`` is an ``encode`` that needs no model: vectors from the words of each text. ``NoLocalModel``
stands in for the local model where a test says it must not be loaded.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import threading
import time
from collections.abc import Callable, Sequence
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import numpy as np

from tests.support.openai_server import QuietServer, echoed

SLOW_S = 5.0
Encode = Callable[[Sequence[str]], np.ndarray]
WORD_DIMS = 64  # the size of a ``words`` vector


def words(texts: Sequence[str], salt: str = "") -> np.ndarray:
    """Bag-of-words vectors by hashing: instant, deterministic in every process, and close for texts
    sharing words (``salt``: another model, of the same size)."""
    out = np.zeros((len(texts), WORD_DIMS), dtype=np.float32)
    for row, text in enumerate(texts):
        for word in re.findall(r"\w+", text.lower()):
            out[
                row, hashlib.blake2b((salt + word).encode(), digest_size=2).digest()[0] % WORD_DIMS
            ] += 1.0
        out[row, 0] += 1e-3  # never the zero vector
    return out


class NoLocalModel:
    """In place of ``soulscope.recall.semantic.MiniLM``: loading the local model fails the test."""

    def __init__(self, *args: object, **kw: object) -> None:
        raise AssertionError("the local model was loaded although an endpoint is configured")


class EmbeddingServer:
    """Serves from ``__enter__`` until ``__exit__``; ``base_url`` ends in ``/v1``."""

    def __init__(
        self,
        encode: Encode,
        *,
        model: str = "minilm",
        failure: str | None = None,
        latency: float = 0.0,
    ) -> None:
        self.encode = encode
        self.model = model
        self.failure = failure
        self.latency = latency
        self.requests: list[list[str]] = []
        self.max_inflight = 0
        self._inflight = 0
        self._lock = threading.Lock()
        self._server: QuietServer | None = None

    @property
    def base_url(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def __enter__(self) -> EmbeddingServer:
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _send(self, status: int, body: bytes, kind: str = "application/json") -> None:
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", kind)
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up first (the "slow" failure)

            def do_GET(self) -> None:
                if urlsplit(self.path).path.rstrip("/") == "/v1/models":
                    data = [{"id": owner.model, "object": "model", "owned_by": "test"}]
                    self._send(200, json.dumps({"object": "list", "data": data}).encode())
                else:
                    self._send(404, b'{"error": {"message": "not found"}}')

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                if urlsplit(self.path).path.rstrip("/") != "/v1/embeddings":
                    self._send(404, b'{"error": {"message": "not found"}}')
                    return
                texts = body.get("input")
                texts = [texts] if isinstance(texts, str) else list(texts)
                with owner._lock:
                    owner.requests.append(texts)
                    first = len(owner.requests) == 1
                    owner._inflight += 1
                    owner.max_inflight = max(owner.max_inflight, owner._inflight)
                try:
                    self._answer(body, texts, first)
                finally:
                    with owner._lock:
                        owner._inflight -= 1

            def _answer(self, body: dict[str, Any], texts: list[str], first: bool) -> None:
                time.sleep(owner.latency)
                if owner.failure in ("echo401", "echo500"):
                    self._send(int(owner.failure[4:]), echoed(self).encode())
                    return
                if owner.failure == "slow":
                    time.sleep(SLOW_S)
                if owner.failure == "garbage":
                    self._send(200, b"<html>502 Bad Gateway</html>", "text/html")
                    return
                vectors = np.asarray(owner.encode(texts), dtype=np.float32)
                if owner.failure == "dimension" and not first:
                    vectors = np.ones((len(texts), 8), dtype=np.float32)
                if owner.failure == "short":
                    vectors = vectors[:-1]
                as_base64 = body.get("encoding_format") == "base64"
                data = [
                    {
                        "object": "embedding",
                        "index": i,
                        "embedding": base64.b64encode(v.tobytes()).decode()
                        if as_base64
                        else v.tolist(),
                    }
                    for i, v in enumerate(vectors)
                ]
                tokens = sum(len(t.split()) for t in texts)
                reply = {
                    "object": "list",
                    "model": body.get("model"),
                    "data": data,
                    "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
                }
                self._send(200, json.dumps(reply).encode())

        self._server = QuietServer(("127.0.0.1", 0), Handler)
        threading.Thread(  # (polled often: a test ends when its servers stop)
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        ).start()
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.shutdown()
        self._server.server_close()

    def texts_sent(self) -> set[str]:
        """Every text any request asked to embed."""
        return {t for request in self.requests for t in request}


def endpoint_config(server: EmbeddingServer, path: Path, **options: int) -> Path:
    """A config file at ``path`` whose ``[embeddings]`` is ``server`` (``options``: ``batch``,
    ``concurrency``)."""
    lines = [f'base_url = "{server.base_url}"', f'model = "{server.model}"']
    lines += [f"{k} = {v}" for k, v in options.items()]
    path.write_text("[embeddings]\n" + "".join(line + "\n" for line in lines))
    return path
