"""One frame: read -> decide -> apply -> append -> one commit.

Every chosen agent reads its whole soul file and the recent community, its brain decides, the
actions go to the community store, an entry is appended to its soul file, what it saw goes to
``frames/N/AGENT.json``, and the frame becomes exactly one git commit
(``frame N: K agents, P posts, C comments``). A journal makes the frame all-or-nothing: see
``soulscope.sim.journal``.
"""

from __future__ import annotations

import errno
import heapq
import itertools
import json
import os
import random
import re
import stat
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from soulscope.atomic import SyncBatch, append_durable, cut_torn_tail
from soulscope.sim import community as store
from soulscope.sim import repo
from soulscope.sim.actions import KINDS, Turn
from soulscope.sim.brain import TEXT_FIELDS, AgentIds, Brain, Decision, Feed, Outcome, Request
from soulscope.sim.clock import WORLD_FILE, Clock, read_clock, write_clock
from soulscope.sim.community import (
    Comment,
    Community,
    CommunityReader,
    Follow,
    Post,
    Vote,
    channel_name,
    newest_first,
)
from soulscope.sim.create import read_registry
from soulscope.sim.journal import (
    Journal,
    Touch,
    append_touch,
    clear_journal,
    git_pidfile,
    read_end,
    recover,
    replace_touch,
    write_journal,
)
from soulscope.sim.lock import WorldLock
from soulscope.soul.format import TEXT_LABELS
from soulscope.soul.model import Soul
from soulscope.soul.parse import GrowingSoul, parse
from soulscope.soul.write import entry_bytes, render_entry, unwritable
from soulscope.world import World, WorldError

RECENT_FRAMES = 3  # how far back "recent" community activity reaches
FEED_POSTS = 8
FEED_REPLIES = 5
FEED_RELATED = 5
FRAMES_DIR = "frames"
_AGENT_REF = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
# A thread number as soul files write it ("#104", "on #5725"); not an HTML entity ("&#39;").
_THREAD_REF = re.compile(rb"(?<![&\w])#(\d{1,9})\b")

Progress = Callable[[str, int, int], None]  # (what, done, total)


class FrameInterrupted(KeyboardInterrupt):
    """Ctrl-C during a frame; ``args[0]`` says whether the frame was completed or rolled back."""


@dataclass(frozen=True)
class FrameResult:
    frame: int
    date: str
    agents: int
    posts: int
    comments: int
    votes: int
    follows: int
    commit: str
    # (agent, why its brain gave no usable answer): its soul took no entry, its frame log says why
    errors: tuple[tuple[str, str], ...] = ()
    skipped: tuple[tuple[str, str], ...] = ()  # (agent, why its file could not take an entry)
    notes: tuple[str, ...] = ()  # recovery of an earlier run, a stale lock, a server that failed
    timings: dict[str, float] = field(default_factory=dict, compare=False)

    @property
    def message(self) -> str:
        return commit_message(self.frame, self.agents, self.posts, self.comments)


def frame_errors(result: FrameResult) -> list[str]:
    """One line per agent whose brain failed or that sat the frame out, as every face shows them."""
    return [
        f"frame {result.frame}: {a} wrote nothing: {e} (kept in {FRAMES_DIR}/{result.frame}/{a}.json)"
        for a, e in result.errors
    ] + [f"frame {result.frame}: {a} sat it out: {e}" for a, e in result.skipped]


def commit_message(frame: int, agents: int, posts: int, comments: int) -> str:
    return f"frame {frame}: {agents} agents, {posts} posts, {comments} comments"


def _world(path: str | Path | World) -> World:
    world = path if isinstance(path, World) else World.open(path)
    if world.only is not None:
        raise WorldError(f"{world.only} is a single soul file; advance the world folder around it")
    return world


def choose_agents(
    world: World,
    clock: Clock,
    named: Sequence[str] | None = None,
    sample: int | None = None,
) -> list[str]:
    """The agents of the next frame: the named ones, else the active ones (a seeded sample of them)."""
    files = {a.id for a in world.agents()}
    if named:
        missing = [a for a in named if a not in files]
        if missing:
            raise WorldError(f"no agent '{missing[0]}' in {world.memory_dir}")
        return sorted(set(named))
    registry = world.registry()
    active = sorted(
        a for a in files if str((registry.get(a) or {}).get("status", "active")) == "active"
    )
    if not active:
        raise WorldError(f"{world.root} has no active agents; add one with 'soulscope register'")
    if sample is not None:
        if sample < 1:
            raise WorldError("a sample needs at least one agent")
        rng = random.Random(f"sample:{clock.seed}:{clock.frame + 1}")
        active = sorted(rng.sample(active, min(sample, len(active))))
    return active


def _channels(soul: Soul, entry: dict) -> tuple[str, ...]:
    names = [channel_name(c) for c in soul.items("Subscribed Channels")]
    if not names:
        names = [channel_name(str(c)) for c in entry.get("subscribed_channels") or []]
    names = [n for n in names if n and " " not in n]
    return tuple(dict.fromkeys(names)) or ("general",)


def _relations(soul: Soul, agents: set[str]) -> set[str]:
    """Agents named in the soul's latest Relationships line."""
    for text in soul.latest("Relationships")[:1]:
        return {m for m in _AGENT_REF.findall(text) if m in agents}
    return set()


def _replies(community: Community, comments: list[Comment]) -> dict[str, list[Comment]]:
    """Comments by agent answered: on its post or in reply to its comment, by someone else."""
    out: dict[str, list[Comment]] = {}
    for c in comments:
        post = community.by_id.get(c.post)
        parent = community.comment_by_id.get(c.parent) if c.parent is not None else None
        targets = {x.author for x in (post, parent) if x is not None} - {c.author}
        for agent in sorted(targets):
            out.setdefault(agent, []).append(c)
    return out


def build_requests(
    world: World, clock: Clock, chosen: list[str], souls: dict[str, Soul], community: Community
) -> list[Request]:
    """What each agent reads this frame: all of it from before the frame."""
    agents = AgentIds(a.id for a in world.agents())
    known = agents.members
    since = clock.frame - RECENT_FRAMES + 1
    recent_posts, recent_comments = community.since(since)
    replies_to = _replies(community, recent_comments)
    by_channel: dict[str, list[Post]] = {}
    for p in recent_posts:
        by_channel.setdefault(channel_name(p.channel), []).append(p)
    # Each author's recent posts, then comments, each newest first.
    activity: dict[str, tuple[list[Post | Comment], list[Post | Comment]]] = {}
    for p in recent_posts:
        activity.setdefault(p.author, ([], []))[0].append(p)
    for c in recent_comments:
        activity.setdefault(c.author, ([], []))[1].append(c)
    registry = world.registry()
    topics = tuple(sorted({t.lower() for a in chosen for t in souls[a].interests}))
    requests = []
    for agent in chosen:
        soul = souls[agent]
        channels = _channels(soul, registry.get(agent) or {})
        # Each channel's posts are newest first already: merging them reads FEED_POSTS posts,
        # not every recent post of the agent's channels (thousands, for each of thousands).
        newest = heapq.merge(*(by_channel.get(ch, ()) for ch in channels), key=newest_first)
        feed_posts = list(itertools.islice((p for p in newest if p.author != agent), FEED_POSTS))
        replies = replies_to.get(agent, [])[:FEED_REPLIES]
        related_agents = (community.following(agent) | _relations(soul, known)) - {agent}
        # Merged, not sorted: an agent follows more agents as the world ages, and only the
        # newest FEED_RELATED of what they did are read (ties in the order listed, as sorted).
        lists = (x for a in sorted(related_agents) for x in activity.get(a, ()))
        related = list(itertools.islice(heapq.merge(*lists, key=newest_first), FEED_RELATED))
        requests.append(
            Request(
                agent=agent,
                frame=clock.frame,
                date=clock.date,
                seed=clock.seed,
                soul=soul,
                feed=Feed(tuple(feed_posts), tuple(replies), tuple(related), agents, topics),
                channels=channels,
            )
        )
    return requests


@dataclass
class _Applied:
    """What one frame changes, built in memory before anything is written."""

    records: list[Post | Comment | Vote | Follow] = field(default_factory=list)
    entries: dict[str, str] = field(default_factory=dict)
    logs: dict[str, bytes] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)  # action kind -> actions that took effect

    @property
    def posts(self) -> int:
        return self.counts.get("post", 0)

    @property
    def comments(self) -> int:
        return self.counts.get("comment", 0)

    @property
    def votes(self) -> int:
        return self.counts.get("vote", 0)

    @property
    def follows(self) -> int:
        return self.counts.get("follow", 0)


def _decision_dict(decision: Decision) -> dict[str, Any]:
    """A decision for the frame log; an action shows only the fields it uses."""
    fields = ("channel", "title", "body", "post", "parent", "value", "agent")
    return {
        "actions": [
            {
                "kind": a.kind,
                **{f: getattr(a, f) for f in fields if getattr(a, f) not in ("", None, 0)},
            }
            for a in decision.actions
        ],
        **{name: decision.text(name) for name in TEXT_FIELDS},
        "relationships": [{"agent": a, "nature": n} for a, n in decision.relationships],
    }


def _entry(
    clock: Clock, request: Request, decision: Decision, bullets: list[str], threads: list[int]
) -> str:
    """The soul entry of one agent's frame."""
    if not bullets:
        seen = len(request.feed.posts)
        bullets.append(f"Lurked, read {seen} post{'s' * (seen != 1)} and wrote nothing")
    observations = [  # in the order of soul.format.ENTRY_LABELS
        *((x.label, decision.text(x.field)) for x in TEXT_LABELS if x.field),
        (
            "Relationships",
            ", ".join(f"{a} ({n})" if n else a for a, n in decision.relationships),
        ),
        ("Connected", ", ".join(f"#{t}" for t in dict.fromkeys(threads))),
    ]
    return render_entry(clock.frame, clock.date, bullets, observations)


def highest_thread(texts: Iterable[bytes]) -> int:
    """The highest thread number soul files name (0: none): a world grown elsewhere has threads
    its community files do not hold, and a new post must not take one of their numbers."""
    return max((int(m) for data in texts for m in _THREAD_REF.findall(data)), default=0)


def apply(
    clock: Clock,
    requests: list[Request],
    outcomes: list[Outcome],
    community: Community,
    brain: str,
    threads_named: int = 0,
) -> _Applied:
    """Turn decisions into community records, soul entries and frame logs (ids in agent order);
    new posts take ids above the community's and above ``threads_named``."""
    out = _Applied()
    next_post = max(community.next_post_id, threads_named + 1)
    next_comment = community.next_comment_id
    following = {r.agent: community.following(r.agent) for r in requests}
    for request, outcome in zip(requests, outcomes, strict=True):
        agent, decision = request.agent, outcome.decision
        turn = Turn(
            clock.frame, clock.date, agent, community, following[agent], next_post, next_comment
        )
        for a in decision.actions:
            KINDS[a.kind].effect(turn, a)
        next_post, next_comment = turn.next_post, turn.next_comment
        out.records.extend(turn.records)
        for kind, n in turn.counts.items():
            out.counts[kind] = out.counts.get(kind, 0) + n
        bullets, threads = turn.bullets, turn.threads
        # A brain that gave no usable answer (a timeout, an endpoint down, an answer invalid
        # after its repair) is no experience of the agent's: its frame log keeps the reason,
        # its soul takes no entry.
        if not outcome.error:
            out.entries[agent] = _entry(clock, request, decision, bullets, threads)
        log = {
            "frame": clock.frame,
            "agent": agent,
            "brain": brain,
            "context": outcome.context,
            "raw": outcome.raw,
            "decision": _decision_dict(decision),
            "error": outcome.error,
        }
        # One line, for json's C encoder (indented costs 4 s per 10,000 agents); ``jq .`` reads it.
        out.logs[agent] = (json.dumps(log, ensure_ascii=False) + "\n").encode("utf-8")
    return out


@dataclass(frozen=True, slots=True)
class _Read:
    """A soul file as the frame read it: its bytes and what says it has not changed since."""

    data: bytes
    size: int
    stamp: tuple[int, ...]  # ``_stamp`` when it was read


def read_soul_file(path: Path, checked: bytes = b"") -> _Read | str:
    """The bytes of a soul file the frame may append to, or why it sits the frame out.
    ``checked``: bytes found writable before, not checked again while the file begins with them."""
    name = f"{path.parent.name}/{path.name}"
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return f"{name} is a link; soulscope appends only to regular files"
        return f"{name} cannot be read: {exc.strerror}"
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(f.fileno())
        if not stat.S_ISREG(st.st_mode):
            return f"{name} is not a regular file"
        data = f.read()
    # (UTF-8 that ends where a character does, followed by UTF-8, is UTF-8.)
    problem = unwritable(data[len(checked) :] if data.startswith(checked) else data)
    if problem:
        return f"{name} {problem}; soulscope appends only to UTF-8 files"
    return _Read(data, st.st_size, _stamp_of(st))


def _bytes_or_empty(path: Path) -> bytes:
    read = read_soul_file(path)
    return read.data if isinstance(read, _Read) else b""


def _stamp_of(st: os.stat_result) -> tuple[int, ...]:
    # The change time too: an edit of the same size whose mtime was put back still changes it.
    return (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_mode)


def _stamp(path: Path) -> tuple[int, ...] | None:
    """What tells that a file changed (None: there is none), without following a link."""
    try:
        return _stamp_of(os.lstat(path))
    except FileNotFoundError:
        return None


class FrameRunner:
    """Advances one world; holds its lock for as many frames as it is asked to run.

    ``commit_edits``: soul files (and community files, ``world.json``) that differ from HEAD when
    a frame starts are committed first as the user's own commit; otherwise the frame refuses.
    """

    def __init__(self, world: str | Path | World, brain: Brain, commit_edits: bool = False) -> None:
        self.world = _world(world)
        self.root = self.world.root
        self.brain = brain
        self.commit_edits = commit_edits
        self.top = repo.toplevel(self.root)
        self.lock = WorldLock(self.root)
        self.notes: list[str] = []
        self._watched: dict[Path, tuple[int, ...] | None] = {}
        # What earlier frames read, read on from there: a frame's reading does not grow with
        # the world's age. Each file is still read whole each frame, and parsed again from the
        # start when it did not only grow. Of votes and follows a frame needs no record, only
        # whom each agent follows.
        self._souls: dict[str, GrowingSoul] = {}
        self._community = CommunityReader(self.root, records=("posts", "comments"))
        self._threads_named: int | None = None  # read from every soul file at the first frame

    def __enter__(self) -> FrameRunner:
        problem = repo.branch_problem(self.top)
        if problem:
            raise repo.RepoError(problem)
        self.lock.acquire()
        try:
            if self.lock.stale_pid:
                self.notes.append(
                    f"took over the lock left by a stopped runner (pid {self.lock.stale_pid})"
                )
            recovered = recover(self.root, self.top)
            if recovered:
                self.notes.append(recovered)
        except BaseException:
            self.lock.release()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.lock.release()

    def _keep_edits(self, frame: int, paths: list[Path]) -> None:
        """Refuse a frame over uncommitted edits, or commit them first (``commit_edits``)."""
        edited = repo.uncommitted(self.top, paths)
        if not edited:
            return
        names = [os.path.relpath(p, self.root) for p in edited]
        listed = ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
        if not self.commit_edits:
            raise WorldError(
                f"{listed} {'has' if len(names) == 1 else 'have'} uncommitted edits that frame "
                f"{frame} would take in; commit them, or run the frame with --commit-edits to "
                "commit them first as their own commit"
            )
        repo.commit_edits(self.top, edited, f"Edits to {listed}, kept before frame {frame}")
        self.notes.append(f"committed your edits to {listed} before frame {frame}")

    def _refuse_links(self, paths: Sequence[Path]) -> None:
        """Refuse a frame that would write through a link: a linked file would be replaced by
        one, a linked folder would take writes outside the world (and git adds nothing beyond a
        link). Each folder between the world and a file is checked, and the file itself; so is
        what each one is (a FIFO or a folder where a file goes, a file where a folder goes)."""
        root = self.root
        checked: set[Path] = set()
        for path in paths:
            parts = Path(os.path.relpath(path, root)).parts
            for i in range(len(parts)):
                here = root.joinpath(*parts[: i + 1])
                if here in checked:
                    continue
                checked.add(here)
                folder = i < len(parts) - 1 or here.name == FRAMES_DIR
                rel = os.path.relpath(here, root)
                try:
                    mode = os.lstat(here).st_mode
                except FileNotFoundError:
                    break  # made by the frame, below a folder that is one
                if stat.S_ISLNK(mode):
                    raise WorldError(
                        f"{rel} is a link (to {os.readlink(here)}); frames never write through "
                        f"links: replace it with the {'folder' if folder else 'file'} itself"
                    )
                if folder and not stat.S_ISDIR(mode) or not folder and not stat.S_ISREG(mode):
                    raise WorldError(
                        f"{rel} is not a {'folder' if folder else 'regular file'}, which frame "
                        f"{'writes in' if folder else 'writes'}; move it away and run the "
                        "frame again"
                    )

    def _threads(self, known: dict, files: dict[str, _Read]) -> int:
        """The highest thread number the world's soul files name, read once per runner (the
        frames after it write their posts to the community files, which ``apply`` reads)."""
        if self._threads_named is None:
            texts = (
                files[a].data if a in files else _bytes_or_empty(agent.path)
                for a, agent in known.items()
            )
            self._threads_named = highest_thread(texts)
        return self._threads_named

    def step(
        self,
        agents: Sequence[str] | None = None,
        sample: int | None = None,
        seed: int | None = None,
        progress: Progress | None = None,
    ) -> FrameResult:
        """Run one frame (call inside ``with``)."""
        t0 = time.perf_counter()
        self.world.refresh()
        known = {a.id: a for a in self.world.agents()}
        read_registry(self.root)  # a registry that is not one is refused before anything else
        # Without world.json the clock starts from the souls' latest frame: parse them all once.
        if (self.root / WORLD_FILE).exists() or (self.root / WORLD_FILE).is_symlink():
            clock = read_clock(self.root)
        else:
            reads = (read_soul_file(a.path) for a in known.values())
            clock = read_clock(self.root, (parse(f.data) for f in reads if isinstance(f, _Read)))
        if seed is not None:
            clock = replace(clock, seed=seed)
        chosen = choose_agents(self.world, clock, agents, sample)
        clock = clock.next()
        files: dict[str, _Read] = {}
        skipped: list[tuple[str, str]] = []
        for agent in chosen:
            parser = self._souls.get(agent)
            read = read_soul_file(
                known[agent].path, parser.soul.data if parser and parser.soul else b""
            )
            if isinstance(read, str):
                skipped.append((agent, read))
            else:
                files[agent] = read
        chosen = [a for a in chosen if a in files]
        if not chosen:
            raise WorldError(f"no agent can take part in frame {clock.frame}: {skipped[0][1]}")
        community_files = list(store.paths(self.root).values())
        watched = [*community_files, self.root / WORLD_FILE]
        self._refuse_links([known[a].path for a in chosen] + watched + [self.root / FRAMES_DIR])
        # A line torn by a crash is no edit of the user's: cut it. One that was committed is the
        # user's: it stays, and the frame's lines start after a newline (``_write``).
        for path in repo.uncommitted(self.top, community_files):
            cut_torn_tail(path)
        self._keep_edits(clock.frame, [known[a].path for a in chosen] + watched)
        # Each file the frame writes besides the soul files, as it is now (equal to HEAD): one
        # changed while the brain decides is not overwritten or committed as the frame's own.
        self._watched = {path: _stamp(path) for path in watched}
        for gone in self._souls.keys() - known.keys():
            del self._souls[gone]
        souls = {}
        for i, agent in enumerate(chosen):
            parser = self._souls.setdefault(agent, GrowingSoul(agent))
            souls[agent] = parser.parse(files[agent].data)
            if progress and i % 50 == 0:
                progress("reading", i, len(chosen))
        community = self._community.load()
        self.notes.extend(community.problems)
        requests = build_requests(self.world, clock, chosen, souls, community)
        t1 = time.perf_counter()
        outcomes = self.brain.decide(
            requests, (lambda d, n: progress("deciding", d, n)) if progress else None
        )
        t2 = time.perf_counter()
        self.notes.extend(getattr(self.brain, "notes", ()))  # (servers of a pool that failed)
        changes = apply(
            clock, requests, outcomes, community, self.brain.name, self._threads(known, files)
        )
        result = self._write(clock, chosen, changes, known, files, progress)
        t3 = time.perf_counter()
        notes, self.notes = tuple(self.notes), []
        git_s = result.timings["git"]
        return replace(
            result,
            errors=tuple(
                (r.agent, o.error) for r, o in zip(requests, outcomes, strict=True) if o.error
            ),
            skipped=tuple(skipped),
            notes=notes,
            timings={"read": t1 - t0, "decide": t2 - t1, "write": t3 - t2 - git_s, "git": git_s},
        )

    def _refuse_changed(
        self, clock: Clock, chosen: list[str], known: dict, files: dict[str, _Read]
    ) -> None:
        """Refuse to write over a file that changed while the brain decided."""
        for agent in chosen:
            if _stamp(known[agent].path) != files[agent].stamp:
                raise WorldError(
                    f"memory/{known[agent].path.name} changed while frame {clock.frame} was "
                    "being decided; nothing was written, run the frame again"
                )
        for path, was in self._watched.items():
            if _stamp(path) != was:
                raise WorldError(
                    f"{os.path.relpath(path, self.root)} changed while frame {clock.frame} was "
                    "being decided; nothing was written, run the frame again"
                )

    def _write(  # noqa: C901 (one of the five allowed)
        self,
        clock: Clock,
        chosen: list[str],
        changes: _Applied,
        known: dict,
        files: dict[str, _Read],
        progress: Progress | None,
    ) -> FrameResult:
        root = self.root
        log_dir = root / FRAMES_DIR / str(clock.frame)
        logs = [log_dir / f"{a}.json" for a in chosen]
        if log_dir.exists() and any(p.exists() for p in logs):
            raise WorldError(
                f"{log_dir} already holds logs of frame {clock.frame}; the world's clock is behind its frames"
            )
        appends, touches = _plan(root, chosen, changes, known, files, logs)
        clock_file = root / WORLD_FILE
        touches.append(replace_touch(root, clock_file, clock.to_json()))
        self._refuse_changed(clock, chosen, known, files)
        self._refuse_links([p for p, _, _ in appends] + [clock_file])
        message = commit_message(clock.frame, len(changes.entries), changes.posts, changes.comments)
        journal = Journal(
            frame=clock.frame,
            date=clock.date,
            message=message,
            head=repo.head(self.top),
            files=tuple(touches),
        )
        write_journal(root, journal)
        try:
            # Plain appends, made durable together (the journal undoes a torn one): every file
            # is on disk before the journal says the frame is written.
            log_dir.mkdir(parents=True, exist_ok=True)
            with SyncBatch() as batch:
                for i, (path, data, size) in enumerate(appends):
                    if append_durable(path, data, sync=batch) != (size or 0):
                        raise WorldError(f"{path} changed while frame {clock.frame} was written")
                    if progress and i % 100 == 0:
                        progress("writing", i, len(appends))
            write_clock(root, clock)
            write_journal(root, replace(journal, state="written"))
            g0 = time.perf_counter()
            # The journal's files in its order (journal.paths() would build them all again).
            touched = [path for path, _, _ in appends] + [clock_file]
            sha = repo.commit(self.top, touched, message, clock.date, git_pidfile(root))
            git_s = time.perf_counter() - g0
            clear_journal(root)
        except BaseException as exc:
            said = recover(root, self.top) or f"frame {clock.frame} was not started"
            if isinstance(exc, KeyboardInterrupt):
                raise FrameInterrupted(said) from exc
            raise
        self.world.refresh()
        return FrameResult(
            frame=clock.frame,
            date=clock.date,
            agents=len(changes.entries),
            posts=changes.posts,
            comments=changes.comments,
            votes=changes.votes,
            follows=changes.follows,
            commit=sha,
            timings={"git": git_s},
        )


def _plan(
    root: Path,
    chosen: list[str],
    changes: _Applied,
    known: dict,
    files: dict[str, _Read],
    logs: list[Path],
) -> tuple[list[tuple[Path, bytes, int | None]], list[Touch]]:
    """Every append of a frame, planned to the byte before anything is written: (file, bytes,
    old size), and the journal's record of each."""
    appends: list[tuple[Path, bytes, int | None]] = []
    touches: list[Touch] = []
    for path, data in store.encode(root, changes.records).items():
        end = read_end(path)
        size = end[0] if end else None
        if end and end[1] and not end[1].endswith(b"\n"):
            data = b"\n" + data  # a committed torn line stays a line of its own
        touches.append(append_touch(root, path, end[1] if end else None, size or 0, data))
        appends.append((path, data, size))
    for agent, log in zip(chosen, logs, strict=True):
        if agent in changes.entries:  # (an agent whose brain failed writes only its log)
            path, read = known[agent].path, files[agent]
            data = entry_bytes(read.data, changes.entries[agent])
            touches.append(append_touch(root, path, read.data, read.size, data))
            appends.append((path, data, read.size))
        touches.append(append_touch(root, log, None, 0, changes.logs[agent]))
        appends.append((log, changes.logs[agent], None))
    return appends, touches


def run_frames(
    world: str | Path | World,
    brain: Brain,
    steps: int = 1,
    agents: Sequence[str] | None = None,
    sample: int | None = None,
    seed: int | None = None,
    progress: Progress | None = None,
    commit_edits: bool = False,
) -> list[FrameResult]:
    """Advance a world ``steps`` frames under one lock; returns one result per frame."""
    if steps < 1:
        raise WorldError("the number of frames to run is at least 1")
    with FrameRunner(world, brain, commit_edits) as runner:
        return [runner.step(agents, sample, seed, progress) for _ in range(steps)]
