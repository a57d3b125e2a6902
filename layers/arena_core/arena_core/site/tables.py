"""The site-wide tables of the dataset: the leaderboard and every statistic behind it.

``forecasts`` and ``family_returns`` are the inputs, written exactly (decimal strings);
everything else is computed from them alone and written as numbers rounded to ``PLACES``
decimal places, so a researcher recomputing the statistics from the two input tables gets the
same figures (the intervals are seeded from the data, not from a clock).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from arena_core.scoring.bets import yes_terms
from arena_core.scoring.statistics import Interval, ReliabilityBin
from arena_core.site.collect import LeaderboardData
from arena_core.site.leaderboard import LeaderboardRow

PLACES = 6  # far finer than any page shows, coarse enough to read

Row = dict[str, Any]
GLOBAL_TABLES = (
    "leaderboard",
    "forecasts",
    "family_returns",
    "pairwise",
    "breakdowns",
    "calibration",
)


def figure(value: float | None) -> float | None:
    """A computed statistic as exported: rounded to ``PLACES`` places (``-0.0`` as ``0.0``)."""
    return None if value is None else round(value, PLACES) + 0.0


def interval_cells(prefix: str, interval: Interval | None, estimate: str | None = None) -> Row:
    """``estimate`` (default: ``prefix``), ``<prefix>_low`` and ``<prefix>_high``."""
    if interval is None:
        return {estimate or prefix: None, f"{prefix}_low": None, f"{prefix}_high": None}
    return {
        estimate or prefix: figure(interval.estimate),
        f"{prefix}_low": figure(interval.low),
        f"{prefix}_high": figure(interval.high),
    }


def leaderboard_row(row: LeaderboardRow, board: LeaderboardData) -> Row:
    best, worst = row.rank_range or (None, None)
    return {
        "rank": row.rank,
        "rank_best": best,
        "rank_worst": worst,
        "tied_with_leader": row.tied_with_leader,
        "standing": row.standing,
        "family_id": row.family_id,
        "display_name": row.display_name,
        "kind": row.kind,
        "stand_in": row.stand_in,
        "cohorts": row.cohorts,
        "forecasts": row.forecasts,
        "scored_cohorts": row.scored_cohorts,
        **interval_cells("brier", row.brier),
        **interval_cells("market_brier", row.market_brier),
        **interval_cells("log_score", row.log_score),
        **interval_cells("skill", row.skill, "brier_skill_vs_market"),
        **interval_cells("relative_log", row.relative_log, "relative_log_score"),
        **interval_cells("return", row.returns, "return_pct_mean"),
        "total_pnl": row.total_pnl,
        "win_rate": row.win_rate,
        "resolved_bets": row.resolved_bets,
        "trades": row.trades,
        "min_forecasts": board.rules.min_forecasts,
        "min_cohorts": board.rules.min_cohorts,
    }


MARKET_ID = "market"


def market_row(board: LeaderboardData) -> Row:
    """The reference row: the market's own price at bet time on every scored forecast."""
    market = board.statistics.market
    return {
        "standing": "reference",
        "family_id": MARKET_ID,
        "display_name": "Market price at bet time",
        "kind": MARKET_ID,
        "stand_in": False,
        "forecasts": market.n if market else 0,
        "scored_cohorts": market.clusters if market else 0,
        **interval_cells("brier", market),
        **interval_cells("market_brier", market),
        "brier_skill_vs_market": 0.0 if market else None,
        "relative_log_score": 0.0 if market else None,
        "min_forecasts": board.rules.min_forecasts,
        "min_cohorts": board.rules.min_cohorts,
    }


def leaderboard_rows(board: LeaderboardData) -> list[Row]:
    """One row per family in leaderboard order, then the market's reference row."""
    return [leaderboard_row(f.row, board) for f in board.families] + [market_row(board)]


def forecast_rows(board: LeaderboardData) -> list[Row]:
    rows = []
    for score, forecast in board.forecasts:
        p_yes, market_p_yes, outcome = yes_terms(score)
        rows.append(
            {
                "trade_id": score.trade_id,
                "family_id": score.family_id,
                "agent_id": score.agent_id,
                "cohort_id": score.cohort_id,
                "market_id": score.market_id,
                "side": score.side,
                "p_yes": p_yes,
                "market_p_yes": market_p_yes,
                "outcome": outcome,
                "brier": forecast.brier,
                "log_score": forecast.log_score,
                "market_brier": forecast.market_brier,
                "market_log_score": forecast.market_log_score,
                "relative_log_score": forecast.relative_log_score,
                "category": score.category,
                "bet_at": score.bet_at,
                "closes_at": score.closes_at,
            }
        )
    return sorted(rows, key=lambda r: (r["family_id"], r["cohort_id"], r["trade_id"]))


def return_rows(board: LeaderboardData) -> list[Row]:
    return [
        {"family_id": family, "cohort_id": cohort, "return_pct": value}
        for family, weeks in sorted(board.returns.items())
        for cohort, value in sorted(weeks.items())
    ]


def pairwise_rows(board: LeaderboardData) -> list[Row]:
    rows = []
    for pair in board.statistics.pairs:
        result = pair.result
        row: Row = {
            "family_a": pair.family_a,
            "family_b": pair.family_b,
            "measure": pair.measure,
            "verdict": pair.verdict,
        }
        if result is not None:
            row |= {
                "units": result.units,
                "clusters": result.clusters,
                **interval_cells("difference", result.difference),
                "p_value": figure(result.p_value),
                "p_holm": figure(result.p_holm),
                "detectable": figure(result.detectable),
                "more_needed": result.more_needed,
            }
        rows.append(row)
    return rows


def breakdown_rows(board: LeaderboardData) -> list[Row]:
    return [
        {
            "family_id": b.family_id,
            "dimension": b.dimension,
            "group": b.group,
            "forecasts": b.forecasts,
            **interval_cells("brier", b.brier),
            **interval_cells("skill", b.skill, "brier_skill_vs_market"),
        }
        for b in board.statistics.breakdowns
    ]


def _bins(family_id: str, forecaster: str, bins: tuple[ReliabilityBin, ...]) -> Iterator[Row]:
    for b in bins:
        yield {
            "family_id": family_id,
            "forecaster": forecaster,
            "bin": b.index,
            "bin_low": figure(b.low),
            "bin_high": figure(b.high),
            "count": b.count,
            "mean_forecast": figure(b.mean_forecast),
            "observed": figure(b.observed),
            "wilson_low": figure(b.wilson_low),
            "wilson_high": figure(b.wilson_high),
        }


def calibration_rows(board: LeaderboardData) -> list[Row]:
    rows: list[Row] = []
    for family_id, stats in sorted(board.statistics.families.items()):
        rows += _bins(family_id, "model", stats.calibration.bins)
        rows += _bins(family_id, "market", stats.calibration.market_bins)
    return rows


def global_tables(board: LeaderboardData) -> dict[str, list[Row]]:
    """Every site-wide table, by name (the order of ``GLOBAL_TABLES``)."""
    return {
        "leaderboard": leaderboard_rows(board),
        "forecasts": forecast_rows(board),
        "family_returns": return_rows(board),
        "pairwise": pairwise_rows(board),
        "breakdowns": breakdown_rows(board),
        "calibration": calibration_rows(board),
    }
