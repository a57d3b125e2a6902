"""The local demo: wall seconds of one simulated week (1,008 snapshots, 168 resolutions, the
cohort opening and the decision run through the synthesized state machine) after setup, on
embedded moto, with the recorded market dump and the demo's default lineup (the seven stand-in
models, served on loopback, and the three baselines: ten agents). Target <= 60 s.
Run with `make bench` (BENCH_DEMO_WEEKS=2 also times a second week, with two cohorts live).
"""

from __future__ import annotations

import os
import tempfile
import time
from datetime import date
from pathlib import Path

from arena_local.demo.main import DemoRequest, choose_lineup
from arena_local.demo.markets import choose_markets
from arena_local.demo.runner import DemoRun, RunOptions, demo_start
from arena_local.workflow import synthesized_template

FIXTURES = Path(__file__).resolve().parents[1].parent / "shared" / "fixtures"
WEEKS = int(os.environ.get("BENCH_DEMO_WEEKS", "1"))


def main() -> None:
    started = time.perf_counter()
    template = synthesized_template()
    markets = choose_markets(path=None, seed=7, fixtures_dir=FIXTURES, http=None)
    lineup = choose_lineup(DemoRequest(), with_llms=False)  # what `make demo` runs
    with tempfile.TemporaryDirectory() as tmp:
        options = RunOptions(
            weeks=WEEKS,
            seed=7,
            start=demo_start(date(2026, 3, 1)),
            site_dir=Path(tmp) / "site",
            lineup=lineup,
        )
        report = DemoRun(options, markets, template).execute()
    setup = time.perf_counter() - started - sum(report.week_seconds)
    print(f"markets: {markets.describe()}")
    print(f"agents: {len(lineup)} ({', '.join(spec.family_id for spec in lineup)})")
    print(f"setup_seconds (synth, moto, table): {setup:.1f}")
    for number, seconds in enumerate(report.week_seconds, 1):
        print(f"week {number}: {seconds:.1f} s wall for one simulated week (target <= 60)")
    tally = report.tally
    print(
        f"snapshots={tally.snapshots} executions={tally.executions} "
        f"decisions={len(report.ledger['decisions'])} trades={len(report.ledger['trades'])} "
        f"settlements={len(report.ledger['settlements'])}"
    )


if __name__ == "__main__":
    main()
