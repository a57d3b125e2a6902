"""The site-wide tables of the dataset: the inputs of the statistics and everything computed
from them.

``forecasts``, ``family_returns``, ``position_returns``, ``families`` and (v1+panel)
``panel_scores`` and ``coherence`` are the inputs, written exactly (decimal strings). The
leaderboards, pairs, breakdowns and calibration are computed from the published CSV of those
alone (``site.boards``) and written rounded to ``PLACES`` places: ``arena analyze`` on the
dataset writes the same files. Every row names its methodology version: results are never
aggregated across versions. A figure whose sample is below the validity minimum has no
interval (empty ends) and says what it needs.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from arena_core.analysis.families import Breakdown
from arena_core.analysis.figures import Figure
from arena_core.analysis.pairs import PairResult, Verdict
from arena_core.analysis.primary import BestVerdict
from arena_core.dataset.boards import BoardResult, Row
from arena_core.scoring.reliability import ReliabilityBin

PLACES = 6  # far finer than any page shows, coarse enough to read
INPUT_TABLES = (
    "forecasts",
    "family_returns",
    "position_returns",
    "families",
    "panel_scores",
    "coherence",
)
OUTPUT_TABLES = (
    "leaderboard",
    "panel_leaderboard",
    "comparisons",
    "pairwise",
    "breakdowns",
    "calibration",
)
GLOBAL_TABLES = OUTPUT_TABLES[:1] + INPUT_TABLES + OUTPUT_TABLES[1:]
Record = dict[str, Any]


def figure(value: float | None) -> float | None:
    """A computed statistic as exported: rounded to ``PLACES`` places (``-0.0`` as ``0.0``)."""
    return None if value is None else round(value, PLACES) + 0.0


def interval_cells(prefix: str, shown: Figure | None, estimate: str | None = None) -> Record:
    """``estimate`` (default: ``prefix``), ``<prefix>_low`` and ``<prefix>_high`` (empty ends
    while the sample is below the validity minimum)."""
    if shown is None:
        return {estimate or prefix: None, f"{prefix}_low": None, f"{prefix}_high": None}
    return {
        estimate or prefix: figure(shown.estimate),
        f"{prefix}_low": figure(shown.low),
        f"{prefix}_high": figure(shown.high),
    }


def standing_cells(row: Row, board: BoardResult) -> Record:
    """Who a leaderboard row is and where it stands: the first columns of both leaderboards."""
    best, worst = row.rank_range or (None, None)
    result = row.result
    return {
        "methodology": board.methodology,
        "rank": row.rank,
        "rank_best": best,
        "rank_worst": worst,
        "tied_with_leader": row.tied_with_leader,
        "first_share": figure(result.first_share) if result else None,
        "standing": row.standing,
        "needs": result.missing if result else None,
        "family_id": row.family_id,
        "display_name": row.display_name,
        "kind": row.kind,
        "stand_in": row.stand_in,
    }


def _rules(board: BoardResult) -> Record:
    rules = board.rules
    return {
        "min_forecasts": rules.min_forecasts,
        "min_cohorts": rules.min_cohorts,
        "min_weeks": rules.min_weeks,
        "min_events": rules.min_events,
    }


def _trading(row: Row) -> Record:
    trading = row.trading
    bets = row.bets
    return {
        "return_pct_mean": figure(bets.returns.estimate) if bets and bets.returns else None,
        "return_low": figure(bets.returns.low) if bets and bets.returns else None,
        "return_high": figure(bets.returns.high) if bets and bets.returns else None,
        "return_needs": bets.returns.missing if bets and bets.returns else None,
        "provisional_return": figure(bets.provisional_return) if bets else None,
        "total_pnl": trading.total_pnl if trading else None,
        "trades": trading.trades if trading else None,
    }


def leaderboard_row(row: Row, board: BoardResult) -> Record:
    result = row.result
    trading = row.trading
    return {
        **standing_cells(row, board),
        "cohorts": trading.cohorts if trading else None,
        "forecasts": result.forecasts if result else 0,
        "scored_cohorts": result.cohorts if result else 0,
        "weeks": result.weeks if result else 0,
        "events": result.events if result else 0,
        **interval_cells("brier", result.brier if result else None),
        "provisional_brier": figure(result.provisional.get("brier")) if result else None,
        "ece": figure(result.calibration.ece) if result else None,
        **interval_cells("market_brier", result.market_brier if result else None),
        **interval_cells("log_score", result.log_score if result else None),
        **interval_cells("skill", result.skill if result else None, "brier_skill_vs_market"),
        **interval_cells(
            "relative_log", result.relative_log if result else None, "relative_log_score"
        ),
        **_trading(row),
        "win_rate": trading.win_rate if trading else None,
        "resolved_bets": trading.resolved_bets if trading else None,
        **_rules(board),
    }


def leaderboard_rows(board: BoardResult) -> list[Record]:
    """One row per family in leaderboard order, then the market's reference row."""
    return [leaderboard_row(row, board) for row in board.rows] if board.panel is None else []


def panel_leaderboard_row(row: Row, board: BoardResult) -> Record:
    result, bets, coherence = row.result, row.bets, row.coherence
    return {
        **standing_cells(row, board),
        "panel_forecasts": result.forecasts if result else 0,
        "panel_weeks": result.weeks if result else 0,
        "panel_events": result.events if result else 0,
        "missing": row.missing,
        "clipped": row.clipped,
        **interval_cells("peer_score", result.peer if result else None),
        "provisional_peer_score": figure(result.provisional.get("peer_score")) if result else None,
        "ece": figure(result.calibration.ece) if result else None,
        **interval_cells("baseline_score", result.baseline if result else None),
        **interval_cells("brier", result.brier if result else None),
        **interval_cells("market_brier", result.market_brier if result else None),
        **interval_cells("log_score", result.log_score if result else None),
        **interval_cells("skill", result.skill if result else None, "brier_skill_vs_market"),
        "coherence_trades": coherence.trades if coherence else None,
        "coherent_trades": coherence.coherent if coherence else None,
        "coherence_share": coherence.share if coherence else None,
        "median_size_to_kelly": coherence.median_size_to_kelly if coherence else None,
        "bet_forecasts": bets.resolved if bets else None,
        **interval_cells("bet_brier", bets.brier if bets else None),
        **_trading(row),
        **_rules(board),
    }


def panel_leaderboard_rows(board: BoardResult) -> list[Record]:
    if board.panel is None:
        return []
    return [panel_leaderboard_row(row, board) for row in board.rows]


VERDICTS = {
    Verdict.A_BETTER: "A better",
    Verdict.B_BETTER: "B better",
    Verdict.UNDECIDED: "undecided",
    Verdict.TOO_FEW: "too few shared",
    Verdict.NOTHING_SHARED: "nothing shared",
}


def pair_record(pair: PairResult, methodology: str) -> Record:
    difference = pair.difference
    return {
        "methodology": methodology,
        "family_a": pair.family_a,
        "family_b": pair.family_b,
        "measure": pair.measure,
        "units": difference.n if difference else 0,
        "weeks": difference.weeks if difference else 0,
        "events": difference.events if difference else 0,
        **interval_cells("difference", difference),
        "confidence": figure(None if pair.level is None else 1.0 - pair.level),
        "p_value": figure(pair.p_value),
        "p_holm": figure(pair.p_holm),
        "detectable": figure(pair.detectable),
        "more_weeks": pair.more_weeks,
        "verdict": VERDICTS[pair.verdict],
        "needs": difference.missing if difference else None,
    }


MARKET_VERDICTS = {
    **VERDICTS,
    Verdict.A_BETTER: "better than the market",
    Verdict.B_BETTER: "worse than the market",
}
BEST_VERDICTS = {
    BestVerdict.BEST: "the best",
    BestVerdict.NOT_BEST: "not the best",
    BestVerdict.CANDIDATE: "could be the best",
    BestVerdict.TOO_FEW: "too few shared",
}


def comparison_rows(board: BoardResult) -> list[Record]:
    """The primary comparisons (``analysis.primary``) of the ranked analysis: each ranked
    model against the market, then which could be the best, with each family's correction."""
    primary = board.shown.primary
    if primary is None:
        return []
    models = len(primary.families)
    market = (
        f"Holm over {models} model{'' if models == 1 else 's'} at alpha "
        f"{figure(primary.market_alpha)}"
    )
    best = f"Hsu's MCB, Bonferroni over {max(models - 1, 1)} at alpha {figure(primary.best_alpha)}"
    rows = []
    for pair in primary.versus_market:
        difference = pair.difference
        rows.append(
            {
                "methodology": board.methodology,
                "comparison": "versus_market",
                "family_id": pair.family_a,
                "measure": primary.measure,
                **interval_cells("estimate", difference),
                "confidence": figure(None if pair.level is None else 1.0 - pair.level),
                "p_value": figure(pair.p_value),
                "p_adjusted": figure(pair.p_holm),
                "verdict": MARKET_VERDICTS[pair.verdict],
                "correction": market,
            }
        )
    for found in primary.best:
        rows.append(
            {
                "methodology": board.methodology,
                "comparison": "best",
                "family_id": found.family_id,
                "measure": primary.measure,
                "estimate": None,
                "estimate_low": figure(found.low),
                "estimate_high": figure(found.high),
                "confidence": figure(1.0 - primary.best_alpha),
                "p_value": None,
                "p_adjusted": None,
                "verdict": BEST_VERDICTS[found.verdict],
                "correction": best,
            }
        )
    return rows


def pairwise_rows(board: BoardResult) -> list[Record]:
    """Every pair: the secondary table, each row labelled with its correction (Holm over the
    pairs tested on its measure; the primary comparisons are ``comparison_rows``)."""
    shown = board.shown
    pairs = [*shown.pairs, *shown.brier_pairs, *board.bets.return_pairs]
    tested = Counter(p.measure for p in pairs if p.p_value is not None)
    return [
        {
            **pair_record(p, board.methodology),
            "correction": f"secondary: Holm over {tested[p.measure]} pairs at alpha "
            f"{figure(board.rules.alpha)}",
        }
        for p in pairs
    ]


def breakdown_rows(board: BoardResult) -> list[Record]:
    return [_breakdown(b, board.methodology) for b in board.shown.breakdowns]


def _breakdown(b: Breakdown, methodology: str) -> Record:
    return {
        "methodology": methodology,
        "family_id": b.family_id,
        "dimension": b.dimension,
        "group": b.group,
        "forecasts": b.forecasts,
        **interval_cells("brier", b.brier),
        **interval_cells("skill", b.skill, "brier_skill_vs_market"),
        "needs": b.brier.missing if b.brier else None,
    }


def _bins(
    methodology: str, family_id: str, forecaster: str, bins: Sequence[ReliabilityBin]
) -> Iterator[Record]:
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


def calibration_rows(board: BoardResult) -> list[Record]:
    rows: list[Record] = []
    version = board.methodology
    for family_id, result in sorted(board.shown.families.items()):
        rows += _bins(version, family_id, "model", result.calibration.bins)
        rows += _bins(version, family_id, "market", result.calibration.market_bins)
    return rows


OUTPUTS: dict[str, Callable[[BoardResult], list[Record]]] = {
    "leaderboard": leaderboard_rows,
    "panel_leaderboard": panel_leaderboard_rows,
    "comparisons": comparison_rows,
    "pairwise": pairwise_rows,
    "breakdowns": breakdown_rows,
    "calibration": calibration_rows,
}


# The computed tables that show only what a board's kept statistics decide (its forecasts' and
# its returns': ``BoardResult.key``), not the live cohorts' figures.
KEPT_OUTPUTS = ("comparisons", "pairwise", "breakdowns", "calibration")


def output_rows(name: str, boards: Sequence[BoardResult]) -> list[Record]:
    """One computed site-wide table's rows over every leaderboard (one per methodology
    version, the current one first)."""
    return [row for b in boards for row in OUTPUTS[name](b)]


def output_tables(boards: Sequence[BoardResult]) -> dict[str, list[Record]]:
    """Every computed site-wide table."""
    return {name: output_rows(name, boards) for name in OUTPUT_TABLES}
