"""Cold start: import time of each handler module from the built layer, and the layer's size.

The layer is built exactly as the CDK app builds it (pip for the target platform, .pyc with
unchecked-hash invalidation). Zipped size is measured on the arm64 build that deploys; import
times on a build for this machine's architecture (native wheels must match the CPU), each in a
fresh Python 3.12 process, boto3 coming from the environment as on Lambda. Targets: imports
<= 250 ms, zip <= 8 MB. Run with `make bench`.

The machines these run on are shared and their speed drifts by half between hours, so the same
run also times `import boto3` alone and prints each handler relative to it: the 250 ms budget
was set where boto3 took 150 ms (../shared/reference/toolchain.md), a ratio of 1.67.
"""

from __future__ import annotations

import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from infra.constructs.layer import build_layer, runtime_sdk

ROOT = Path(__file__).resolve().parent.parent
HANDLERS = {
    "open_cohort": "handler",
    "decide": "handler",
    "snapshot": "handler",
    "resolve": "handler",
}
# What a function's first publication imports on top of its handler (the site is rendered in
# the snapshot, resolve and finalize functions; the modules load at the first publication).
PUBLISHING = "handler, arena_core.services.publish_site, arena_core.site.render"
RUNS = 5
PROBE = "import time; t = time.perf_counter(); import {module}; print(time.perf_counter() - t)"
BOTO3_REFERENCE_MS = 150  # boto3's import on the machine the 250 ms budget was set on


def zipped_size(folder: Path) -> int:
    archive = shutil.make_archive(str(folder) + "-zip", "zip", folder)
    return Path(archive).stat().st_size


def import_seconds(layer: Path, function: str, module: str = "handler") -> float:
    boto = runtime_sdk(layer.parent / "runtime")  # boto3 and its dependencies, as on Lambda
    env = {
        **os.environ,
        "PYTHONPATH": f"{layer / 'python'}:{boto}",
        "AWS_DEFAULT_REGION": "us-east-1",
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    samples = []
    for _ in range(RUNS):
        out = subprocess.run(
            [sys.executable, "-S", "-c", PROBE.format(module=module)],
            cwd=ROOT / "functions" / function,
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        samples.append(float(out.stdout.strip().splitlines()[-1]))
    return statistics.median(samples)


def main() -> None:
    native = "arm64" if platform.machine() in ("aarch64", "arm64") else "x86_64"
    with tempfile.TemporaryDirectory() as tmp:
        arm = Path(tmp) / "arm64"
        build_layer(str(arm), "arm64")
        size = zipped_size(arm)
        print(f"layer_zip_bytes={size} ({size / 1e6:.2f} MB) target<=8 MB")
        local = arm if native == "arm64" else Path(tmp) / "native"
        if local != arm:
            build_layer(str(local), native)
        version = sys.version.split()[0]
        boto3_seconds = import_seconds(local, "decide", module="boto3")
        print(f"import_ms boto3 alone={boto3_seconds * 1000:.0f} (reference {BOTO3_REFERENCE_MS})")
        probes = [(function, "handler") for function in HANDLERS]
        probes.append(("snapshot+first publication", PUBLISHING))
        for name, module in probes:
            seconds = import_seconds(local, name.split("+")[0], module=module)
            relative = seconds / boto3_seconds
            print(
                f"import_ms {name}={seconds * 1000:.0f} target<=250 ({version}, {native}); "
                f"x{relative:.2f} boto3 = {relative * BOTO3_REFERENCE_MS:.0f} ms at the reference"
            )


if __name__ == "__main__":
    main()
