"""What became of a decision: each trade's result, P/L and Brier once its market resolved, and
each panel forecast's price at capture, outcome and scores, from the cohort's records.

A decision's page shows them, and is rendered again when they change (``results_marker``):
only the decisions whose results moved, not the cohort's every decision.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal

from arena_core.dataset.records import AgentView, CohortView
from arena_core.domain.decisions import DecisionRecord
from arena_core.domain.money import ZERO
from arena_core.domain.portfolio import PositionStatus, Settlement, Trade, TradeKind


@dataclass(frozen=True)
class TradeResult:
    """A trade's own result: ``state`` is open, won, lost, 50/50, refunded or sold; ``pnl`` what
    this trade earned (a sell: its realized P/L; a buy: its part of what its position made at
    settlement, by its shares, once settled, nothing if every share was sold: the sells carry
    it), so a decision's trades add up to what it earned; ``buys``: how many buys built its
    position (more than one: the position spans decisions)."""

    state: str
    pnl: Decimal | None
    brier: Decimal | None  # a buy: its Brier score once its market resolved with a winner
    buys: int = 1


@dataclass(frozen=True)
class ForecastResult:
    price: Decimal | None  # the market's P(YES) at capture
    outcome: int | None
    brier: float | None
    log_score: float | None
    peer: float | None


SETTLED = {"won": "won", "lost": "lost", "split": "50/50", "cancelled": "refunded"}


def trade_results(agent: AgentView) -> dict[str, TradeResult]:
    """Every trade of the agent by trade id, each with its own P/L."""
    positions = {p.position.position_id: p.position for p in agent.positions}
    settled = {s.position_id: s for s in agent.settlements}
    scores = {s.trade_id: s for s in agent.scores}
    buys: dict[str, list[Trade]] = {}
    for trade in agent.trades:
        if trade.kind is TradeKind.BUY:
            buys.setdefault(trade.position_id, []).append(trade)
    parts = {
        t.trade_id: part
        for position_id, bought in buys.items()
        for t, part in zip(bought, _parts(settled.get(position_id), bought), strict=True)
    }
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
        closed = position is not None and not position.is_open
        pnl = parts[trade.trade_id] if closed else None
        found[trade.trade_id] = TradeResult(
            state, pnl, score.brier if score else None, len(buys[trade.position_id])
        )
    return found


CENT = Decimal("0.01")


def _parts(settlement: Settlement | None, bought: list[Trade]) -> list[Decimal]:
    """Each buy's part of what its position made at settlement (none: every share sold), by
    its shares, to the cent, the cents left over to the largest: the parts add up to it."""
    if settlement is None:
        return [ZERO for _ in bought]
    total = sum((t.shares for t in bought), ZERO)
    if not total:
        return [ZERO for _ in bought]
    parts = [(settlement.realized_pnl * t.shares / total).quantize(CENT) for t in bought]
    largest = max(range(len(bought)), key=lambda i: bought[i].shares)
    parts[largest] += settlement.realized_pnl - sum(parts, ZERO)
    return parts


@dataclass(frozen=True)
class Earned:
    total: Decimal  # the executed trades' own P/L, as far as it is known
    pending: int  # trades whose P/L is not known yet (their position still open)


def earned(record: DecisionRecord, results: Mapping[str, TradeResult]) -> Earned | None:
    """What a decision's executed trades earned (None: it traded nothing)."""
    executed = [t for t in (record.outcome.trades if record.outcome else ()) if t.executed]
    found = [results.get(t.trade_id or "") for t in executed]
    if not found:
        return None
    known = [r.pnl for r in found if r is not None and r.pnl is not None]
    return Earned(sum(known, ZERO), len(found) - len(known))


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
