"""The layer as the CDK app builds it (no Docker): its contents, and the handlers on it."""

from __future__ import annotations

import os
import platform
import re
import subprocess
import sys
from pathlib import Path

import pytest

from infra.constructs import layer as layer_construct
from infra.constructs.layer import build_layer, runtime_sdk
from infra.layer_lock import canonical, environment_versions, layer_requirements, lock_file, locked
from tests.conftest import ROOT
from tests.support.imports import edges, modules, reachable

HARNESS = ("arena_local", "moto", "infra", "tests")

PROBE = """
import handler
from arena_core.observability import tracer
from aws_lambda_powertools.utilities import parameters
from aws_lambda_powertools.utilities.typing import LambdaContext
print(type(tracer.tracer).__name__, parameters.get_secret.__name__)
"""


@pytest.fixture(scope="module")
def layer(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("layer")
    architecture = "arm64" if platform.machine() in ("aarch64", "arm64") else "x86_64"
    build_layer(str(folder), architecture)
    return folder / "python"


def test_layer_holds_the_library_compiled_and_not_the_runtime_sdk(layer: Path) -> None:
    assert (layer / "arena_core" / "site" / "templates" / "index.html.j2").is_file()
    assert list((layer / "arena_core" / "__pycache__").glob("*.cpython-312.pyc"))
    for provided in ("boto3", "botocore", "s3transfer"):
        assert not (layer / provided).exists()
    assert not (layer / "aws_lambda_powertools" / "event_handler").exists()


def test_layer_ships_only_what_the_functions_import(layer: Path) -> None:
    """Every module of the layer's arena_core is loaded by some handler (none is harness), and
    none imports the local harness, moto, the CDK app or the tests."""
    shipped = modules(layer, "arena_core")
    handlers = modules(ROOT, "functions")
    loaded = reachable({**shipped, **handlers}, set(handlers))
    assert sorted(set(shipped) - loaded) == []
    foreign = [e for e in edges(shipped) if e.imported.split(".")[0] in HARNESS]
    assert foreign == []


@pytest.mark.parametrize("function", ["open_cohort", "decide", "snapshot", "resolve"])
def test_every_handler_imports_and_traces_from_the_layer(
    layer: Path, function: str, tmp_path: Path
) -> None:
    sdk = runtime_sdk(tmp_path / "runtime")  # only boto3 & co., as on Lambda
    env = {**os.environ, "PYTHONPATH": f"{layer}:{sdk}", "AWS_DEFAULT_REGION": "us-east-1"}
    result = subprocess.run(
        [sys.executable, "-S", "-c", PROBE],
        cwd=ROOT / "functions" / function,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["Tracer", "get_secret"]


@pytest.mark.parametrize("architecture", ["arm64", "x86_64"])
def test_the_lock_pins_what_the_tests_run_with_hashes(architecture: str) -> None:
    """synth pip-installed unpinned dependencies (it got pydantic 2.14.4 while the tests ran
    2.14.3): the layer now installs its lock, whose versions are this environment's."""
    pins = locked(architecture)
    tested = environment_versions()
    assert {name: tested.get(name) for name in pins} == pins
    wanted = {canonical(re.split(r"[<>=!~ ;\[]", r, maxsplit=1)[0]) for r in layer_requirements()}
    assert wanted <= set(pins)  # every direct requirement (and its own, resolved) is pinned
    lines = [line for line in lock_file(architecture).read_text().splitlines() if "==" in line]
    assert all(re.search(r" --hash=sha256:[0-9a-f]{64}$", line) for line in lines)
    assert not set(pins) & {"boto3", "botocore"}  # the runtime's


def test_the_asset_hash_covers_the_lock(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "arena_core").mkdir()
    (tmp_path / "arena_core" / "__init__.py").write_text("")
    lock = tmp_path / "layer-arm64.lock"
    lock.write_text("pydantic==2.14.3 --hash=sha256:" + "a" * 64 + "\n")
    monkeypatch.setattr(layer_construct, "CORE", tmp_path)
    before = layer_construct._source_hash()
    lock.write_text("pydantic==2.14.4 --hash=sha256:" + "b" * 64 + "\n")
    assert layer_construct._source_hash() != before


def test_a_second_build_needs_no_index(layer: Path, tmp_path: Path) -> None:
    """The module's build filled the cache; with the index unreachable, the next one is
    served from it alone."""
    architecture = "arm64" if platform.machine() in ("aarch64", "arm64") else "x86_64"
    env = {**os.environ, "PIP_INDEX_URL": "http://127.0.0.1:9/simple", "PIP_RETRIES": "0"}
    script = (
        "import sys; from infra.constructs.layer import build_layer; "
        f"build_layer(sys.argv[1], {architecture!r})"
    )
    result = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert (tmp_path / "python" / "pydantic" / "__init__.py").is_file()
