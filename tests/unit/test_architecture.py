"""The layer's dependency rules, checked on its source: one direction, no cycles, no harness.

    errors/constants ← domain ← scoring ← analysis ← protocol/workflow ← ports ← dataset ← site
        ← publication ← services
        ← adapters/agents/settings/bootstrap/entrypoints/observability ← functions

A module may import its own layer and the layers to its left, never to its right; ports never
import the reply protocol; nothing in the layer imports the local harness, the CDK app, moto or
the tests. The checker is shown to fail on deliberate violations, so a pass means something.
"""

from __future__ import annotations

from pathlib import Path

from tests.conftest import ROOT
from tests.support.imports import Edge, cycles, edges, modules

LAYER_ROOT = ROOT / "layers" / "arena_core"
ORDER: tuple[tuple[str, ...], ...] = (
    ("errors", "constants", "code"),
    ("domain",),
    ("scoring",),
    ("analysis",),
    ("protocol", "workflow"),
    ("ports",),
    ("dataset",),
    ("site",),
    ("publication",),
    ("services",),
    ("adapters", "agents", "settings", "bootstrap", "entrypoints", "observability"),
)
FORBIDDEN_PAIRS = {("ports", "protocol")}  # ports describe interfaces, not the reply format
FOREIGN = ("arena_local", "infra", "functions", "tests", "moto", "aws_cdk")


def level_of(module: str) -> tuple[int, str] | None:
    """(position in ORDER, top-level part) of an ``arena_core`` module; None for the package."""
    parts = module.split(".")
    if parts[0] != "arena_core" or len(parts) == 1:
        return None
    for position, names in enumerate(ORDER):
        if parts[1] in names:
            return position, parts[1]
    raise AssertionError(f"{module} belongs to no layer: add it to ORDER")


def violations(root: Path, package: str = "arena_core") -> list[str]:
    known = modules(root, package)
    found = []
    graph: dict[str, set[str]] = {name: set() for name in known}
    for edge in edges(known):
        found += _check(edge)
        if edge.imported in known:
            graph[edge.importer].add(edge.imported)
    found += [f"import cycle: {' ↔ '.join(c)}" for c in cycles(graph)]
    return found


def _check(edge: Edge) -> list[str]:
    where = f"{edge.importer}:{edge.line} imports {edge.imported}"
    if edge.imported.split(".")[0] in FOREIGN:
        return [f"{where}: the layer must not depend on {edge.imported.split('.')[0]}"]
    mine, theirs = level_of(edge.importer), level_of(edge.imported)
    if mine is None or theirs is None:
        return []
    if theirs[0] > mine[0]:
        return [f"{where}: {mine[1]} may not import {theirs[1]} (a later layer)"]
    if (mine[1], theirs[1]) in FORBIDDEN_PAIRS:
        return [f"{where}: {mine[1]} may not import {theirs[1]}"]
    return []


def test_the_layer_imports_in_one_direction_without_cycles_or_harness() -> None:
    assert violations(LAYER_ROOT) == []


def write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def test_the_checker_finds_an_upward_import_a_cycle_and_the_harness(tmp_path: Path) -> None:
    root = write(
        tmp_path,
        {
            "arena_core/__init__.py": "",
            "arena_core/domain/__init__.py": "",
            "arena_core/domain/money.py": "from arena_core.domain import rules\n",
            "arena_core/domain/rules.py": "from arena_core.domain.money import CENT\n",
            "arena_core/domain/book.py": "def f():\n    from arena_core.services import decide\n",
            "arena_core/services/__init__.py": "",
            "arena_core/services/decide.py": "from arena_core import bootstrap\n",
            "arena_core/bootstrap.py": "import arena_local.memory\n",
            "arena_core/ports/__init__.py": "",
            "arena_core/ports/agent.py": "from arena_core.protocol.prompt import Prompt\n",
            "arena_core/protocol/__init__.py": "",
            "arena_core/protocol/prompt.py": "",
        },
    )
    found = violations(root)
    assert any("domain may not import services" in v for v in found)  # deferred import counts
    assert any("services may not import bootstrap" in v for v in found)
    assert any("ports may not import protocol" in v for v in found)
    assert any("must not depend on arena_local" in v for v in found)
    assert any("cycle" in v and "arena_core.domain.money" in v for v in found)


def test_the_handlers_import_only_the_layer_and_the_runtime() -> None:
    handlers = modules(ROOT, "functions")
    allowed = ("arena_core", "aws_lambda_powertools", "typing", "__future__")
    for edge in edges(handlers):
        assert edge.imported.split(".")[0] in allowed, edge


BLOCK_CDK = """
import importlib, pkgutil, sys
class NoCdk:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("aws_cdk", "cdk_nag", "constructs", "jsii"):
            raise ImportError(f"{name} is not installed here")
        return None
sys.meta_path.insert(0, NoCdk())
import tests.integration.persistence as package
for module in pkgutil.iter_modules(package.__path__):
    importlib.import_module(f"{package.__name__}.{module.name}")
print("imported", len(list(pkgutil.iter_modules(package.__path__))))
"""


def test_the_persistence_suite_needs_no_cdk() -> None:
    """Persistence tests (and the moto shims they run on) import without aws_cdk installed."""
    import subprocess  # noqa: PLC0415
    import sys  # noqa: PLC0415

    result = subprocess.run(
        [sys.executable, "-c", BLOCK_CDK], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.startswith("imported")
