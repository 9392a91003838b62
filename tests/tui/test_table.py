"""The dashboard's table keeps the rows' order and line offsets as rows are appended (Textual's
rebuilds them over every row after each change): they must stay what Textual would compute."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import DataTable

from soulscope.tui.widgets.table import Table


class OneTable(App[None]):
    def compose(self) -> ComposeResult:
        table: Table[str] = Table(id="t")
        table.add_column("a", key="a")
        table.add_column("b", key="b")
        yield table


def textual_view(table: Table) -> tuple[list, list]:
    """The order and offsets as Textual computes them from the table's own records."""
    table._update_count += 1  # past any cached value
    return DataTable.ordered_rows.fget(table), DataTable._y_offsets.fget(table)


async def test_order_and_offsets_follow_appends_clears_sorts_and_removals() -> None:
    app = OneTable()
    async with app.run_test() as pilot:
        table = app.query_one(Table)
        for i in range(30):  # in slices, as the Becoming tab fills an arc
            table.add_row(f"{29 - i:02d}", str(i), key=f"r{i}", height=1 + i % 3)
            if i % 7 == 0:
                await pilot.pause()
        assert (table.ordered_rows, table._y_offsets) == textual_view(table)
        await pilot.pause()
        assert table.virtual_size.height == sum(1 + i % 3 for i in range(30)) + 1  # the header
        table.sort("a")
        assert (table.ordered_rows, table._y_offsets) == textual_view(table)
        assert table.ordered_rows[0].key.value == "r29"
        table.clear()
        for i in range(5):
            table.add_row("x", str(i), key=f"s{i}")
        assert (table.ordered_rows, table._y_offsets) == textual_view(table)
        table.remove_row("s2")
        assert (table.ordered_rows, table._y_offsets) == textual_view(table)
        assert [r.key.value for r in table.ordered_rows] == ["s0", "s1", "s3", "s4"]
        await pilot.pause()
        assert table.get_row_at(3) == ["x", "4"]
