"""What a cold start costs each function: Lambda bills the INIT phase (loading the runtime and
importing the handler's module) as compute. Each handler module is imported in a fresh process,
as a new execution environment would, and its CPU time taken (the process's, not the wall
clock's: on a shared machine the wall clock counts the other processes' turns too, and it made
INIT seven times what the imports cost); the runtime's own start is an assumption
(``runtime_init_seconds``)."""

from __future__ import annotations

import os
import subprocess
import sys

HANDLER_MODULES = {
    "OpenCohort": "functions.open_cohort.handler",
    "Prepare": "functions.decide.handler",
    "Decide": "functions.decide.handler",
    "Finalize": "functions.decide.handler",
    "Snapshot": "functions.snapshot.handler",
    "Resolve": "functions.resolve.handler",
}
PROBE = "import time; t = time.process_time(); import {module}; print(time.process_time() - t)"


def import_seconds(module: str) -> float:
    """CPU seconds to import ``module`` in a fresh interpreter (compiled files cached)."""
    done = subprocess.run(
        [sys.executable, "-c", PROBE.format(module=module)],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "POWERTOOLS_TRACE_DISABLED": "true"},
    )
    return float(done.stdout.strip().splitlines()[-1])


def init_seconds(runtime_seconds: float) -> dict[str, float]:
    """INIT seconds of a cold start, by function."""
    measured = {module: import_seconds(module) for module in set(HANDLER_MODULES.values())}
    return {name: runtime_seconds + measured[m] for name, m in HANDLER_MODULES.items()}
