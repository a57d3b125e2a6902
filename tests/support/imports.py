"""The import graph of a package, read from its source (no module is executed).

Every ``import`` and ``from ... import`` counts, at any depth (deferred imports inside functions
included: a function that imports a service at run time still depends on it). ``from a.b import
c`` names the submodule ``a.b.c`` when there is one, else the module ``a.b``.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Edge:
    importer: str
    imported: str
    line: int


def module_name(root: Path, path: Path) -> str:
    """``root/pkg/a/b.py`` → ``pkg.a.b`` and ``root/pkg/a/__init__.py`` → ``pkg.a``."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules(root: Path, package: str) -> dict[str, Path]:
    """Every module of ``package`` (a folder under ``root``), by dotted name."""
    return {module_name(root, p): p for p in sorted((root / package).rglob("*.py"))}


def _resolve(node: ast.ImportFrom, importer: str, is_package: bool) -> str:
    if not node.level:
        return node.module or ""
    base = importer.split(".") if is_package else importer.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join([*base, node.module] if node.module else base)


def edges(known: dict[str, Path]) -> Iterator[Edge]:
    """Every import in the ``known`` modules, as the dotted names they import."""
    for name, path in known.items():
        tree = ast.parse(path.read_text(), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    yield Edge(name, alias.name, node.lineno)
            elif isinstance(node, ast.ImportFrom):
                target = _resolve(node, name, path.name == "__init__.py")
                for alias in node.names:
                    submodule = f"{target}.{alias.name}"
                    yield Edge(name, submodule if submodule in known else target, node.lineno)


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in graph.get(node, ()):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def reachable(known: dict[str, Path], start: set[str]) -> set[str]:
    """The ``known`` modules that importing ``start`` loads: every import, transitively, and the
    packages above each module (importing ``a.b.c`` runs ``a`` and ``a.b`` first)."""
    graph: dict[str, set[str]] = {}
    for edge in edges(known):
        graph.setdefault(edge.importer, set()).add(edge.imported)
    seen: set[str] = set()
    pending = list(start)
    while pending:
        parts = pending.pop().split(".")
        for depth in range(1, len(parts) + 1):
            name = ".".join(parts[:depth])
            if name in known and name not in seen:
                seen.add(name)
                pending += graph.get(name, ())
    return seen
