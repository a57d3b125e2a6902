"""The local demo: wall seconds of one simulated week (1,008 snapshots, 168 resolutions, the
cohort opening and the decision run through the synthesized state machine) after setup, on
embedded moto, with the recorded market dump and the demo's default lineup (the seven stand-in
models, served on loopback, and the three baselines: ten agents). Target <= 30 s a week.
Run with `make bench` (BENCH_DEMO_WEEKS=2 also times a second week, with two cohorts live).

`--profile` profiles every thread of the run and prints where the weeks' time goes: by stage
(snapshot pass, publication, decision run, resolution) and by component (moto, botocore, the
publication, the stand-ins, ...; see arena_local/demo/profiling.py). The profiler slows the
run: read its shares, and the unprofiled run's seconds.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from contextlib import nullcontext
from datetime import date, datetime
from pathlib import Path
from typing import Any

from arena_local.demo.main import DemoRequest, choose_lineup
from arena_local.demo.markets import choose_markets
from arena_local.demo.runner import DemoRun, RunOptions, demo_start
from arena_local.workflow import LocalWorkflow, synthesized_template

FIXTURES = Path(__file__).resolve().parents[1].parent / "shared" / "fixtures"
WEEKS = int(os.environ.get("BENCH_DEMO_WEEKS", "1"))


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


class TimedRun(DemoRun):
    """The demo's run, each week's CPU seconds (every thread of the process) measured beside
    its wall seconds: on a shared machine the CPU figure moves less."""

    week_cpu: list[float]

    def _simulate_week(self, workflow: LocalWorkflow, week_start: datetime) -> None:
        began = time.process_time()
        super()._simulate_week(workflow, week_start)
        self.week_cpu = [*getattr(self, "week_cpu", []), time.process_time() - began]


def profiler(enabled: bool) -> Any:
    """The profiler's context when asked for (imported then: the module is this branch's)."""
    if not enabled:
        return None
    from arena_local.demo.profiling import ThreadProfiles  # noqa: PLC0415

    return ThreadProfiles()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--weeks", type=int, default=WEEKS, help="simulated weeks (default 1)")
    parser.add_argument("--profile", action="store_true", help="print where the time goes")
    args = parser.parse_args()
    started = time.perf_counter()
    template = synthesized_template()
    markets = choose_markets(path=None, seed=7, fixtures_dir=FIXTURES, http=None)
    lineup = choose_lineup(DemoRequest(), with_llms=False)  # what `make demo` runs
    profiles = profiler(args.profile)
    print(f"load average at the start: {load()}")
    with tempfile.TemporaryDirectory() as tmp, profiles.active() if profiles else nullcontext():
        options = RunOptions(
            weeks=args.weeks,
            seed=7,
            start=demo_start(date(2026, 3, 1)),
            site_dir=Path(tmp) / "site",
            lineup=lineup,
        )
        run = TimedRun(options, markets, template)
        report = run.execute()
    setup = time.perf_counter() - started - sum(report.week_seconds)
    print(f"markets: {markets.describe()}")
    print(f"agents: {len(lineup)} ({', '.join(spec.family_id for spec in lineup)})")
    print(f"setup_seconds (synth, moto, table): {setup:.1f}")
    profiled = " (profiled: slower)" if args.profile else ""
    for number, (seconds, cpu) in enumerate(zip(report.week_seconds, run.week_cpu, strict=True), 1):
        print(
            f"week {number}: {seconds:.1f} s wall for one simulated week{profiled} (target <= 30),"
            f" {cpu:.1f} s CPU"
        )
    print(f"load average at the end: {load()}")
    tally = report.tally
    print(
        f"snapshots={tally.snapshots} executions={tally.executions} "
        f"decisions={len(report.ledger['decisions'])} trades={len(report.ledger['trades'])} "
        f"settlements={len(report.ledger['settlements'])}"
    )
    if profiles:
        from arena_local.demo.profiling import report_lines  # noqa: PLC0415

        print("\n".join(report_lines(profiles.stats())))


if __name__ == "__main__":
    main()
