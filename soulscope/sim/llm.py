"""The LLM brain: each agent asks an OpenAI-compatible endpoint what it does this frame.

Answers are structured JSON (``response_format`` with ``DECISION_SCHEMA`` where the server
supports it, plain JSON by instruction where it does not), validated against the world the agent
saw, repaired once when invalid; an agent whose endpoint is down, slow or incoherent lurks this
frame and the reason is logged, while the others go on. A reply that is not a chat completion
(an HTML page, JSON of another shape, a body cut short) is such a reason too. Calls run
concurrently, at most ``concurrency`` at once per server, each bounded by the settings' timeout.
With a pool of servers (``[llm] base_urls``, a ``soulscope.pool.Pool``) the agents' calls are
spread over them, and a call a server fails (it refuses, answers an error or garbage, or says
nothing within the timeout) is asked of another server: an agent lurks for the endpoint's sake
only when every server failed its call. At most
``MAX_RAW_CHARS`` of an answer are kept (for the frame log and the repair prompt); the log says so
where an answer was cut.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from soulscope.config import Settings
from soulscope.llm import Endpoint, make_client
from soulscope.pool import Pool
from soulscope.sim.actions import MAX_ACTIONS, rules
from soulscope.sim.brain import (
    DECISION_SCHEMA,
    Decision,
    DecisionError,
    Outcome,
    Progress,
    Request,
    context_of,
    validate,
)
from soulscope.sim.community import Comment, Post
from soulscope.soul.format import TEXT_LABELS

MAX_SOUL_CHARS = 24_000  # about 6k tokens of memory per prompt; the newest frames are kept
MAX_AGENTS_LISTED = 60
MAX_RAW_CHARS = 16_000  # of one answer, kept in frames/N/AGENT.json; a decision is far shorter
_FENCE = re.compile(r"^```(?:json)?\s*|\s*```$", re.S)


def _soul_text(request: Request) -> str:
    """The agent's soul file for the prompt: all of it, or its header and newest frames."""
    soul = request.soul
    text = soul.source
    if len(text) <= MAX_SOUL_CHARS:
        return text
    first_frame = soul.frames[0].line if soul.frames else len(text)
    head = soul.preamble + "".join(s.source for s in soul.sections if s.line < first_frame)
    if len(head) > MAX_SOUL_CHARS // 2:  # early-era files keep long History sections up top
        head = head[: MAX_SOUL_CHARS // 2] + "\n[the rest of the header omitted]\n"
    budget = MAX_SOUL_CHARS - len(head)
    kept: list[str] = []
    for frame in reversed(soul.frames):
        if budget - len(frame.source) < 0:
            break
        kept.append(frame.source)
        budget -= len(frame.source)
    omitted = len(soul.frames) - len(kept)
    return head + f"\n[{omitted} earlier frames omitted]\n\n" + "".join(reversed(kept))


def _line(x: Post | Comment) -> str:
    if isinstance(x, Post):
        return f"- post #{x.id} in c/{x.channel} by {x.author}: {x.title}\n  {x.body}"
    target = f"reply to comment {x.parent}" if x.parent is not None else "comment"
    return f"- {target} (id {x.id}) on post #{x.post} by {x.author}: {x.body}"


def messages_for(request: Request) -> list[dict[str, str]]:
    """The chat messages one agent's decision is asked with (also kept as its frame log context)."""
    soul, feed = request.soul, request.feed
    name = soul.name or request.agent
    related = {x.author for x in (*feed.posts, *feed.replies, *feed.related)}
    listed = sorted(related - {request.agent}) + [
        a for a in feed.agents if a not in related and a != request.agent
    ]
    system = (
        f"You are {name} (agent id {request.agent}) in a community of AI agents. Your soul file "
        "is your memory: stay in character, in your own voice. Each frame you read what is new "
        "and decide what to do. Answer with one JSON object only, no prose, matching this JSON "
        f"schema:\n{json.dumps(DECISION_SCHEMA)}\n"
        f"Rules: 'actions' has 1 to {MAX_ACTIONS} items; "
        + rules(", ".join("c/" + c for c in request.channels))
        + "; name in 'relationships' only agent ids listed below. "
        + "; ".join(f"'{x.field}': {x.meaning}" for x in TEXT_LABELS)
        + "."
    )
    parts = [
        "# Your soul file\n",
        _soul_text(request),
        f"\n# Frame {request.frame}, {request.date}\n",
        "## New posts in your channels\n" + ("\n".join(map(_line, feed.posts)) or "(none)"),
        "## Replies to you\n" + ("\n".join(map(_line, feed.replies)) or "(none)"),
        "## What agents you follow or relate to did\n"
        + ("\n".join(map(_line, feed.related)) or "(none)"),
        "## Agents in this world\n" + ", ".join(listed[:MAX_AGENTS_LISTED]),
        "\nWhat do you do this frame? Answer with the JSON object only.",
    ]
    return [{"role": "system", "content": system}, {"role": "user", "content": "\n\n".join(parts)}]


def capped(answer: str) -> str:
    """At most ``MAX_RAW_CHARS`` of an answer, saying how long it was when it is cut."""
    if len(answer) <= MAX_RAW_CHARS:
        return answer
    return answer[:MAX_RAW_CHARS] + (
        f"\n[cut by soulscope: the answer was {len(answer):,} characters; "
        f"the first {MAX_RAW_CHARS:,} are kept]"
    )


class ReplyError(DecisionError):
    """A reply that is not a chat completion: the server's failure, not the agent's answer."""


def reply_text(reply: Any) -> str:
    """The answer's text from a chat completion; ReplyError when the reply is not one."""
    if isinstance(reply, str | bytes):
        if reply.lstrip()[:1] in ("<", b"<"):
            raise ReplyError("the endpoint answered with an HTML page, not a chat completion")
        raise ReplyError("the endpoint's reply is not a chat completion")
    choices = getattr(reply, "choices", None)
    if not isinstance(choices, list):
        raise ReplyError("the endpoint's reply is not a chat completion (no 'choices')")
    message = getattr(choices[0], "message", None) if choices else None
    content = getattr(message, "content", None)
    return content if isinstance(content, str) else ""  # empty: asked again once, as invalid


def parse_answer(text: str) -> Any:
    """The JSON object in an answer, tolerating code fences and words around it."""
    text = _FENCE.sub("", text.strip())
    try:
        return json.loads(text)
    except RecursionError:
        raise DecisionError("the answer is not valid JSON (nested too deeply)") from None
    except ValueError:
        start, end = text.find("{"), text.rfind("}")
        if start < 0 or end <= start:
            raise DecisionError("the answer holds no JSON object") from None
        try:
            return json.loads(text[start : end + 1])
        except RecursionError:
            raise DecisionError("the answer is not valid JSON (nested too deeply)") from None
        except ValueError as exc:
            raise DecisionError(f"the answer is not valid JSON ({_json_problem(exc)})") from None


def _json_problem(exc: ValueError) -> str:
    """What ``json.loads`` found wrong, in a few words. Not every ValueError it raises is a
    JSONDecodeError with a ``msg``: a number of more than 4,300 digits is a plain ValueError."""
    if isinstance(exc, json.JSONDecodeError):
        return exc.msg
    return str(exc).split(":")[0]


def _count(tokens: dict[str, int], usage: Any) -> None:
    """Add a reply's token counts (where the endpoint gives them) to ``tokens``."""
    for name in ("prompt_tokens", "completion_tokens", "total_tokens"):
        value = getattr(usage, name, None)
        if isinstance(value, int):
            tokens[name] = tokens.get(name, 0) + value


class ServerFailed(Exception):
    """One server of the pool failed a call; ``reason`` says how, for the frame log."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


async def _first_model(clients: dict[str, Any]) -> str:
    """The first model the first server that answers lists (what a model-less configuration
    means, as in chat)."""
    for client in clients.values():
        try:
            page = await client.models.list()
        except Exception:  # noqa: BLE001 - the decisions report the failure, one per agent
            continue
        return page.data[0].id if page.data else "default"
    return "default"


class LlmBrain:
    """Decides through the ``openai`` client, on the same endpoint (normalised base URL, pool of
    servers) as chat."""

    name = "llm"

    def __init__(
        self, settings: Settings, concurrency: int | None = None, timeout: float | None = None
    ):
        endpoint = Endpoint.from_settings(settings)
        if endpoint is None:
            raise ValueError("no LLM endpoint is configured")
        self.timeout = timeout or settings.llm_timeout
        self.endpoint = replace(endpoint, timeout=self.timeout)
        self.concurrency = max(1, concurrency or endpoint.concurrency)  # per server
        self.pool = Pool(self.endpoint.urls, self.concurrency)
        self.structured = True  # until the server refuses response_format
        self.model = endpoint.model
        self.notes: list[str] = []  # the last frame's: the servers of the pool that failed
        self._why: dict[str, str] = {}  # a server -> why it failed its last call

    def decide(
        self, requests: Sequence[Request], progress: Progress | None = None
    ) -> list[Outcome]:
        failures = dict(self.pool.failures)
        try:
            return asyncio.run(self._decide_all(requests, progress))
        finally:
            self.notes = self._failed_servers(failures)

    def _failed_servers(self, before: dict[str, int]) -> list[str]:
        """A note for each server of a pool that failed calls since the counts ``before``."""
        if len(self.pool) == 1:
            return []  # (each agent's error says it)
        notes = []
        for url, count in self.pool.failures.items():
            failed = count - before[url]
            if failed:
                calls = "a call" if failed == 1 else f"{failed} calls"
                notes.append(
                    self.endpoint.redact(
                        f"the LLM server {self.endpoint.server(url).shown} failed {calls} "
                        f"({self._why.get(url, 'unknown')}); the other servers were asked instead"
                    )
                )
        return notes

    async def _decide_all(
        self, requests: Sequence[Request], progress: Progress | None
    ) -> list[Outcome]:
        clients = {
            url: make_client(self.endpoint.server(url), asynchronous=True)
            for url in self.endpoint.urls
        }
        if self.model is None:
            self.model = await _first_model(clients)
        # (as many at once as the pool takes: the others wait here, not in the pool)
        gate = asyncio.Semaphore(self.concurrency * len(self.pool))
        done = 0

        async def one(request: Request) -> Outcome:
            nonlocal done
            async with gate:
                outcome = await self._decide_one(clients, request)
            done += 1
            if progress:
                progress(done, len(requests))
            return outcome

        try:
            return list(await asyncio.gather(*(one(r) for r in requests)))
        finally:
            for client in clients.values():
                await client.close()

    async def _ask(
        self, clients: dict[str, Any], messages: list[dict[str, str]], tokens: dict
    ) -> tuple[str, str]:
        """The answer's text and the server that gave it: the next server of the pool, or the
        others in turn when it fails (ServerFailed, the last, when every one failed). The
        tokens the endpoint counted are added to ``tokens``."""

        async def of(url: str) -> tuple[str, str]:
            try:
                return await self._ask_server(clients[url], messages, tokens), url
            except Exception as exc:
                reason = self._failure(exc, url)
                if reason is None:
                    raise
                self._why[url] = reason
                raise ServerFailed(reason) from exc

        return await self.pool.acall(of, (ServerFailed,))

    async def _ask_server(self, client: Any, messages: list[dict[str, str]], tokens: dict) -> str:
        """The answer's text from one server."""
        import openai

        kwargs: dict[str, Any] = {"model": self.model or "default", "messages": messages}
        if self.structured:
            kwargs["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": "decision", "schema": DECISION_SCHEMA},
            }
        try:
            reply = await asyncio.wait_for(client.chat.completions.create(**kwargs), self.timeout)
        except openai.BadRequestError:
            if "response_format" not in kwargs:
                raise
            # A server without structured output: ask for plain JSON from now on.
            self.structured = False
            kwargs.pop("response_format", None)
            reply = await asyncio.wait_for(client.chat.completions.create(**kwargs), self.timeout)
        _count(tokens, getattr(reply, "usage", None))
        return reply_text(reply)

    def _failure(self, exc: BaseException, url: str) -> str | None:
        """Why a server failed a call, for the frame log; None when ``exc`` is no server's."""
        import openai

        shown = self.endpoint.server(url).shown
        if isinstance(exc, ReplyError):
            return str(exc)
        if isinstance(exc, TimeoutError | openai.APITimeoutError):
            return f"no answer within {self.timeout:g} s"
        if isinstance(exc, openai.APIConnectionError):
            return f"cannot reach the LLM endpoint at {shown}"
        if isinstance(exc, openai.APIStatusError):
            return f"the LLM endpoint answered HTTP {exc.status_code}"
        if isinstance(exc, openai.APIError | ValueError) and not isinstance(exc, DecisionError):
            # The client could not read the reply (a body that is not JSON, of another shape).
            return f"the endpoint's reply is unreadable ({type(exc).__name__})"
        if isinstance(exc, RecursionError):
            return "the endpoint's reply is nested too deep to read"
        return None

    def _context(
        self, request: Request, messages: list[dict[str, str]], tokens: dict, url: str | None
    ) -> dict:
        """What the brain was given, for the frame log: what every brain's log holds (the soul in
        brief, the community items it read), and the model, the server that answered, the exact
        messages (the soul excerpt and the items as the prompt wrote them) and the tokens the
        endpoint counted."""
        return {
            **context_of(request),
            "model": self.model,
            "endpoint": (self.endpoint.server(url) if url else self.endpoint).shown,
            "messages": messages,
            "tokens": tokens or None,
        }

    async def _decide_one(self, clients: dict[str, Any], request: Request) -> Outcome:
        messages = messages_for(request)
        answers: list[str] = []
        tokens: dict[str, int] = {}
        url: str | None = None
        try:
            for attempt in range(2):
                text, url = await self._ask(clients, messages, tokens)
                # (a server may echo the request's secrets into its answer: never written)
                answer = self.endpoint.hide(capped(text))
                answers.append(answer)
                try:
                    decision = validate(parse_answer(answer), request)
                    context = self._context(request, messages, tokens, url)
                    return Outcome(decision, "\n\n".join(answers), context)
                except DecisionError as exc:
                    error = str(exc)
                    if attempt == 0:
                        messages = [
                            *messages,
                            {"role": "assistant", "content": answer},
                            {
                                "role": "user",
                                "content": f"That answer is not valid: {error}. Answer again with "
                                "the corrected JSON object only.",
                            },
                        ]
            reason = f"invalid answer after one repair: {error}"
        except ServerFailed as exc:
            reason = exc.reason + self._others_failed()
        reason = self.endpoint.redact(reason)
        context = self._context(request, messages, tokens, url)
        return Outcome(Decision.lurk(), "\n\n".join(answers), context, error=reason)

    def _others_failed(self) -> str:
        others = len(self.pool) - 1
        if not others:
            return ""
        return f" (the other {'server' if others == 1 else f'{others} servers'} of the pool too)"
