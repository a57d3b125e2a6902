"""The forecast panel's statistics (methodology ``v1+panel``): what its leaderboard ranks on.

Every scored panel forecast (``PanelScore``) is one row. Forecasts of one decision run are not
independent (the same week's news, the same questions for every cohort of the week), so the
clusters the bootstrap resamples are **run weeks**, not cohorts. Per forecaster (a family, a
baseline, the ensemble):

- the mean Metaculus peer score among the models, and the mean baseline score, each with its
  cohort-bootstrap interval (from the rows' stored scores);
- Brier, log score, Brier skill and log score relative to the market's price at capture, with
  calibration, breakdowns and paired comparisons, exactly as the v1 statistics compute them
  (``arena_core.site.statistics.compute``) on the panel rows;
- how many forecasts were filled in (missing) or clipped.

Model families with the minimum sample are ranked by mean peer score (higher first), then by
mean Brier; rank ranges come from the peer intervals. Baselines, the ensemble and the market's
own price are reference rows. The market's peer score is recomputed per question from the
models' stated probabilities in the rows (the market is not one of the peers). Pure: data in,
results out.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from arena_core.domain.panel import PanelScore, ScoredBy
from arena_core.scoring.bootstrap import Interval, cohort_bootstrap_mean
from arena_core.scoring.metaculus import baseline_score_binary, peer_score
from arena_core.scoring.panel import kept
from arena_core.scoring.proper import log_score
from arena_core.scoring.seeds import seed_for
from arena_core.scoring.statistics import ScoredForecast, horizon_bucket
from arena_core.site.statistics import RankingRules, Statistics, compute, with_ranks

MARKET = ScoredBy.MARKET.value  # the market's family id in the panel statistics


def run_week(score: PanelScore) -> str:
    """The cluster of a panel forecast: the decision run's date (one run a week)."""
    return f"w{score.run_at.date().isoformat()}"


def scored_forecast(score: PanelScore) -> ScoredForecast:
    """A panel score as the shared statistics read it, clustered by run week."""
    return ScoredForecast(
        family_id=score.family_id,
        agent_id=score.agent_id,
        cohort_id=run_week(score),
        market_id=score.market_id,
        p_yes=float(score.p_yes),
        market_p_yes=float(score.market_p_yes),
        outcome=score.outcome,
    )


@dataclass(frozen=True)
class PanelFamilyStatistics:
    family_id: str
    scored_by: ScoredBy
    forecasts: int
    weeks: int  # run weeks holding its forecasts
    missing: int  # filled in with the market's price at capture
    clipped: int
    peer: Interval | None  # mean Metaculus peer score among the models (x100, natural log)
    baseline: Interval | None  # mean Metaculus baseline score (x100, log base 2)
    eligible: bool
    rank: int | None = None
    rank_range: tuple[int, int] | None = None
    tied_with_leader: bool = False


@dataclass
class PanelStatistics:
    families: dict[str, PanelFamilyStatistics] = field(default_factory=dict)
    shared: Statistics = field(default_factory=Statistics)  # Brier, skill, pairs, calibration


def _interval(name: str, family_id: str, groups: dict[str, list[float]]) -> Interval | None:
    ordered = {week: sorted(values) for week, values in sorted(groups.items())}
    return cohort_bootstrap_mean(ordered, seed=seed_for("panel", name, family_id, ordered))


def _by_week(
    rows: Sequence[PanelScore], value: Callable[[PanelScore], float]
) -> dict[str, list[float]]:
    groups: dict[str, list[float]] = {}
    for row in rows:
        groups.setdefault(run_week(row), []).append(value(row))
    return groups


def family_statistics(
    family_id: str, rows: Sequence[PanelScore], rules: RankingRules
) -> PanelFamilyStatistics:
    weeks = len({run_week(r) for r in rows})
    return PanelFamilyStatistics(
        family_id=family_id,
        scored_by=rows[0].scored_by if rows else ScoredBy.LLM,
        forecasts=len(rows),
        weeks=weeks,
        missing=sum(r.missing for r in rows),
        clipped=sum(r.clipped for r in rows),
        peer=_interval("peer", family_id, _by_week(rows, lambda r: r.peer_score)),
        baseline=_interval("baseline", family_id, _by_week(rows, lambda r: r.baseline_score)),
        eligible=len(rows) >= rules.min_forecasts and weeks >= rules.min_cohorts,
    )


def _given(p_yes: float, outcome: int) -> float:
    return p_yes if outcome == 1 else 1.0 - p_yes


def market_rows(scores: Sequence[PanelScore]) -> list[PanelScore]:
    """The market's price at capture as one more forecaster: a row per scored question (one
    cohort's panel market of one run), peer-scored against the models' forecasts of it."""
    questions: dict[tuple[str, int, str], list[PanelScore]] = {}
    for score in scores:
        questions.setdefault((score.cohort_id, score.week, score.market_id), []).append(score)
    found = []
    for (cohort_id, _, _), rows in sorted(questions.items()):
        first = rows[0]
        price, outcome = first.market_p_yes, first.outcome
        models = [_given(float(r.p_yes), outcome) for r in rows if r.scored_by is ScoredBy.LLM]
        update = {
            "agent_id": f"{cohort_id}.{MARKET}",
            "family_id": MARKET,
            "scored_by": ScoredBy.MARKET,
            "stated": price,
            "p_yes": price,
            "clipped": False,
            "missing": False,
            "brier": first.market_brier,
            "log_score": kept(log_score(price, outcome)),
            "baseline_score": kept(baseline_score_binary(price, outcome)),
            "peer_score": kept(peer_score(_given(float(price), outcome), models)),
        }
        found.append(first.model_copy(update=update))
    return found


def ranked(
    families: dict[str, PanelFamilyStatistics], shared: Statistics
) -> dict[str, PanelFamilyStatistics]:
    """Rank eligible model families by mean peer score (higher first), then mean Brier (lower
    first); rank ranges from the peer intervals."""

    def brier(family_id: str) -> float:
        found = shared.families.get(family_id)
        return found.brier.estimate if found and found.brier else 0.0

    eligible = sorted(
        (s for s in families.values() if s.scored_by is ScoredBy.LLM and s.eligible and s.peer),
        key=lambda s: (-(s.peer.estimate if s.peer else 0.0), brier(s.family_id), s.family_id),
    )
    intervals = {s.family_id: s.peer for s in eligible if s.peer is not None}
    return with_ranks(families, eligible, intervals, lower_is_better=False)


def breakdown_groups(rows: Sequence[PanelScore]) -> dict[str, Callable[[ScoredForecast], str]]:
    """Panel forecasts by the market's category, and by time from the run to the close."""
    category: dict[ScoredForecast, str] = {}
    horizon: dict[ScoredForecast, str] = {}
    for score in rows:
        row = scored_forecast(score)
        category[row] = score.category
        horizon[row] = horizon_bucket(score.end_date - score.run_at)
    return {"category": category.__getitem__, "time_to_close": horizon.__getitem__}


def compute_panel(
    scores: Sequence[PanelScore],
    returns: Mapping[str, Mapping[str, float]],
    rules: RankingRules,
) -> PanelStatistics:
    """Everything the ``v1+panel`` leaderboard, its pairwise page and its model pages show,
    from the scored panel forecasts and each family's return per cohort (the market's price at
    capture joins as a forecaster of its own, so pairs include it)."""
    rows = [*scores, *market_rows(scores)]
    by_family: dict[str, list[PanelScore]] = {}
    for score in rows:
        by_family.setdefault(score.family_id, []).append(score)
    forecasts = {f: [scored_forecast(s) for s in found] for f, found in sorted(by_family.items())}
    shared = compute(
        forecasts,
        returns,
        rankable=set(),
        rules=rules,
        groups=breakdown_groups(rows),
    )
    families = {f: family_statistics(f, found, rules) for f, found in sorted(by_family.items())}
    return PanelStatistics(families=ranked(families, shared), shared=shared)
