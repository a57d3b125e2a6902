"""The input tables of the statistics, as the site publishes them: every scored forecast, each
family's return per cohort, the positions of completed cohorts and who each family is.

Everything the leaderboards show is computed from these tables alone (``site.boards``), and the
site computes it from their published CSV, so ``arena analyze`` on the dataset reproduces it.
A forecast is *matured* once its market's scheduled end, as captured when it was made, has
passed at publication; a cohort once it completed and every market it held has.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

from arena_core.analysis.rows import Forecast
from arena_core.domain.coherence import DecisionCoherence
from arena_core.domain.cohort import Cohort, CohortStatus, week_start_for
from arena_core.domain.lineup import AgentSpec
from arena_core.domain.market import Market
from arena_core.domain.panel import PanelScore
from arena_core.domain.portfolio import BetScore, PortfolioSnapshot, Position
from arena_core.domain.rules import STARTING_BALANCE
from arena_core.scoring.bets import yes_terms

Row = dict[str, Any]


def run_week(moment: datetime) -> str:
    """The run week a forecast was made in: ``w`` and the ISO date of its Sunday."""
    return f"w{week_start_for(moment).date().isoformat()}"


def _cohort_week(cohort_id: str) -> str:
    return f"w{cohort_id.removeprefix('c')}"


def matured(closes_at: datetime | None, now: datetime) -> bool:
    """Its scheduled end has passed (an unknown end counts as passed once resolved)."""
    return closes_at is None or closes_at <= now


def next_maturity(scores: Iterable[BetScore], now: datetime) -> datetime | None:
    """When the first of ``scores`` not matured by ``now`` matures (its ``matured`` column
    changes then), or None."""
    return min((s.closes_at for s in scores if s.closes_at and s.closes_at > now), default=None)


def forecast_rows(methodology: str, scores: Iterable[BetScore], now: datetime) -> list[Row]:
    """One row per scored bet, in YES terms, with its scores."""
    rows = []
    for score in scores:
        p_yes, market_p_yes, outcome = yes_terms(score)
        week = run_week(score.bet_at) if score.bet_at else _cohort_week(score.cohort_id)
        forecast = Forecast(
            family_id=score.family_id,
            agent_id=score.agent_id,
            cohort_id=score.cohort_id,
            market_id=score.market_id,
            event_id=score.event_id or "",
            week=week,
            p_yes=float(p_yes),
            market_p_yes=float(market_p_yes),
            outcome=outcome,
        )
        rows.append(
            {
                "methodology": methodology,
                "trade_id": score.trade_id,
                "family_id": score.family_id,
                "agent_id": score.agent_id,
                "cohort_id": score.cohort_id,
                "market_id": score.market_id,
                "event_id": score.event_id,
                "run_week": week,
                "side": score.side,
                "p_yes": p_yes,
                "market_p_yes": market_p_yes,
                "outcome": outcome,
                "matured": matured(score.closes_at, now),
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


def position_rows(
    methodology: str,
    family_id: str,
    positions: Iterable[Position],
    markets: Mapping[str, Market],
) -> list[Row]:
    """The positions of a completed cohort's agent, with their realized P/L."""
    rows = []
    for position in positions:
        market = markets.get(position.market_id)
        rows.append(
            {
                "methodology": methodology,
                "family_id": family_id,
                "agent_id": position.agent_id,
                "cohort_id": position.cohort_id,
                "position_id": position.position_id,
                "market_id": position.market_id,
                "event_id": market.event_id if market else None,
                "run_week": run_week(position.opened_at),
                "closes_at": market.end_date if market else None,
                "realized_pnl": position.realized_pnl,
                "pnl_pct": position.realized_pnl / STARTING_BALANCE * 100,
            }
        )
    return sorted(rows, key=lambda r: r["position_id"])


def return_rows(
    methodology: str,
    latest: Mapping[str, Sequence[PortfolioSnapshot]],
    cohorts: Sequence[Cohort],
    positions: Sequence[Row],
    now: datetime,
) -> list[Row]:
    """One row per family and cohort: its latest return, P/L and trades; completed when the
    cohort has, matured when also every market it held has passed its scheduled end."""
    status = {c.cohort_id: c.status for c in cohorts}
    ends: dict[tuple[str, str], list[datetime | None]] = {}
    for p in positions:
        ends.setdefault((p["family_id"], p["cohort_id"]), []).append(p["closes_at"])
    rows = []
    for family, snapshots in sorted(latest.items()):
        for snapshot in sorted(snapshots, key=lambda s: s.cohort_id):
            completed = status.get(snapshot.cohort_id) is CohortStatus.COMPLETED
            held = ends.get((family, snapshot.cohort_id), [])
            rows.append(
                {
                    "methodology": methodology,
                    "family_id": family,
                    "cohort_id": snapshot.cohort_id,
                    "return_pct": snapshot.total_pnl_pct,
                    "total_pnl": snapshot.total_pnl,
                    "trades": snapshot.trades,
                    "completed": completed,
                    "matured": completed and all(matured(end, now) for end in held),
                }
            )
    return rows


def family_rows(methodology: str, specs: Sequence[AgentSpec]) -> list[Row]:
    return [
        {
            "methodology": methodology,
            "family_id": spec.family_id,
            "display_name": spec.display_name,
            "kind": spec.kind,
            "stand_in": spec.stand_in,
            "model_id": spec.model_id,
        }
        for spec in specs
    ]


def panel_score_rows(methodology: str, scores: Iterable[PanelScore], now: datetime) -> list[Row]:
    rows = [
        {
            "methodology": methodology,
            "run_week": run_week(s.run_at),
            **s.model_dump(),
            "event_id": s.event_id,
            "matured": matured(s.end_date, now),
        }
        for s in scores
    ]
    return sorted(rows, key=lambda r: (r["cohort_id"], r["week"], r["market_id"], r["agent_id"]))


def coherence_rows(methodology: str, coherence: Sequence[DecisionCoherence]) -> list[Row]:
    """One row per executed buy on a panel market the agent forecast in the same decision."""
    return [
        {
            "methodology": methodology,
            "decision_id": decision.decision_id,
            "agent_id": decision.agent_id,
            "cohort_id": decision.cohort_id,
            "family_id": decision.family_id,
            "week": decision.week,
            **trade.model_dump(),
        }
        for decision in sorted(coherence, key=lambda c: c.decision_id)
        for trade in decision.trades
    ]
