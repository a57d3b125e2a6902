"""What became of a decision: each trade's result, P/L and Brier once its market resolved, and
each panel forecast's price at capture, outcome and scores, from the cohort's records.

A decision's page shows them, and is rendered again when they change (``results_marker``):
only the decisions whose results moved, not the cohort's every decision.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from decimal import Decimal

from arena_core.dataset.records import AgentView, CohortView
from arena_core.domain.portfolio import PositionStatus, TradeKind


@dataclass(frozen=True)
class TradeResult:
    """A trade's result: ``state`` is open, won, lost, 50/50, refunded or sold."""

    state: str
    pnl: Decimal | None  # a buy: its position's realized P/L once closed; a sell: its own
    brier: Decimal | None  # a buy: its Brier score once its market resolved with a winner


@dataclass(frozen=True)
class ForecastResult:
    price: Decimal | None  # the market's P(YES) at capture
    outcome: int | None
    brier: float | None
    log_score: float | None
    peer: float | None


SETTLED = {"won": "won", "lost": "lost", "split": "50/50", "cancelled": "refunded"}


def trade_results(agent: AgentView) -> dict[str, TradeResult]:
    """Every trade of the agent by trade id."""
    positions = {p.position.position_id: p.position for p in agent.positions}
    settled = {s.position_id: s for s in agent.settlements}
    scores = {s.trade_id: s for s in agent.scores}
    found = {}
    for trade in agent.trades:
        if trade.kind is TradeKind.SELL:
            found[trade.trade_id] = TradeResult("sold", trade.realized_pnl, None)
            continue
        position = positions.get(trade.position_id)
        settlement = settled.get(trade.position_id)
        score = scores.get(trade.trade_id)
        state = "open"
        if settlement is not None:
            state = SETTLED.get(settlement.kind.value, settlement.kind.value)
        elif position is not None and position.status is PositionStatus.CLOSED:
            state = "sold"
        pnl = position.realized_pnl if position is not None and not position.is_open else None
        found[trade.trade_id] = TradeResult(state, pnl, score.brier if score else None)
    return found


def forecast_results(view: CohortView, agent_id: str, week: int) -> dict[str, ForecastResult]:
    """The agent's panel forecasts of one decision week by market id."""
    prices = {q.market.market_id: q.market.p_yes for q in view.questions if q.week == week}
    scores = {
        s.market_id: s for s in view.panel_scores if s.agent_id == agent_id and s.week == week
    }
    found = {}
    for market_id, price in prices.items():
        score = scores.get(market_id)
        found[market_id] = ForecastResult(
            price=price,
            outcome=score.outcome if score else None,
            brier=score.brier if score else None,
            log_score=score.log_score if score else None,
            peer=score.peer_score if score else None,
        )
    return found


def results_marker(view: CohortView) -> dict[str, str]:
    """Per decision, a digest of what its page shows of its results: a decision whose digest
    changed since the last publication is rendered again."""
    found = {}
    for agent in view.agents:
        trades = trade_results(agent)
        for decision in agent.decisions:
            record = decision.record
            mine = sorted(
                (t.trade_id, trades.get(t.trade_id))
                for t in (decision.outcome.trades if decision.outcome else ())
            )
            forecasts = sorted(forecast_results(view, record.agent_id, record.week).items())
            text = repr(
                (mine, forecasts if decision.outcome and decision.outcome.forecasts else [])
            )
            found[record.decision_id] = hashlib.sha256(text.encode()).hexdigest()[:16]
    return found
