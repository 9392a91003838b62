"""``soulscope export``: the tables hold one row per frame, statement, link and edge the other
commands report, in every format, with a manifest."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from soulscope.tables import COLUMNS, TABLES
from tests.support.cli import one_sentence, soulscope
from tests.support.repos import git, history_world
from tests.support.worlds import soul, write_small_world, write_world

FORMATS = ("parquet", "csv", "jsonl")


def read_table(folder: Path, table: str, fmt: str) -> list[dict]:
    """A table's rows as dicts of Python values, from whichever format it was written in."""
    path = folder / f"{table}.{fmt}"
    if fmt == "parquet":
        import pyarrow.parquet as pq

        return pq.read_table(path).to_pylist()
    if fmt == "jsonl":
        return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    types = dict(COLUMNS[table])
    with path.open(encoding="utf-8", newline="") as f:
        return [{k: _typed(v, types[k]) for k, v in row.items()} for row in csv.DictReader(f)]


def _typed(value: str, kind: str) -> object:
    if value == "":  # an empty cell is a null (as DuckDB reads it)
        return None
    return {"int": int, "float": float, "bool": lambda v: v == "true"}.get(kind, str)(value)


def cli_json(*args: str) -> object:
    done = soulscope(*args, "--json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def export(world: Path, dest: Path, fmt: str, *more: str) -> Path:
    done = soulscope("export", str(dest), "--format", fmt, "--world", str(world), *more)
    assert done.returncode == 0, done.stderr
    return dest


# A world in forms the corpus does not have: an id with a dot and digits, mixed case in the
# names others write, a statement in a frame without a date, CSV's own characters in the text.
ODD = soul(
    "Dr. Who, the 2nd",
    "dr.who-2",
    "Traveller",
    [
        '## Frame 7 — 2026-04-02 (09:15 UTC)\n- Replied to ADA-01 on #3: "yes, but", and more\n'
        '- Becoming: the doubter, with a comma, and "quotes".\n\n',
        "## Frame 9\n- Influenced by: Bo-02, whose [b]rebuttal[/b] stuck\n"
        "- Becoming: the convert. From doubter to convert.\n\n",
    ],
)


@pytest.fixture
def world(tmp_path: Path) -> Path:
    root = write_small_world(tmp_path / "w")
    (root / "memory" / "dr.who-2.md").write_text(ODD, encoding="utf-8")
    return root


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_frame_statement_and_edge_the_cli_reports(world: Path, tmp_path: Path, fmt: str):
    out = export(world, tmp_path / "out", fmt)
    agents = cli_json("agents", "--world", str(world))
    assert isinstance(agents, list)
    got = read_table(out, "agents", fmt)
    keys = ("id", "name", "frames", "becoming", "bytes", "last_frame", "problems")
    assert [{k: a[k] for k in keys} for a in got] == [{k: a[k] for k in keys} for a in agents]

    frames = read_table(out, "frames", fmt)
    statements = read_table(out, "statements", fmt)
    for a in agents:
        shown = cli_json("show", a["id"], "--world", str(world))
        assert isinstance(shown, dict)
        mine = [f for f in frames if f["agent"] == a["id"]]
        assert [
            (f["frame"], f["label"], f["date"], f["time"], f["heading"], f["line"]) for f in mine
        ] == [
            (f["frame"], f["label"], f["date"], f["time"], f["heading"], f["line"])
            for f in shown["frames"]
        ]
        arc = cli_json("becoming", a["id"], "--world", str(world))
        assert isinstance(arc, list)
        said = [s for s in statements if s["agent"] == a["id"]]
        assert [
            (s["frame"], s["text"], s["kind"], s["drift"], s["turning_point"], s["chapter"])
            for s in said
        ] == [
            (s["frame"], s["text"], s["kind"], s["magnitude"], s["turning_point"], s["chapter"])
            for s in arc
        ]
    graph = cli_json("graph", "--world", str(world))
    assert isinstance(graph, dict)
    edges = read_table(out, "edges", fmt)
    assert graph["edges"] and frames and statements

    def edge_key(e: dict) -> tuple:
        return (e["from"], e["to"], e["weight"], e["first"], e["last"], e["kind"], e["line"])

    assert sorted(map(edge_key, edges)) == sorted(map(edge_key, graph["edges"]))
    for e, g in zip(sorted(edges, key=edge_key), sorted(graph["edges"], key=edge_key), strict=True):
        assert {k: n for k, n in e.items() if k in g["kinds"]} == g["kinds"]


@pytest.mark.parametrize("fmt", FORMATS)
def test_text_comes_back_as_written(world: Path, tmp_path: Path, fmt: str):
    out = export(world, tmp_path / "out", fmt)
    statements = {s["text"] for s in read_table(out, "statements", fmt)}
    assert 'the doubter, with a comma, and "quotes".' in statements
    frames = read_table(out, "frames", fmt)
    nine = next(f for f in frames if f["agent"] == "dr.who-2" and f["frame"] == 9)
    assert nine["text"].startswith(
        "## Frame 9\n- Influenced by: Bo-02, whose [b]rebuttal[/b] stuck\n"
        "- Becoming: the convert. From doubter to convert.\n"
    )


@pytest.mark.parametrize("fmt", FORMATS)
def test_links_are_the_lines_that_name_another_agent(world: Path, tmp_path: Path, fmt: str):
    out = export(world, tmp_path / "out", fmt)
    links = read_table(out, "links", fmt)
    lines = (world / "memory" / "dr.who-2.md").read_text().splitlines()
    mine = [(x["from"], x["kind"], x["frame"], x["line"]) for x in links if x["to"] == "dr.who-2"]
    reply = lines.index('- Replied to ADA-01 on #3: "yes, but", and more') + 1
    credit = lines.index("- Influenced by: Bo-02, whose [b]rebuttal[/b] stuck") + 1
    assert ("ada-01", "reply", 7, reply) in mine
    assert ("bo-02", "credit", 9, credit) in mine
    for x in links:  # every line said is the file's line
        text = (world / "memory" / f"{x['to']}.md").read_text().splitlines()[x["line"] - 1]
        assert x["text"] in text.strip()


def test_manifest_says_what_the_tables_hold(tmp_path: Path):
    root = history_world(tmp_path)
    head = git(root.parent, "rev-parse", "HEAD").strip()
    out = export(root, tmp_path / "out", "jsonl")
    info = json.loads((out / "manifest.json").read_text())
    assert info["commit"] == head
    assert info["frames"]["first"] == 1 and info["frames"]["last"] == 4
    assert info["frames"]["first_date"] == "2026-03-01"
    assert info["frames"]["last_date"] == "2026-03-04"
    assert info["options"]["format"] == "jsonl"
    assert info["soulscope"]
    for t in TABLES:
        assert info["rows"][t] == len(read_table(out, t, "jsonl"))
    assert sorted(p.name for p in out.iterdir()) == sorted(
        ["manifest.json", *(f"{t}.jsonl" for t in TABLES)]
    )


def test_each_frame_names_the_commit_that_brought_it(tmp_path: Path):
    root = history_world(tmp_path)
    shas = git(root.parent, "log", "--reverse", "--format=%H").split()
    out = export(root, tmp_path / "out", "parquet")
    frames = read_table(out, "frames", "parquet")
    ada = {f["frame"]: f["commit"] for f in frames if f["agent"] == "ada-01"}
    assert ada == {n: shas[n - 1] for n in range(1, 5)}


def test_at_exports_the_world_as_it_was(tmp_path: Path):
    root = history_world(tmp_path)
    second = git(root.parent, "rev-list", "HEAD~2", "-n", "1").strip()
    out = export(root, tmp_path / "out", "csv", "--at", second)
    frames = read_table(out, "frames", "csv")
    assert sorted((f["agent"], f["frame"]) for f in frames) == [
        ("ada-01", 1),
        ("ada-01", 2),
        ("bo-02", 1),
    ]
    info = json.loads((out / "manifest.json").read_text())
    assert info["commit"] == second and info["options"]["at"] == second


def test_a_new_export_replaces_the_old_tables(world: Path, tmp_path: Path):
    out = export(world, tmp_path / "out", "jsonl")
    (world / "memory" / "cy-03.md").unlink()
    export(world, out, "jsonl")
    assert {a["id"] for a in read_table(out, "agents", "jsonl")} == {"ada-01", "bo-02", "dr.who-2"}
    assert not [p for p in out.iterdir() if p.name.startswith(".")]


def test_a_folder_that_cannot_be_written_is_one_sentence(world: Path, tmp_path: Path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    done = soulscope("export", str(blocker / "out"), "--world", str(world))
    assert "cannot make" in one_sentence(done)
    done = soulscope("export", str(tmp_path / "x"), "--format", "xlsx", "--world", str(world))
    assert done.returncode == 2 and "xlsx" in done.stderr


def test_duckdb_reads_the_tables(world: Path, tmp_path: Path):
    duckdb = pytest.importorskip("duckdb", reason="duckdb is optional (the test extra has it)")
    out = export(world, tmp_path / "out", "parquet")
    con = duckdb.connect()
    rows = con.execute(
        f"""SELECT s.agent, count(*) FROM '{out}/statements.parquet' s
        JOIN '{out}/agents.parquet' a ON a.id = s.agent GROUP BY s.agent ORDER BY s.agent"""
    ).fetchall()
    arcs = {a["id"]: a["becoming"] for a in cli_json("agents", "--world", str(world))}  # type: ignore[index]
    assert rows == sorted((k, v) for k, v in arcs.items() if v)


def test_a_world_outside_git_has_no_commits(tmp_path: Path):
    root = write_world(tmp_path / "w", {"ada-01": ODD.replace("dr.who-2", "ada-01")})
    out = export(root, tmp_path / "out", "jsonl")
    assert {f["commit"] for f in read_table(out, "frames", "jsonl")} == {None}
    assert json.loads((out / "manifest.json").read_text())["commit"] is None


@pytest.mark.parametrize("fmt", FORMATS)
def test_bytes_that_are_not_utf8_are_written_as_replacement_characters(tmp_path: Path, fmt: str):
    text = ODD.replace("dr.who-2", "ada-01").encode().replace(b"stuck", b"st\xffuck")
    root = write_world(tmp_path / "w", {"ada-01": text})
    out = export(root, tmp_path / "out", fmt)
    nine = [f for f in read_table(out, "frames", fmt) if f["frame"] == 9]
    assert "st\ufffduck" in nine[0]["text"]


def test_a_link_outside_frames_carries_the_time_its_line_gives(tmp_path: Path):
    """A History bullet is dated by its own stamp (an offset converted to UTC); an undated
    line outside frames stays without a date."""
    text = (
        "# Ada\n\n## History\n"
        "- **2026-02-19T18:38:32Z** — Replied to bo-02 on #3436.\n"
        "- 2026-02-20T09:30-05:00 — Commented on bo-02's proposal.\n"
        "- Relationships: bo-02 (rival)\n\n"
        "## Frame 1 — 2026-03-01\n- Becoming: the builder.\n"
    )
    root = write_world(tmp_path / "w", {"ada-01": text, "bo-02": "# Bo\n"})
    rows = read_table(export(root, tmp_path / "out", "jsonl"), "links", "jsonl")
    got = [(x["kind"], x["date"], x["time"]) for x in rows if x["to"] == "ada-01"]
    assert got == [
        ("reply", "2026-02-19", "18:38"),
        ("comment", "2026-02-20", "14:30"),
        ("relationship", None, None),
    ]


def test_a_long_link_line_comes_whole(tmp_path: Path):
    """The links table is data: a line of 300 characters is not cut to a dossier's length."""
    long = "- Replied to bo-02 on #3: " + "the ledger holds " * 17 + "end."
    text = f"# Ada\n\n## Frame 1 — 2026-03-01\n{long}\n- Becoming: the builder.\n"
    root = write_world(tmp_path / "w", {"ada-01": text, "bo-02": "# Bo\n"})
    rows = read_table(export(root, tmp_path / "out", "jsonl"), "links", "jsonl")
    assert [x["text"] for x in rows if x["to"] == "ada-01"] == [long[2:]]
