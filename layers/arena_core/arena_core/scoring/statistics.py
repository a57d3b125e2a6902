"""Statistics a researcher can cite: intervals, paired comparisons, rank ranges, minimum
samples, calibration with intervals, and how far a comparison is from a verdict.

Pure standard library (it ships in the Lambda layer). The unit is a ``ScoredForecast``; weeks
(cohorts) are the clusters, since forecasts of one week are not independent. Every random
procedure takes an explicit seed; ``seed_for`` derives one from the data, so the same dataset
always gives the same intervals.

Typical use::

    rows = [...]  # ScoredForecast of one family
    if minimum_sample(rows):
        brier = metric_interval(rows, "brier")  # seeded from the data
        skill = skill_interval(rows)
    weekly = {week: [return_pct] for week, return_pct in returns.items()}  # one per week
    ret = cohort_bootstrap_mean(weekly, seed=seed_for("return", weekly))
    ranks = rank_ranges(brier_by_family, lower_is_better=True)

    means = {family: market_means(rows, "brier") for family, rows in by_family.items()}
    diffs = difference_groups(means["a"], means["b"])  # A - B on shared markets, per week
    result = paired_comparison(diffs, seed=seed_for("brier", "a", "b", diffs))
    results = with_holm([result, ...])  # over the family of pairs compared together
    table = reliability_table([(row.p_yes, row.outcome) for row in rows])
"""

from __future__ import annotations

from arena_core.scoring.bootstrap import Interval, cohort_bootstrap_mean, cohort_bootstrap_skill
from arena_core.scoring.breakdowns import (
    LONGER,
    UNDER_MONTH,
    UNDER_WEEK,
    UNKNOWN,
    breakdown,
    by_category,
    by_time_to_close,
    horizon_bucket,
)
from arena_core.scoring.comparisons import (
    PairedResult,
    holm_adjust,
    paired_comparison,
    sign_flip_p_value,
    with_holm,
)
from arena_core.scoring.forecasts import (
    METRICS,
    ScoredForecast,
    difference_groups,
    groups_by_cohort,
    market_means,
    metric_interval,
    minimum_sample,
    paired_differences,
    skill_groups_by_cohort,
    skill_interval,
    weekly_differences,
)
from arena_core.scoring.reliability import (
    ReliabilityBin,
    rank_ranges,
    reliability_table,
    wilson_interval,
)
from arena_core.scoring.seeds import seed_for

__all__ = [
    "LONGER",
    "METRICS",
    "UNDER_MONTH",
    "UNDER_WEEK",
    "UNKNOWN",
    "Interval",
    "PairedResult",
    "ReliabilityBin",
    "ScoredForecast",
    "breakdown",
    "by_category",
    "by_time_to_close",
    "cohort_bootstrap_mean",
    "cohort_bootstrap_skill",
    "difference_groups",
    "groups_by_cohort",
    "holm_adjust",
    "horizon_bucket",
    "market_means",
    "metric_interval",
    "minimum_sample",
    "paired_comparison",
    "paired_differences",
    "rank_ranges",
    "reliability_table",
    "seed_for",
    "sign_flip_p_value",
    "skill_groups_by_cohort",
    "skill_interval",
    "weekly_differences",
    "wilson_interval",
    "with_holm",
]
