"""Scored forecasts and the groupings the statistics work on: per cohort, per shared market."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from operator import attrgetter
from typing import Final, cast

from arena_core.scoring._checks import DEFAULT_EPS, outcome, probability
from arena_core.scoring.bootstrap import Interval, cohort_bootstrap_mean, cohort_bootstrap_skill
from arena_core.scoring.seeds import seed_for

_LOW, _HIGH = DEFAULT_EPS, 1.0 - DEFAULT_EPS


def _log_score(p_yes: float, happened: int) -> float:
    # Same clipping as proper.log_score, inlined: this runs once per row per metric.
    given = p_yes if happened == 1 else 1.0 - p_yes
    return math.log(min(max(given, _LOW), _HIGH))


@dataclass(frozen=True, slots=True)
class ScoredForecast:
    """One resolved forecast: the unit every statistic works on."""

    family_id: str
    agent_id: str
    cohort_id: str  # the week; forecasts of one week are not independent
    market_id: str
    p_yes: float  # the model's probability for YES
    market_p_yes: float  # the market's YES price at the moment of the forecast
    outcome: int  # 1 if YES happened, else 0

    def __post_init__(self) -> None:
        # Checked and normalised once here (Decimal or int to float, bool to int), so the
        # derived scores below are plain float arithmetic.
        object.__setattr__(self, "p_yes", probability(self.p_yes, "p_yes"))
        object.__setattr__(self, "market_p_yes", probability(self.market_p_yes, "market_p_yes"))
        object.__setattr__(self, "outcome", outcome(self.outcome))

    @property
    def brier(self) -> float:
        return (self.p_yes - self.outcome) ** 2

    @property
    def log_score(self) -> float:
        """ln of the probability given to what happened, clipped to [1e-12, 1 - 1e-12]."""
        return _log_score(self.p_yes, self.outcome)

    @property
    def market_brier(self) -> float:
        return (self.market_p_yes - self.outcome) ** 2

    @property
    def market_log_score(self) -> float:
        return _log_score(self.market_p_yes, self.outcome)

    @property
    def relative_log_score(self) -> float:
        """100 x (log score - market log score): Metaculus peer-style against the market."""
        return 100.0 * (self.log_score - self.market_log_score)


METRICS: Final = ("brier", "log_score", "market_brier", "market_log_score", "relative_log_score")
Metric = str | Callable[[ScoredForecast], float]


def _metric(metric: Metric) -> Callable[[ScoredForecast], float]:
    if callable(metric):
        return metric
    if metric not in METRICS:
        raise ValueError(f"unknown metric {metric!r}; expected one of {METRICS}")
    return cast(Callable[[ScoredForecast], float], attrgetter(metric))


def groups_by_cohort(rows: Iterable[ScoredForecast], metric: Metric) -> dict[str, list[float]]:
    """Per cohort (sorted), the metric of each row: the input of ``cohort_bootstrap_mean``.

    ``metric`` is one of ``METRICS`` or a function of a row."""
    value = _metric(metric)
    groups: dict[str, list[float]] = {}
    for row in rows:
        groups.setdefault(row.cohort_id, []).append(value(row))
    return dict(sorted(groups.items()))


def skill_groups_by_cohort(rows: Iterable[ScoredForecast]) -> dict[str, list[tuple[float, float]]]:
    """Per cohort, (Brier, market Brier) pairs: the input of ``cohort_bootstrap_skill``."""
    groups: dict[str, list[tuple[float, float]]] = {}
    for row in rows:
        groups.setdefault(row.cohort_id, []).append((row.brier, row.market_brier))
    return dict(sorted(groups.items()))


def paired_differences(
    rows_a: Iterable[ScoredForecast], rows_b: Iterable[ScoredForecast], metric: Metric
) -> dict[str, list[float]]:
    """Per cohort, A - B on each market both forecast in it: the input of ``paired_comparison``.

    A family that forecast one market several times in a cohort (several agents or bets)
    contributes the mean of its values there, so each shared market counts once. To compare
    many pairs, compute ``market_means`` once per family and call ``difference_groups``.
    """
    return difference_groups(market_means(rows_a, metric), market_means(rows_b, metric))


def market_means(rows: Iterable[ScoredForecast], metric: Metric) -> dict[tuple[str, str], float]:
    """The mean metric per (cohort_id, market_id)."""
    value = _metric(metric)
    values: dict[tuple[str, str], list[float]] = {}
    for row in rows:
        values.setdefault((row.cohort_id, row.market_id), []).append(value(row))
    return {key: math.fsum(v) / len(v) for key, v in values.items()}


def difference_groups(
    a: Mapping[tuple[str, str], float], b: Mapping[tuple[str, str], float]
) -> dict[str, list[float]]:
    """Per cohort, A - B on the (cohort_id, market_id) keys both ``market_means`` have."""
    diffs: dict[str, list[float]] = {}
    for key in sorted(a.keys() & b.keys()):
        diffs.setdefault(key[0], []).append(a[key] - b[key])
    return diffs


def weekly_differences(a: Mapping[str, float], b: Mapping[str, float]) -> dict[str, list[float]]:
    """Per cohort both have, the one difference A - B of a weekly figure (e.g. return %)."""
    return {week: [a[week] - b[week]] for week in sorted(a.keys() & b.keys())}


def minimum_sample(
    rows: Sequence[ScoredForecast], *, min_forecasts: int = 30, min_cohorts: int = 2
) -> bool:
    """Whether a family has enough to be ranked: >= min_forecasts over >= min_cohorts weeks."""
    return len(rows) >= min_forecasts and len({row.cohort_id for row in rows}) >= min_cohorts


def metric_interval(
    rows: Iterable[ScoredForecast], metric: Metric, *, resamples: int = 2000, level: float = 0.95
) -> Interval | None:
    """Mean of a metric with its cohort-bootstrap interval, seeded from the data itself.

    The seed sees each cohort's values sorted, so the order the rows arrive in (which a
    database does not promise) changes nothing."""
    groups = groups_by_cohort(rows, metric)
    name = metric if isinstance(metric, str) else None
    seed = seed_for("mean", name, {cohort: sorted(v) for cohort, v in groups.items()})
    return cohort_bootstrap_mean(groups, seed=seed, resamples=resamples, level=level)


def skill_interval(
    rows: Iterable[ScoredForecast], *, resamples: int = 2000, level: float = 0.95
) -> Interval | None:
    """Brier skill against the market with its cohort-bootstrap interval, seeded from the data
    (order-free, as in ``metric_interval``)."""
    groups = skill_groups_by_cohort(rows)
    seed = seed_for("skill", {cohort: sorted(pairs) for cohort, pairs in groups.items()})
    return cohort_bootstrap_skill(groups, seed=seed, resamples=resamples, level=level)
