"""Leaderboard statistics at full scale: 52 weeks x 7 families, ~30 forecasts per family-week.

Prints the wall seconds (pure Python, one thread) of: every family's four intervals (mean
Brier, mean log score, Brier skill vs the market, mean weekly return %), built from the rows as
the leaderboard would; all 21 pairwise comparisons on two metrics (Brier on shared markets,
weekly return %) plus Holm; and the total. Then everything the site computes from the same
rows (``arena_core.site.statistics.compute``: six intervals per family, rank ranges, both
pairwise tables, calibration with Wilson intervals and Murphy, breakdowns by category and
time to close), as the publishing function runs it. Each figure is the best of a few runs, after one
warm-up run, and the first run is shown too. Figures only: nothing here asserts on time.
Run with `PYTHONPATH=. .venv/bin/python bench/bench_statistics.py`.
"""

from __future__ import annotations

import itertools
import random
import time
import zlib
from collections.abc import Callable

from arena_core.scoring.statistics import (
    Interval,
    PairedResult,
    ScoredForecast,
    cohort_bootstrap_mean,
    difference_groups,
    market_means,
    metric_interval,
    paired_comparison,
    seed_for,
    skill_interval,
    weekly_differences,
    with_holm,
)
from arena_core.site.statistics import RankingRules, Statistics, compute

WEEKS, FAMILIES, MARKETS_PER_WEEK, RUNS = 52, 7, 40, 5


def synthetic() -> tuple[dict[str, list[ScoredForecast]], dict[str, dict[str, float]]]:
    """Seeded rows per family and weekly returns per family: families differ in sharpness."""
    rng = random.Random(20240107)
    rows: dict[str, list[ScoredForecast]] = {f"family-{f}": [] for f in range(FAMILIES)}
    returns: dict[str, dict[str, float]] = {family: {} for family in rows}
    for week in range(WEEKS):
        cohort = f"2024-W{week + 1:02d}"
        truths = [rng.betavariate(2, 2) for _ in range(MARKETS_PER_WEEK)]
        outcomes = [int(rng.random() < t) for t in truths]
        prices = [min(max(t + rng.gauss(0, 0.08), 0.01), 0.99) for t in truths]
        for f, family in enumerate(rows):
            noise = 0.05 + 0.03 * f
            picks = rng.sample(range(MARKETS_PER_WEEK), rng.randint(25, 35))
            for m in picks:
                p = min(max(truths[m] + rng.gauss(0, noise), 0.01), 0.99)
                rows[family].append(
                    ScoredForecast(
                        family, f"{family}-agent", cohort, f"m{week}-{m}", p, prices[m], outcomes[m]
                    )
                )
            returns[family][cohort] = rng.gauss(0.5 - 0.2 * f, 4.0)
    return rows, returns


def family_intervals(
    rows: dict[str, list[ScoredForecast]], returns: dict[str, dict[str, float]]
) -> list[Interval | None]:
    out = []
    for family, family_rows in rows.items():
        out.append(metric_interval(family_rows, "brier"))
        out.append(metric_interval(family_rows, "log_score"))
        out.append(skill_interval(family_rows))
        weekly = {week: [value] for week, value in returns[family].items()}
        out.append(cohort_bootstrap_mean(weekly, seed=seed_for("return", weekly)))
    return out


def comparisons(
    rows: dict[str, list[ScoredForecast]], returns: dict[str, dict[str, float]]
) -> list[PairedResult]:
    results = []
    # One pass per family, then 21 cheap joins (what the leaderboard should do too).
    means = {family: market_means(family_rows, "brier") for family, family_rows in rows.items()}
    for metric in ("brier", "return"):
        family_results = []
        for a, b in itertools.combinations(sorted(rows), 2):
            if metric == "brier":
                diffs = difference_groups(means[a], means[b])
            else:
                diffs = weekly_differences(returns[a], returns[b])
            result = paired_comparison(diffs, seed=seed_for(metric, a, b, diffs))
            if result is not None:
                family_results.append(result)
        results += with_holm(family_results)  # Holm over the 21 pairs of one metric
    return results


CATEGORIES = ("Politics", "Sports", "Crypto", "Economy", "Culture")
HORIZONS = ("under_week", "under_month", "longer")


def site_statistics(
    rows: dict[str, list[ScoredForecast]], returns: dict[str, dict[str, float]]
) -> Statistics:
    """What the leaderboard, pairwise and model pages show, computed as the site does."""

    def category(row: ScoredForecast) -> str:
        return CATEGORIES[zlib.crc32(row.market_id.encode()) % len(CATEGORIES)]

    def horizon(row: ScoredForecast) -> str:
        return HORIZONS[len(row.market_id) % len(HORIZONS)]

    return compute(
        rows,
        returns,
        rankable=set(rows),
        rules=RankingRules(),
        groups={"category": category, "time_to_close": horizon},
    )


def timed(action: Callable[[], object]) -> tuple[float, float]:
    """(first run, best of RUNS) wall seconds."""
    times = []
    for _ in range(RUNS + 1):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return times[0], min(times[1:])


def main() -> None:
    rows, returns = synthetic()
    forecasts = sum(len(r) for r in rows.values())
    print(f"dataset: {WEEKS} weeks x {FAMILIES} families, {forecasts} scored forecasts")
    first_i, best_i = timed(lambda: family_intervals(rows, returns))
    first_c, best_c = timed(lambda: comparisons(rows, returns))
    print(
        f"intervals   ({FAMILIES} families x 4 metrics): {best_i:.3f} s (first run {first_i:.3f} s)"
    )
    print(f"comparisons (21 pairs x 2 metrics + Holm):  {best_c:.3f} s (first run {first_c:.3f} s)")
    print(f"total:                                      {best_i + best_c:.3f} s")
    first_s, best_s = timed(lambda: site_statistics(rows, returns))
    print(f"site statistics (all the pages show): {best_s:.3f} s (first run {first_s:.3f} s)")
    results = comparisons(rows, returns)
    brier = results[0]
    print(
        f"example (family-0 vs family-1, Brier): diff {brier.difference.estimate:+.4f} "
        f"[{brier.difference.low:+.4f}, {brier.difference.high:+.4f}] p={brier.p_value:.4f} "
        f"holm={brier.p_holm:.4f} units={brier.units} weeks={brier.clusters}"
    )


if __name__ == "__main__":
    main()
