"""The fault week at full size: `tests/e2e/test_demo.py`'s scenario on moto at the deployed
cadence (a snapshot pass every 10 minutes: 1,008 a week), which the suite runs at a third of
the passes. The three baselines, one week clean and the same week with every fault injected;
prints the wall seconds, the load average, and the verdict on what the suite checks at its
size: the two ledgers identical, every crash point fired and retried, the week's passes all
run. Exits 1 when a check fails.
"""

from __future__ import annotations

import io
import os
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

from arena_local.demo.faults import CRASH_POINTS
from arena_local.demo.ledger import canonical
from arena_local.demo.main import DemoRequest, run_demo

PASS_MINUTES = 10  # as deployed


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> int:
    print(f"load average at the start: {load()}")
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        request = DemoRequest(
            weeks=1,
            seed=7,
            out=Path(tmp) / "site",
            agents=("baselines",),
            faults=True,
            offline=True,
            start=date(2026, 3, 1),
            pass_minutes=PASS_MINUTES,
        )
        outcome = run_demo(request, io.StringIO())
    seconds = time.perf_counter() - started
    print(f"the fault week (clean, then with faults), setup included: {seconds:.1f} s wall")
    print(f"load average at the end: {load()}")
    faulty, injector = outcome.faulty, outcome.injector
    if faulty is None or injector is None:  # asked for (faults=True): never
        raise SystemExit("the demo ran no fault week")
    checks = {
        "ledgers identical": canonical(faulty.ledger) == canonical(outcome.clean.ledger),
        "every crash point fired": sorted(injector.fired) == sorted(p.name for p in CRASH_POINTS),
        "crashes retried": injector.retries >= 2,
        "one run at a time": injector.concurrent_runs == 1,
        "every pass ran": outcome.clean.tally.snapshots == 7 * 24 * 60 // PASS_MINUTES,
        "one decision run": outcome.clean.tally.executions == 1,
    }
    for name, holds in checks.items():
        print(f"{name}: {'yes' if holds else 'NO'}")
    return 0 if all(checks.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
