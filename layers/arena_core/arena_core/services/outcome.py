"""A decision's outcome: what the agent answered and what became of each instruction."""

from __future__ import annotations

from arena_core.domain.decisions import (
    REASONING_EXCERPT,
    Consultation,
    DecisionOutcome,
    TradeAudit,
)
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


def summarize(consultation: Consultation, outcomes: list[TradeOutcome]) -> DecisionOutcome:
    executed = sum(1 for o in outcomes if o.executed)
    last = consultation.responses[-1] if consultation.responses else None
    return DecisionOutcome(
        action=consultation.answer.action,
        reasoning=consultation.answer.reasoning,
        fallback=consultation.fallback,
        fallback_reason=consultation.fallback_reason,
        prompt_ref=consultation.prompt_ref,
        responses=consultation.responses,
        model=last.model if last else None,
        provider=last.provider if last else None,
        trades=tuple(_trade_audit(o) for o in outcomes),
        executed=executed,
        rejected=len(outcomes) - executed,
        reasoning_ref=consultation.reasoning_ref,
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
