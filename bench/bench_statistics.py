"""Time the leaderboard's statistics at 52 weeks of seven families, as a publication computes
them (``arena_core.analysis.board.analyze``: every figure, pair, rank range and calibration).

Seasons come from the validity benchmark's simulated world (``arena_local.validity``): v1 bets
and the v1+panel forecasts of K = 30 markets a week. Prints seconds per analysis at 1, 13 and
52 weeks and the 52-week / 1-week ratio (the statistics grow with the rows; pure Python in the
layer, no numpy).

    PYTHONPATH=. .venv/bin/python bench/bench_statistics.py
"""

from __future__ import annotations

import time

from arena_core.analysis.board import analyze
from arena_core.analysis.figures import BRIER, PEER, Rules
from arena_local.validity.benchmark import WORLD
from arena_local.validity.world import Design, Season, simulate

REPEATS = 3


def _analyse(season: Season, methodology: str) -> None:
    models = {f.family_id for f in WORLD.families}
    analyze(
        season.forecasts,
        season.returns,
        season.positions,
        rankable=models,
        compared=models,
        measure=PEER if methodology == "v1+panel" else BRIER,
        rules=Rules(),
        peer_market=methodology == "v1+panel",
        groups={"category": lambda f: f.category, "time_to_close": lambda f: f.horizon},
    )


def seconds(methodology: str, weeks: int) -> tuple[float, int]:
    season = simulate(WORLD, Design(methodology, weeks, panel_size=30), seed=weeks)
    best = float("inf")
    for _ in range(REPEATS):
        start = time.perf_counter()
        _analyse(season, methodology)
        best = min(best, time.perf_counter() - start)
    return best, len(season.forecasts)


def main() -> None:
    for methodology in ("v1", "v1+panel"):
        found = {weeks: seconds(methodology, weeks) for weeks in (1, 13, 52)}
        for weeks, (taken, rows) in found.items():
            print(f"{methodology:<9} {weeks:>2} weeks, {rows:>6} forecasts: {taken:.3f} s")
        ratio = found[52][0] / found[1][0]
        print(f"{methodology:<9} 52 weeks / 1 week: {ratio:.1f}")


if __name__ == "__main__":
    main()
