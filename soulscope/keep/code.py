"""The code behind a kind of kept data: the modules that produce its entries, found from the
imports of the module that makes them, and a fingerprint of their source.

A kind names the module that makes its entries (``Kind.maker``); every soulscope module it
imports, at the top or inside a function, and every module those import, shapes the entries
too. No list is written by hand: a new import (the parser starting to use ``soul/format.py``) is
in the fingerprint the moment it is made, and an entry made by other code is another key.
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections.abc import Callable, Iterable
from functools import cache
from pathlib import Path

import soulscope

PACKAGE = Path(soulscope.__file__).resolve().parent


def module_path(name: str) -> Path | None:
    """The source file of the soulscope module ``name`` (``soulscope.soul.parse``), or None."""
    parts = name.split(".")[1:]
    base = PACKAGE.joinpath(*parts)
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if path.is_file():
            return path
    return None


# ``from X import a, (b, c)`` and ``import X`` at the start of a line, inside functions too. A
# regular expression instead of a parse: every command that reads a kept entry asks for a
# fingerprint, and parsing twenty modules cost more than the command. It also reads imports under
# ``if TYPE_CHECKING:`` and in docstrings: a module more in a fingerprint only makes it stricter.
_IMPORT = re.compile(
    rb"^[ \t]*(?:from[ \t]+(\.*[\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n#]*)|import[ \t]+([^\n#]*))",
    re.M,
)
_NAME = re.compile(rb"[A-Za-z_][\w.]*")


@cache
def _imports(name: str) -> frozenset[str]:
    """The soulscope modules that module ``name`` imports anywhere in its source."""
    path = module_path(name)
    if path is None:
        return frozenset()
    found: set[str] = set()
    for m in _IMPORT.finditer(path.read_bytes()):
        source, names, plain = m.groups()
        if plain is not None:
            modules = [n.decode() for n in _NAME.findall(plain) if n != b"as"]
            found.update(n for n in modules if n.split(".")[0] == "soulscope")
            continue
        found.update(_from(name, path, source.decode(), names))
    return frozenset(m for m in found if module_path(m) is not None)


def _from(name: str, path: Path, source: str, names: bytes) -> set[str]:
    """What ``from SOURCE import NAMES`` in module ``name`` (at ``path``) brings of soulscope."""
    level = len(source) - len(source.lstrip("."))
    module = source[level:]
    if level:
        package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
        if level > 1:
            package = package.rsplit(".", level - 1)[0]
        module = ".".join(filter(None, [package, module]))
    elif not module.startswith("soulscope"):
        return set()
    listed = re.sub(rb"\bas[ \t]+\w+", b"", names)
    return _resolved(module, [n.decode() for n in _NAME.findall(listed)])


def _resolved(module: str, names: Iterable[str]) -> set[str]:
    """``from module import a, b``: each name that is a module of its own, else ``module``."""
    out = set()
    for n in names:
        full = f"{module}.{n}"
        out.add(full if module_path(full) is not None else module)
    return out


def producers(makers: Iterable[str]) -> list[str]:
    """The modules ``makers`` and every soulscope module they import, directly or not, sorted."""
    seen: set[str] = set()
    todo = list(makers)
    while todo:
        name = todo.pop()
        if name in seen or module_path(name) is None:
            continue
        seen.add(name)
        todo.extend(_imports(name) - seen)
        # A package's __init__ runs before any of its modules.
        parent = name.rsplit(".", 1)[0]
        if parent != name and parent not in seen:
            todo.append(parent)
    return sorted(seen)


_lock = threading.Lock()
_fingerprints: dict[tuple[str, ...], str] = {}


def fingerprint(
    salt: str, makers: Iterable[str], read: Callable[[Path], bytes] | None = None
) -> str:
    """A digest of ``salt`` (a kind's name and format), soulscope's version and the source of
    every module that shapes the entries ``makers`` make. ``read`` (tests) reads a source file."""
    key = (salt, *sorted(makers))
    with _lock:
        if read is None and key in _fingerprints:
            return _fingerprints[key]
        h = hashlib.sha256(f"{salt}\0{soulscope.__version__}\0".encode())
        for name in producers(makers):
            path = module_path(name)
            assert path is not None
            h.update(name.encode() + b"\0")
            h.update((read or Path.read_bytes)(path))
        digest = h.hexdigest()[:32]
        if read is None:
            _fingerprints[key] = digest
        return digest
