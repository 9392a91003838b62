"""The house's layers (docs/architecture.md): no module imports from a layer above its own, and no
import circle, counting the imports made inside functions (names imported for the type checker
alone, under ``if TYPE_CHECKING:``, run nothing). Read from the source with ``ast``."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.support.paths import ROOT

PACKAGE = ROOT / "soulscope"

# From the bottom up; a module may import from its own layer and the ones below.
LAYERS = [
    {"soulscope", "errors", "controls", "bundled", "atomic", "config", "collector", "keep", "pool"},
    {"bugs", "soul"},
    {"world"},
    {"index", "memo", "llm"},
    {"recall", "sim"},
    {"chat", "history"},
    {"runs", "tables", "tablefiles"},
    {"cli", "tui"},
    {"__main__"},
]
LAYER = {part: i for i, parts in enumerate(LAYERS) for part in parts}
# Circles still to be broken, each named: none may be added.
KNOWN_CIRCLES: list[set[str]] = []


def _modules() -> dict[str, Path]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(ROOT).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


def _runtime_nodes(tree: ast.AST) -> list[ast.AST]:
    """Every node that runs: ``if TYPE_CHECKING:`` blocks are names for the type checker only."""
    out: list[ast.AST] = []
    todo = [tree]
    while todo:
        node = todo.pop()
        out.append(node)
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and getattr(child.test, "id", "") == "TYPE_CHECKING":
                todo.extend(child.orelse)
                continue
            todo.append(child)
    return out


def _imports(path: Path, modules: dict[str, Path]) -> set[str]:
    found: set[str] = set()
    for node in _runtime_nodes(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("soulscope"):
            for alias in node.names:
                full = f"{node.module}.{alias.name}"
                found.add(full if full in modules else node.module)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("soulscope"))
    return {m for m in found if m in modules}


def _area(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    return {name: _imports(path, modules) - {name} for name, path in modules.items()}


def test_every_module_has_a_layer() -> None:
    assert not {_area(m) for m in _graph()} - set(LAYER)


def test_no_module_imports_from_a_layer_above() -> None:
    upward = [
        f"{m} -> {t}"
        for m, targets in _graph().items()
        for t in targets
        if LAYER[_area(t)] > LAYER[_area(m)]
    ]
    assert not upward, upward


def test_no_import_circles() -> None:
    graph = _graph()
    # Tarjan's strongly connected components; a component of two or more modules is a circle.
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles: list[set[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.add(w)
                if w == v:
                    break
            if len(component) > 1:
                circles.append(component)

    for v in sorted(graph):
        if v not in index:
            visit(v)
    new = [c for c in circles if c not in KNOWN_CIRCLES]
    assert not new, new
