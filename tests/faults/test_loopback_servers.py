"""The loopback servers the fault matrix talks to: a client that hangs up on them is never read as
the program's own output (a traceback on stderr)."""

from __future__ import annotations

import json
import socket
import struct
import time
from urllib.parse import urlsplit

import numpy as np
import pytest

from tests.support.embedding_server import EmbeddingServer
from tests.support.openai_server import OpenAIServer


def hang_up(base_url: str, path: str, body: dict) -> None:
    """Send a request, read a little of the answer, then reset the connection (RST)."""
    parts = urlsplit(base_url)
    data = json.dumps(body).encode()
    with socket.create_connection((parts.hostname, parts.port)) as s:
        s.sendall(
            f"POST {parts.path}{path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(data)}\r\n\r\n".encode()
            + data
        )
        s.recv(64)  # (the rest unread: closing then resets the connection)
        time.sleep(0.1)  # the server has sent it all and waits for the next request
        s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))


@pytest.mark.parametrize("kind", ["chat", "embeddings"])
def test_a_client_that_hangs_up_leaves_nothing_on_stderr(
    kind: str, capsys: pytest.CaptureFixture[str]
) -> None:
    if kind == "chat":
        server = OpenAIServer()
        body = {"model": "tiny", "messages": [{"role": "user", "content": "hi"}]}
        path = "/chat/completions"
    else:
        server = EmbeddingServer(lambda texts: np.ones((len(texts), 4)))
        body = {"model": "minilm", "input": ["a"] * 5}
        path = "/embeddings"
    with server:
        for _ in range(5):
            hang_up(server.base_url, path, body)
        time.sleep(0.5)  # the server's threads meet the reset
    assert capsys.readouterr().err == ""
