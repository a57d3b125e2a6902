"""What the Snapshot function needs in memory and CPU: the peak of Python's allocations
(``tracemalloc``) and the CPU seconds of each snapshot pass and each publication, by scope, in
the cost model's steady state (a year of completed cohorts, five live; ``arena cost``'s).

    nice -n 10 .venv/bin/python bench/bench_publication_memory.py [--history-weeks 47] [--cpu]

The Snapshot function's memory (``infra/constructs/functions.py``) is sized on it: the
largest peak (the daily publication's) plus the runtime and the imports (about 100 MB) must
fit with room for the history to grow. ``tracemalloc`` slows what it traces two to three
times: ``--cpu`` measures the CPU seconds alone, untraced (a deployed function's duration is
about these seconds times the Graviton factor over the CPU share its memory buys).
"""

from __future__ import annotations

import argparse
import time
import tracemalloc
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from arena_core.domain.lineup import BASELINES
from arena_core.services.publish_site import PublishSiteService
from arena_core.services.snapshot import SnapshotService
from arena_local.cost.model import load_prices
from arena_local.cost.steady import SteadyState, measure_steady_state
from arena_local.standins import standin_lineup
from arena_local.workflow import synthesized_template

Peaks = dict[str, list[tuple[float, int]]]  # label -> (CPU seconds, peak bytes) per call


@contextmanager
def traced(
    owner: type, name: str, label: Callable[[Any], str], found: Peaks, *, memory: bool
) -> Iterator[None]:
    """``owner.name`` timed while the block runs (restored after): each call's CPU seconds and,
    with ``memory``, its peak allocation (else 0), under ``label(result)``."""
    original = getattr(owner, name)

    def run(self: Any, *args: Any, **kwargs: Any) -> Any:
        if memory:
            tracemalloc.start()
        began = time.process_time()
        peak = 0
        try:
            result = original(self, *args, **kwargs)
        finally:
            cpu = time.process_time() - began
            if memory:
                peak = tracemalloc.get_traced_memory()[1]
                tracemalloc.stop()
        found[label(result)].append((cpu, peak))
        return result

    setattr(owner, name, run)
    try:
        yield
    finally:
        setattr(owner, name, original)


def _scope(result: Any) -> str:
    scope = getattr(result, "scope", None)
    return f"publication {scope}" if scope else "publication (nothing due)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--history-weeks", type=int, default=SteadyState().history_weeks)
    parser.add_argument("--cpu", action="store_true", help="CPU seconds alone, untraced")
    args = parser.parse_args()
    found: Peaks = defaultdict(list)
    started = time.perf_counter()
    memory = not args.cpu
    with (
        traced(PublishSiteService, "_publish", _scope, found, memory=memory),
        traced(SnapshotService, "run", lambda _: "snapshot pass", found, memory=memory),
    ):
        measure_steady_state(
            synthesized_template(),
            standin_lineup() + BASELINES,
            SteadyState(history_weeks=args.history_weeks),
            runtime_init_seconds=load_prices()["assumptions"]["runtime_init_seconds"],
        )
    print(
        f"steady state with {args.history_weeks} completed weeks "
        f"({time.perf_counter() - started:.0f} s, {'CPU only' if args.cpu else 'traced'})"
    )
    print(f"{'what':34} {'calls':>5} {'peak MB':>8} {'max CPU s':>9}")
    for label, calls in sorted(found.items(), key=lambda i: -max(p for _, p in i[1])):
        peak = max(p for _, p in calls) / 2**20
        cpu = max(c for c, _ in calls)
        print(f"{label:34} {len(calls):>5} {peak:>8.0f} {cpu:>9.2f}")


if __name__ == "__main__":
    main()
