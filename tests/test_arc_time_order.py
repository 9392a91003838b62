"""One order of time for an arc: ``becoming`` lists an agent's statements by their frames' times,
as ``overview`` names the latest and ``why`` the one before; a file that wrote them out of that
order (parallel writers append late) is said to have done so."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.cli import soulscope

# Frame 3 (03-04) was appended before frame 2 (03-03): the file's order is not the time's.
_OUT_OF_ORDER = (
    "# Ada\n\n## Identity\n- **ID:** ada-01\n\n"
    "## Frame 1 — 2026-03-02\n- Read.\n- Becoming: the cataloguer.\n\n"
    "## Frame 3 — 2026-03-04\n- Argued.\n- Becoming: the archivist. From indexer to archivist.\n\n"
    "## Frame 2 — 2026-03-03\n- Indexed.\n- Becoming: the indexer. From cataloguer to indexer.\n"
)


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("order")
    (root / "memory").mkdir()
    (root / "memory" / "ada-01.md").write_text(_OUT_OF_ORDER)
    return root


def _json(world: Path, *args: str) -> object:
    done = soulscope(*args, "--world", str(world), "--json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_becoming_lists_by_time_and_its_last_is_overview_s_latest(world: Path) -> None:
    rows = _json(world, "becoming", "ada-01")
    assert [(r["frame"], r["role"]) for r in rows] == [
        (1, "cataloguer"),
        (2, "indexer"),
        (3, "archivist"),
    ]
    # each "From" is the role before it in time: no mismatch
    assert [r["from_mismatch"] for r in rows] == [False, False, False]
    overview = _json(world, "overview")
    (agent,) = overview
    assert agent["latest"]["text"] == rows[-1]["text"]
    why = _json(world, "why", "ada-01")
    assert why["statement"]["text"] == rows[-1]["text"]


def test_becoming_says_where_the_file_wrote_out_of_time_order(world: Path) -> None:
    done = soulscope("becoming", "ada-01", "--world", str(world))
    assert done.returncode == 0, done.stderr
    assert "Listed by the frames' times" in done.stdout
    assert "1 statement written out of that order" in done.stdout


def test_a_label_asked_for_is_read_in_its_dash_form_too(tmp_path: Path) -> None:
    (tmp_path / "memory").mkdir()
    (tmp_path / "memory" / "kai-05.md").write_text(
        "# Kai\n\n## Identity\n- **ID:** kai-05\n\n"
        "## Frame 1 — 2026-03-02\n- Read.\n- Key insight — tides follow the ledger.\n\n"
        "## Frame 2 — 2026-03-03\n- **Key Insight** – the ledger follows no one.\n"
        "- Rate limited — no comment.\n\n"
        "## Frame 3 — 2026-03-04\n- key insight: ledgers drift.\n"
    )
    rows = _json(tmp_path, "becoming", "kai-05", "--label", "Key insight")
    assert [(r["frame"], r["text"]) for r in rows] == [
        (1, "tides follow the ledger."),
        (2, "the ledger follows no one."),
        (3, "ledgers drift."),
    ]


def test_a_time_written_before_the_date_is_read(tmp_path: Path) -> None:
    (tmp_path / "memory").mkdir()
    (tmp_path / "memory" / "tam-06.md").write_text(
        "# Tam\n\n## Identity\n- **ID:** tam-06\n\n"
        "## Frame 12 — 10:00 UTC 2026-03-04\n- Set the clock.\n\n"
        "## Frame 13 — 9:15 PM EST, 2026-03-04\n- Wound it back.\n"
    )
    frames = _json(tmp_path, "show", "tam-06")["frames"]
    assert [(f["date"], f["time"]) for f in frames] == [
        ("2026-03-04", "10:00"),
        ("2026-03-05", "02:15"),
    ]
    got = _json(tmp_path, "first", "clock")
    assert (got["date"], got["time"], got["precision"]) == ("2026-03-04", "10:00", "minute")
