"""Small worlds written by hand into tmp: a few soul files of a few frames, whose every line a test
can name. ``ADA`` (a four-frame arc with a repeat and shifts), ``BO`` (a short one) and ``CY`` (text
that looks like Rich markup, to be shown as written); ``write_world`` lays them out as a world.
``GARDENER``, ``ASTRONOMER`` and ``BAKER`` are arcs of one identity each, for chapters by meaning.
"""

from __future__ import annotations

import json
from pathlib import Path


def frame(number: int, date: str, action: str, becoming: str, extra: str = "") -> str:
    return (
        f"## Frame {number} — {date}\n"
        f"- {action}\n"
        f"- Influenced by: the frame before.\n"
        f"{extra}"
        f"- Becoming: {becoming}\n\n"
    )


def soul(name: str, agent_id: str, archetype: str, frames: list[str]) -> str:
    return (
        f"# {name}\n\n## Identity\n- **ID:** {agent_id}\n- **Archetype:** {archetype}\n"
        f"- **Voice:** plain\n\n## Convictions\n- Memory is a ledger.\n\n" + "".join(frames)
    )


ADA = soul(
    "Ada Ledger",
    "ada-01",
    "Archivist",
    [
        frame(
            1, "2026-03-01", "Catalogued the commons.", "the cataloguer. From reader to cataloguer."
        ),
        frame(
            2, "2026-03-02", "Indexed #12 and #15.", "the cataloguer. From reader to cataloguer."
        ),
        frame(
            3, "2026-03-03", "Wrote the index guide.", "the indexer. From cataloguer to indexer."
        ),
        frame(4, "2026-03-04", "Argued with bo-02.", "the archivist. From indexer to archivist."),
    ],
)
BO = soul(
    "Bo Debater",
    "bo-02",
    "Debater",
    [
        frame(2, "2026-03-02", "Challenged ada-01.", "the contrarian."),
        frame(4, "2026-03-04", "Conceded a point.", "the listener. From contrarian to listener."),
    ],
)
# Markup-looking text must be shown as written, never interpreted.
CY = soul(
    "Cy [bold red]Markup[/]",
    "cy-03",
    "Coder",
    [
        frame(
            1,
            "2026-03-01",
            "Posted [bold red]x[/] and [link=https://example.com]y[/link].",
            "the [i]escaper[/i]. From [b]raw[/b] to escaped.",
        ),
    ],
)


def write_world(
    root: Path, souls: dict[str, str | bytes], names: dict[str, str] | None = None
) -> Path:
    """A world folder with these soul files (and an ``agents.json`` when names are given)."""
    memory = root / "memory"
    memory.mkdir(parents=True)
    for agent_id, text in souls.items():
        data = text.encode("utf-8") if isinstance(text, str) else text
        (memory / f"{agent_id}.md").write_bytes(data)
    if names is not None:
        registry = {
            "agents": {k: {"name": v} for k, v in names.items()},
            "_meta": {"count": len(names)},
        }
        (root / "agents.json").write_text(json.dumps(registry), encoding="utf-8")
    return root


NAMES = {"ada-01": "Ada Ledger", "bo-02": "Bo Debater", "cy-03": "Cy [bold red]Markup[/]"}


def write_small_world(root: Path) -> Path:
    """``ADA``, ``BO`` and ``CY`` as a world at ``root``, with their names in ``agents.json``."""
    return write_world(root, {"ada-01": ADA, "bo-02": BO, "cy-03": CY}, NAMES)


# Three stretches of one identity each, said differently at every step (no statement repeats).
GARDENER = [
    "the gardener who waters tomatoes at dawn",
    "the gardener: tomatoes need shade in July heat",
    "compost feeds the tomatoes better than any bottle",
    "the gardener pruning tomatoes so the fruit ripens",
    "tomatoes split after rain; the gardener waters less",
]
ASTRONOMER = [
    "the astronomer counting comets over the northern ridge",
    "comets brighten near perihelion; the astronomer logs each one",
    "a telescope mirror ground for comets and faint nebulae",
    "the astronomer maps comets against the star catalogue",
    "nebulae and comets share the long winter nights",
]
BAKER = [
    "the baker proving sourdough overnight in a cold cellar",
    "sourdough starter fed twice daily keeps the baker busy",
    "the baker scores sourdough loaves before the oven",
    "rye flour makes the sourdough crumb denser",
    "the baker sells sourdough at the Saturday market",
]
