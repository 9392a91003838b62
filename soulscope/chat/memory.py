"""What chats learnt about their user, kept in soulscope's data folder, never in the world.

Talking to a world changes nothing in its folder. Each world has a folder of its own under
``data_dir()/worlds`` (named after the world and a hash of where it is), holding the ``users/``
files a ``Distiller`` writes: a later chat on the same world recalls what an earlier one kept.
``into_world`` is the world's own ``users/`` folder, written only when the user asks for it.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from soulscope.atomic import write_atomic
from soulscope.chat.distill import Block, Distiller
from soulscope.config import data_dir
from soulscope.errors import SoulscopeError
from soulscope.world import World

WORLDS = "worlds"
WHERE_FILE = "world.txt"  # the world's folder, for the listing


class KeptError(SoulscopeError):
    """A kept memory that cannot be listed or deleted as asked."""


def users_dir(world: World, into_world: bool = False) -> Path:
    """The folder of the user files of ``world``'s chats: soulscope's own, or the world's."""
    root = getattr(world, "live", world).root  # (a world shown at a past point: the live one)
    if into_world:
        return root / "users"
    where = str(root.resolve())
    key = hashlib.sha256(where.encode("utf-8", "surrogateescape")).hexdigest()[:16]
    name = re.sub(r"[^A-Za-z0-9._-]+", "-", root.resolve().name).strip("-") or "world"
    folder = data_dir() / WORLDS / f"{name}-{key}"
    marker = folder / WHERE_FILE
    if not marker.exists():
        folder.mkdir(parents=True, exist_ok=True)
        write_atomic(marker, (where + "\n").encode("utf-8", "surrogateescape"))
    return folder / "users"


def kept(folder: Path, user: str) -> list[Block]:
    """The blocks of facts kept about ``user`` in ``folder``, in order."""
    return Distiller(folder, user).blocks()


def forget(folder: Path, user: str, number: int | None) -> int:
    """Delete block ``number`` (from 1) of what is kept about ``user`` (None: all of it, and what
    was said but not distilled yet); returns how many facts went."""
    blocks = kept(folder, user)
    distiller = Distiller(folder, user)
    if number is None:
        for p in (distiller.soul_path, distiller.buffer_path):
            p.unlink(missing_ok=True)
        return sum(len(b.facts) for b in blocks)
    if not 1 <= number <= len(blocks):
        have = f"blocks 1 to {len(blocks)}" if blocks else "no block"
        raise KeptError(f"{user} has {have} kept; there is no block {number}")
    lines = distiller.soul_path.read_text(encoding="utf-8").splitlines(keepends=True)
    start = blocks[number - 1].line - 1
    end = blocks[number].line - 1 if number < len(blocks) else len(lines)
    write_atomic(distiller.soul_path, "".join(lines[:start] + lines[end:]).encode("utf-8"))
    return len(blocks[number - 1].facts)


def users(folder: Path) -> list[str]:
    """The users with kept facts in ``folder``."""
    if not folder.is_dir():
        return []
    return sorted(p.stem for p in folder.glob("*.txt"))
