"""The decide use case: one agent, one decision week (methodology v1 §7-§10).

claim → prompt → agent → parse (format retries, then a marked HOLD fallback) → checkpoint →
execute the valid trades at the run's snapshot prices → complete the claim.

Every step is safe to rerun. A succeeded decision is final, so a rerun returns at once. A run
that crashed before its checkpoint is taken over when its lease expires and asks again; one that
crashed after it reuses the stored decision, so trades already applied are recognised by their
ids and only the missing ones are applied. BET/SELL decisions with zero executed trades are
retryable failures (§9.3), as are transport failures; fatal upstream errors (401, 402, ...) are
recorded and re-raised, loudly, never turned into a quiet HOLD.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Any

from arena_core.decision.prompt import build_prompt
from arena_core.domain.cohort import Agent, Cohort, decision_week
from arena_core.domain.decision import Action
from arena_core.domain.market import Market
from arena_core.domain.portfolio import Position
from arena_core.errors import (
    AttemptsExhaustedError,
    DecisionAlreadySucceededError,
    NotFoundError,
    UpstreamError,
)
from arena_core.ports.agent import AgentContext, ForecastAgent
from arena_core.ports.blob_store import BlobStore
from arena_core.ports.clock import Clock
from arena_core.ports.repository import DecisionRecord, DecisionStatus, Repository
from arena_core.services.consult import Consultation, consult
from arena_core.services.portfolio_view import position_lines
from arena_core.services.trading import KnownState, TradeOutcome, execute_all


@dataclass(frozen=True)
class DecideSettings:
    format_retries: int = 2
    max_attempts: int = 3
    lease: timedelta = timedelta(minutes=15)
    excerpt_chars: int = 600


@dataclass(frozen=True)
class DecideRequest:
    agent_id: str
    run_at: datetime
    universe_ref: str
    owner: str


class DecideStatus(StrEnum):
    SUCCEEDED = "succeeded"
    ALREADY_DECIDED = "already_decided"
    RETRYABLE_FAILURE = "retryable_failure"
    EXHAUSTED = "exhausted"


@dataclass(frozen=True)
class DecideResult:
    decision_id: str
    status: DecideStatus
    action: str | None = None
    fallback: bool = False
    executed: int = 0
    rejected: int = 0
    error: str | None = None
    outcome: dict[str, Any] = field(default_factory=dict)


def load_universe(blobs: BlobStore, ref: str) -> list[Market]:
    """The run's market universe: captured once, shown identically to every agent."""
    return [Market.model_validate(raw) for raw in json.loads(blobs.get(ref))]


def _trade_audit(outcome: TradeOutcome) -> dict[str, Any]:
    return {
        "index": outcome.index,
        "trade_id": outcome.trade_id,
        "instruction": outcome.instruction.model_dump(mode="json"),
        "executed": outcome.executed,
        "rule": outcome.rejected_rule,
        "reason": outcome.reason,
        "price": None if outcome.trade is None else str(outcome.trade.price),
        "shares": None if outcome.trade is None else str(outcome.trade.shares),
        "amount": None if outcome.trade is None else str(outcome.trade.amount),
    }


def _summary(consultation: Consultation, outcomes: list[TradeOutcome]) -> dict[str, Any]:
    executed = sum(1 for o in outcomes if o.executed)
    last = consultation.responses[-1] if consultation.responses else {}
    return {
        "action": consultation.decision.action.value,
        "reasoning": consultation.decision.reasoning,
        "fallback": consultation.fallback,
        "fallback_reason": consultation.fallback_reason,
        "prompt_ref": consultation.prompt_ref,
        "responses": consultation.responses,
        "model": last.get("model"),
        "provider": last.get("provider"),
        "trades": [_trade_audit(o) for o in outcomes],
        "executed": executed,
        "rejected": len(outcomes) - executed,
    }


class DecideService:
    def __init__(
        self,
        repo: Repository,
        blobs: BlobStore,
        clock: Clock,
        settings: DecideSettings | None = None,
    ) -> None:
        self._repo = repo
        self._blobs = blobs
        self._clock = clock
        self._settings = settings or DecideSettings()

    def decide(
        self, request: DecideRequest, agent: ForecastAgent | Callable[[Agent], ForecastAgent]
    ) -> DecideResult:
        """Decide for one agent; ``agent`` is the responder, or a factory given the member."""
        member = self._repo.get_agent(request.agent_id)
        responder = agent if isinstance(agent, ForecastAgent) else agent(member)
        cohort = self._repo.get_cohort(member.cohort_id)
        if cohort is None:
            raise NotFoundError(f"no cohort {member.cohort_id}")
        week = decision_week(cohort.week_start, request.run_at)
        decision_id = DecisionRecord.id_for(member.agent_id, week)
        try:
            record = self._repo.claim_decision(
                member,
                week,
                owner=request.owner,
                now=self._clock.now(),
                lease=self._settings.lease,
                max_attempts=self._settings.max_attempts,
            )
        except DecisionAlreadySucceededError:
            return DecideResult(decision_id, DecideStatus.ALREADY_DECIDED)
        except AttemptsExhaustedError as exc:
            return DecideResult(decision_id, DecideStatus.EXHAUSTED, error=str(exc))
        markets = load_universe(self._blobs, request.universe_ref)
        fresh = record.checkpoint is None  # no trade of this decision can exist yet
        positions = self._repo.positions(member.agent_id)
        consultation = self._consultation(
            record,
            request,
            member=member,
            week=week,
            markets=markets,
            agent=responder,
            positions=positions,
        )
        outcomes = execute_all(
            self._repo,
            agent_id=member.agent_id,
            decision_id=decision_id,
            owner=request.owner,
            instructions=[*consultation.decision.bets, *consultation.decision.sells],
            markets={m.market_id: m for m in markets},
            at=request.run_at,
            known=KnownState(member, {p.position_id: p for p in positions}) if fresh else None,
        )
        return self._finish(
            record,
            request,
            consultation=consultation,
            outcomes=outcomes,
            cohort=cohort,
        )

    def _consultation(
        self,
        record: DecisionRecord,
        request: DecideRequest,
        *,
        member: Agent,
        week: int,
        markets: list[Market],
        agent: ForecastAgent,
        positions: list[Position],
    ) -> Consultation:
        if record.checkpoint is not None:
            return Consultation.from_checkpoint(record.checkpoint)
        by_id = {m.market_id: m for m in markets}
        held = [p.market_id for p in positions if p.is_open and p.market_id not in by_id]
        known = {**self._repo.get_markets(held), **by_id}
        lines = position_lines(positions, known)
        prompt = build_prompt(
            now=request.run_at,
            cohort_id=member.cohort_id,
            week=week,
            cash=member.cash,
            positions=lines,
            markets=markets,
        )
        context = AgentContext(member.agent_id, week, request.run_at, member.cash, lines, markets)
        try:
            consultation = consult(
                agent,
                prompt,
                context,
                blobs=self._blobs,
                blob_prefix=f"decisions/{record.decision_id}/claim-{record.claims}",
                format_retries=self._settings.format_retries,
                excerpt_chars=self._settings.excerpt_chars,
            )
        except UpstreamError as exc:
            self._repo.finish_decision(
                record.decision_id,
                owner=request.owner,
                status=DecisionStatus.RETRYABLE_FAILURE,
                now=self._clock.now(),
                error=f"{type(exc).__name__}: {exc}",
            )
            raise
        self._repo.save_checkpoint(
            record.decision_id,
            owner=request.owner,
            checkpoint=consultation.to_checkpoint(),
            now=self._clock.now(),
        )
        return consultation

    def _finish(
        self,
        record: DecisionRecord,
        request: DecideRequest,
        *,
        consultation: Consultation,
        outcomes: list[TradeOutcome],
        cohort: Cohort,
    ) -> DecideResult:
        summary = _summary(consultation, outcomes)
        action = consultation.decision.action
        zero_trades = action is not Action.HOLD and summary["executed"] == 0
        status = DecisionStatus.RETRYABLE_FAILURE if zero_trades else DecisionStatus.SUCCEEDED
        error = "the decision produced zero executed trades" if zero_trades else None
        self._repo.finish_decision(
            record.decision_id,
            owner=request.owner,
            status=status,
            now=self._clock.now(),
            outcome=summary,
            error=error,
        )
        if not zero_trades and cohort.first_decision_at is None:
            self._repo.mark_first_decision(cohort.cohort_id, request.run_at)
        return DecideResult(
            record.decision_id,
            DecideStatus.RETRYABLE_FAILURE if zero_trades else DecideStatus.SUCCEEDED,
            action=action.value,
            fallback=consultation.fallback,
            executed=summary["executed"],
            rejected=summary["rejected"],
            error=error,
            outcome=summary,
        )
