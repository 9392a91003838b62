"""Where chat keeps what it learns about a user of a world: soulscope's data folder."""

from __future__ import annotations

from pathlib import Path

from soulscope.chat.memory import users_dir
from soulscope.world import World


def users_folder(world: Path | World) -> Path:
    """The ``users/`` folder that chats on ``world`` write (the data folder of this test)."""
    return users_dir(world if isinstance(world, World) else World.open(world))
