"""The default deployment's monthly cost (7 families of the v1 lineup and 3 baselines), from a
metered simulated week: prints what `arena cost` prints, and how long the measurement took."""

from __future__ import annotations

import time

from arena_local.cost.main import cost_report


def main() -> None:
    started = time.perf_counter()
    lines = cost_report()
    took = time.perf_counter() - started
    print(f"(metered week and synth: {took:.0f} s)")
    for line in lines:
        print(line)


if __name__ == "__main__":
    main()
