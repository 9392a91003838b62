"""Where things are: the checkout (``ROOT``) and the shared corpus of real soul files.

``corpus_dir`` is how a test reaches the corpus: where it is absent the test is skipped with the
reason, except under CI (``CI=true``), where every test must run and a missing corpus fails.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SHARED = Path(os.environ.get("SOULSCOPE_SHARED", ROOT.parent / "shared"))
CORPUS = SHARED / "corpus"


def under_ci() -> bool:
    return os.environ.get("CI", "").lower() in ("true", "1", "yes")


def corpus_dir(*parts: str) -> Path:
    """A folder or file of the shared corpus (skipped, or failed under CI, where it is absent)."""
    path = CORPUS.joinpath(*parts)
    if not path.exists():
        reason = f"the shared corpus is not here ({path} is absent)"
        if under_ci():
            pytest.fail(f"{reason}; under CI every test must run", pytrace=False)
        pytest.skip(reason)
    return path
