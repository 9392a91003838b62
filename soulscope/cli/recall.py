"""Commands that ask memory questions: search, ask, chat, embed.

Nothing waits for embeddings unless asked to: in the default mode (``auto``) a question is answered
with hybrid search when the embedding cache holds every text of the index (MiniLM's, else the
static model's, see ``recall.catchup``), else with BM25 at once, saying which, while the embedding
goes on in the background (``soulscope embed``, started here; in ``chat`` a thread).
``--mode hybrid`` waits for the configured encoder, as before.
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from soulscope.cli.output import (
    CommandError,
    add_at_option,
    add_json_option,
    add_world_option,
    emit_json,
    emit_json_line,
    open_world,
    open_world_at,
    print_error,
    print_text,
    write,
)
from soulscope.config import Settings
from soulscope.recall.background import Background
from soulscope.recall.chunks import Chunk
from soulscope.recall.hybrid import MODES, Found, FrameRange, Hit, RecallError, RecallIndex
from soulscope.recall.semantic import EmbeddingCache, EncoderError
from soulscope.world import World, check_id

if TYPE_CHECKING:  # the chat and the LLM client load only for the commands that talk to one
    from soulscope.chat.session import ChatSession, Prompt
    from soulscope.llm import LLM
    from soulscope.recall.catchup import Catchup, Readiness, StageProgress

# The encoders and the embedding in stages (``recall.catchup``, ``recall.encoders``: the LLM
# client's module, the static model) load only where a command embeds: a BM25 search never does.


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("search", help="find the frames that answer a question (hybrid retrieval)")
    p.add_argument("query", nargs="?", help="what to look for")
    p.add_argument("--agent", "-a", help="only this agent's soul file")
    p.add_argument("-k", type=int, default=10, help="how many hits (default 10)")
    _add_mode_option(p)
    p.add_argument("--frames", help="frame range by number: 220-240, 220-, -240 or 231")
    add_at_option(p)
    p.add_argument(
        "--queries",
        metavar="FILE",
        help="run many queries (one per line, or JSON lines with a 'query' field; '-' for "
        "stdin) with one model load; prints one JSON line per query",
    )
    add_world_option(p)
    add_json_option(p)
    p.set_defaults(run=run_search)

    p = sub.add_parser(
        "ask", help="ask an agent a question; it answers from its soul file, citing frames"
    )
    p.add_argument("agent")
    p.add_argument("question")
    _add_mode_option(p)
    p.add_argument("-k", type=int, default=6, help="how many entries go into the prompt")
    add_at_option(p)
    add_world_option(p)
    add_json_option(p)
    p.set_defaults(run=run_ask)

    p = sub.add_parser(
        "chat",
        help="a line-mode chat (stdin/stdout) that distils what you tell it, kept for later chats",
    )
    p.add_argument(
        "--user",
        help="your user id: what you tell it is kept as users/ID.txt (default: [chat] user, "
        "$SOULSCOPE_USER or $USER)",
    )
    p.add_argument("--agent", "-a", help="talk to this agent (default: about the whole world)")
    _add_mode_option(p)
    p.add_argument("-k", type=int, default=6, help="how many entries go into each prompt")
    p.add_argument(
        "--into-world",
        action="store_true",
        help="keep what you say in the world's own users/ folder (default: soulscope's data "
        "folder; the world is never changed)",
    )
    add_world_option(p)
    p.set_defaults(run=run_chat)

    p = sub.add_parser(
        "embed",
        help="embed a world's texts for dense search, cached batch by batch (search and ask "
        "start this in the background when the embeddings are not all cached)",
    )
    p.add_argument("--agent", "-a", help="only this agent's soul file")
    p.add_argument("--quiet", action="store_true", help="say nothing but errors")
    add_world_option(p)
    p.set_defaults(run=run_embed)


AUTO = "auto"


def _add_mode_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--mode",
        choices=(AUTO, *MODES),
        default=AUTO,
        help="auto (default: hybrid when every text is embedded, else bm25 at once while the "
        "rest is embedded in the background), hybrid (waits for the embeddings), bm25 (no model "
        "load) or dense",
    )


def hit_dict(
    hit: Hit, order: str | None = None, tied: bool = False, holds: str | None = None
) -> dict[str, Any]:
    """A hit as JSON; ``order`` ("earliest"/"latest") marks a hit placed by time, not score;
    ``tied``, one whose frame the headings cannot place apart from the hit before it;
    ``holds``, how a hit placed by time holds the asked words ("as written", "as words", "by
    stem")."""
    c = hit.chunk
    return {
        "agent": c.agent,
        "frame": c.number,
        "label": c.frame_label,
        "date": c.date,
        "time": c.time,
        "precision": c.moment.precision if c.moment else None,
        "heading": c.heading,
        "line": c.line,
        "score": round(hit.score, 6),
        "citation": c.citation,
        "text": c.text,
        "best": hit.best,
        "time_order": order,
        "tied": tied,
        "holds": holds,
    }


def found_hits(found: Found) -> list[dict[str, Any]]:
    return [
        hit_dict(h, *((found.reordered, i in found.ties, found.held) if i < found.timely else ()))
        for i, h in enumerate(found.hits)
    ]


def held_note(found: Found) -> str | None:
    """One line where the hits do not hold the asked words as asked: none holds them, or only
    each word apart, or only by stem."""
    asked = found.intent.asked
    if asked is None or found.held in (None, "as written"):
        return None
    if found.held == "nothing":
        return f'no frame holds "{asked.phrase}": the hits are by relevance, none in time order'
    if found.held == "as words":
        return f'no frame holds "{asked.phrase}" as written; these hold each of its words'
    return f'no frame holds "{asked.phrase}" as a word; these hold its stem'


def _check_agent(world: World, agent: str | None) -> None:
    if agent is not None:
        world.agent(agent)


def build_index(
    world: World, agent: str | None, mode: str, settings: Settings, background: bool = True
) -> tuple[RecallIndex, Readiness | None]:
    """The index over ``agent`` (or the world), with embeddings unless the mode is bm25, and how
    much of the configured encoder's dense side was cached. In ``auto`` mode embeddings that are
    not all cached are not waited for: the index answers with the static model when its vectors
    are all cached, else with BM25, and (``background``) ``soulscope embed`` runs in a process of
    its own."""
    _check_agent(world, agent)
    index = RecallIndex.for_world(world, agents=[agent] if agent else None)
    for problem in index.skipped:
        print_error(f"skipped: {problem}")
    for note in index.notes:  # a kept search index found unusable and rebuilt
        print_error(note)
    if mode == "bm25":
        return index, None
    from soulscope.recall.encoders import load_encoder

    ready = None
    try:
        cache = EmbeddingCache()
        if mode == AUTO:
            staged, ready = _early_stage(index, world, agent, settings, cache, background)
            if staged:
                return index, ready
        encoder = load_encoder(settings)
        try:
            index.attach(encoder, cache, progress=_Progress(encoder.device))
        finally:
            for note in cache.notes:  # a cache found broken and rebuilt, said once
                print_error(note)
    except EncoderError as exc:
        raise CommandError(str(exc)) from exc
    except KeyboardInterrupt:
        raise CommandError(
            "stopped embedding; what was embedded is cached and the next search resumes "
            "there (--mode bm25 answers without embeddings)",
            code=130,
        ) from None
    return index, ready


def _early_stage(
    index: RecallIndex,
    world: World,
    agent: str | None,
    settings: Settings,
    cache: EmbeddingCache,
    background: bool,
) -> tuple[bool, Readiness | None]:
    """In ``auto`` mode, whether the index answers before the configured encoder's vectors are
    all cached (with the static model's when they are, else BM25; the rest embedded in the
    background), and how much was cached."""
    from soulscope.recall.catchup import best_stage
    from soulscope.recall.encoders import encoder_name, load_stage

    final = encoder_name(settings)
    stage, ready = best_stage(index, settings, cache)
    if stage == final:
        return False, ready
    if stage is not None:
        try:
            index.attach(load_stage(settings, stage), cache)  # (vectors cached)
        except EncoderError as exc:  # (an unreadable static model: made again)
            print_error(str(exc))
            stage = None
    if background:
        _catch_up_elsewhere(world, agent, final, ready, stage)
    return True, ready


def answered_with(index: RecallIndex, mode: str) -> str:
    """The mode a question is answered in: ``auto`` is hybrid once the index has its vectors."""
    if mode != AUTO:
        return mode
    return "hybrid" if index.dense_ready else "bm25"


def _named(model: str) -> str:
    """A model as a sentence names it: "the static model", "MiniLM"."""
    from soulscope.recall.encoders import model_label
    from soulscope.recall.static import STATIC_NAME

    label = model_label(model)
    return f"the {label}" if model == STATIC_NAME else label


def _early(ready: Readiness, final: str, stage: str | None) -> str:
    """What answers before the configured encoder's vectors are all made, and how far they are."""
    embedded = f"{ready.embedded:,} of {ready.total:,} texts embedded"
    if stage is None:
        return f"answered with BM25: the dense index is not ready ({embedded})"
    return (
        f"answered with hybrid search on {_named(stage)} while {_named(final)} is not ready "
        f"({embedded})"
    )


def _catch_up_elsewhere(
    world: World, agent: str | None, final: str, ready: Readiness, stage: str | None
) -> None:
    """Say what answers, and see that an embedding of the world runs in the background."""
    from soulscope.recall.catchup import DISTILLING, Catchup

    catchup = Catchup(world, final, agent)
    status = catchup.status()
    failed = f"; the last one failed: {status.error}" if status and status.error else ""
    early = _early(ready, final, stage)
    if catchup.running():
        doing = " (distilling the static model)" if status and status.stage == DISTILLING else ""
        print_error(f"{early}; it is being embedded in the background{doing}")
    elif world.read_only or not _spawn_embedding(world, agent):
        print_error(f"{early}{failed}; 'soulscope embed' embeds it (--mode hybrid waits for it)")
    else:
        print_error(
            f"{early}; embedding the rest in the background, cached as it goes "
            f"(--mode hybrid waits for it){failed}"
        )


def _spawn_embedding(world: World, agent: str | None) -> bool:
    """Start ``soulscope embed`` for the world in a process of its own (it outlives this one);
    ``SOULSCOPE_BACKGROUND=0`` says never to."""
    if os.environ.get("SOULSCOPE_BACKGROUND", "1").strip() in ("0", "no", "false", "off"):
        return False
    from soulscope.recall.catchup import log_path

    command = [sys.executable, "-m", "soulscope", "embed", "--quiet"]
    command += ["-w", str(world.only or world.root)] + (["--agent", agent] if agent else [])
    try:
        log = log_path()
        log.parent.mkdir(parents=True, exist_ok=True)
        with open(log, "ab") as out:
            subprocess.Popen(
                command,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=out,
                start_new_session=True,  # Ctrl-C here does not stop it
            )
    except OSError:
        return False
    return True


class _Background:
    """The embedding of a long-lived command (``chat``), in a thread, stage by stage (see
    ``catchup.catch_up``): questions meanwhile are answered by what is ready, each stage hands
    ``on_index`` a new index, and the configured encoder's, once its vectors are all made, goes to
    ``on_final`` (distillation's drift and dedup read that model only)."""

    def __init__(
        self, index: RecallIndex, settings: Settings, on_index: Any, on_final: Any
    ) -> None:
        from soulscope.recall.encoders import encoder_name

        self.stage = ""
        self.done = 0
        self.total = 0
        self.error: str | None = None
        self.final = encoder_name(settings)
        self._index, self._settings = index, settings
        self._on_index, self._on_final = on_index, on_final
        Background(self._run, "soulscope-embed")  # stopped when the command ends

    def _progress(self, stage: str, done: int, total: int) -> None:
        self.stage, self.done, self.total = stage, done, total

    def _run(self, stop: threading.Event) -> None:
        from soulscope.recall.catchup import catch_up

        cache = EmbeddingCache()

        def ready(index: RecallIndex) -> None:
            self._on_index(index)
            if index.model == self.final:
                self._on_final(index.encoder, cache)

        try:
            try:
                catch_up(self._index, self._settings, cache, ready, self._progress, stop)
            finally:
                for note in cache.notes:
                    print_error(note)
        except EncoderError as exc:
            self.error = str(exc)
        except (OSError, sqlite3.Error) as exc:  # the cache folder: what is ready answers on
            self.error = f"cannot keep embeddings in the cache folder ({exc})"

    def describe(self, model: str | None) -> str:
        """What answered (``model``: the encoder's name; None: BM25 only), and what is still
        being made in the background."""
        from soulscope.recall.catchup import DISTILLING
        from soulscope.recall.encoders import model_label

        what = "bm25" if model is None else f"hybrid ({model_label(model)})"
        if model == self.final:
            return what
        if self.error:
            return f"{what}; dense search failed: {self.error}"
        if self.stage == DISTILLING:
            return (
                f"{what}; distilling the static model in the background ({self.done:,} of "
                f"{self.total:,} word pieces)"
            )
        if self.total:
            return (
                f"{what}; embedding {self.done:,} of {self.total:,} with {_named(self.stage)} "
                "in the background"
            )
        return f"{what}; loading the embedding model in the background"


class _Progress:
    """Says on stderr what a first embedding (or distillation) is doing, batch by batch, so it
    never looks stuck. ``stage``: DISTILLING, or the name of the model embedding."""

    def __init__(self, device: str, stage: str = "") -> None:
        self.device = device
        self.stage = stage
        self.tty = sys.stderr.isatty()
        self.shown = -1.0

    def __call__(self, done: int, total: int) -> None:
        from soulscope.recall.catchup import DISTILLING

        distilling = self.stage == DISTILLING
        if done == 0:
            if distilling:
                print_error(f"distilling the static model from MiniLM, once: {total:,} word pieces")
            else:
                model = f" with {_named(self.stage)}" if self.stage else ""
                print_error(
                    f"embedding {total:,} texts{model} on {self.device} for dense search, once: "
                    "each batch is cached as it lands (Ctrl-C keeps them; --mode bm25 answers now)"
                )
            return
        share = done / total
        verb = "distilled" if distilling else "embedded"
        if self.tty:
            end = "\n" if done == total else ""
            print(f"\rsoulscope: {verb} {done:,}/{total:,}", end=end, file=sys.stderr)
        elif share - self.shown >= 0.1 or done == total:  # a log gets a line per tenth
            print_error(f"{verb} {done:,}/{total:,}")
            self.shown = share
        sys.stderr.flush()


def _queries(path: str) -> Iterator[dict[str, Any]]:
    try:
        text = sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise CommandError(f"cannot read queries from {path}: {exc}") from exc
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line:
            continue
        if line.startswith("{"):
            try:
                entry = json.loads(line)
            except ValueError as exc:
                raise CommandError(f"{path}, line {number}: not valid JSON ({exc})") from exc
            if not isinstance(entry, dict) or not isinstance(entry.get("query"), str):
                raise CommandError(f"{path}, line {number}: a JSON line needs a 'query' string")
            yield entry
        else:
            yield {"query": line}


def run_search(args: argparse.Namespace) -> int:
    if not args.query and not args.queries:
        raise CommandError("give a query, or --queries FILE")
    if args.k < 1:
        raise CommandError("-k must be at least 1")
    world = open_world_at(args)
    index, _ = build_index(world, args.agent, args.mode, args.settings)
    mode = answered_with(index, args.mode)
    frames = FrameRange.parse(args.frames) if args.frames else None
    if args.queries:
        for entry in _queries(args.queries):
            found = index.find(entry["query"], k=args.k, mode=mode, frames=frames, agent=args.agent)
            emit_json_line(
                {
                    "query": entry["query"],
                    "mode": mode,
                    "model": index.model if mode != "bm25" else None,
                    "time_order": found.reordered,
                    "read_as": found.intent.describe(),
                    "held": found.held,
                    "hits": found_hits(found),
                }
            )
        return 0
    found = index.find(args.query, k=args.k, mode=mode, agent=args.agent, frames=frames)
    _say_dense_problem(index)
    if args.json:
        emit_json(found_hits(found))
        return 0
    print_found(found)
    return 0


def print_found(found: Found) -> None:
    """Hits as text: how the question was read, then each hit with its lines."""
    read_as = found.intent.describe() if found.reordered or found.intent.filters else ""
    if read_as:
        note = f"read as: {read_as}"
        if found.reordered:
            note += f" (the first {found.timely} in time order, then by relevance)"
        print_text(note, style="dim")
    held = held_note(found)
    if held:
        print_text(held, style="dim")
    if not found.hits:
        print("no matches")
        return
    for i, h in enumerate(found.hits, 1):
        placed = ""
        if i <= found.timely:
            m = h.chunk.moment
            placed = f"  {m.text}" if m else ""
            if i - 1 in found.ties:
                placed += " (tied with the one above: the headings cannot order them)"
        print_text(
            f"{i}. {h.chunk.citation}  line {h.chunk.line}  score {h.score:.3f}{placed}",
            style="bold",
        )
        # The bullet that found it first, then the chunk's other lines up to four in all.
        body = h.chunk.text.splitlines()[1:] or [h.chunk.text]
        best = h.best.split("\n")
        rest = [line for line in body if line not in best]
        shown = (best + rest)[:4]
        excerpt = "\n".join("   " + line for line in shown)
        print_text(excerpt + ("\n   …" if len(body) > len(shown) else ""))


def _say_dense_problem(index: RecallIndex) -> None:
    if index.dense_problem:
        print_error(f"{index.dense_problem}; answered by BM25 only")


def _llm(settings: Settings) -> LLM | None:
    from soulscope.llm import LLM, Endpoint

    endpoint = Endpoint.from_settings(settings)
    if endpoint is None:
        print_error("offline mode (no OPENAI_BASE_URL): answering with the evidence itself")
        return None
    if endpoint.note:
        print_error(endpoint.note)
    return LLM(endpoint)


def _stream(
    session: ChatSession, question: str, remembered: Sequence[str] = ()
) -> tuple[str, Prompt]:
    """Print an answer as it streams, then its sources; returns the answer's text and prompt."""
    prompt = session.prepare(question, remembered)
    pieces: list[str] = []
    for piece in session.answer(prompt):
        pieces.append(piece)
        write(piece)
    answer = "".join(pieces)
    sources = "".join(f"  {c.number}. {c.tag} line {c.chunk.line}\n" for c in prompt.citations)
    write(f"\n\nSources:\n{sources}\n" if not session.offline and sources else "\n")
    session.remember(question, answer)
    return answer, prompt


def run_ask(args: argparse.Namespace) -> int:
    from soulscope.chat.session import ChatSession

    started = time.perf_counter()
    world = open_world_at(args)
    index, ready = build_index(world, args.agent, args.mode, args.settings)
    indexed = time.perf_counter()
    session = ChatSession(world, index, _llm(args.settings), agent=args.agent, k=args.k)
    if not args.json:
        _stream(session, args.question)
        _say_dense_problem(index)
        return 0
    prompt = session.prepare(args.question)
    retrieved = time.perf_counter()
    answer = "".join(session.answer(prompt))
    _say_dense_problem(index)
    done = time.perf_counter()
    emit_json(
        {
            "question": args.question,
            "answer": answer,
            "mode": prompt.search_mode,
            "model": prompt.model,
            "llm": not session.offline,
            "dense": None if ready is None else {"embedded": ready.embedded, "total": ready.total},
            "sources": [{"number": c.number, **source_dict(c.chunk)} for c in prompt.citations],
            "timings": {
                "index_s": round(indexed - started, 4),
                "retrieve_s": round(retrieved - indexed, 4),
                "answer_s": round(done - retrieved, 4),
                "total_s": round(done - started, 4),
            },
        }
    )
    return 0


def source_dict(c: Chunk) -> dict[str, Any]:
    """A chunk an answer was given, as JSON: where it is, how to cite it, its text."""
    return {
        "citation": c.citation,
        "agent": c.agent,
        "frame": c.number,
        "label": c.frame_label,
        "date": c.date,
        "heading": c.heading,
        "line": c.line,
        "text": c.text,
    }


def run_chat(args: argparse.Namespace) -> int:  # noqa: C901 (one of the five allowed)
    from soulscope.chat.distill import Distiller, DistillSettings, flush_on_signals
    from soulscope.chat.session import ChatSession
    from soulscope.llm import LLMError
    from soulscope.recall.encoders import encoder_name

    settings = args.settings
    user = args.user or settings.chat_user
    if not user:
        raise CommandError("say who you are with --user ID (or [chat] user in the config file)")
    check_id(user)
    from soulscope.chat.memory import users_dir

    world = open_world(args.world)
    folder = users_dir(world, into_world=args.into_world)
    problem = Distiller(folder, user).problem()
    if problem:  # before anything is read from the user
        raise CommandError(problem)
    index, _ = build_index(world, args.agent, args.mode, args.settings, background=False)
    final = encoder_name(settings) if args.mode == AUTO else index.model
    llm = _llm(args.settings)
    session = ChatSession(world, index, llm, agent=args.agent, k=args.k)
    ready = index.model is not None and index.model == final  # (not the static model)
    distiller = Distiller(
        folder,
        user,
        settings=DistillSettings.from_settings(settings),
        encoder=index.encoder if ready else None,
        llm=llm,
        cache=EmbeddingCache() if ready else None,
    )
    catching_up = None
    if args.mode == AUTO and not ready:

        def swap(ready: RecallIndex) -> None:
            session.index = ready  # a whole index: the one a question reads is never changed

        def give(encoder: Any, cache: EmbeddingCache) -> None:
            distiller.cache, distiller.encoder = cache, encoder

        catching_up = _Background(index, settings, swap, give)
    interactive = sys.stdin.isatty()
    failed = 0  # answers the LLM could not give
    said: str | None = None  # the encoder's problem, said once while it lasts
    with flush_on_signals(distiller):
        while True:
            if interactive:
                write("you> ")
            line = sys.stdin.readline()
            if not line:
                break
            question = line.strip()
            if not question:
                continue
            try:
                distiller.add("user", question, later=True)  # distilled after the answer
            except OSError as exc:  # the world stopped being writable: say what was not kept
                failed += 1
                print_error(f"your message was not kept ({exc.strerror or exc}): {question}")
                continue
            try:
                answer, prompt = _stream(session, question, distiller.recall(question))
                if catching_up is not None:  # which search answered, while it can change
                    print_error(f"answered with {catching_up.describe(prompt.model)}")
            except (LLMError, RecallError) as exc:
                failed += 1
                print_error(f"{exc} (your message was kept; send it again)")
                distiller.settle()
                continue
            distiller.settle()
            if session.index.dense_problem != said:
                said = session.index.dense_problem
                if said:
                    _say_dense_problem(session.index)
            distiller.add("assistant", answer)
    if distiller.last_error:
        print_error(f"distilled without the LLM: {distiller.last_error}")
    if distiller.duplicates:
        print_error(
            f"{len(distiller.duplicates)} of the facts repeat ones already in "
            f"{distiller.soul_path}, so they were not written again:"
        )
        for fact, same in distiller.duplicates:
            print_error(f"  {fact!r} repeats {same!r}")
    return 1 if failed else 0


def _embed_all(
    catchup: Catchup,
    index: RecallIndex,
    settings: Settings,
    progress: StageProgress,
) -> RecallIndex:
    """Embed every chunk of ``index`` in stages; a failure is written to the status and raised
    as one sentence, and the cache's notes are said."""
    from soulscope.recall.catchup import Status, catch_up

    cache = EmbeddingCache()
    try:
        return catch_up(index, settings, cache, progress=progress)
    except EncoderError as exc:
        catchup.write(Status(error=str(exc), finished=True))
        raise CommandError(str(exc)) from exc
    except (OSError, sqlite3.Error) as exc:
        problem = f"cannot keep embeddings in the cache folder ({exc})"
        catchup.write(Status(error=problem, finished=True))
        raise CommandError(problem) from exc
    except KeyboardInterrupt:
        raise CommandError(
            "stopped embedding; what was embedded is cached and the next one resumes there",
            code=130,
        ) from None
    finally:
        for note in cache.notes:
            print_error(note)


def run_embed(args: argparse.Namespace) -> int:
    from soulscope.recall.catchup import DISTILLING, Catchup, Status
    from soulscope.recall.encoders import encoder_name, load_stage

    world = open_world(args.world)
    _check_agent(world, args.agent)
    settings = args.settings
    index = RecallIndex.for_world(world, agents=[args.agent] if args.agent else None)
    catchup = Catchup(world, encoder_name(settings), args.agent)
    with catchup.held() as mine:
        if not mine:
            status = catchup.status()
            far = f" ({status.done:,} of {status.total:,} embedded)" if status else ""
            if not args.quiet:
                print_error(f"this world is being embedded by another soulscope{far}")
            return 0
        shown: list[_Progress] = []

        def progress(stage: str, done: int, total: int) -> None:
            catchup.write(Status(done, total, stage=stage))
            if args.quiet:
                return
            if not shown or shown[-1].stage != stage:  # (an encoder of a stage is loaded)
                device = "" if stage == DISTILLING else load_stage(settings, stage).device
                shown.append(_Progress(device, stage))
            shown[-1](done, total)

        last = _embed_all(catchup, index, settings, progress)
        total = len(set(index.dense_texts))
        catchup.write(Status(total, total, finished=True, stage=last.model or ""))
    if not args.quiet:
        print_error(f"{total:,} texts embedded with {last.model}: dense search is ready")
    return 0
