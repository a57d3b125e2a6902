"""The arena_core Lambda layer, built without Docker for the functions' runtime and architecture.

Dependencies are installed from PyPI as binary wheels for the target platform (pip's
``--platform``), boto3 is left out (the runtime provides it), arena_core itself is copied in,
and everything is byte-compiled with unchecked-hash invalidation: Lambda's /opt is read-only, so
without .pyc files every cold start would compile the library again.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import jsii
from aws_cdk import BundlingOptions, DockerImage, ILocalBundling
from aws_cdk import aws_lambda as lambda_
from constructs import Construct

CORE = Path(__file__).resolve().parents[2] / "layers" / "arena_core"
PLATFORMS = {
    lambda_.Architecture.ARM_64.name: ("manylinux2014_aarch64", "manylinux_2_28_aarch64"),
    lambda_.Architecture.X86_64.name: ("manylinux2014_x86_64", "manylinux_2_28_x86_64"),
}
RUNTIME_PROVIDED = ("boto3", "botocore")
# The Lambda Python runtime ships boto3 and everything it needs; copies pulled in as transitive
# dependencies (the X-Ray SDK depends on botocore) are removed from the layer after install.
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


def layer_requirements() -> list[str]:
    """arena_core's runtime dependencies (from its pyproject) plus the tracer's SDK."""
    project = tomllib.loads((CORE / "pyproject.toml").read_text())["project"]
    wanted = [d for d in project["dependencies"] if not d.startswith(RUNTIME_PROVIDED)]
    return [*wanted, "aws-xray-sdk>=2.14"]


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


def build_layer(output_dir: str, architecture: str, python_version: str = "3.12") -> None:
    target = Path(output_dir) / "python"
    platforms = [arg for tag in PLATFORMS[architecture] for arg in ("--platform", tag)]
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            *platforms,
            "--only-binary=:all:",
            "--implementation",
            "cp",
            "--python-version",
            python_version,
            "--abi",
            f"cp{python_version.replace('.', '')}",
            "--target",
            str(target),
            *layer_requirements(),
        ],
        check=True,
    )
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
