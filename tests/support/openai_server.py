"""A real OpenAI-compatible HTTP server on 127.0.0.1 that plays a model, for tests and benchmarks.

``/v1/models`` lists ``models``. ``/v1/chat/completions`` answers with ``reply``, or with what
``answer(agent, body) -> (status, content)`` says for each request; as a real server does, the
request's ``stream`` flag decides the form: SSE chunks word by word (a role-only first chunk and
empty/None deltas in between) or one JSON chat completion. ``max_tokens`` caps the words (a word a
token). ``latency`` is waited before answering, ``pace`` between streamed words. ``failure``
(one of ``FAILURES``) makes every chat answer fail in one way:

- ``"500"``, ``"401"``: that HTTP status with an OpenAI-style error body;
- ``"hang"``: sleeps longer than any test timeout before answering;
- ``"stall"``: sends part of the answer, then stalls;
- ``"html"``: HTTP 200 with an HTML page (a proxy's or captive portal's);
- ``"garbage"``: a body, or a streamed chunk, that is not JSON;
- ``"shape"``: valid JSON of the wrong shape (no ``choices``);
- ``"huge"``: the reply repeated to ``HUGE_BYTES`` and more;
- ``"cut"``: the connection closes mid-answer (no ``[DONE]``, a body shorter than announced);
- ``"deep"`` (not in ``FAILURES``): a body, or a streamed chunk, of JSON nested ``DEEP``;
- ``"keepalive"`` (not in ``FAILURES``): a stream of keep-alives and empty deltas, never a word;
- ``"echo401"``, ``"echo500"`` (not in ``FAILURES``): that status, with a body echoing the
  request's line and headers back, as some servers and proxies do.

A wrong key gets 401, an unknown model 404, and any path outside ``/v1`` 404.

Every chat request body is kept in ``requests``, its query parameters in ``queries`` and its
``Authorization`` header in ``authorizations``; ``max_inflight`` is the most requests received
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
from urllib.parse import parse_qsl, urlsplit

Answer = Callable[[str, dict[str, Any]], tuple[int, str]]
STALL_S = 30.0  # longer than any client timeout a test sets
HUGE_BYTES = 2_000_000
DEEP = "[" * 200_000 + "]" * 200_000  # JSON nested past any parser's recursion limit
FAILURES = ("ok", "500", "401", "hang", "stall", "html", "garbage", "shape", "huge", "cut")
HTML_PAGE = (
    "<!DOCTYPE html><html><head><title>Sign in</title></head><body>Proxy login</body></html>"
)
_AGENT = re.compile(r"agent id ([A-Za-z0-9._-]+)")
_CHANNELS = re.compile(r"post only in your channels \(([^)]*)\)")


def agent_of(body: dict[str, Any]) -> str:
    """The agent a simulation prompt speaks for ("?" when the prompt names none)."""
    m = _AGENT.search(body["messages"][0]["content"])
    return m.group(1) if m else "?"


def usage(body: dict[str, Any], content: str) -> dict[str, int]:
    """Token counts as a server reports them: here, words."""
    prompt = sum(len(str(m.get("content", "")).split()) for m in body.get("messages", []))
    done = len(content.split())
    return {"prompt_tokens": prompt, "completion_tokens": done, "total_tokens": prompt + done}


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


def echoed(handler: BaseHTTPRequestHandler) -> str:
    """An error body that echoes the request back, as some servers and proxies do: its line
    (path and query as sent) and every header, in JSON and as plain text."""
    headers = dict(handler.headers.items())
    message = f"{handler.command} {handler.path} rejected; headers: " + "; ".join(
        f"{k}: {v}" for k, v in headers.items()
    )
    return json.dumps({"error": {"message": message, "request": {"path": handler.path, **headers}}})


class QuietServer(ThreadingHTTPServer):
    """A loopback server that does not report clients hanging up (both servers here are one)."""

    daemon_threads = True
    request_queue_size = 256  # the default of 5 refuses bursts of concurrent clients

    def handle_error(self, request: object, client_address: object) -> None:
        """A client that hung up (a capped or cancelled answer, a timeout) is the test's point,
        not the server's failure: nothing of it goes to stderr, where it would read as the
        program's own output. Anything else is reported as usual."""
        import sys

        if isinstance(sys.exc_info()[1], ConnectionError | TimeoutError):
            return
        super().handle_error(request, client_address)


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
        self.queries: list[dict[str, str]] = []
        self.authorizations: list[str | None] = []
        self.max_inflight = 0
        self.closed_early = threading.Event()
        self._inflight = 0
        self._lock = threading.Lock()
        self._server = QuietServer(("127.0.0.1", 0), self._handler())
        # (polled often: a test ends when its servers stop, not half a second later)
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

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
            if self.failure == "hang":
                time.sleep(STALL_S)
            if self.latency:
                time.sleep(self.latency)
            if self.failure in ("500", "401"):
                return int(self.failure), "the server failed" if self.failure == "500" else "no"
            status, content = (
                (200, self.reply) if self.answer is None else self.answer(agent_of(body), body)
            )
            if self.failure == "huge":
                content = " ".join([content] * (HUGE_BYTES // max(len(content), 1) + 1))
            return status, content
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

            def _send(self, status: int, kind: str, data: bytes, cut: bool = False) -> None:
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data[: len(data) // 2] if cut else data)

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

            def _route(self) -> str:
                return urlsplit(self.path).path

            def do_GET(self) -> None:  # noqa: N802 (http.server's name)
                if self._route() != "/v1/models":
                    return self._error(404, f"no route {self.path}", "not_found")
                if self._authorized():
                    data = [{"id": m, "object": "model", "owned_by": "test"} for m in server.models]
                    self._json(200, {"object": "list", "data": data})

            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                if self._route() != "/v1/chat/completions":
                    return self._error(404, f"no route {self.path}", "not_found")
                with server._lock:
                    server.queries.append(dict(parse_qsl(urlsplit(self.path).query)))
                    server.authorizations.append(self.headers.get("Authorization"))
                if server.failure in ("echo401", "echo500"):
                    return self._send(
                        int(server.failure[4:]), "application/json", echoed(self).encode()
                    )
                if not self._authorized():
                    return
                self.body = body
                status, content = server._decide(body)
                try:
                    if status == 404:
                        self._error(404, content, "model_not_found")
                    elif status == 401:
                        self._error(401, "Incorrect API key provided", "invalid_api_key")
                    elif status != 200:
                        self._error(status, content, "invalid_request_error")
                    else:
                        words = content.split(" ")[: body.get("max_tokens") or None]
                        if server.failure == "huge":  # past any max_tokens, in big pieces
                            words = [content[i : i + 65536] for i in range(0, len(content), 65536)]
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
                    "usage": usage(self.body, content),
                }
                data = json.dumps(payload).encode()
                if server.failure == "deep":
                    data = DEEP.encode()
                elif server.failure == "garbage":
                    data = b"{this is not json"
                elif server.failure == "shape":
                    data = json.dumps({"result": content}).encode()
                elif server.failure == "html":
                    return self._send(200, "text/html; charset=utf-8", HTML_PAGE.encode())
                elif server.failure in ("cut", "stall"):
                    # Half the promised body, then the connection closes (at once, or after a
                    # stall): the body is never finished.
                    self._send(200, "application/json", data, cut=True)
                    self.wfile.flush()
                    if server.failure == "stall":
                        time.sleep(STALL_S)
                    self.close_connection = True
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
                if server.failure == "html":
                    return self._send(200, "text/html; charset=utf-8", HTML_PAGE.encode())
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Cache-Control", "no-cache")
                self.send_header("Connection", "close")
                self.end_headers()
                self.close_connection = True  # the stream's end is the connection's end
                self._chunk({"role": "assistant", "content": ""})
                if server.failure == "keepalive":  # alive, and never a word
                    deadline = time.monotonic() + STALL_S
                    while time.monotonic() < deadline:
                        self.wfile.write(b": keep-alive\n\n")
                        self._chunk({"content": None})
                        time.sleep(0.05)
                    return
                for i, word in enumerate(words):
                    if server.failure == "deep" and i == 1:
                        self._event(DEEP)
                        return
                    if server.failure == "garbage" and i == 1:
                        self._event("{this is not json")
                        return
                    if server.failure == "stall" and i == 2:
                        time.sleep(STALL_S)
                    if server.failure == "cut" and i == 2:
                        return  # the connection closes: no finish_reason, no [DONE]
                    if server.failure == "shape":
                        self._event(json.dumps({"result": word}))
                        continue
                    self._chunk({"content": word if i == 0 else " " + word})
                    self._chunk({"content": None})  # keep-alive style empty delta
                    if server.pace:
                        time.sleep(server.pace)
                self._chunk({}, finish="stop")
                self._event("[DONE]")

        return Handler
