"""The code behind a kind of kept data: the modules that produce its entries, found from the
imports of the module that makes them, and a fingerprint of their source.

A kind names the module that makes its entries (``Kind.maker``); every soulscope module it
imports, at the top or inside a function, and every module those import, shapes the entries
too. No list is written by hand: a new import (the parser starting to use ``soul/format.py``) is
in the fingerprint the moment it is made, and an entry made by other code is another key.
"""

from __future__ import annotations

import ast
import hashlib
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


@cache
def _imports(name: str) -> frozenset[str]:
    """The soulscope modules that module ``name`` imports anywhere in its source (``if
    TYPE_CHECKING:`` blocks run nothing and are left out)."""
    path = module_path(name)
    if path is None:
        return frozenset()
    found: set[str] = set()
    todo: list[ast.AST] = [ast.parse(path.read_bytes())]
    while todo:
        node = todo.pop()
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and getattr(child.test, "id", "") == "TYPE_CHECKING":
                todo.extend(child.orelse)
            else:
                todo.append(child)
        if isinstance(node, ast.ImportFrom) and node.level:
            package = name.rsplit(".", node.level)[0] if path.name != "__init__.py" else name
            base = ".".join(filter(None, [package, node.module or ""]))
            found.update(_resolved(base, [a.name for a in node.names]))
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("soulscope"):
            found.update(_resolved(node.module or "", [a.name for a in node.names]))
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.split(".")[0] == "soulscope")
    return frozenset(m for m in found if module_path(m) is not None)


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
