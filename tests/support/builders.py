"""Builders for cohorts, agents and markets shared by service and persistence tests."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal

from arena_core.domain.answer import Action, Answer, BetInstruction
from arena_core.domain.cohort import Agent, Cohort
from arena_core.domain.decisions import Consultation, DecisionOutcome
from arena_core.domain.lineup import default_lineup
from arena_core.domain.market import Market, MarketStatus, OutcomeQuote, Resolution, ResolutionKind
from arena_core.ports.stores import Stores

WEEK0 = datetime(2026, 3, 1, tzinfo=UTC)  # a Sunday
RUN_AT = WEEK0 + timedelta(minutes=5)


def open_cohort(stores: Stores, week_start: datetime = WEEK0) -> tuple[Cohort, list[Agent]]:
    cohort = Cohort.open(week_start, default_lineup())
    created, _ = stores.cohorts.create_cohort(cohort, cohort.agents())
    return created, stores.cohorts.agents(created.cohort_id)


LIQUID = Decimal("10000")  # above the forecast panel's liquidity floor


def binary(market_id: str, yes: str = "0.40") -> Market:
    """A Yes/No market, liquid enough for the forecast panel once it has an end date."""
    return Market(
        market_id=market_id,
        question=f"Will {market_id} happen?",
        outcomes=(
            OutcomeQuote(name="Yes", price=Decimal(yes)),
            OutcomeQuote(name="No", price=Decimal(1) - Decimal(yes)),
        ),
        liquidity=LIQUID,
    )


def resolved(market: Market, kind: ResolutionKind, winner: str | None = None) -> Market:
    return market.model_copy(
        update={"status": MarketStatus.RESOLVED, "resolution": Resolution(kind=kind, winner=winner)}
    )


def consultation(action: Action = Action.HOLD, reasoning: str = "r") -> Consultation:
    """A checkpoint as the decide service saves it: an answer and its (empty) audit."""
    return Consultation(
        answer=Answer(action=Action.HOLD, reasoning=reasoning)
        if action is Action.HOLD
        else Answer(
            action=action,
            bets=(BetInstruction(market_id="m1", side="YES", amount=Decimal(100)),),
            reasoning=reasoning,
        ),
        fallback=False,
        fallback_reason=None,
        prompt_ref="decisions/prompt.txt",
        responses=(),
    )


def hold_outcome(reasoning: str = "r") -> DecisionOutcome:
    """The outcome of a HOLD, as the decide service records it."""
    return DecisionOutcome(
        action=Action.HOLD,
        reasoning=reasoning,
        fallback=False,
        fallback_reason=None,
        prompt_ref="decisions/prompt.txt",
        responses=(),
        model="test/model",
        provider="TestProvider",
        trades=(),
        executed=0,
        rejected=0,
    )
