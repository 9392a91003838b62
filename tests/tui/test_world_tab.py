"""The World tab's table as a person uses it: sorting from the keyboard, the cursor, enter, the
columns at 80 columns, and rows arriving in their sorted place."""

from __future__ import annotations

import json
from pathlib import Path

from rich.cells import cell_len

from soulscope.tui.app import SoulscopeApp
from soulscope.tui.panes.world import COLUMN_KEYS
from soulscope.tui.widgets.virtual_table import VirtualTable
from soulscope.world import World
from tests.support.pilot import cells, settle, world_table
from tests.support.worlds import ADA, BO, CY, frame, soul, write_world

SIZE = (160, 45)


def arc(agent_id: str, days: list[int], roles: list[str]) -> str:
    frames = [
        frame(n, f"2026-03-{day:02d}", "Acted.", f"the {role}.")
        for n, (day, role) in enumerate(zip(days, roles, strict=True), start=1)
    ]
    return soul(agent_id.title(), agent_id, "Maker", frames)


# Every column orders these four differently from the agent column (ties go by id).
FOUR = {
    "ann": arc("ann", [4, 5], ["spinner", "weaver"]),  # 2 frames, 1 shift, last 03-05
    "bob": arc("bob", [1, 2, 2, 2], ["potter", "potter", "potter", "archer"]),  # 4, 1, 03-02
    "cat": arc("cat", [9], ["mason"]),  # 1 frame, no shift, last 03-09
    "dan": arc("dan", [1, 1, 1], ["baker", "miller", "zealot"]),  # 3 frames, 2 shifts, 03-01
}


def four_world(root: Path) -> World:
    write_world(root, FOUR)
    community = root / "community"
    community.mkdir()
    post = {"frame": 1, "date": "2026-03-01", "channel": "c", "title": "t", "body": "b"}
    posts = [{"id": i, "author": a, **post} for i, a in enumerate(["cat", "cat", "dan"], 1)]
    (community / "posts.jsonl").write_text("".join(json.dumps(p) + "\n" for p in posts))
    (community / "comments.jsonl").write_text("")
    return World.open(root)


def shown(table: VirtualTable) -> list[str]:
    return [cells(table, row)["agent"] for row in table.visible_rows()[1:] if row.strip()]


def titles(table: VirtualTable) -> dict[str, str]:
    """Each column's title as shown, with the cell after it (where a full title's mark goes)."""
    out, x = {}, 0
    header = table.visible_rows()[0]
    for column, w in zip(
        table.columns, table.column_widths(table.scrollable_content_region.width), strict=True
    ):
        out[column.key] = header[x + 1 : x + 2 + w].strip()
        x += w + 2
    return out


def marks(table: VirtualTable) -> dict[str, str]:
    """The columns whose title carries a sort mark, and the mark."""
    return {key: title[-1] for key, title in titles(table).items() if title[-1:] in ("▲", "▼")}


async def test_every_column_sorts_from_the_keyboard_with_its_mark(tmp_path: Path) -> None:
    app = SoulscopeApp(four_world(tmp_path / "w"))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("3")
        await settle(pilot)
        table = world_table(app)
        assert marks(table) == {}
        drift = {a: sum(s.drift) / len(s.drift) for a, s in app.sidebar.summaries.items()}
        expected = {
            "agent": ("▲", ["ann", "bob", "cat", "dan"]),
            "frames": ("▼", ["bob", "dan", "ann", "cat"]),
            "shifts": ("▼", ["dan", "ann", "bob", "cat"]),
            # Short arcs turn where a new role comes in new words: dan 2, ann and bob 1, cat 0.
            "turns": ("▼", ["dan", "ann", "bob", "cat"]),
            "drift": ("▼", sorted(FOUR, key=lambda a: (-drift[a], a))),
            "last": ("▼", ["cat", "ann", "bob", "dan"]),
            "posts": ("▼", ["cat", "dan", "ann", "bob"]),
            "latest": ("▲", ["bob", "cat", "ann", "dan"]),  # archer, mason, weaver, zealot
        }
        for column, (mark, order) in expected.items():
            await pilot.press("s")
            assert marks(table) == {column: mark}, column
            assert shown(table) == order, column
        await pilot.press("S")  # the Latest Becoming column, the other way round
        assert marks(table) == {"latest": "▼"}
        assert shown(table) == ["dan", "ann", "cat", "bob"]
        posts = [cells(table, r)["posts"] for r in table.visible_rows()[1:5]]
        assert posts == ["1 / 0", "—", "2 / 0", "—"]  # posts / comments; none for ann and bob


async def test_the_cursor_stays_on_its_agent_through_a_sort_and_enter_selects_it(
    small_world: World,
) -> None:
    app = SoulscopeApp(small_world)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("3")
        await settle(pilot)
        table = world_table(app)
        await pilot.press("down", "down")
        assert table.highlighted == "cy-03"
        await pilot.press("s", "s")  # by frames, most first: cy-03 (1 frame) goes last
        assert shown(table)[-1] == table.highlighted == "cy-03"
        await pilot.press("k", "enter")
        await settle(pilot)
        assert app.agent_id == "bo-02"
        assert app.sidebar.list.highlighted == "bo-02"


async def test_the_cursor_row_of_the_agent_list_survives_a_filter(small_world: World) -> None:
    app = SoulscopeApp(small_world)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("j", "j")
        await settle(pilot)
        assert app.sidebar.list.highlighted == "cy-03"
        await pilot.press("slash", "0")  # every id has a 0: the cursor stays where it was
        assert app.sidebar.shown == ["ada-01", "bo-02", "cy-03"]
        assert app.sidebar.list.highlighted == "cy-03"
        await pilot.press("2")  # only bo-02 is left: the cursor goes to it
        assert app.sidebar.list.highlighted == "bo-02"
        await pilot.press("backspace")  # everyone again; the cursor stays on bo-02
        assert app.sidebar.shown == ["ada-01", "bo-02", "cy-03"]
        assert app.sidebar.list.highlighted == "bo-02"
        await pilot.press("enter")  # opens the agent under the cursor
        await settle(pilot)
        assert app.agent_id == "bo-02"


async def test_at_80_columns_every_column_shows_and_long_text_ends_with_an_ellipsis(
    tmp_path: Path,
) -> None:
    long_role = "patient careful 記録係 meticulous tireless cartographer archivist historian"
    souls = {"ada-01": ADA, "bo-02": BO, "cy-03": CY, "wide-04": arc("wide-04", [7], [long_role])}
    app = SoulscopeApp(World.open(write_world(tmp_path / "w", souls)))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("3")
        await settle(pilot)
        table = world_table(app)
        header, *rows = [r for r in table.visible_rows() if r.strip()]
        assert header.rstrip().endswith("Latest Becoming")
        assert cells(table, header)["agent"] == "Agent"
        latest = {cells(table, r)["agent"]: cells(table, r)["latest"] for r in rows}
        assert latest["ada-01"] == "archivist"
        assert latest["cy-03"] == "[i]escaper[/i]"  # soul text shown as written
        assert latest["wide-04"].startswith("patient careful") and latest["wide-04"].endswith("…")
        assert all(cell_len(r) <= 80 for r in [header, *rows])


async def test_rows_that_arrive_after_a_sort_take_their_place(tmp_path: Path) -> None:
    souls = {
        f"agent-{i:02d}": arc(f"agent-{i:02d}", [1] * (i + 1), ["maker"] * (i + 1))
        for i in range(12)
    }
    root = write_world(tmp_path / "w", souls)
    app = SoulscopeApp(World.open(root))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("3")
        await settle(pilot)
        await pilot.press("s", "s")  # by frames, most first
        table = world_table(app)
        assert shown(table)[:2] == ["agent-11", "agent-10"]
        # A new agent and a grown one, read again from disk: each lands where the sort puts it.
        (root / "memory" / "agent-xx.md").write_text(arc("agent-xx", [1] * 6, ["maker"] * 6))
        (root / "memory" / "agent-00.md").write_text(arc("agent-00", [1] * 20, ["maker"] * 20))
        await pilot.press("r")
        await settle(pilot)
        order = shown(table)
        assert order[0] == "agent-00"
        assert order.index("agent-xx") == order.index("agent-05") + 1  # 6 frames each, by id
        assert marks(table) == {"frames": "▼"}
        assert len(table.keys) == 13


async def test_at_80_columns_short_titles_stay_whole_and_a_cut_drift_keeps_its_latest_end(
    tmp_path: Path,
) -> None:
    # A long id and an arc that moves at every statement leave too little room for every column
    # at full width: the sparkline gives up its oldest statements before a title is cut to "F…".
    roles = ["spinner", "weaver", "potter", "archer", "mason", "baker", "miller", "zealot"] * 2
    long_id = "cartographer-07"  # (one cell less: the turning points column takes three)
    souls = {long_id: arc(long_id, list(range(1, 17)), roles), "ada-01": ADA}
    app = SoulscopeApp(World.open(write_world(tmp_path / "w", souls)))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("3")
        await settle(pilot)
        table = world_table(app)
        await pilot.press("s", "s")  # by frames: the mark follows the whole title
        await settle(pilot)
        shown_titles = titles(table)
        assert shown_titles["agent"] == "Agent"
        assert shown_titles["frames"] == "Frames▼"
        assert shown_titles["shifts"] == "Shifts"
        row = next(r for r in table.visible_rows()[1:] if r.startswith(f" {long_id}"))
        drift = cells(table, row)["drift"]
        full = app.query_one("WorldPane")._cells(long_id)[COLUMN_KEYS.index("drift")].plain
        assert drift.startswith("…") and len(drift) < len(full)
        assert full.endswith(drift[1:])  # the newest statements are the ones shown
        assert cells(table, row)["agent"] == long_id


async def test_the_world_counts_turning_points_and_shows_a_position_by_its_words(
    tmp_path: Path,
) -> None:
    from tests.support.worlds import ASTRONOMER, BAKER, GARDENER

    texts = GARDENER + ASTRONOMER + BAKER
    turning = [frame(i, f"2026-03-{i:02d}", "Acted.", t) for i, t in enumerate(texts, 1)]
    # An early-era arc: positions that open with a counter, not roles.
    positions = "".join(
        f"## Frame 2026-03-0{i}\n- Acted.\n- Evolving position: {n} bet. The {w} market is open.\n\n"
        for i, (n, w) in enumerate((("ninth", "river"), ("tenth", "harbour")), 1)
    )
    souls = {"di-04": soul("Di", "di-04", "Maker", turning), "ed-05": "# Ed\n\n" + positions}
    app = SoulscopeApp(World.open(write_world(tmp_path / "w", souls)))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("3")
        await settle(pilot)
        table = world_table(app)
        rows = {
            cells(table, r)["agent"]: cells(table, r) for r in table.visible_rows()[1:] if r.strip()
        }
        assert rows["di-04"]["turns"] == "2" and rows["ed-05"]["turns"] == "0"
        assert rows["ed-05"]["latest"] == "The harbour market is open."
