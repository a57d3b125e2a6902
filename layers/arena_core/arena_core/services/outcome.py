"""A decision's outcome: what the agent answered and what became of each instruction."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from decimal import Decimal

from arena_core.domain.answer import BetInstruction
from arena_core.domain.coherence import TradeCoherence, coherence_of
from arena_core.domain.decisions import (
    REASONING_EXCERPT,
    Consultation,
    DecisionOutcome,
    TradeAudit,
)
from arena_core.domain.market import Market
from arena_core.domain.money import ONE, ZERO
from arena_core.domain.panel import Panel, PanelForecast, PanelMarket
from arena_core.ports.blob_store import BlobStore
from arena_core.services.trading import TradeOutcome


def _trade_audit(outcome: TradeOutcome) -> TradeAudit:
    trade = outcome.trade
    return TradeAudit(
        index=outcome.index,
        trade_id=outcome.trade_id,
        instruction=outcome.instruction,
        executed=outcome.executed,
        rule=outcome.rejected_rule,
        reason=outcome.reason,
        price=None if trade is None else trade.price,
        shares=None if trade is None else trade.shares,
        amount=None if trade is None else trade.amount,
    )


def summarize(
    consultation: Consultation,
    outcomes: list[TradeOutcome],
    panel: Panel | None = None,
    markets: Mapping[str, Market] | None = None,
) -> DecisionOutcome:
    """The decision's summary; under v1+panel, with how its buys compare with its forecasts."""
    executed = sum(1 for o in outcomes if o.executed)
    trades = tuple(_trade_audit(o) for o in outcomes)
    coherence: tuple[TradeCoherence, ...] = ()
    if panel is not None and consultation.cash_before is not None:
        first = {m_id: m.outcomes[0].name for m_id, m in (markets or {}).items()}
        coherence = trade_coherence(
            trades, consultation.forecasts, panel.by_id(), first, consultation.cash_before
        )
    last = consultation.responses[-1] if consultation.responses else None
    return DecisionOutcome(
        action=consultation.answer.action,
        reasoning=consultation.answer.reasoning,
        fallback=consultation.fallback,
        fallback_reason=consultation.fallback_reason,
        prompt_ref=consultation.prompt_ref,
        prompt_sha256=consultation.prompt_sha256,
        responses=consultation.responses,
        model=last.model if last else None,
        provider=last.provider if last else None,
        trades=trades,
        executed=executed,
        rejected=len(outcomes) - executed,
        reasoning_ref=consultation.reasoning_ref,
        forecasts=consultation.forecasts,
        forecast_problems=consultation.forecast_problems,
        coherence=coherence,
    )


def bounded(consultation: Consultation, blobs: BlobStore, prefix: str) -> Consultation:
    """The consultation with a long reasoning moved to a blob: the record keeps its beginning
    and a reference, so it stays far below DynamoDB's 400 KB item limit."""
    reasoning = consultation.answer.reasoning
    if len(reasoning) <= REASONING_EXCERPT:
        return consultation
    ref = blobs.put(
        f"{prefix}/reasoning.txt", reasoning.encode(), content_type="text/plain; charset=utf-8"
    )
    excerpt = reasoning[:REASONING_EXCERPT] + "…"
    answer = consultation.answer.model_copy(update={"reasoning": excerpt})
    return consultation.model_copy(update={"answer": answer, "reasoning_ref": ref})


def trade_coherence(
    trades: Sequence[TradeAudit],
    forecasts: Sequence[PanelForecast],
    panel: Mapping[str, PanelMarket],
    first_outcomes: Mapping[str, str],
    cash: Decimal,
) -> tuple[TradeCoherence, ...]:
    """Coherence of every executed buy on a panel market the agent forecast itself (fill-ins
    are not its own and are left out). ``first_outcomes`` names each market's first outcome:
    a buy of it is a YES buy."""
    stated = {f.market_id: f.p_yes for f in forecasts if not f.missing}
    found = []
    for trade in trades:
        instruction = trade.instruction
        if not (trade.executed and isinstance(instruction, BetInstruction)):
            continue
        market_id = instruction.market_id
        if market_id not in panel or market_id not in stated or trade.price is None:
            continue
        side = instruction.side.strip()
        yes_side = side.casefold() == first_outcomes.get(market_id, "YES").casefold()
        yes_price = trade.price if yes_side else ONE - trade.price
        if not ZERO < yes_price < ONE or cash <= ZERO:
            continue
        found.append(
            coherence_of(
                market_id,
                side,
                yes_side=yes_side,
                p_yes=stated[market_id],
                yes_price=yes_price,
                amount=trade.amount or ZERO,
                cash=cash,
            )
        )
    return tuple(found)
