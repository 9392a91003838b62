"""A real OpenAI-compatible embeddings server on 127.0.0.1, for tests of the endpoint backend.

``/v1/embeddings`` answers with ``encode(texts)`` (the tests pass the real MiniLM), as float lists
or, when asked, base64. ``failure`` makes it misbehave: ``"garbage"`` (a body that is not JSON),
``"dimension"`` (the first request is answered with ``encode``'s vectors, later ones with vectors of
another size), ``"short"`` (one vector fewer than texts), ``"slow"`` (answers after ``SLOW_S``,
longer than any test timeout), ``"echo401"``/``"echo500"`` (that status, with a body echoing the
request's line and headers). ``/v1/models`` lists ``model``. Every request's texts are kept in
``requests``; ``max_inflight`` is the most requests handled at once.
"""

from __future__ import annotations

import base64
import json
import threading
import time
from collections.abc import Callable, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

import numpy as np

from tests.openai_server import echoed

SLOW_S = 5.0
Encode = Callable[[Sequence[str]], np.ndarray]


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 64

    def handle_error(self, request: object, client_address: object) -> None:
        """A client that hung up (a capped or cancelled answer, a timeout) is the test's point,
        not the server's failure: nothing of it goes to stderr, where it would read as the
        program's own output. Anything else is reported as usual."""
        import sys

        if isinstance(sys.exc_info()[1], ConnectionError | TimeoutError):
            return
        super().handle_error(request, client_address)


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
        self._server: _Server | None = None

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

        self._server = _Server(("127.0.0.1", 0), Handler)
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.shutdown()
        self._server.server_close()
