"""A world forked at a point of its run, changed by interventions, to be run on as a world of its own.

``fork`` clones the world's repository into a new folder and checks out the commit of the point
(a frame, or a git revision) on a branch of its own: the fork has the world's history up to that
point and nothing after it. Each intervention is one commit that says what it changed:

- ``without``: an agent takes no part in the frames after the point (its status in
  ``agents.json`` becomes ``removed``; what it wrote before stays);
- ``drop_post``: a post, its comments and its votes are gone from the community;
- ``edit``: one line of an agent's soul file reads otherwise.

A world that is a folder inside a larger repository (``repo/state/``) is forked with the whole
repository: the fork's folder holds all of its history, and the world sits at the same place inside
it (``Fork.world``).

The original world is only read. A fork is advanced like any world (``soulscope frame``); with
the offline brain and no intervention it replays the original's frames byte for byte.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from soulscope.atomic import write_atomic
from soulscope.sim import repo
from soulscope.sim.clock import WORLD_FILE
from soulscope.sim.community import paths as community_paths
from soulscope.sim.create import REGISTRY_FILE
from soulscope.sim.lock import STATE_DIR
from soulscope.world import World, WorldError

REMOVED = "removed"  # the registry status of an agent taken out of a fork
_FRAME_SUBJECT = re.compile(r"frame (\d+): ")
_EDIT = re.compile(r"([^:=]+):(\d+)=(.*)", re.DOTALL)


class ForkError(WorldError):
    """A fork that cannot be made as asked; nothing was created."""


@dataclass(frozen=True, slots=True)
class Edit:
    """``AGENT:LINE=TEXT``: line LINE (from 1) of the agent's soul file becomes TEXT."""

    agent: str
    line: int
    text: str


def parse_edit(spec: str) -> Edit:
    m = _EDIT.fullmatch(spec)
    if not m:
        raise ForkError(f"'{spec}' is not an edit of the form AGENT:LINE=TEXT")
    if "\n" in m.group(3) or "\r" in m.group(3):
        raise ForkError(f"the text of edit '{m.group(1)}:{m.group(2)}' must be one line")
    return Edit(m.group(1).strip(), int(m.group(2)), m.group(3))


@dataclass(frozen=True)
class Fork:
    root: Path  # the fork's repository
    source: Path  # the world forked
    world: Path  # the fork's world: ``root``, or the same place as the source's inside it
    point: str  # the commit of the fork point, in both worlds
    frame: int | None  # the world's frame at that point (None where no clock says)
    branch: str
    interventions: tuple[tuple[str, str], ...] = ()  # (commit, subject), in order


def frame_shas(top: Path, rev: str = "HEAD", world: str = "") -> list[tuple[int, str]]:
    """``(frame, commit)`` of every frame commit on the first-parent line of ``rev``, newest first
    (``world``: only those that touch that folder, ``inside``: another world's frames in the same
    repository are not this one's)."""
    where = ["--", f":/{world}"] if world else []
    out = repo.git(top, "log", "--first-parent", "--format=%H %s", rev, *where).stdout.decode()
    found = []
    for line in out.splitlines():
        sha, _, subject = line.partition(" ")
        m = _FRAME_SUBJECT.match(subject)
        if m:
            found.append((int(m.group(1)), sha))
    return found


def inside(top: Path, root: Path) -> str:
    """Where world ``root`` sits in repository ``top``, as git names paths ('' at the top)."""
    rel = root.resolve().relative_to(top)
    return "" if rel == Path() else PurePosixPath(*rel.parts).as_posix() + "/"


def frame_at(top: Path, sha: str, world: str = "") -> int | None:
    """The frame the world's clock says at commit ``sha`` (``world``: its folder, ``inside``);
    without a clock, the newest frame commit's up to ``sha``."""
    done = repo.git(top, "show", f"{sha}:{world}{WORLD_FILE}", check=False)
    if done.returncode != 0:
        frames = frame_shas(top, sha, world)
        return frames[0][0] if frames else None
    try:
        frame = json.loads(done.stdout).get("frame")
    except (ValueError, AttributeError):
        return None
    return frame if isinstance(frame, int) else None


def _frame_commit(top: Path, frame: int, world: str = "") -> str:
    frames = frame_shas(top, "HEAD", world)
    if not frames:
        raise ForkError(f"{top} has no frame commits; give a revision with --at")
    first, last = frames[-1][0] - 1, frames[0][0]
    if not first <= frame <= last:
        raise ForkError(f"{top} has frames {first} to {last}; there is no frame {frame} to fork at")
    for number, sha in frames:
        if number == frame:
            return sha
    if frame == first:  # before the first frame commit: the commit it was made on
        return repo.git(top, "rev-parse", f"{frames[-1][1]}^").stdout.decode().strip()
    raise ForkError(f"frame {frame} of {top} is no commit of its own; give a revision with --at")


def resolve_point(top: Path, at: str, world: str = "") -> tuple[str, int | None]:
    """The commit ``at`` names (a frame number, ``frame N`` or a revision) and its frame."""
    spec = at.strip()
    m = re.fullmatch(r"(?:frame\s*)?(\d{1,6})", spec, re.IGNORECASE)
    if m:
        sha = _frame_commit(top, int(m.group(1)), world)
        return sha, int(m.group(1))
    done = repo.git(top, "rev-parse", "--verify", "-q", f"{spec}^{{commit}}", check=False)
    if done.returncode != 0 or not spec:
        raise ForkError(f"'{at}' is neither a frame number nor a revision of {top}")
    sha = done.stdout.decode().strip()
    return sha, frame_at(top, sha, world)


def dirty(top: Path, world: str = "") -> list[str]:
    """Paths of the repository (of the world's folder in it) that differ from HEAD (ignored
    files aside)."""
    args = ["--no-optional-locks", "status", "--porcelain=v1", "-z", "--", f":/{world}"]
    out = repo.git(top, *args).stdout
    own = f"{world}{STATE_DIR}/"  # the frame runner's own folder (lock, journal)
    paths = [e[3:].decode("utf-8", "replace") for e in out.split(b"\0") if e]
    return [p for p in paths if not p.startswith(own)]


def _source(world: World | str | Path) -> tuple[World, Path]:
    w = world if isinstance(world, World) else World.open(world)
    if w.only is not None:
        raise ForkError(f"{w.only} is a single soul file; fork the world folder around it")
    top = repo.toplevel(w.root)
    if not w.memory_dir.resolve().is_relative_to(w.root.resolve()):
        raise ForkError(f"{w.memory_dir} is outside {w.root}; fork the folder that holds both")
    changed = dirty(top, inside(top, w.root))
    if changed:
        more = f" and {len(changed) - 1} more" if len(changed) > 1 else ""
        raise ForkError(
            f"{w.root} has uncommitted changes ({changed[0]}{more}); commit them first: a fork "
            "starts from the world's commits"
        )
    return w, top


def _check_dest(dest: Path) -> None:
    if dest.exists() and (not dest.is_dir() or any(dest.iterdir())):
        raise ForkError(f"{dest} exists and is not empty; choose a new folder for the fork")


def fork(
    world: World | str | Path,
    dest: Path,
    at: str,
    without: Sequence[str] = (),
    drop_posts: Sequence[int] = (),
    edits: Sequence[Edit] = (),
) -> Fork:
    """Make the fork of ``world`` at ``at`` in ``dest``, with one commit per intervention."""
    source, top = _source(world)
    where = inside(top, source.root)
    dest = dest.expanduser().absolute()
    _check_dest(dest)
    sha, frame = resolve_point(top, at, where)
    branch = f"fork-at-frame-{frame}" if frame is not None else f"fork-at-{sha[:8]}"
    existed = dest.exists()
    try:
        repo.git(top, "clone", "-q", "--no-checkout", str(top), str(dest))
        repo.git(dest, "switch", "-q", "-c", branch, sha)
        repo.git(dest, "config", "soulscope.forkof", str(source.root))
        repo.git(dest, "config", "soulscope.forkpoint", sha)
        memory = source.memory_dir.resolve().relative_to(top)
        forked = World(dest / where, dest / memory)
        made = _intervene(forked, dest, sha, without, drop_posts, edits)
    except BaseException:
        shutil.rmtree(dest, ignore_errors=True)
        if existed:
            dest.mkdir()
        raise
    return Fork(dest, source.root, forked.root, sha, frame, branch, tuple(made))


def _intervene(
    world: World,
    top: Path,
    point: str,
    without: Sequence[str],
    drop_posts: Sequence[int],
    edits: Sequence[Edit],
) -> list[tuple[str, str]]:
    """Check every intervention against the fork (its ``world`` in repository ``top``), then
    commit each one."""
    agents = {a.id for a in world.agents()}
    for agent in [*without, *(e.agent for e in edits)]:
        if agent not in agents:
            raise ForkError(f"no agent '{agent}' in the world at {point[:8]}")
    date = repo.git(top, "show", "-s", "--format=%cs", point).stdout.decode().strip()
    steps = [_without(world.root, a) for a in dict.fromkeys(without)]
    steps += [_drop_post(world.root, p) for p in dict.fromkeys(drop_posts)]
    steps += [_edit(world, e) for e in edits]
    made = []
    for changes, message in steps:
        for path, data in changes:
            write_atomic(path, data)
        sha = repo.commit(top, [p for p, _ in changes], message, date)
        made.append((sha, message.splitlines()[0]))
    return made


Change = tuple[list[tuple[Path, bytes]], str]  # (files and their new bytes, commit message)


def _without(root: Path, agent: str) -> Change:
    path = root / REGISTRY_FILE
    try:
        data = json.loads(path.read_bytes()) if path.exists() else {"agents": {}}
    except ValueError:
        raise ForkError(f"{path.name} is not JSON; the fork cannot take {agent} out") from None
    agents = data.get("agents") if isinstance(data, dict) else None
    if not isinstance(agents, dict):
        raise ForkError(f"{path.name} has no 'agents' object; the fork cannot take {agent} out")
    found = agents.get(agent)
    entry: dict = found if isinstance(found, dict) else {}
    was = entry.get("status", "active")
    agents[agent] = {**entry, "status": REMOVED}
    text = json.dumps(data, ensure_ascii=False, indent=2) + "\n"
    message = (
        f"fork: without {agent}\n\n{agent} takes no part in the frames after the fork point: its "
        f"status in {REGISTRY_FILE} is now '{REMOVED}' (it was '{was}'). What it wrote before "
        "stays."
    )
    return [(path, text.encode("utf-8"))], message


def _lines_without(path: Path, keep: Callable[[dict], bool]) -> tuple[bytes, int]:
    """The file's lines that ``keep(obj)`` keeps, and how many it dropped."""
    if not path.exists():
        return b"", 0
    kept, dropped = [], 0
    for line in path.read_bytes().splitlines(keepends=True):
        try:
            obj = json.loads(line)
        except ValueError:
            obj = None
        if isinstance(obj, dict) and not keep(obj):
            dropped += 1
        else:
            kept.append(line)
    return b"".join(kept), dropped


def _drop_post(root: Path, post: int) -> Change:
    files = community_paths(root)
    posts, found = _lines_without(files["posts"], lambda o: o.get("id") != post)
    if not found:
        raise ForkError(f"no post #{post} in the world at the fork point")
    comments, n_comments = _lines_without(files["comments"], lambda o: o.get("post") != post)
    votes, n_votes = _lines_without(files["votes"], lambda o: o.get("post") != post)
    changes = [(files["posts"], posts)]
    if n_comments:
        changes.append((files["comments"], comments))
    if n_votes:
        changes.append((files["votes"], votes))
    message = (
        f"fork: drop post #{post}\n\nPost #{post}, its {n_comments} comment"
        f"{'s' * (n_comments != 1)} and its {n_votes} vote{'s' * (n_votes != 1)} are gone "
        "from the community after the fork point."
    )
    return changes, message


def _edit(world: World, edit: Edit) -> Change:
    path = world.memory_dir / f"{edit.agent}.md"
    name = path.relative_to(world.root).as_posix()
    lines = path.read_bytes().split(b"\n")
    count = len(lines) - (lines[-1] == b"")
    if not 1 <= edit.line <= count:
        raise ForkError(f"{name} has lines 1 to {count}; there is no line {edit.line}")
    old = lines[edit.line - 1]
    end = b"\r" if old.endswith(b"\r") else b""
    lines[edit.line - 1] = edit.text.encode("utf-8") + end
    old_text = old.rstrip(b"\r").decode("utf-8", "replace")
    message = f"fork: edit {name} line {edit.line}\n\n- {old_text}\n+ {edit.text}"
    return [(path, b"\n".join(lines))], message


def fork_of(root: Path) -> tuple[str, str] | None:
    """``(original, fork point)`` as a fork remembers them, or None for a world that is no fork."""
    done = repo.git(root, "config", "--get-regexp", r"^soulscope\.fork", check=False)
    found = dict(line.split(" ", 1) for line in done.stdout.decode().splitlines() if " " in line)
    if "soulscope.forkof" in found and "soulscope.forkpoint" in found:
        return found["soulscope.forkof"], found["soulscope.forkpoint"]
    return None
