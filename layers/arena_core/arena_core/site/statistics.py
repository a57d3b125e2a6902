"""The leaderboard's statistics: every headline number with its interval and its sample.

From the scored forecasts of each family (v1: one per scored bet) and each family's return %
per cohort: the mean Brier, log score, Brier skill and log score relative to the market, and
mean return, each with a 95% cohort-bootstrap interval; which families have the sample to be
ranked; rank ranges and ties with the leader; paired comparisons of every two families with
Holm-adjusted p-values and how far each pair is from a verdict; calibration with Wilson
intervals and the Murphy decomposition, beside the market's on the same forecasts; breakdowns
by category and by time to close. Pure: data in, results out (the seeds come from the data).
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from itertools import combinations
from typing import Protocol, TypeVar

from arena_core.scoring.calibration import murphy_decomposition
from arena_core.scoring.statistics import (
    Interval,
    PairedResult,
    ReliabilityBin,
    ScoredForecast,
    cohort_bootstrap_mean,
    difference_groups,
    market_means,
    metric_interval,
    paired_comparison,
    rank_ranges,
    reliability_table,
    seed_for,
    skill_interval,
    weekly_differences,
    with_holm,
)

BREAKDOWN_RESAMPLES = 1000  # many small groups: a coarser bootstrap is enough for them


@dataclass(frozen=True)
class RankingRules:
    """A family is ranked only with this many scored forecasts over this many cohorts."""

    min_forecasts: int = 30
    min_cohorts: int = 2


@dataclass(frozen=True)
class Calibration:
    bins: tuple[ReliabilityBin, ...]
    market_bins: tuple[ReliabilityBin, ...]  # the market's prices on the same forecasts
    murphy: Mapping[str, float] | None
    market_murphy: Mapping[str, float] | None


@dataclass(frozen=True)
class FamilyStatistics:
    family_id: str
    forecasts: int
    cohorts: int  # cohorts holding at least one of its scored forecasts
    brier: Interval | None
    log_score: Interval | None
    skill: Interval | None  # Brier skill score against the market on the same forecasts
    relative_log: Interval | None  # 100 x (log score - the market's), Metaculus peer-style
    market_brier: Interval | None  # the market's own Brier on the same forecasts
    returns: Interval | None  # mean return % over its cohorts (one value per cohort)
    eligible: bool  # has the minimum sample
    calibration: Calibration
    rank: int | None = None
    rank_range: tuple[int, int] | None = None
    tied_with_leader: bool = False


@dataclass(frozen=True)
class Pair:
    """Family A against family B on one measure: differences are A - B."""

    family_a: str
    family_b: str
    measure: str  # "brier" (on markets both forecast in a week) or "return_pct" (shared weeks)
    result: PairedResult | None  # None when they share nothing

    @property
    def verdict(self) -> str:
        if self.result is None:
            return "nothing shared yet"
        p = self.result.p_holm if self.result.p_holm is not None else self.result.p_value
        if p < 0.05:
            return "A lower" if self.result.difference.estimate < 0 else "A higher"
        return "indistinguishable so far"


@dataclass(frozen=True)
class Breakdown:
    family_id: str
    dimension: str  # "category" or "time_to_close"
    group: str
    forecasts: int
    brier: Interval | None
    skill: Interval | None


@dataclass
class Statistics:
    families: dict[str, FamilyStatistics] = field(default_factory=dict)
    market: Interval | None = None  # the market's Brier on every scored forecast
    pairs: list[Pair] = field(default_factory=list)
    breakdowns: list[Breakdown] = field(default_factory=list)


def family_statistics(
    family_id: str,
    rows: Sequence[ScoredForecast],
    returns: Mapping[str, float],
    rules: RankingRules,
) -> FamilyStatistics:
    weekly = {cohort: [value] for cohort, value in sorted(returns.items())}
    return FamilyStatistics(
        family_id=family_id,
        forecasts=len(rows),
        cohorts=len({r.cohort_id for r in rows}),
        brier=metric_interval(rows, "brier"),
        log_score=metric_interval(rows, "log_score"),
        skill=skill_interval(rows),
        relative_log=metric_interval(rows, "relative_log_score"),
        market_brier=metric_interval(rows, "market_brier"),
        returns=cohort_bootstrap_mean(weekly, seed=seed_for("return", family_id, weekly)),
        eligible=len(rows) >= rules.min_forecasts
        and len({r.cohort_id for r in rows}) >= rules.min_cohorts,
        calibration=calibration(rows),
    )


def empty_statistics(family_id: str) -> FamilyStatistics:
    """A family with nothing scored and no cohort marked yet."""
    return FamilyStatistics(
        family_id=family_id,
        forecasts=0,
        cohorts=0,
        brier=None,
        log_score=None,
        skill=None,
        relative_log=None,
        market_brier=None,
        returns=None,
        eligible=False,
        calibration=Calibration((), (), None, None),
    )


def calibration(rows: Sequence[ScoredForecast]) -> Calibration:
    if not rows:
        return Calibration((), (), None, None)
    outcomes = [r.outcome for r in rows]
    forecasts = [r.p_yes for r in rows]
    market = [r.market_p_yes for r in rows]
    return Calibration(
        bins=tuple(reliability_table(list(zip(forecasts, outcomes, strict=True)))),
        market_bins=tuple(reliability_table(list(zip(market, outcomes, strict=True)))),
        murphy=murphy_decomposition(forecasts, outcomes),
        market_murphy=murphy_decomposition(market, outcomes),
    )


def ranked(stats: dict[str, FamilyStatistics], rankable: set[str]) -> dict[str, FamilyStatistics]:
    """Rank the eligible families among ``rankable`` by mean Brier (lower first), with the rank
    range their intervals allow; families whose range reaches the top are tied with the leader."""
    eligible = sorted(
        (s for s in stats.values() if s.family_id in rankable and s.eligible and s.brier),
        key=lambda s: (s.brier.estimate if s.brier else 0.0, s.family_id),
    )
    intervals = {s.family_id: s.brier for s in eligible if s.brier is not None}
    return with_ranks(stats, eligible, intervals, lower_is_better=True)


class _Rankable(Protocol):
    @property
    def family_id(self) -> str: ...


R = TypeVar("R", bound=_Rankable)


def with_ranks(
    stats: Mapping[str, R],
    eligible: Sequence[R],
    intervals: Mapping[str, Interval],
    *,
    lower_is_better: bool,
) -> dict[str, R]:
    """``stats`` with the ``eligible`` entries (in rank order) given their rank, the rank range
    their intervals allow, and whether that range reaches the leader."""
    ranges = rank_ranges(intervals, lower_is_better=lower_is_better)
    result = dict(stats)
    for position, entry in enumerate(eligible, 1):
        best, worst = ranges[entry.family_id]
        result[entry.family_id] = replace(  # type: ignore[type-var]
            entry,
            rank=position,
            rank_range=(best, worst),
            tied_with_leader=position > 1 and best == 1,
        )
    return result


def _compared(
    families: Sequence[str],
    measure: str,
    groups: Callable[[str, str], dict[str, list[float]]],
) -> list[Pair]:
    raw = []
    for a, b in combinations(families, 2):
        diffs = groups(a, b)
        seed = seed_for(measure, a, b, diffs)
        raw.append((a, b, paired_comparison(diffs, seed=seed) if diffs else None))
    adjusted = iter(with_holm([r for _, _, r in raw if r is not None]))
    return [Pair(a, b, measure, next(adjusted) if r is not None else None) for a, b, r in raw]


def breakdowns(
    family_id: str,
    rows: Sequence[ScoredForecast],
    groups: Mapping[str, Callable[[ScoredForecast], str]],
) -> list[Breakdown]:
    """Per dimension (a function of a row naming its group): count, mean Brier, skill."""
    found = []
    for dimension, group_of in groups.items():
        members: dict[str, list[ScoredForecast]] = {}
        for row in rows:
            members.setdefault(group_of(row), []).append(row)
        for group, subset in sorted(members.items()):
            found.append(
                Breakdown(
                    family_id,
                    dimension,
                    group,
                    len(subset),
                    metric_interval(subset, "brier", resamples=BREAKDOWN_RESAMPLES),
                    skill_interval(subset, resamples=BREAKDOWN_RESAMPLES),
                )
            )
    return found


@dataclass(frozen=True)
class _ForecastPart:
    """What the scored forecasts alone determine (all but the returns): it changes only when a
    forecast is scored, so a publication that follows a snapshot reuses it."""

    families: dict[str, FamilyStatistics]  # returns left out
    market: Interval | None
    pairs: list[Pair]  # on Brier
    breakdowns: list[Breakdown]


_CACHE: OrderedDict[str, _ForecastPart] = OrderedDict()
CACHE_SIZE = 8  # leaderboards of a publication (one per methodology, and the panel's)


def _digest(
    families: Sequence[str],
    rows: Mapping[str, Sequence[ScoredForecast]],
    rules: RankingRules,
    groups: Mapping[str, Callable[[ScoredForecast], str]],
) -> str:
    """Every input of the forecast part, hashed: equal digests, equal statistics."""
    hasher = hashlib.sha256(repr((families, rules, sorted(groups))).encode())
    for family in families:
        for row in rows.get(family, ()):
            labels = tuple(group(row) for group in groups.values())
            hasher.update(
                repr(
                    (
                        family,
                        row.agent_id,
                        row.cohort_id,
                        row.market_id,
                        row.p_yes,
                        row.market_p_yes,
                        row.outcome,
                        labels,
                    )
                ).encode()
            )
    return hasher.hexdigest()


def _forecast_part(
    families: Sequence[str],
    rows: Mapping[str, Sequence[ScoredForecast]],
    rules: RankingRules,
    groups: Mapping[str, Callable[[ScoredForecast], str]],
) -> _ForecastPart:
    key = _digest(families, rows, rules, groups)
    found = _CACHE.get(key)
    if found is not None:
        _CACHE.move_to_end(key)
        return found
    every = [row for family in families for row in rows.get(family, ())]
    part = _ForecastPart(
        families={f: family_statistics(f, rows.get(f, ()), {}, rules) for f in families},
        market=metric_interval(every, "market_brier"),
        pairs=_brier_pairs(families, rows),
        breakdowns=[b for f in families for b in breakdowns(f, rows.get(f, ()), groups)],
    )
    _CACHE[key] = part
    while len(_CACHE) > CACHE_SIZE:
        _CACHE.popitem(last=False)
    return part


def _brier_pairs(
    families: Sequence[str], rows: Mapping[str, Sequence[ScoredForecast]]
) -> list[Pair]:
    means = {f: market_means(rows.get(f, ()), "brier") for f in families}
    return _compared(families, "brier", lambda a, b: difference_groups(means[a], means[b]))


def _return_interval(family_id: str, returns: Mapping[str, float]) -> Interval | None:
    weekly = {cohort: [value] for cohort, value in sorted(returns.items())}
    return cohort_bootstrap_mean(weekly, seed=seed_for("return", family_id, weekly))


def compute(
    rows: Mapping[str, Sequence[ScoredForecast]],
    returns: Mapping[str, Mapping[str, float]],
    *,
    rankable: set[str],
    rules: RankingRules,
    groups: Mapping[str, Callable[[ScoredForecast], str]],
) -> Statistics:
    """Everything the leaderboard, the pairwise page and the model pages show. The part the
    scored forecasts determine is computed once per set of forecasts (and reused while no
    forecast is scored); the returns, which move with every snapshot, each time."""
    families = sorted(set(rows) | set(returns))
    part = _forecast_part(families, rows, rules, groups)
    stats = {
        f: replace(part.families[f], returns=_return_interval(f, returns.get(f, {})))
        for f in families
    }
    weekly = _compared(
        families,
        "return_pct",
        lambda a, b: weekly_differences(returns.get(a, {}), returns.get(b, {})),
    )
    return Statistics(
        families=ranked(stats, rankable),
        market=part.market,
        pairs=part.pairs + weekly,
        breakdowns=part.breakdowns,
    )
