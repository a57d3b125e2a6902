"""The decide use case: one agent, one decision week (methodology v1 §7-§10).

claim → prompt → agent → parse (format retries, then a marked HOLD fallback) → checkpoint →
execute the valid trades at the run's snapshot prices → complete the claim.

Every step is safe to rerun. A succeeded decision is final, so a rerun returns at once. A run
that crashed before its checkpoint is taken over when its lease expires and asks again; one that
crashed after it reuses the stored answer, so trades already applied are recognised by their
ids and only the missing ones are applied. BET/SELL answers with zero executed trades are
retryable failures (§9.3), as are transport failures; fatal upstream errors (401, 402, ...) are
recorded and re-raised, loudly, never turned into a quiet HOLD.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Protocol

from arena_core.domain.answer import Action
from arena_core.domain.cohort import Agent, Cohort, decision_week
from arena_core.domain.decisions import (
    Consultation,
    DecisionOutcome,
    DecisionRecord,
    DecisionStatus,
    TradeAudit,
)
from arena_core.domain.holdings import position_lines
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
from arena_core.ports.stores import WithCohorts, WithDecisions, WithLedger, WithMarkets
from arena_core.protocol.prompt import build_prompt
from arena_core.services.consult import consult
from arena_core.services.trading import KnownState, TradeOutcome, TradeRun, execute_all


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


@dataclass(frozen=True)
class DecideResult:
    """What this invocation saw: the decision's status and, when it ran now, its outcome."""

    decision_id: str
    status: DecisionStatus
    already_decided: bool = False
    error: str | None = None
    outcome: DecisionOutcome | None = None

    @property
    def action(self) -> Action | None:
        return self.outcome.action if self.outcome else None

    @property
    def fallback(self) -> bool:
        return self.outcome.fallback if self.outcome else False

    @property
    def executed(self) -> int:
        return self.outcome.executed if self.outcome else 0

    @property
    def rejected(self) -> int:
        return self.outcome.rejected if self.outcome else 0


def load_universe(blobs: BlobStore, ref: str) -> list[Market]:
    """The run's market universe: captured once, shown identically to every agent."""
    return [Market.model_validate(raw) for raw in json.loads(blobs.get(ref))]


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
    )


class DecideStores(WithCohorts, WithDecisions, WithLedger, WithMarkets, Protocol):
    """The roles deciding uses: the cohort, the claim, the ledger, the held markets' state."""


class DecideService:
    def __init__(
        self,
        stores: DecideStores,
        blobs: BlobStore,
        clock: Clock,
        settings: DecideSettings | None = None,
    ) -> None:
        self._cohorts = stores.cohorts
        self._decisions = stores.decisions
        self._ledger = stores.ledger
        self._markets = stores.markets
        self._blobs = blobs
        self._clock = clock
        self._settings = settings or DecideSettings()

    def decide(
        self, request: DecideRequest, agent: ForecastAgent | Callable[[Agent], ForecastAgent]
    ) -> DecideResult:
        """Decide for one agent; ``agent`` is the responder, or a factory given the member."""
        member = self._ledger.get_agent(request.agent_id)
        responder = agent if isinstance(agent, ForecastAgent) else agent(member)
        cohort = self._cohorts.get_cohort(member.cohort_id)
        if cohort is None:
            raise NotFoundError(f"no cohort {member.cohort_id}")
        week = decision_week(cohort.week_start, request.run_at)
        decision_id = DecisionRecord.id_for(member.agent_id, week)
        try:
            record = self._decisions.claim_decision(
                member,
                week,
                owner=request.owner,
                now=self._clock.now(),
                lease=self._settings.lease,
                max_attempts=self._settings.max_attempts,
            )
        except DecisionAlreadySucceededError:
            return DecideResult(decision_id, DecisionStatus.SUCCEEDED, already_decided=True)
        except AttemptsExhaustedError as exc:
            return DecideResult(decision_id, DecisionStatus.EXHAUSTED, error=str(exc))
        markets = load_universe(self._blobs, request.universe_ref)
        fresh = record.checkpoint is None  # no trade of this decision can exist yet
        positions = self._ledger.positions(member.agent_id)
        consultation = record.checkpoint or self._consult(
            record,
            request,
            member=member,
            week=week,
            markets=markets,
            agent=responder,
            positions=positions,
        )
        run = TradeRun(
            agent_id=member.agent_id,
            decision_id=decision_id,
            owner=request.owner,
            markets={m.market_id: m for m in markets},
            at=request.run_at,
        )
        known = KnownState(member, {p.position_id: p for p in positions}) if fresh else None
        answer = consultation.answer
        outcomes = execute_all(self._ledger, run, [*answer.bets, *answer.sells], known=known)
        return self._finish(record, request, summarize(consultation, outcomes), cohort)

    def _consult(
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
        by_id = {m.market_id: m for m in markets}
        held = [p.market_id for p in positions if p.is_open and p.market_id not in by_id]
        known = {**self._markets.get_markets(held), **by_id}
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
            self._decisions.finish_decision(
                record.decision_id,
                owner=request.owner,
                status=DecisionStatus.RETRYABLE_FAILURE,
                now=self._clock.now(),
                error=f"{type(exc).__name__}: {exc}",
            )
            raise
        self._decisions.save_checkpoint(
            record.decision_id, owner=request.owner, checkpoint=consultation, now=self._clock.now()
        )
        return consultation

    def _finish(
        self,
        record: DecisionRecord,
        request: DecideRequest,
        outcome: DecisionOutcome,
        cohort: Cohort,
    ) -> DecideResult:
        zero_trades = outcome.action is not Action.HOLD and outcome.executed == 0
        status = DecisionStatus.RETRYABLE_FAILURE if zero_trades else DecisionStatus.SUCCEEDED
        error = "the decision produced zero executed trades" if zero_trades else None
        self._decisions.finish_decision(
            record.decision_id,
            owner=request.owner,
            status=status,
            now=self._clock.now(),
            outcome=outcome,
            error=error,
        )
        if not zero_trades and cohort.first_decision_at is None:
            self._cohorts.mark_first_decision(cohort.cohort_id, request.run_at)
        return DecideResult(record.decision_id, status, error=error, outcome=outcome)
