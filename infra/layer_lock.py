"""The layer's lock files: every wheel the layer installs, pinned with its SHA-256, per target
architecture (``layers/arena_core/layer-<arch>.lock``).

Synth installs exactly these (``pip install --no-deps --require-hashes``), from a local cache of
wheels that it fills once (``wheel_cache``): a second synth, or one offline, reads the cache
alone. The lock files sit in ``layers/arena_core``, whose every file the layer's asset hash
covers, so a changed pin is a new layer. The versions are the ones this repository's
environment runs the tests with (its installed distributions constrain the resolution), so the
layer never ships another patch release than the one tested.

Regenerate after a dependency change (needs the package index once):
``.venv/bin/python -m infra.layer_lock``.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import os
import re
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

CORE = Path(__file__).resolve().parents[1] / "layers" / "arena_core"
PLATFORMS = {
    "arm64": ("manylinux2014_aarch64", "manylinux_2_28_aarch64"),
    "x86_64": ("manylinux2014_x86_64", "manylinux_2_28_x86_64"),
}
LOCK_NAMES = {"arm64": "layer-arm64.lock", "x86_64": "layer-x86_64.lock"}
PYTHON = "3.12"
# The Lambda Python runtime ships boto3 and everything it needs: never installed in the layer.
RUNTIME_DISTRIBUTIONS = (
    *("boto3", "botocore", "s3transfer", "jmespath", "python-dateutil", "urllib3", "six"),
)
RUNTIME_PROVIDED = ("boto3", "botocore")
WHEEL = re.compile(r"(?P<name>[^-]+)-(?P<version>[^-]+)-.+\.whl")


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def layer_requirements() -> list[str]:
    """arena_core's runtime dependencies (from its pyproject) plus the tracer's SDK."""
    project = tomllib.loads((CORE / "pyproject.toml").read_text())["project"]
    wanted = [d for d in project["dependencies"] if not d.startswith(RUNTIME_PROVIDED)]
    return [*wanted, "aws-xray-sdk>=2.14"]


def lock_file(architecture: str) -> Path:
    return CORE / LOCK_NAMES[architecture]


def wheel_cache() -> Path:
    """Where synth keeps the locked wheels (``ARENA_LAYER_CACHE``, else the user's cache)."""
    configured = os.environ.get("ARENA_LAYER_CACHE")
    base = Path(configured) if configured else Path.home() / ".cache" / "forecaster-arena"
    return base / "layer-wheels"


def target_arguments(architecture: str) -> list[str]:
    """pip's options for wheels of the Lambda runtime: binary only, CPython 3.12, the
    architecture's manylinux tags."""
    platforms = [arg for tag in PLATFORMS[architecture] for arg in ("--platform", tag)]
    abi = f"cp{PYTHON.replace('.', '')}"
    return [
        *platforms,
        "--only-binary=:all:",
        "--implementation",
        "cp",
        "--python-version",
        PYTHON,
        "--abi",
        abi,
    ]


def pip(*arguments: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "pip", *arguments, "--quiet", "--disable-pip-version-check"]
    return subprocess.run(command, capture_output=True, text=True, check=False)


def fetch_locked(architecture: str, cache: Path) -> None:
    """Every wheel of the lock in ``cache``: from the cache alone when it has them (offline),
    else downloaded once from the index (hashes checked either way)."""
    cache.mkdir(parents=True, exist_ok=True)
    lock = str(lock_file(architecture))
    common = ["download", "--no-deps", "--require-hashes", "-r", lock, "-d", str(cache)]
    offline = pip(
        *common, *target_arguments(architecture), "--no-index", "--find-links", str(cache)
    )
    if offline.returncode == 0:
        return
    online = pip(*common, *target_arguments(architecture))
    if online.returncode != 0:
        raise RuntimeError(
            f"the layer's locked wheels are neither in {cache} nor downloadable:\n"
            f"{online.stderr.strip()}"
        )


def install_locked(architecture: str, target: Path, cache: Path) -> None:
    """The lock's wheels installed into ``target`` from the cache, hashes checked."""
    fetch_locked(architecture, cache)
    installed = pip(
        "install",
        "--no-deps",
        "--require-hashes",
        "-r",
        str(lock_file(architecture)),
        "--no-index",
        "--find-links",
        str(cache),
        "--target",
        str(target),
        *target_arguments(architecture),
    )
    if installed.returncode != 0:
        raise RuntimeError(f"cannot install the layer's locked wheels:\n{installed.stderr}")


def environment_versions() -> dict[str, str]:
    """This environment's installed distributions: the versions the tests run with."""
    return {
        canonical(d.metadata["Name"]): d.version
        for d in importlib.metadata.distributions()
        if d.metadata["Name"]
    }


def write_lock(architecture: str) -> Path:
    """Resolve the layer's requirements for the architecture, constrained to the tested
    versions, and write each wheel's name, version and SHA-256 (runtime packages left out)."""
    with tempfile.TemporaryDirectory() as tmp:
        constraints = Path(tmp) / "constraints.txt"
        constraints.write_text(
            "".join(
                f"{name}=={version}\n" for name, version in sorted(environment_versions().items())
            )
        )
        wheels = Path(tmp) / "wheels"
        found = pip(
            "download",
            "-d",
            str(wheels),
            "-c",
            str(constraints),
            *target_arguments(architecture),
            *layer_requirements(),
        )
        if found.returncode != 0:
            raise RuntimeError(found.stderr)
        lines = []
        for wheel in sorted(wheels.glob("*.whl")):
            match = WHEEL.fullmatch(wheel.name)
            if match is None or canonical(match["name"]) in RUNTIME_DISTRIBUTIONS:
                continue
            digest = hashlib.sha256(wheel.read_bytes()).hexdigest()
            lines.append(f"{canonical(match['name'])}=={match['version']} --hash=sha256:{digest}")
    path = lock_file(architecture)
    header = f"# The layer's wheels for {architecture} (CPython {PYTHON}): infra/layer_lock.py\n"
    path.write_text(header + "\n".join(lines) + "\n")
    return path


def locked(architecture: str) -> dict[str, str]:
    """Package -> version, as the lock pins them."""
    found = {}
    for line in lock_file(architecture).read_text().splitlines():
        if line and not line.startswith("#"):
            name, version = line.split(" ", 1)[0].split("==")
            found[name] = version
    return found


if __name__ == "__main__":
    for arch in PLATFORMS:
        print(write_lock(arch))
