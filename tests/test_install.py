"""What an install carries: the version, and the stylesheet and demo world found wherever it runs.

The wheel itself is installed and used outside the checkout by ``scripts/check-wheel`` (make test).
"""

from __future__ import annotations

import subprocess
import sys
import sysconfig
from importlib.metadata import version

import soulscope
from soulscope.bundled import bundled
from soulscope.world import DEMO_WORLD, World
from tests.support.paths import ROOT


def test_version_is_printed_and_matches_the_installed_metadata() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "soulscope", "--version"], capture_output=True, text=True, cwd=ROOT
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == f"soulscope {soulscope.__version__}"
    assert version("soulscope") == soulscope.__version__


def test_styles_and_demo_world_are_found_from_a_plain_source_tree(tmp_path) -> None:
    # The checkout on sys.path and the dependencies beside it, but no install of soulscope: -S skips
    # site-packages' .pth files, where an editable install lives.
    code = (
        "import sys; sys.path += [sys.argv[2]]; sys.path.insert(0, sys.argv[1]); "
        "import soulscope; from soulscope.tui.app import STYLES; from soulscope.world import DEMO_WORLD; "
        "print(soulscope.__file__, STYLES.is_file(), (DEMO_WORLD / 'memory').is_dir())"
    )
    out = subprocess.run(
        [sys.executable, "-S", "-c", code, str(ROOT), sysconfig.get_paths()["purelib"]],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert out.stdout.split() == [str(ROOT / "soulscope" / "__init__.py"), "True", "True"], (
        out.stderr
    )


def test_the_demo_world_is_the_shipped_state_folder() -> None:
    assert bundled("state") == DEMO_WORLD
    assert len(World.open(DEMO_WORLD).agents()) >= 10
    assert (bundled("styles") / "app.tcss").is_file()
