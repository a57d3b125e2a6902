"""The validity benchmark at full size: coverage of every interval type, false verdicts, rank
ranges, early-resolution bias and weeks to a verdict, on simulated seasons with a known truth,
run through the analysis the site and ``arena analyze`` use (``arena_local.validity``).

Writes ``layers/arena_core/arena_core/analysis/validity.json`` (the methodology page's tables,
with the seed and the date) and prints every cell. Fixed seed; 300 seasons per cell by default
(false verdicts then have a Monte-Carlo standard error under 1 point), about three quarters of
an hour on an idle machine with two worker processes. The forecast panel on a world that is
not optimistic is ``bench/bench_power.py``.

    PYTHONPATH=. .venv/bin/python bench/bench_statistics_validity.py [--seasons N] [--workers N]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from arena_core.analysis.validity import RESULTS, all_tables, text
from arena_local.validity.benchmark import Plan, run

OUT = Path(__file__).resolve().parents[1] / "layers/arena_core/arena_core/analysis" / RESULTS


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seasons", type=int, default=300)  # false verdicts: MC SE under 1 point
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--truth-weeks", type=int, default=1500)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    start = time.perf_counter()
    plan = Plan(seasons=args.seasons, workers=args.workers, truth_weeks=args.truth_weeks)
    results = run(plan)
    args.out.write_text(json.dumps(results.to_json(), indent=1) + "\n")
    print()
    for line in text(all_tables(results.to_json())):
        print(line)
    print(f"\nWrote {args.out} in {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
