"""The folders soulscope ships beside its code: ``styles/`` (the dashboard's stylesheet) and
``state/`` (the built-in demo world).

In the source tree (an editable install, or the checkout on ``PYTHONPATH``) they are the top-level
folders of the repository. A wheel carries them inside the package (``soulscope/styles``,
``soulscope/state``; see ``[tool.setuptools.package-dir]`` in pyproject.toml), found through
``importlib.resources``.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

# The folder above the package: the repository root when running from the source tree.
SOURCE_ROOT = Path(__file__).resolve().parent.parent


def bundled(name: str) -> Path:
    """The shipped folder ``name`` (``styles`` or ``state``), wherever this install keeps it."""
    packaged = files("soulscope") / name
    if packaged.is_dir():
        return Path(str(packaged))
    return SOURCE_ROOT / name
