"""Embeddings from any OpenAI-compatible ``/v1/embeddings`` endpoint, as an :class:`Encoder`.

text-embeddings-inference, vLLM, Ollama and llama.cpp's server all serve that route, so a world too
big for one CPU is embedded by an engine that scales out, not by code of ours. Requests carry
``batch`` texts each, at most ``concurrency`` in flight; every reply is checked (one vector per
text, numbers only, the same dimension throughout) and rows are scaled to unit length, as the
local model's are. Vectors are cached under the model's name, so two servers that serve the same
model share the cache. Every failure is an :class:`EncoderError` of one sentence.

A pool of servers (``[embeddings] base_urls``, a ``soulscope.pool.Pool``) takes the batches in
turn, each server at most ``concurrency`` at once; a batch a server fails (it is down, too slow,
answers an error or a reply that is not embeddings) is asked of the next server, and the failed
server is passed over while another answers (``pool.REST_S``, then one batch tries it again). Each batch is cached as soon as it is embedded
(``semantic.embed``), so a run that is killed resumes where it stopped, whichever server
embedded what.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np

from soulscope.config import Settings
from soulscope.llm import (
    WORDLESS,
    Endpoint,
    make_client,
    normalize_base_url,
    redact,
    within,
)
from soulscope.pool import Pool
from soulscope.recall.semantic import EncoderError, readable

_PLACEHOLDER_KEY = "not-needed"


@dataclass(frozen=True)
class EmbeddingEndpoint:
    """Where the embeddings come from and how hard to push it."""

    base_url: str
    model: str
    api_key: str = _PLACEHOLDER_KEY
    batch: int = 64
    concurrency: int = 4
    timeout: float = 60.0
    note: str | None = None  # what normalize_base_url changed
    pool: tuple[str, ...] = ()  # the other servers of a pool, after ``base_url``

    @property
    def urls(self) -> tuple[str, ...]:
        return (self.base_url, *self.pool)

    @property
    def cache_name(self) -> str:
        """The name its vectors are cached under: the model's, so two servers share them."""
        return f"endpoint:{self.model}"

    @classmethod
    def from_settings(cls, settings: Settings) -> EmbeddingEndpoint | None:
        """The ``[embeddings]`` endpoint, or None when no ``base_url`` is configured."""
        if not settings.embed_base_url:
            return None
        if not settings.embed_model:
            raise EncoderError(
                "[embeddings] base_url is set but model is not: name the model the server serves"
            )
        urls = settings.embed_base_urls or (settings.embed_base_url,)
        normal = [normalize_base_url(u) for u in dict.fromkeys(urls)]
        return cls(
            normal[0][0],
            settings.embed_model,
            settings.embed_api_key or _PLACEHOLDER_KEY,
            max(1, settings.embed_batch),
            max(1, settings.embed_concurrency),
            settings.embed_timeout,
            "; ".join(n for _, n in normal if n) or None,
            tuple(u for u, _ in normal[1:]),
        )


class EndpointEncoder:
    """An :class:`~soulscope.recall.semantic.Encoder` that asks an embeddings endpoint."""

    # Its name is the model's as configured: the server may serve another model under it, so
    # the cache checks that its vectors are still this model's (``EmbeddingCache.confirm``).
    name_may_lie = True

    def __init__(self, endpoint: EmbeddingEndpoint) -> None:
        self.endpoint = endpoint
        self.name = endpoint.cache_name
        urls = endpoint.urls
        shown = ", ".join(redact(u) for u in urls)
        self.device = f"endpoint {shown}" if len(urls) == 1 else f"endpoints {shown}"
        self.batch_size = endpoint.batch
        self.dimensions: int | None = None  # set by the first reply
        self.texts_encoded = 0
        self.pool = Pool(urls, endpoint.concurrency)  # its ``served``: batches each embedded
        self._clients: dict[str, Any] = {}
        self._lock = threading.Lock()

    @property
    def _as_llm_endpoint(self) -> Endpoint:
        e = self.endpoint
        return Endpoint(e.base_url, e.api_key, e.model, e.timeout)

    def _sync(self, url: str) -> Any:
        with self._lock:
            client = self._clients.get(url)
            if client is None:
                e = self.endpoint
                client = self._clients[url] = make_client(
                    Endpoint(url, e.api_key, e.model, e.timeout)
                )
        return client

    def _drop_client(self, url: str) -> None:
        with self._lock:
            client = self._clients.pop(url, None)
        if client is not None:
            client.close()

    def redact(self, text: str) -> str:
        """Server text as it may be shown: the request's secrets (API key, user-info, query
        values) hidden in every form a server may echo them."""
        return self._as_llm_endpoint.redact(text)

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimensions or 0), dtype=np.float32)
        batches = [
            [readable(t) for t in texts[i : i + self.batch_size]]
            for i in range(0, len(texts), self.batch_size)
        ]
        workers = self.endpoint.concurrency * len(self.endpoint.urls)
        if len(batches) == 1 or workers == 1:
            rows = [self._request(b) for b in batches]
        else:
            with ThreadPoolExecutor(min(workers, len(batches))) as pool:
                rows = list(pool.map(self._request, batches))
        vectors = np.concatenate(rows)
        with self._lock:
            self.texts_encoded += len(texts)
        return vectors

    def _request(self, texts: list[str]) -> np.ndarray:
        """The batch's vectors from the next server of the pool, or from the others in turn
        when it fails; the last failure when every server failed."""
        return self.pool.call(lambda url: self._ask(url, texts), (EncoderError,))

    def _ask(self, base_url: str, texts: list[str]) -> np.ndarray:
        import openai

        url, model = redact(base_url), self.endpoint.model
        client = self._sync(base_url)
        try:
            # A whole answer within twice the timeout between bytes: a server that sends one
            # now and then would reset the client's own timeout forever.
            reply = within(
                WORDLESS * self.endpoint.timeout,
                lambda: client.embeddings.create(model=model, input=texts, encoding_format="float"),
                lambda: self._drop_client(base_url),
            )
        except (openai.APITimeoutError, TimeoutError) as exc:
            raise EncoderError(
                f"the embeddings endpoint at {url} did not answer within "
                f"{self.endpoint.timeout:g} s"
            ) from exc
        except (openai.APIConnectionError, ConnectionError) as exc:
            raise EncoderError(
                f"cannot connect to the embeddings endpoint at {url}: is the server running?"
            ) from exc
        except openai.APIStatusError as exc:
            raise EncoderError(
                f"the embeddings endpoint at {url} answered {exc.status_code} for model "
                f"'{model}': {self.redact(' '.join(str(exc.message).split()))[:160]}"
            ) from exc
        except (ValueError, openai.APIError) as exc:
            raise EncoderError(
                f"the embeddings endpoint at {url} sent a reply that is not JSON embeddings"
            ) from exc
        return self._check(reply, len(texts), url)

    def _check(self, reply: Any, count: int, url: str) -> np.ndarray:
        data = getattr(reply, "data", None)
        if not isinstance(data, list):
            raise EncoderError(
                f"the embeddings endpoint at {url} sent a reply that is not JSON embeddings"
            )
        try:
            items = sorted(data, key=lambda d: d.index) if data else []
            rows = [list(map(float, item.embedding)) for item in items]
        except (TypeError, ValueError, AttributeError):
            rows = []
        if len(rows) != count:
            raise EncoderError(
                f"the embeddings endpoint at {url} sent {len(rows)} vectors for {count} texts"
            )
        sizes = {len(r) for r in rows}
        size = sizes.pop() if len(sizes) == 1 else 0
        if not size or sizes:
            raise EncoderError(f"the embeddings endpoint at {url} sent vectors of mixed sizes")
        vectors = np.asarray(rows, dtype=np.float32)
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        if not np.all(np.isfinite(vectors)) or not np.all(norms > 0):
            raise EncoderError(
                f"the embeddings endpoint at {url} sent vectors that are not numbers"
            )
        with self._lock:
            if self.dimensions is None:
                self.dimensions = size
        if size != self.dimensions:
            raise EncoderError(
                f"the embeddings endpoint at {url} sent {size}-dimensional vectors after "
                f"{self.dimensions}-dimensional ones: is another model answering?"
            )
        return vectors / norms
