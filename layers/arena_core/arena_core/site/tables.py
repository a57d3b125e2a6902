"""The site-wide tables of the dataset: the leaderboards and every statistic behind them.

``forecasts``, ``family_returns`` and (v1+panel) ``panel_scores`` and ``coherence`` are the
inputs, written exactly (decimal strings); everything else is computed from them alone and
written as numbers rounded to ``PLACES`` decimal places, so a researcher recomputing the
statistics from the input tables gets the same figures (the intervals are seeded from the data,
not from a clock). Every row names its methodology version: results are never aggregated
across versions.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from arena_core.scoring.bets import yes_terms
from arena_core.scoring.statistics import Interval, ReliabilityBin
from arena_core.site.collect import LeaderboardData
from arena_core.site.leaderboard import LeaderboardRow
from arena_core.site.panel_leaderboard import PanelLeaderboardRow, panel_leaderboard
from arena_core.site.panel_statistics import run_week
from arena_core.site.statistics import Statistics

PLACES = 6  # far finer than any page shows, coarse enough to read

Row = dict[str, Any]
GLOBAL_TABLES = (
    "leaderboard",
    "forecasts",
    "family_returns",
    "pairwise",
    "breakdowns",
    "calibration",
    "panel_leaderboard",
    "panel_scores",
    "coherence",
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


def standing_cells(row: LeaderboardRow | PanelLeaderboardRow, board: LeaderboardData) -> Row:
    """Who a leaderboard row is and where it stands: the first columns of both leaderboards."""
    best, worst = row.rank_range or (None, None)
    return {
        "methodology": board.methodology,
        "rank": row.rank,
        "rank_best": best,
        "rank_worst": worst,
        "tied_with_leader": row.tied_with_leader,
        "standing": row.standing,
        "family_id": row.family_id,
        "display_name": row.display_name,
        "kind": row.kind,
        "stand_in": row.stand_in,
    }


def leaderboard_row(row: LeaderboardRow, board: LeaderboardData) -> Row:
    return {
        **standing_cells(row, board),
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
        "methodology": board.methodology,
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
                "methodology": board.methodology,
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
        {
            "methodology": board.methodology,
            "family_id": family,
            "cohort_id": cohort,
            "return_pct": value,
        }
        for family, weeks in sorted(board.returns.items())
        for cohort, value in sorted(weeks.items())
    ]


def shown_statistics(board: LeaderboardData) -> Statistics:
    """What the board's pairwise, calibration and breakdown figures come from: under v1+panel
    the panel forecasts, otherwise the bets."""
    return board.panel.statistics.shared if board.panel else board.statistics


def pairwise_rows(board: LeaderboardData) -> list[Row]:
    rows = []
    for pair in shown_statistics(board).pairs:
        result = pair.result
        row: Row = {
            "methodology": board.methodology,
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
                "more_needed": None if result.more_needed is None else int(result.more_needed),
            }
        rows.append(row)
    return rows


def breakdown_rows(board: LeaderboardData) -> list[Row]:
    return [
        {
            "methodology": board.methodology,
            "family_id": b.family_id,
            "dimension": b.dimension,
            "group": b.group,
            "forecasts": b.forecasts,
            **interval_cells("brier", b.brier),
            **interval_cells("skill", b.skill, "brier_skill_vs_market"),
        }
        for b in shown_statistics(board).breakdowns
    ]


def _bins(
    methodology: str, family_id: str, forecaster: str, bins: tuple[ReliabilityBin, ...]
) -> Iterator[Row]:
    for b in bins:
        yield {
            "methodology": methodology,
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
    version = board.methodology
    for family_id, stats in sorted(shown_statistics(board).families.items()):
        rows += _bins(version, family_id, "model", stats.calibration.bins)
        rows += _bins(version, family_id, "market", stats.calibration.market_bins)
    return rows


def _panel_row(row: PanelLeaderboardRow, board: LeaderboardData) -> Row:
    panel, scores, coherence, trading = row.panel, row.scores, row.coherence, row.trading
    return {
        **standing_cells(row, board),
        "panel_forecasts": panel.forecasts if panel else 0,
        "panel_weeks": panel.weeks if panel else 0,
        "missing": panel.missing if panel else 0,
        "clipped": panel.clipped if panel else 0,
        **interval_cells("peer_score", panel.peer if panel else None),
        **interval_cells("baseline_score", panel.baseline if panel else None),
        **interval_cells("brier", scores.brier if scores else None),
        **interval_cells("market_brier", scores.market_brier if scores else None),
        **interval_cells("log_score", scores.log_score if scores else None),
        **interval_cells("skill", scores.skill if scores else None, "brier_skill_vs_market"),
        "coherence_trades": coherence.trades if coherence else None,
        "coherent_trades": coherence.coherent if coherence else None,
        "coherence_share": coherence.share if coherence else None,
        "median_size_to_kelly": coherence.median_size_to_kelly if coherence else None,
        "bet_forecasts": trading.forecasts if trading else None,
        **interval_cells("bet_brier", trading.brier if trading else None),
        **interval_cells("return", trading.returns if trading else None, "return_pct_mean"),
        "total_pnl": trading.total_pnl if trading else None,
        "trades": trading.trades if trading else None,
        "min_forecasts": board.rules.min_forecasts,
        "min_weeks": board.rules.min_cohorts,
    }


def panel_leaderboard_rows(board: LeaderboardData) -> list[Row]:
    return [_panel_row(row, board) for row in panel_leaderboard(board)]


def panel_score_rows(board: LeaderboardData) -> list[Row]:
    if board.panel is None:
        return []
    rows = [
        {"methodology": board.methodology, "run_week": run_week(s), **s.model_dump()}
        for s in board.panel.scores
    ]
    return sorted(rows, key=lambda r: (r["cohort_id"], r["week"], r["market_id"], r["agent_id"]))


def coherence_rows(board: LeaderboardData) -> list[Row]:
    if board.panel is None:
        return []
    return [
        {
            "methodology": board.methodology,
            "decision_id": decision.decision_id,
            "agent_id": decision.agent_id,
            "cohort_id": decision.cohort_id,
            "family_id": decision.family_id,
            "week": decision.week,
            **trade.model_dump(),
        }
        for decision in sorted(board.panel.coherence, key=lambda c: c.decision_id)
        for trade in decision.trades
    ]


TABLE_ROWS = {
    "leaderboard": leaderboard_rows,
    "forecasts": forecast_rows,
    "family_returns": return_rows,
    "pairwise": pairwise_rows,
    "breakdowns": breakdown_rows,
    "calibration": calibration_rows,
    "panel_leaderboard": panel_leaderboard_rows,
    "panel_scores": panel_score_rows,
    "coherence": coherence_rows,
}


def global_tables(boards: list[LeaderboardData]) -> dict[str, list[Row]]:
    """Every site-wide table, by name (the order of ``GLOBAL_TABLES``), each holding the rows of
    every leaderboard (one per methodology version, the current one first)."""
    return {name: [row for b in boards for row in TABLE_ROWS[name](b)] for name in GLOBAL_TABLES}
