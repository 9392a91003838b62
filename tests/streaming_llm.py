"""A small OpenAI-compatible server on 127.0.0.1 for tests: real HTTP, real SSE, chosen failures.

``/v1/models`` lists ``models``; ``/v1/chat/completions`` streams ``reply`` word by word as SSE
chunks (with a role-only first chunk and empty/None deltas in between, as real servers send), or
fails as ``behaviour`` says: ``"garbage"`` (a chunk that is not JSON), ``"slow"`` (sleeps longer
than any test timeout before answering), ``"stall"`` (sends a few chunks, then stalls). A wrong
key gets 401, an unknown model 404, and any path outside ``/v1`` 404. Every request body is kept
in ``requests``.
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class FakeLLM:
    def __init__(
        self,
        reply: str = "Ownership came first [zion-coder-06 · frame 220 · 2026-03-22].",
        models: tuple[str, ...] = ("tiny",),
        api_key: str | None = None,
    ) -> None:
        self.reply = reply
        self.models = models
        self.api_key = api_key
        self.behaviour = "ok"
        self.delay = 0.0  # seconds between streamed chunks
        self.requests: list[dict[str, Any]] = []
        self.closed_early = threading.Event()  # the client hung up mid-stream
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def __enter__(self) -> FakeLLM:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:
                pass

            def _json(self, status: int, body: dict[str, Any]) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _error(self, status: int, message: str, code: str) -> None:
                self._json(status, {"error": {"message": message, "type": code, "code": code}})

            def _authorized(self) -> bool:
                if fake.api_key and self.headers.get("Authorization") != f"Bearer {fake.api_key}":
                    self._error(401, "Incorrect API key provided", "invalid_api_key")
                    return False
                return True

            def do_GET(self) -> None:
                if self.path != "/v1/models":
                    return self._error(404, f"no route {self.path}", "not_found")
                if self._authorized():
                    data = [{"id": m, "object": "model", "owned_by": "test"} for m in fake.models]
                    self._json(200, {"object": "list", "data": data})

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                if self.path != "/v1/chat/completions":
                    return self._error(404, f"no route {self.path}", "not_found")
                if not self._authorized():
                    return
                fake.requests.append(body)
                if body.get("model") not in fake.models:
                    return self._error(
                        404, f"model {body.get('model')} not found", "model_not_found"
                    )
                if fake.behaviour == "slow":
                    time.sleep(30)
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Cache-Control", "no-cache")
                self.send_header("Connection", "close")
                self.end_headers()
                try:
                    self._stream(body)
                except (BrokenPipeError, ConnectionResetError):
                    fake.closed_early.set()
                self.close_connection = True

            def _event(self, payload: str) -> None:
                self.wfile.write(f"data: {payload}\n\n".encode())
                self.wfile.flush()

            def _chunk(self, delta: dict[str, Any], finish: str | None = None) -> None:
                self._event(
                    json.dumps(
                        {
                            "id": "chatcmpl-test",
                            "object": "chat.completion.chunk",
                            "created": 0,
                            "model": fake.models[0],
                            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
                        }
                    )
                )

            def _stream(self, body: dict[str, Any]) -> None:
                self._chunk({"role": "assistant", "content": ""})
                words = fake.reply.split(" ")[: body.get("max_tokens") or None]  # a word a token
                for i, word in enumerate(words):
                    if fake.behaviour == "garbage" and i == 1:
                        self._event("{this is not json")
                        return
                    if fake.behaviour == "stall" and i == 2:
                        time.sleep(30)
                    self._chunk({"content": word if i == 0 else " " + word})
                    self._chunk({"content": None})  # keep-alive style empty delta
                    if fake.delay:
                        time.sleep(fake.delay)
                self._chunk({}, finish="stop")
                self._event("[DONE]")

        return Handler
