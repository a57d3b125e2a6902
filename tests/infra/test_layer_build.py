"""The layer as the CDK app builds it (no Docker): its contents, and the handlers on it."""

from __future__ import annotations

import os
import platform
import subprocess
import sys
from pathlib import Path

import pytest

from infra.constructs.layer import build_layer, runtime_sdk
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
