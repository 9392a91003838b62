"""The [keys] table as users write it: key names no key has, and names holding escape sequences.
A key that cannot arrive is said at start and never leaves its action unreachable; nothing of a
key name reaches the terminal raw."""

from __future__ import annotations

from pathlib import Path

import pytest

from soulscope.config import load_settings
from soulscope.tui.actions import BY_ID
from soulscope.tui.app import SoulscopeApp
from soulscope.tui.widgets.key_footer import KeyFooter
from soulscope.world import World
from tests.support.pilot import settle, until
from tests.support.worlds import ADA, BO, write_world


@pytest.fixture
def world(tmp_path: Path) -> World:
    return World.open(write_world(tmp_path / "world", {"ada-01": ADA, "bo-02": BO}, {}))


def test_key_names_no_key_has_are_left_out_and_said() -> None:
    from soulscope.tui.actions import checked_keymap

    keymap, problem = checked_keymap(
        {
            "app.next_frame": "nonsense",
            "app.previous_frame": "ctrl+nonsensical,k",
            "app.quit": "\x1b[31mq",
            "app.help": "question_mark",
            "app.sort": "plus,shift+tab,M,f5",
        }
    )
    assert "app.next_frame" not in keymap and "app.quit" not in keymap
    assert keymap["app.previous_frame"] == "k"
    assert keymap["app.help"] == "question_mark" and keymap["app.sort"] == "plus,shift+tab,M,f5"
    assert problem is not None and "'nonsense' for app.next_frame" in problem
    assert "ctrl+nonsensical" in problem and "\x1b" not in problem


@pytest.mark.serial  # keys pressed as the dashboard shows a soul: never beside a streaming test
async def test_a_bad_key_name_leaves_the_action_its_own_keys_and_never_reaches_the_terminal(
    world: World, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "config.toml"
    config.write_text(
        '[keys]\n"app.next_frame" = "nonsense"\n"app.previous_frame" = "\\u001b[2Jq"\n'
    )
    monkeypatch.setenv("SOULSCOPE_CONFIG", str(config))
    app = SoulscopeApp(world, settings=load_settings())
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        await until(pilot, lambda: app.soul is not None)  # (late on a busy machine)
        notes = [n.message for n in app._notifications]
        assert any("'nonsense' for app.next_frame" in m for m in notes), notes
        assert all("\x1b" not in m for m in notes)
        keys = BY_ID["app.next_frame"].keys.split(",")[0]
        await pilot.press(keys)  # the action's own key still works
        await settle(pilot)
        header = app.query_one("#soul-header")
        await until(pilot, lambda: str(header.render()).startswith("Frame 1 —"), timeout=10)
        footer = app.query_one(KeyFooter)
        for y in range(footer.size.height):
            assert "\x1b" not in footer.render_line(y).text
        assert all("\x1b" not in k for a in BY_ID.values() for k in app.keys_of(a))


def test_a_key_given_to_two_actions_of_one_place_is_said() -> None:
    from soulscope.tui.actions import checked_keymap

    _, problem = checked_keymap({"app.next_frame": "q"})
    assert problem is not None and "'q' is given to app.quit and app.next_frame" in problem
    assert checked_keymap({"app.next_frame": "l"})[1] is None
