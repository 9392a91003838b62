"""Open the dashboard headless on a world, wait for it to paint its agents, quit.

Run by ``scripts/check-wheel`` with the python of a clean install: it proves the installed package
finds its stylesheet and opens a world, outside the checkout.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import soulscope
from soulscope.tui.app import SoulscopeApp
from soulscope.tui.widgets.agent_list import AgentList
from soulscope.world import World


async def main(world_path: str) -> None:
    # sys.path[0] is this script's folder, so the package imported is the installed one.
    print(f"dashboard smoke: soulscope from {Path(soulscope.__file__).parent}")
    app = SoulscopeApp(World.open(world_path))
    async with app.run_test(size=(120, 40)) as pilot:
        for _ in range(200):  # the first agent's soul is parsed in a worker
            if app.soul is not None:
                break
            await pilot.pause(0.05)
        assert app.query_one(AgentList).shown, "the agent list stayed empty"
        assert app.soul is not None, "the first agent's soul never showed"
        print(f"dashboard smoke: {len(app.world.agents())} agents, showing {app.soul.agent_id}")
        await pilot.press("q")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
