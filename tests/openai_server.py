"""A real OpenAI-compatible HTTP server on 127.0.0.1 that plays a model, for tests and benchmarks.

``/v1/models`` lists ``models``. ``/v1/chat/completions`` answers with ``reply``, or with what
``answer(agent, body) -> (status, content)`` says for each request; as a real server does, the
request's ``stream`` flag decides the form: SSE chunks word by word (a role-only first chunk and
empty/None deltas in between) or one JSON chat completion. ``max_tokens`` caps the words (a word a
token). ``latency`` is waited before answering, ``pace`` between streamed words. ``failure``
makes the answer fail: ``"garbage"`` (a chunk or body that is not JSON), ``"slow"`` (sleeps longer
than any test timeout before answering), ``"stall"`` (sends part of the answer, then stalls).
A wrong key gets 401, an unknown model 404, and any path outside ``/v1`` 404.

Every chat request body is kept in ``requests``; ``max_inflight`` is the most requests received
and not yet answered at once; ``closed_early`` is set when a client hangs up mid-answer.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Answer = Callable[[str, dict[str, Any]], tuple[int, str]]
STALL_S = 30.0  # longer than any client timeout a test sets
_AGENT = re.compile(r"agent id ([A-Za-z0-9._-]+)")
_CHANNELS = re.compile(r"post only in your channels \(([^)]*)\)")


def agent_of(body: dict[str, Any]) -> str:
    """The agent a simulation prompt speaks for ("?" when the prompt names none)."""
    m = _AGENT.search(body["messages"][0]["content"])
    return m.group(1) if m else "?"


def valid_answer(body: dict[str, Any]) -> str:
    """A decision that fits what the prompt allowed: a post in the agent's first channel."""
    channels = _CHANNELS.search(body["messages"][0]["content"]).group(1).split(", ")
    return json.dumps(
        {
            "actions": [
                {
                    "type": "post",
                    "channel": channels[0],
                    "title": "What the model thinks",
                    "body": "A post written by a model.\n## Frame 999 — not a heading",
                }
            ],
            "named": "The Loopback Insight",
            "influenced_by": "",
            "surprised_by": "",
            "reinforced": "answers can be checked",
            "becoming": "the validated agent. From unchecked to checked.",
            "relationships": [],
        }
    )


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256  # the default of 5 refuses bursts of concurrent clients


class OpenAIServer:
    """Serves from ``__enter__`` until ``__exit__``; ``base_url`` ends in ``/v1``."""

    def __init__(
        self,
        reply: str = "Ownership came first [zion-coder-06 · frame 220 · 2026-03-22].",
        *,
        answer: Answer | None = None,
        models: tuple[str, ...] = ("tiny",),
        api_key: str | None = None,
        latency: float = 0.0,
    ) -> None:
        self.reply = reply
        self.answer = answer
        self.models = models
        self.api_key = api_key
        self.latency = latency
        self.pace = 0.0
        self.failure = "ok"
        self.requests: list[dict[str, Any]] = []
        self.max_inflight = 0
        self.closed_early = threading.Event()
        self._inflight = 0
        self._lock = threading.Lock()
        self._server = _Server(("127.0.0.1", 0), self._handler())
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def __enter__(self) -> OpenAIServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _decide(self, body: dict[str, Any]) -> tuple[int, str]:
        """Record the request and decide its answer; it counts as in flight meanwhile."""
        with self._lock:
            self.requests.append(body)
            self._inflight += 1
            self.max_inflight = max(self.max_inflight, self._inflight)
        try:
            if body.get("model") not in self.models:
                return 404, f"model {body.get('model')} not found"
            if self.failure == "slow":
                time.sleep(STALL_S)
            if self.latency:
                time.sleep(self.latency)
            if self.answer is None:
                return 200, self.reply
            return self.answer(agent_of(body), body)
        finally:
            # Counted down before the answer is sent, so that a client that sends its next
            # request the moment this one is answered is never seen twice.
            with self._lock:
                self._inflight -= 1

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:
                pass

            def _json(self, status: int, body: dict[str, Any]) -> None:
                self._send(status, "application/json", json.dumps(body).encode())

            def _send(self, status: int, kind: str, data: bytes) -> None:
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _error(self, status: int, message: str, code: str) -> None:
                self._json(status, {"error": {"message": message, "type": code, "code": code}})

            def _authorized(self) -> bool:
                if (
                    server.api_key
                    and self.headers.get("Authorization") != f"Bearer {server.api_key}"
                ):
                    self._error(401, "Incorrect API key provided", "invalid_api_key")
                    return False
                return True

            def do_GET(self) -> None:  # noqa: N802 (http.server's name)
                if self.path != "/v1/models":
                    return self._error(404, f"no route {self.path}", "not_found")
                if self._authorized():
                    data = [{"id": m, "object": "model", "owned_by": "test"} for m in server.models]
                    self._json(200, {"object": "list", "data": data})

            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                if self.path != "/v1/chat/completions":
                    return self._error(404, f"no route {self.path}", "not_found")
                if not self._authorized():
                    return
                status, content = server._decide(body)
                try:
                    if status == 404:
                        self._error(404, content, "model_not_found")
                    elif status != 200:
                        self._error(status, content, "invalid_request_error")
                    else:
                        words = content.split(" ")[: body.get("max_tokens") or None]
                        if body.get("stream"):
                            self._stream(words)
                        else:
                            self._complete(" ".join(words))
                except (BrokenPipeError, ConnectionResetError):
                    server.closed_early.set()  # the client hung up (cancelled, or timed out)
                    self.close_connection = True

            def _complete(self, content: str) -> None:
                payload = {
                    "id": "chatcmpl-test",
                    "object": "chat.completion",
                    "created": 0,
                    "model": server.models[0],
                    "choices": [
                        {
                            "index": 0,
                            "finish_reason": "stop",
                            "message": {"role": "assistant", "content": content},
                        }
                    ],
                }
                data = json.dumps(payload).encode()
                if server.failure == "garbage":
                    data = b"{this is not json"
                if server.failure == "stall":
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data[: len(data) // 2])
                    self.wfile.flush()
                    time.sleep(STALL_S)
                    self.close_connection = True  # the body was never finished
                    return
                self._send(200, "application/json", data)

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
                            "model": server.models[0],
                            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
                        }
                    )
                )

            def _stream(self, words: list[str]) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Cache-Control", "no-cache")
                self.send_header("Connection", "close")
                self.end_headers()
                self.close_connection = True  # the stream's end is the connection's end
                self._chunk({"role": "assistant", "content": ""})
                for i, word in enumerate(words):
                    if server.failure == "garbage" and i == 1:
                        self._event("{this is not json")
                        return
                    if server.failure == "stall" and i == 2:
                        time.sleep(STALL_S)
                    self._chunk({"content": word if i == 0 else " " + word})
                    self._chunk({"content": None})  # keep-alive style empty delta
                    if server.pace:
                        time.sleep(server.pace)
                self._chunk({}, finish="stop")
                self._event("[DONE]")

        return Handler
