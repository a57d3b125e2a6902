"""The arena_core Lambda layer, built without Docker for the functions' runtime and architecture.

Dependencies are the wheels of the architecture's lock file (``infra/layer_lock.py``: exact
versions, the ones the tests run, each with its SHA-256), installed from a local cache of wheels
(filled from PyPI once; later synths, offline ones too, read the cache); boto3 is left out (the
runtime provides it; ``adapters/s3_commitments.py`` refuses one without S3 conditional writes),
arena_core itself is copied in, and everything is byte-compiled with unchecked-hash
invalidation: Lambda's /opt is read-only, so without .pyc files every cold start would compile
the library again. The asset hash covers every file of ``layers/arena_core``, lock files
included.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsii
from aws_cdk import BundlingOptions, DockerImage, ILocalBundling
from aws_cdk import aws_lambda as lambda_
from constructs import Construct

from infra.layer_lock import install_locked, wheel_cache

CORE = Path(__file__).resolve().parents[2] / "layers" / "arena_core"
# The Lambda Python runtime ships boto3 and everything it needs (module names): never in the
# layer (the locks leave them out), and linked from this environment by ``runtime_sdk``.
RUNTIME_PACKAGES = ("boto3", "botocore", "s3transfer", "jmespath", "dateutil", "urllib3", "six")
# Powertools subpackages the functions never import (Logger, Metrics, Tracer, Parameters and
# the typing helpers stay): removing them keeps the zipped layer under 8 MB.
UNUSED_POWERTOOLS = (
    "event_handler",
    "utilities/data_classes",
    "utilities/parser",
    "utilities/auth_alpha",
    "utilities/kafka",
    "utilities/idempotency",
    "utilities/feature_flags",
    "utilities/circuit_breaker",
    "utilities/data_masking",
    "utilities/streaming",
    "utilities/batch",
    "utilities/validation",
)


def runtime_sdk(folder: Path) -> Path:
    """A folder holding only what the Lambda runtime provides (boto3 and its dependencies),
    linked from this environment: run a layer against it to prove the layer is complete."""
    folder.mkdir(parents=True, exist_ok=True)
    for package in RUNTIME_PACKAGES:
        module = __import__(package)
        source = Path(module.__file__ or "")
        origin = source.parent if source.name == "__init__.py" else source
        link = folder / origin.name
        if not link.exists():
            link.symlink_to(origin)
    return folder


def build_layer(output_dir: str, architecture: str) -> None:
    target = Path(output_dir) / "python"
    install_locked(architecture, target, wheel_cache())
    shutil.copytree(
        CORE / "arena_core",
        target / "arena_core",
        dirs_exist_ok=True,
        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"),
    )
    for package in RUNTIME_PACKAGES:
        for path in [
            *target.glob(package),
            *target.glob(f"{package}.py"),
            *target.glob(f"{package}-*.dist-info"),
            *target.glob(f"python_{package}-*.dist-info"),
        ]:
            shutil.rmtree(path) if path.is_dir() else path.unlink()
    for unused in UNUSED_POWERTOOLS:
        shutil.rmtree(target / "aws_lambda_powertools" / unused, ignore_errors=True)
    for junk in target.glob("*.dist-info/RECORD"):
        junk.unlink()
    subprocess.run(
        [
            sys.executable,
            "-m",
            "compileall",
            "-q",
            "-j0",
            "--invalidation-mode",
            "unchecked-hash",
            str(target),
        ],
        check=True,
    )


@jsii.implements(ILocalBundling)
class LocalLayerBundling:
    def __init__(self, architecture: str) -> None:
        self._architecture = architecture

    def try_bundle(self, output_dir: str, *_options: Any) -> bool:
        build_layer(output_dir, self._architecture)
        return True


class CoreLayer(Construct):
    def __init__(
        self, scope: Construct, construct_id: str, *, architecture: lambda_.Architecture
    ) -> None:
        super().__init__(scope, construct_id)
        name = architecture.name
        self.layer = lambda_.LayerVersion(
            self,
            "ArenaCore",
            code=lambda_.Code.from_asset(
                str(CORE),
                asset_hash=f"arena-core-{name}-{_source_hash()}",
                bundling=BundlingOptions(
                    image=DockerImage.from_registry("unused"),
                    local=LocalLayerBundling(name),  # type: ignore[arg-type]  # jsii.implements
                ),
            ),
            compatible_runtimes=[lambda_.Runtime.PYTHON_3_12],
            compatible_architectures=[architecture],
            description="arena_core and its dependencies (pydantic, httpx, Powertools, Jinja2)",
        )


def _source_hash() -> str:
    """Content hash of the library and its dependency list, so the layer rebuilds on change
    (build artefacts of the editable install are left out)."""

    digest = hashlib.sha256()
    for path in sorted(CORE.rglob("*")):
        skipped = any(part == "__pycache__" or part.endswith(".egg-info") for part in path.parts)
        if path.is_file() and not skipped:
            digest.update(str(path.relative_to(CORE)).encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]
