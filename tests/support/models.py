"""The models tests share: what distilling the static model touched (``Distilled``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class Distilled:
    """The static model distilled for a test run, and what the distillation touched."""

    table: Path
    network: list[str] = field(default_factory=list)  # attempts to reach the network
    opened: list[Path] = field(default_factory=list)  # files opened
