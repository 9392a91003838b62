"""The one LLM path: the ``openai`` client on any OpenAI-compatible endpoint, errors in plain words.

Most failures people hit with such clients come from the base URL (a missing ``/v1``, a trailing
slash, a pasted ``/chat/completions``); :func:`normalize_base_url` fixes what it safely can and
says what it changed. Every failure becomes an :class:`LLMError` whose text is one sentence.

A base URL may carry credentials (``http://user:pass@host/v1``, ``?api_key=...``): requests use
them, every text soulscope shows or writes goes through :func:`redact` first, so they are never
printed, logged or committed; nor is the API key.
"""

from __future__ import annotations

import base64
import contextlib
import json
import re
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any, TypeVar
from urllib.parse import parse_qsl, quote, quote_plus, unquote, urlsplit, urlunsplit

from soulscope.config import Settings
from soulscope.errors import SoulscopeError
from soulscope.pool import Pool

Message = dict[str, str]
_PLACEHOLDER_KEY = "not-needed"  # local servers ignore the key, but the client insists on one
HIDDEN = "***"
_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^\s'\"<>]*[^\s'\"<>.,:;!?)]")
_USERINFO = re.compile(r"(?<=://)[^/?#@]*@")
_QUERY_VALUE = re.compile(r"(?<=[?&])([^=&#]*)=[^&#]*")
_MIN_SECRET = 4  # shorter secrets are hidden inside URLs only, not wherever their letters appear


# How many of the endpoint's timeouts an answer may go without a word (keep-alives only).
WORDLESS = 2


class LLMError(SoulscopeError):
    """A failure talking to the LLM, said in one sentence."""


def redact(text: str) -> str:
    """``text`` with the user-info and query values of every URL in it hidden."""

    def hide(m: re.Match[str]) -> str:
        url = _USERINFO.sub(HIDDEN + "@", m.group(0), count=1)
        return _QUERY_VALUE.sub(lambda q: f"{q.group(1)}={HIDDEN}", url)

    return _URL.sub(hide, text)


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
    # The query string stays: it may hold the key (``?api_key=``) the server wants.
    fixed = urlunsplit((parts.scheme, parts.netloc, path, parts.query, ""))
    note = (
        f"base URL {redact(url.strip())!r} -> {redact(fixed)!r}: " + ", ".join(notes)
        if notes
        else None
    )
    return fixed, note


@dataclass(frozen=True)
class Endpoint:
    """Where and how to reach the LLM; ``shown`` and ``redact`` are what may be printed of it."""

    base_url: str = field(repr=False)  # may hold credentials: print ``shown``
    api_key: str = field(repr=False)
    model: str | None  # None: the first model the server lists
    timeout: float
    note: str | None = None  # what normalize_base_url changed (already redacted)
    pool: tuple[str, ...] = field(default=(), repr=False)  # more servers, after ``base_url``
    concurrency: int = 8  # requests in flight per server

    @property
    def urls(self) -> tuple[str, ...]:
        """The servers: ``base_url`` and those of its pool."""
        return (self.base_url, *self.pool)

    @property
    def shown(self) -> str:
        """The base URL (every server's, for a pool) as it may be printed: user-info and query
        values hidden."""
        return ", ".join(redact(u) for u in self.urls)

    def server(self, url: str) -> Endpoint:
        """One server of the pool, as an endpoint of its own."""
        return replace(self, base_url=url, pool=(), note=None)

    @property
    def query(self) -> dict[str, str]:
        """The base URL's query parameters, sent with every request."""
        return dict(parse_qsl(urlsplit(self.base_url).query, keep_blank_values=True))

    def redact(self, text: str) -> str:
        """``text`` with this endpoint's secrets hidden, wherever and however they appear in it:
        as sent, URL-encoded, JSON-escaped, or as the base64 of basic auth's ``user:password``
        (a server's error page may echo the request's headers or query)."""
        return self.hide(redact(text))

    def hide(self, text: str) -> str:
        """``text`` with this endpoint's own secrets hidden (in every form ``redact`` knows),
        and nothing else changed: what an answer may be passed through."""
        for secret in self.secret_forms:
            if secret in text:
                text = text.replace(secret, HIDDEN)
        return text

    @cached_property
    def secret_forms(self) -> list[str]:
        """Every form of this endpoint's secrets a server may echo, longest first."""
        secrets = {self.api_key}
        pairs: set[str] = set()
        for url in self.urls:
            parts = urlsplit(url)
            secrets |= {v for _, v in parse_qsl(parts.query, keep_blank_values=True)}
            if "@" in parts.netloc:
                userinfo = parts.netloc.rpartition("@")[0]
                pairs |= {userinfo, unquote(userinfo)}
                secrets |= {userinfo, *userinfo.split(":", 1)}
        secrets |= {unquote(s) for s in secrets}
        secrets = {s for s in secrets - {_PLACEHOLDER_KEY} if len(s) >= _MIN_SECRET}
        forms = set(secrets)
        for s in secrets:
            # URL-encoded as clients do (which characters stay is up to each), hex in either case
            for safe in ("", "/", ":/@"):
                for encoded in (quote(s, safe=safe), quote_plus(s, safe=safe)):
                    forms |= {encoded, re.sub(r"%[0-9A-F]{2}", lambda m: m[0].lower(), encoded)}
            escaped = json.dumps(s)[1:-1]  # in a JSON body, "/" perhaps escaped too
            forms |= {escaped, escaped.replace("/", "\\/")}
        for pair in pairs:  # basic auth: base64 of user:password, with or without its padding
            encoded = base64.b64encode(pair.encode("utf-8", "surrogatepass")).decode("ascii")
            forms |= {encoded, encoded.rstrip("=")}
            forms.add(base64.urlsafe_b64encode(pair.encode("utf-8", "surrogatepass")).decode())
        return sorted((f for f in forms if len(f) >= _MIN_SECRET), key=len, reverse=True)

    @classmethod
    def from_settings(cls, settings: Settings) -> Endpoint | None:
        """The configured endpoint (a pool where several base URLs are), or None for offline
        mode (no base URL configured)."""
        if not settings.base_url:
            return None
        urls = settings.base_urls or (settings.base_url,)
        normal = [normalize_base_url(u) for u in dict.fromkeys(urls)]
        return cls(
            normal[0][0],
            settings.api_key or _PLACEHOLDER_KEY,
            settings.model,
            settings.llm_timeout,
            "; ".join(n for _, n in normal if n) or None,
            tuple(dict.fromkeys(u for u, _ in normal[1:] if u != normal[0][0])),
            settings.llm_concurrency,
        )


def make_client(endpoint: Endpoint, asynchronous: bool = False) -> Any:
    """The ``openai`` client for an endpoint (the one way soulscope builds one)."""
    import openai

    cls = openai.AsyncOpenAI if asynchronous else openai.OpenAI
    parts = urlsplit(endpoint.base_url)
    return cls(
        # The query goes as default_query: the client would drop it from the base URL.
        base_url=urlunsplit((*parts[:3], "", "")),
        default_query=endpoint.query or None,
        api_key=endpoint.api_key,
        timeout=endpoint.timeout,
        max_retries=0,  # a retry would hide the failure for minutes
    )


class LLM:
    """Chat completions over HTTP; streaming, with cancellation and one-sentence errors.

    An endpoint with a pool spreads its requests over the servers (``soulscope.pool``): a server
    that fails a request before its first word is shown passes it to the next."""

    def __init__(self, endpoint: Endpoint) -> None:
        self.endpoint = endpoint
        self.pool = Pool(endpoint.urls, endpoint.concurrency)
        self._servers = {u: endpoint.server(u) for u in endpoint.urls}
        self._model = endpoint.model
        self._clients: dict[str, Any] = {}
        self._aclients: dict[str, Any] = {}
        self._lock = threading.Lock()

    def _sync(self, url: str) -> Any:
        with self._lock:
            if url not in self._clients:
                self._clients[url] = make_client(self._servers[url])
            return self._clients[url]

    def _async(self, url: str) -> Any:
        if url not in self._aclients:
            self._aclients[url] = make_client(self._servers[url], asynchronous=True)
        return self._aclients[url]

    def _drop_client(self, url: str) -> None:
        with self._lock:
            client = self._clients.pop(url, None)
        if client is not None:
            client.close()  # the request still reading from it fails at its next bytes

    @property
    def model(self) -> str:
        """The model asked for; when none is configured, the first one the server lists."""
        if self._model is None:
            names = self.models()
            self._model = names[0] if names else "default"
        return self._model

    def models(self) -> list[str]:
        """The model ids the server (the first of the pool that answers) lists."""
        try:
            return self.pool.call(self._models_of, (LLMError,))
        except LLMError as exc:
            raise self._all_failed(exc) from exc

    def _models_of(self, url: str) -> list[str]:
        client = self._sync(url)
        try:
            page = within(
                WORDLESS * self.endpoint.timeout,
                lambda: client.models.list(),
                lambda: self._drop_client(url),
            )
            # (a name is the server's text too: it may echo a secret of the request)
            return [self.endpoint.hide(str(m.id)) for m in page.data]
        except Exception as exc:
            raise self._explain(exc, url) from exc

    def check(self) -> str:
        """Test the connection: one sentence that says what is there (of each server of a pool),
        or raises LLMError when no server answers."""
        said: list[str] = []
        failed: list[str] = []
        for url in self.endpoint.urls:
            try:
                said.append(self._check(url))
            except LLMError as exc:
                failed.append(str(exc))
        if not said:
            raise LLMError("; ".join(failed))
        return "; ".join(said + failed)

    def _check(self, url: str) -> str:
        names = self._models_of(url)
        shown = self._servers[url].shown
        if self.endpoint.model and names and self.endpoint.model not in names:
            # llama.cpp serves its one model under any name, so this is a warning, not a failure.
            return f"connected to {shown}; it lists {', '.join(names[:5])} but not '{self.endpoint.model}'"
        if self._model is None:
            self._model = names[0] if names else "default"
        return f"connected to {shown}; model '{self.model}' is ready"

    def _all_failed(self, exc: LLMError) -> LLMError:
        """The last server's failure, saying that the others of the pool failed too."""
        others = len(self.pool) - 1
        if not others:
            return exc
        servers = "server" if others == 1 else f"{others} servers"
        return LLMError(f"{exc} (the other {servers} of the pool failed too)")

    def stream(
        self,
        messages: Sequence[Message],
        max_tokens: int | None = None,
        cancel: threading.Event | None = None,
        timeout: float | None = None,
    ) -> Iterator[str]:
        """The answer's text as it arrives; empty deltas are skipped; ``cancel`` stops it.

        ``timeout`` replaces the endpoint's own for this request (seconds of silence allowed).
        A server of a pool that fails before the answer's first word passes it to the next.
        """
        tried: list[str] = []
        while True:
            url = self.pool.take(tried)
            told = False
            try:
                for piece in self._stream_from(url, messages, max_tokens, cancel, timeout):
                    told = True
                    yield piece
            except LLMError as exc:
                tried.append(url)
                self.pool.give(url, False)
                if told:
                    raise  # (words were shown: another server's would not follow them)
                if len(tried) == len(self.pool):
                    raise self._all_failed(exc) from exc
                continue
            except BaseException:
                self.pool.give(url, None)
                raise
            self.pool.give(url, True)
            return

    def _stream_from(  # noqa: C901 (one of the five allowed)
        self,
        url: str,
        messages: Sequence[Message],
        max_tokens: int | None,
        cancel: threading.Event | None,
        timeout: float | None,
    ) -> Iterator[str]:
        """:meth:`stream` from one server."""
        client = self._sync(url)
        if timeout is not None:
            client = client.with_options(timeout=timeout)
        # Words must come within twice the silence the client allows between bytes: a server
        # gone quiet is the client's own timeout, one that only keeps the line alive is this.
        silence = WORDLESS * (self.endpoint.timeout if timeout is None else timeout)
        watch: _Silence | None = None
        try:
            if self._model is None:  # (of this server: the pool's slot is already taken)
                self._model = (self._models_of(url) or ["default"])[0]
            model = self._model
            response = within(
                silence,
                lambda: client.chat.completions.create(
                    model=model, messages=list(messages), stream=True, max_tokens=max_tokens
                ),
                lambda: self._drop_client(url),
            )
            reply = _Reply(response)
            hidden = _Hiding(self.endpoint)
            with response, _Silence(response, silence) as watch:
                for chunk in response:
                    if cancel is not None and cancel.is_set():
                        return
                    text = reply.take(chunk)
                    if text:
                        watch.heard()
                        shown = hidden.take(text)
                        if shown:
                            yield shown
            if watch.fired:
                raise self._wordless(silence, url)
            reply.finish(self._servers[url].shown)
            rest = hidden.rest()
            if rest:
                yield rest
        except LLMError:
            raise
        except Exception as exc:
            if watch is not None and watch.fired:
                raise self._wordless(silence, url) from exc
            raise self._explain(exc, url) from exc

    def _wordless(self, silence: float, url: str) -> LLMError:
        return LLMError(
            f"the LLM at {self._servers[url].shown} sent no words for {silence:g} s "
            "(only keep-alives or empty chunks)"
        )

    async def astream(
        self, messages: Sequence[Message], max_tokens: int | None = None
    ) -> AsyncIterator[str]:
        """Like :meth:`stream`, for asyncio; cancelling the task closes the connection."""
        tried: list[str] = []
        while True:
            url = await self.pool.atake(tried)
            told = False
            try:
                async for piece in self._astream_from(url, messages, max_tokens):
                    told = True
                    yield piece
            except LLMError as exc:
                tried.append(url)
                self.pool.give(url, False)
                if told:
                    raise
                if len(tried) == len(self.pool):
                    raise self._all_failed(exc) from exc
                continue
            except BaseException:
                self.pool.give(url, None)
                raise
            self.pool.give(url, True)
            return

    async def _astream_from(
        self, url: str, messages: Sequence[Message], max_tokens: int | None
    ) -> AsyncIterator[str]:
        """:meth:`astream` from one server."""
        import asyncio  # only the dashboard streams this way: the CLI need not load asyncio

        silence = WORDLESS * self.endpoint.timeout
        try:
            # (each step within a whole timeout: a server sending a byte now and then resets
            # the client's own timeout between bytes)
            # (``asyncio.timeout``, not ``wait_for``: on Python 3.11 a cancel that comes as the
            # awaited step ends is lost in ``wait_for``, and the answer Esc cancelled streams on)
            model = self._model
            if model is None:
                async with asyncio.timeout(silence):
                    model = (await self._amodels(url) or ["default"])[0]
            self._model = model
            async with asyncio.timeout(silence):
                response = await self._async(url).chat.completions.create(
                    model=model, messages=list(messages), stream=True, max_tokens=max_tokens
                )
            reply = _Reply(response)
            hidden = _Hiding(self.endpoint)
            async with response:
                chunks = response.__aiter__()
                heard = time.monotonic()
                while True:
                    left = silence - (time.monotonic() - heard)
                    try:
                        # Keep-alives reset the client's own timeout: words are what count.
                        async with asyncio.timeout(max(left, 0.001)):
                            chunk = await chunks.__anext__()
                    except StopAsyncIteration:
                        break
                    except TimeoutError:
                        raise self._wordless(silence, url) from None
                    text = reply.take(chunk)
                    if text:
                        heard = time.monotonic()
                        shown = hidden.take(text)
                        if shown:
                            yield shown
            reply.finish(self._servers[url].shown)
            rest = hidden.rest()
            if rest:
                yield rest
        except LLMError:
            raise
        except Exception as exc:
            raise self._explain(exc, url) from exc

    async def _amodels(self, url: str) -> list[str]:
        page = await self._async(url).models.list()
        return [m.id for m in page.data]

    def complete(
        self,
        messages: Sequence[Message],
        max_tokens: int | None = None,
        within: float | None = None,
    ) -> str:
        """The whole answer at once (used for distillation): as nothing of it is shown before it
        is whole, a server of a pool that fails at any point of it passes it to the next.

        ``within``: seconds the whole answer may take; past them the request is closed and an
        LLMError raised, so that a caller on its way out (quit, SIGTERM) is never held for long.
        """
        deadline = None if within is None else time.monotonic() + within
        silence = None if within is None else min(within, self.endpoint.timeout)

        def whole(url: str) -> str:
            pieces = []
            if deadline is not None and time.monotonic() > deadline:
                raise _Late
            for piece in self._stream_from(url, messages, max_tokens, None, silence):
                pieces.append(piece)
                if deadline is not None and time.monotonic() > deadline:
                    raise _Late
            return "".join(pieces)

        try:
            return self.pool.call(whole, (LLMError,))
        except _Late:
            raise LLMError(
                f"the LLM at {self.endpoint.shown} did not finish within {within:g} s"
            ) from None
        except LLMError as exc:
            raise self._all_failed(exc) from exc

    def _explain(self, exc: BaseException, url: str) -> LLMError:
        """Turn any client failure into one sentence that says what to do, secrets hidden."""
        return LLMError(self.endpoint.redact(str(self._sentence(exc, url))))

    def _sentence(self, exc: BaseException, url: str) -> LLMError:
        import openai

        shown = self._servers[url].shown
        if isinstance(exc, openai.APITimeoutError | TimeoutError):
            return LLMError(f"the LLM at {shown} did not answer within {self.endpoint.timeout:g} s")
        if isinstance(exc, openai.APIConnectionError | ConnectionError):
            return LLMError(f"cannot connect to the LLM at {shown}: is the server running?")
        if isinstance(exc, openai.AuthenticationError | openai.PermissionDeniedError):
            return LLMError(
                f"the LLM at {shown} refused the API key ({exc.status_code}): set OPENAI_API_KEY"
            )
        if isinstance(exc, openai.NotFoundError):
            return LLMError(self._not_found(url))
        # (secrets hidden before the text is cut short: a cut secret is no longer found whole)
        hide = self.endpoint.redact
        if isinstance(exc, openai.APIStatusError):
            return LLMError(
                f"the LLM at {shown} answered {exc.status_code}: {_short(hide(str(exc.message)))}"
            )
        if isinstance(exc, RecursionError):  # JSON nested past Python's recursion limit
            return LLMError(f"the LLM at {shown} sent a reply nested too deep to read")
        if isinstance(exc, ValueError | openai.APIResponseValidationError | openai.APIError):
            return LLMError(f"the LLM at {shown} sent a malformed reply ({_short(hide(str(exc)))})")
        raise exc  # a programming error, not the server's: let it surface

    def _not_found(self, url: str) -> str:
        shown = self._servers[url].shown
        try:
            names = [self.endpoint.hide(str(m.id)) for m in self._sync(url).models.list().data]
        except Exception:
            return f"no OpenAI-compatible API at {shown} (404): the base URL usually ends in /v1"
        listed = ", ".join(names[:5]) or "none"
        return f"the LLM at {shown} has no model '{self._model}' (404); it serves: {listed}"


T = TypeVar("T")


class _Late(Exception):
    """The whole answer took longer than its caller allowed (``LLM.complete``)."""


def within(seconds: float, call: Callable[[], T], close: Callable[[], None]) -> T:
    """``call()``, or ``TimeoutError`` when it takes more than ``seconds`` in all: a server that
    sends a byte now and then (its headers, a body) resets the client's own timeout each time
    and never ends. ``close`` is called then, so that the call's connection fails and the
    thread running it ends."""
    box: dict[str, Any] = {}
    done = threading.Event()

    def run() -> None:
        try:
            box["value"] = call()
        except BaseException as exc:  # noqa: BLE001 (raised again in the caller's thread)
            box["error"] = exc
        finally:
            done.set()

    threading.Thread(target=run, name="llm-request", daemon=True).start()
    if not done.wait(seconds):
        with contextlib.suppress(Exception):
            close()
        raise TimeoutError(f"no whole answer within {seconds:g} s")
    if "error" in box:
        raise box["error"]
    return box["value"]


class _Hiding:
    """An answer's pieces with the endpoint's secrets hidden, however the pieces cut them: a
    server that echoes the request into its answer must not get them printed, written into a
    soul file or committed. The last characters are held back until what follows shows they
    start no secret."""

    def __init__(self, endpoint: Endpoint) -> None:
        self.endpoint = endpoint
        self.keep = max((len(f) for f in endpoint.secret_forms), default=1) - 1
        self.held = ""

    def take(self, piece: str) -> str:
        if not self.keep:
            return piece
        held = self.endpoint.hide(self.held + piece)
        cut = max(0, len(held) - self.keep)
        self.held = held[cut:]
        return held[:cut]

    def rest(self) -> str:
        rest, self.held = self.endpoint.hide(self.held), ""
        return rest


class _Silence:
    """Closes a streamed response when no words came for ``seconds``: a server that sends
    keep-alives (or empty chunks) resets the client's read timeout forever, and the reading
    thread never gets control back to notice. ``fired`` tells the reader why its stream ended."""

    def __init__(self, response: Any, seconds: float) -> None:
        self.response = response
        self.seconds = seconds
        self.fired = False
        self._last = time.monotonic()
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="llm-silence", daemon=True)

    def __enter__(self) -> _Silence:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._done.set()

    def heard(self) -> None:
        self._last = time.monotonic()

    def _watch(self) -> None:
        step = min(0.25, self.seconds / 4)
        while not self._done.wait(step):
            if time.monotonic() - self._last > self.seconds:
                self.fired = True
                with contextlib.suppress(Exception):  # (closing is all that is wanted)
                    self.response.close()  # the blocked read fails at its next bytes
                return


class _Reply:
    """What a streamed answer held so far, to tell a finished answer from an unusable one.

    A server that answers HTTP 200 with an HTML page, with JSON of another shape, or that closes
    the stream before its last chunk, gives the client nothing to raise on: the stream just ends.
    """

    def __init__(self, response: Any) -> None:
        raw = getattr(response, "response", None)
        headers = getattr(raw, "headers", None) or {}
        self.kind = str(headers.get("content-type", "")).split(";")[0].strip().lower()
        self.chunks = 0  # chunks with a choice in them
        self.text = False
        self.finished = False

    def take(self, chunk: Any) -> str | None:
        """The text of a streamed chunk; None for keep-alives, role-only and empty deltas."""
        choices = getattr(chunk, "choices", None)
        if not choices or not isinstance(choices, list):
            return None
        self.chunks += 1
        choice = choices[0]
        if getattr(choice, "finish_reason", None):
            self.finished = True
        delta = getattr(choice, "delta", None)
        text = getattr(delta, "content", None) if delta is not None else None
        if not isinstance(text, str):
            return None
        self.text = self.text or bool(text)
        return text

    def finish(self, url: str) -> None:
        """Raise LLMError when the stream that just ended was not a whole, non-empty answer."""
        if self.kind == "text/html":
            raise LLMError(
                f"the LLM at {url} answered with an HTML page, not a chat completion: "
                "is the base URL that of a proxy or a login page?"
            )
        if not self.chunks:
            raise LLMError(f"the LLM at {url} sent no chat completion (a reply of another shape)")
        if not self.finished:
            raise LLMError(f"the LLM at {url} closed the answer before it was finished")
        if not self.text:
            raise LLMError(f"the LLM at {url} sent an empty answer")


def _short(text: str, limit: int = 160) -> str:
    line = " ".join(str(text).split())
    return line if len(line) <= limit else line[: limit - 1] + "…"
