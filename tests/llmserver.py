"""A real OpenAI-compatible HTTP server on 127.0.0.1 that plays a model, for tests and benchmarks.

``behaviour(agent, body) -> (status, content)`` decides each answer; the server wraps it as a
chat completion. It records every request and the most calls it had in flight at once.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Behaviour = Callable[[str, dict[str, Any]], tuple[int, str]]
_AGENT = re.compile(r"agent id ([A-Za-z0-9._-]+)")
_CHANNELS = re.compile(r"post only in your channels \(([^)]*)\)")


def agent_of(body: dict[str, Any]) -> str:
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


class _State:
    def __init__(self, behaviour: Behaviour, delay: float) -> None:
        self.behaviour = behaviour
        self.delay = delay
        self.lock = threading.Lock()
        self.inflight = 0
        self.max_inflight = 0
        self.requests: list[dict[str, Any]] = []


@contextmanager
def llm_server(behaviour: Behaviour, delay: float = 0.0) -> Iterator[tuple[str, _State]]:
    """Serve until the block ends; yields (base_url, state)."""
    state = _State(behaviour, delay)

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: object) -> None:
            pass

        def do_POST(self) -> None:  # noqa: N802 (http.server's name)
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            with state.lock:
                state.requests.append(body)
                state.inflight += 1
                state.max_inflight = max(state.max_inflight, state.inflight)
            try:
                if state.delay:
                    time.sleep(state.delay)
                status, content = state.behaviour(agent_of(body), body)
            finally:
                with state.lock:
                    state.inflight -= 1
            if status == 200:
                payload = {
                    "id": "cmpl-1",
                    "object": "chat.completion",
                    "created": 0,
                    "model": body.get("model", "m"),
                    "choices": [
                        {
                            "index": 0,
                            "finish_reason": "stop",
                            "message": {"role": "assistant", "content": content},
                        }
                    ],
                }
            else:
                payload = {"error": {"message": content, "type": "invalid_request_error"}}
            data = json.dumps(payload).encode()
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up waiting (a timeout test)

    class Server(ThreadingHTTPServer):
        daemon_threads = True
        request_queue_size = 256  # the default of 5 refuses bursts of concurrent clients

    server = Server(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1", state
    finally:
        server.shutdown()
        server.server_close()
