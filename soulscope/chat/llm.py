"""The one LLM path: the ``openai`` client on any OpenAI-compatible endpoint, errors in plain words.

Most failures people hit with such clients come from the base URL (a missing ``/v1``, a trailing
slash, a pasted ``/chat/completions``); :func:`normalize_base_url` fixes what it safely can and
says what it changed. Every failure becomes an :class:`LLMError` whose text is one sentence.
"""

from __future__ import annotations

import threading
import time
from collections.abc import AsyncIterator, Iterator, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from soulscope.config import Settings, load_settings

Message = dict[str, str]
_PLACEHOLDER_KEY = "not-needed"  # local servers ignore the key, but the client insists on one


class LLMError(Exception):
    """A failure talking to the LLM, said in one sentence."""


def normalize_base_url(url: str) -> tuple[str, str | None]:
    """The base URL the client should use, and a note saying what was changed (or None)."""
    raw = url.strip()
    notes: list[str] = []
    if "://" not in raw:
        raw = "http://" + raw
        notes.append("added http://")
    parts = urlsplit(raw)
    path = parts.path.rstrip("/")
    if parts.path != path and parts.path not in ("", "/"):
        notes.append("removed the trailing slash")
    for tail in ("/chat/completions", "/completions", "/models"):
        if path.endswith(tail):
            path = path[: -len(tail)]
            notes.append(f"removed {tail} (the client adds it)")
            break
    if not path:
        path = "/v1"
        notes.append("added /v1 (OpenAI-compatible servers answer under it)")
    fixed = urlunsplit((parts.scheme, parts.netloc, path, "", ""))
    note = f"base URL {url.strip()!r} -> {fixed!r}: " + ", ".join(notes) if notes else None
    return fixed, note


@dataclass(frozen=True)
class Endpoint:
    """Where and how to reach the LLM."""

    base_url: str
    api_key: str
    model: str | None  # None: the first model the server lists
    timeout: float
    note: str | None = None  # what normalize_base_url changed

    @classmethod
    def from_settings(cls, settings: Settings | None = None) -> Endpoint | None:
        """The configured endpoint, or None for offline mode (no base URL configured)."""
        settings = settings or load_settings()
        if not settings.base_url:
            return None
        url, note = normalize_base_url(settings.base_url)
        return cls(
            url, settings.api_key or _PLACEHOLDER_KEY, settings.model, settings.llm_timeout, note
        )


def make_client(endpoint: Endpoint, asynchronous: bool = False) -> Any:
    """The ``openai`` client for an endpoint (the one way soulscope builds one)."""
    import openai

    cls = openai.AsyncOpenAI if asynchronous else openai.OpenAI
    return cls(
        base_url=endpoint.base_url,
        api_key=endpoint.api_key,
        timeout=endpoint.timeout,
        max_retries=0,  # a retry would hide the failure for minutes
    )


class LLM:
    """Chat completions over HTTP; streaming, with cancellation and one-sentence errors."""

    def __init__(self, endpoint: Endpoint) -> None:
        self.endpoint = endpoint
        self._model = endpoint.model
        self._client: Any = None
        self._aclient: Any = None

    def _sync(self) -> Any:
        if self._client is None:
            self._client = make_client(self.endpoint)
        return self._client

    def _async(self) -> Any:
        if self._aclient is None:
            self._aclient = make_client(self.endpoint, asynchronous=True)
        return self._aclient

    @property
    def model(self) -> str:
        """The model asked for; when none is configured, the first one the server lists."""
        if self._model is None:
            names = self.models()
            self._model = names[0] if names else "default"
        return self._model

    def models(self) -> list[str]:
        """The model ids the server lists."""
        try:
            return [m.id for m in self._sync().models.list().data]
        except Exception as exc:
            raise self._explain(exc) from exc

    def check(self) -> str:
        """Test the connection: one sentence that says what is there, or raises LLMError."""
        names = self.models()
        if self.endpoint.model and names and self.endpoint.model not in names:
            # llama.cpp serves its one model under any name, so this is a warning, not a failure.
            return (
                f"connected to {self.endpoint.base_url}; it lists {', '.join(names[:5])} "
                f"but not '{self.endpoint.model}'"
            )
        return f"connected to {self.endpoint.base_url}; model '{self.model}' is ready"

    def stream(
        self,
        messages: Sequence[Message],
        max_tokens: int | None = None,
        cancel: threading.Event | None = None,
        timeout: float | None = None,
    ) -> Iterator[str]:
        """The answer's text as it arrives; empty deltas are skipped; ``cancel`` stops it.

        ``timeout`` replaces the endpoint's own for this request (seconds of silence allowed).
        """
        client = self._sync()
        if timeout is not None:
            client = client.with_options(timeout=timeout)
        try:
            response = client.chat.completions.create(
                model=self.model, messages=list(messages), stream=True, max_tokens=max_tokens
            )
            with response:
                for chunk in response:
                    if cancel is not None and cancel.is_set():
                        return
                    text = _delta_text(chunk)
                    if text:
                        yield text
        except LLMError:
            raise
        except Exception as exc:
            raise self._explain(exc) from exc

    async def astream(
        self, messages: Sequence[Message], max_tokens: int | None = None
    ) -> AsyncIterator[str]:
        """Like :meth:`stream`, for asyncio; cancelling the task closes the connection."""
        try:
            model = self._model or (await self._amodels() or ["default"])[0]
            self._model = model
            response = await self._async().chat.completions.create(
                model=model, messages=list(messages), stream=True, max_tokens=max_tokens
            )
            async with response:
                async for chunk in response:
                    text = _delta_text(chunk)
                    if text:
                        yield text
        except LLMError:
            raise
        except Exception as exc:
            raise self._explain(exc) from exc

    async def _amodels(self) -> list[str]:
        page = await self._async().models.list()
        return [m.id for m in page.data]

    def complete(
        self,
        messages: Sequence[Message],
        max_tokens: int | None = None,
        within: float | None = None,
    ) -> str:
        """The whole answer at once (used for distillation).

        ``within``: seconds the whole answer may take; past them the request is closed and an
        LLMError raised, so that a caller on its way out (quit, SIGTERM) is never held for long.
        """
        if within is None:
            return "".join(self.stream(messages, max_tokens=max_tokens))
        deadline = time.monotonic() + within
        pieces = []
        for piece in self.stream(messages, max_tokens=max_tokens, timeout=within):
            pieces.append(piece)
            if time.monotonic() > deadline:
                raise LLMError(
                    f"the LLM at {self.endpoint.base_url} did not finish within {within:g} s"
                )
        return "".join(pieces)

    def _explain(self, exc: BaseException) -> LLMError:
        """Turn any client failure into one sentence that says what to do."""
        import openai

        url = self.endpoint.base_url
        if isinstance(exc, openai.APITimeoutError | TimeoutError):
            return LLMError(f"the LLM at {url} did not answer within {self.endpoint.timeout:g} s")
        if isinstance(exc, openai.APIConnectionError | ConnectionError):
            return LLMError(f"cannot connect to the LLM at {url}: is the server running?")
        if isinstance(exc, openai.AuthenticationError | openai.PermissionDeniedError):
            return LLMError(
                f"the LLM at {url} refused the API key ({exc.status_code}): set OPENAI_API_KEY"
            )
        if isinstance(exc, openai.NotFoundError):
            return LLMError(self._not_found())
        if isinstance(exc, openai.APIStatusError):
            return LLMError(f"the LLM at {url} answered {exc.status_code}: {_short(exc.message)}")
        if isinstance(exc, ValueError | openai.APIResponseValidationError | openai.APIError):
            return LLMError(f"the LLM at {url} sent a malformed reply ({_short(str(exc))})")
        raise exc  # a programming error, not the server's: let it surface

    def _not_found(self) -> str:
        url = self.endpoint.base_url
        try:
            names = [m.id for m in self._sync().models.list().data]
        except Exception:
            return f"no OpenAI-compatible API at {url} (404): the base URL usually ends in /v1"
        shown = ", ".join(names[:5]) or "none"
        return f"the LLM at {url} has no model '{self._model}' (404); it serves: {shown}"


def _delta_text(chunk: Any) -> str | None:
    """The text of a streamed chunk; None for keep-alives, role-only and empty deltas."""
    choices = getattr(chunk, "choices", None)
    if not choices:
        return None
    delta = getattr(choices[0], "delta", None)
    return getattr(delta, "content", None) if delta is not None else None


def _short(text: str, limit: int = 160) -> str:
    line = " ".join(str(text).split())
    return line if len(line) <= limit else line[: limit - 1] + "…"
