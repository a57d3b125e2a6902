"""The decide use case: one agent, one decision week (methodology v1 §7-§10).

check the request → claim → prompt → agent → parse (format retries, then a marked HOLD
fallback) → checkpoint → execute the valid trades at the run's snapshot prices → publish the
decision's commitment → complete the claim.

Every step is safe to rerun. A succeeded decision is final, so a rerun returns at once. A run
that crashed before its checkpoint is taken over when its lease expires and asks again; one that
crashed after it reuses the stored answer, so trades already applied are recognised by their
ids and only the missing ones are applied. BET/SELL answers with zero executed trades are
retryable failures (§9.3).

The path after the claim is total: whatever fails is recorded on the decision as a failed
attempt with its reason, and counts toward the attempt limit; transient and unexplained failures
are raised as retryable errors (the workflow retries; a retry resumes the stored answer when one
was saved), fatal upstream errors (401, 402, ...) are raised as they are, loudly, never turned
into a quiet HOLD. Each invocation claims under its own owner token: an invocation of the same
run may take a claim over, and the one it replaced can no longer write anything.

Nothing is claimed before the request is known good (its run time, its cohort, its week's
universe): a bad request is a ``RunRequestError`` that leaves the agent-week untouched. Every
end is final when it should be: the last attempt allowed that fails is recorded exhausted, and
a decision that cannot be stored or decoded (``StoreLimitError``, ``CorruptRecordError``) is
recorded failed, so nothing downstream waits on it. Decide publishes its commitment object
only; Finalize lists it in the log.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Protocol

from arena_core.constants import universe_key
from arena_core.domain.answer import Action
from arena_core.domain.coherence import DecisionCoherence
from arena_core.domain.cohort import Agent, Cohort, decision_week, in_calendar, week_start_for
from arena_core.domain.commitments import commitment_of
from arena_core.domain.decisions import (
    Consultation,
    DecisionOutcome,
    DecisionRecord,
    DecisionStatus,
)
from arena_core.domain.market import Market
from arena_core.domain.panel import Methodology, Panel
from arena_core.domain.portfolio import Position
from arena_core.errors import (
    ArenaError,
    AttemptsExhaustedError,
    ClaimLostError,
    CorruptRecordError,
    DecideAttemptError,
    DecisionAlreadySucceededError,
    NotFoundError,
    RunRequestError,
    StoreLimitError,
)
from arena_core.ports.agent import AgentContext, ForecastAgent
from arena_core.ports.blob_store import BlobStore
from arena_core.ports.clock import Clock
from arena_core.ports.commitment_store import CommitmentStore
from arena_core.ports.stores import (
    WithCohorts,
    WithDecisions,
    WithLedger,
    WithMarkets,
    WithPanel,
)
from arena_core.services.commitments import publish_decision, with_hashes
from arena_core.services.consult import consult
from arena_core.services.outcome import bounded, summarize
from arena_core.services.panel import PanelSettings, captured_panel
from arena_core.services.prompting import decision_prompt
from arena_core.services.trading import KnownState, TradeRun, execute_all

CLOCK_SKEW = timedelta(minutes=1)  # a run time later than now by more than this is refused
ERROR_CHARS = 500  # a failure's reason, as recorded on the decision


@dataclass(frozen=True)
class DecideSettings:
    format_retries: int = 2
    max_attempts: int = 3
    lease: timedelta = timedelta(minutes=15)
    excerpt_chars: int = 600
    panel: PanelSettings = field(default_factory=PanelSettings)


@dataclass(frozen=True)
class DecideRequest:
    """One invocation's request: ``owner`` is its own token; ``run`` (default: the owner)
    names the run it belongs to, whose later invocations may take its claim over."""

    agent_id: str
    run_at: datetime
    universe_ref: str
    owner: str
    run: str | None = None


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


@dataclass(frozen=True)
class _Checked:
    """A request found good before anything is claimed: who decides, in which cohort and
    week, on which markets."""

    member: Agent
    cohort: Cohort
    week: int
    markets: list[Market]


@dataclass
class _Attempt:
    """One attempt on a claimed decision, and how far it got."""

    record: DecisionRecord
    request: DecideRequest
    member: Agent
    cohort: Cohort
    week: int
    markets: list[Market]
    checkpointed: bool = field(default=False)


class DecideStores(WithCohorts, WithDecisions, WithLedger, WithMarkets, WithPanel, Protocol):
    """The roles deciding uses: the cohort, the claim, the ledger, the held markets' state."""


class DecideService:
    def __init__(
        self,
        stores: DecideStores,
        blobs: BlobStore,
        clock: Clock,
        settings: DecideSettings | None = None,
        commitments: CommitmentStore | None = None,
    ) -> None:
        """``commitments``: where a succeeded decision's commitment is published (without it,
        the commitment is still computed and recorded on the decision)."""
        self._cohorts = stores.cohorts
        self._decisions = stores.decisions
        self._ledger = stores.ledger
        self._markets = stores.markets
        self._panel_store = stores.panel
        self._blobs = blobs
        self._clock = clock
        self._settings = settings or DecideSettings()
        self._commitments = commitments

    def decide(
        self, request: DecideRequest, agent: ForecastAgent | Callable[[Agent], ForecastAgent]
    ) -> DecideResult:
        """Decide for one agent; ``agent`` is the responder, or a factory given the member.
        The request is checked whole before the claim: a bad one claims nothing."""
        checked = self._checked(request)
        member, cohort, week = checked.member, checked.cohort, checked.week
        responder = agent if isinstance(agent, ForecastAgent) else agent(member)
        decision_id = DecisionRecord.id_for(member.agent_id, week)
        try:
            record = self._claim(member, week, request)
        except DecisionAlreadySucceededError:
            return DecideResult(decision_id, DecisionStatus.SUCCEEDED, already_decided=True)
        except AttemptsExhaustedError as exc:
            return DecideResult(decision_id, DecisionStatus.EXHAUSTED, error=str(exc))
        except CorruptRecordError as exc:
            # Claimed, but its row cannot be read: closed as failed for good (its payloads
            # dropped), so nothing downstream waits on a decision no attempt can finish.
            self._close(decision_id, request.owner, DecisionStatus.FAILED, _reason(exc))
            raise
        attempt = _Attempt(record, request, member, cohort, week, checked.markets)
        try:
            return self._attempt(attempt, responder)
        except ClaimLostError:
            raise  # another invocation of the run took over: its work stands, ours is refused
        except ArenaError as exc:
            self._record_failure(attempt, exc)
            raise
        except Exception as exc:
            self._record_failure(attempt, exc)
            raise DecideAttemptError(_reason(exc)) from exc

    def _checked(self, request: DecideRequest) -> _Checked:
        """The request, known good: an aware run time within the calendar, not in the future,
        not before its cohort opened; the universe the one captured for that week, readable.
        A wrong ``universe_ref`` used to take the real agent-week's claim, fail after it and
        exhaust its attempts; now it is a ``RunRequestError`` and nothing is claimed."""
        run_at = in_calendar(request.run_at, "run time")
        if run_at > self._clock.now() + CLOCK_SKEW:
            raise RunRequestError(f"run time {run_at.isoformat()} is in the future")
        member = self._ledger.get_agent(request.agent_id)
        cohort = self._cohorts.get_cohort(member.cohort_id)
        if cohort is None:
            raise NotFoundError(f"no cohort {member.cohort_id}")
        if run_at < cohort.week_start:
            raise RunRequestError(
                f"run time {run_at.isoformat()} precedes cohort {cohort.cohort_id}'s start"
            )
        week = decision_week(cohort.week_start, run_at)
        sunday = week_start_for(run_at).date()
        if self._blobs.find(universe_key(sunday)) != request.universe_ref:
            raise RunRequestError(
                f"{request.universe_ref[:120]!r} is not the universe captured for the week of "
                f"{sunday}"
            )
        try:
            markets = load_universe(self._blobs, request.universe_ref)
        except (ValueError, TypeError, RecursionError) as exc:  # JSON or a market it refuses
            raise RunRequestError(f"the week of {sunday}'s universe cannot be read") from exc
        return _Checked(member, cohort, week, markets)

    def _claim(self, member: Agent, week: int, request: DecideRequest) -> DecisionRecord:
        return self._decisions.claim_decision(
            member,
            week,
            owner=request.owner,
            run=request.run,
            now=self._clock.now(),
            lease=self._settings.lease,
            max_attempts=self._settings.max_attempts,
        )

    def _attempt(self, attempt: _Attempt, responder: ForecastAgent) -> DecideResult:
        record, request, member = attempt.record, attempt.request, attempt.member
        markets = attempt.markets
        panel = self._panel(attempt, markets)
        fresh = record.checkpoint is None  # no trade of this decision can exist yet
        positions = self._ledger.positions(member.agent_id)
        consultation = record.checkpoint or self._consult(
            attempt, markets, responder, positions, panel
        )
        attempt.checkpointed = True
        consultation = with_hashes(consultation, self._blobs)
        run = TradeRun(
            agent_id=member.agent_id,
            decision_id=record.decision_id,
            owner=request.owner,
            markets={m.market_id: m for m in markets},
            at=request.run_at,
        )
        known = KnownState(member, {p.position_id: p for p in positions}) if fresh else None
        answer = consultation.answer
        outcomes = execute_all(self._ledger, run, [*answer.bets, *answer.sells], known=known)
        return self._finish(attempt, summarize(consultation, outcomes, panel, run.markets))

    def _panel(self, attempt: _Attempt, markets: list[Market]) -> Panel | None:
        """The week's panel when the cohort runs v1+panel (frozen when it opened)."""
        if attempt.cohort.methodology_version != Methodology.V1_PANEL:
            return None
        run_at = attempt.request.run_at
        # Prepare drew it from the panel listing; a run without one (a rerun of a week before
        # the cohort's methodology drew panels) draws it from the trading universe it has.
        return captured_panel(self._blobs, lambda: markets, run_at, self._settings.panel)

    def _consult(
        self,
        attempt: _Attempt,
        markets: list[Market],
        agent: ForecastAgent,
        positions: list[Position],
        panel: Panel | None,
    ) -> Consultation:
        record, request, member = attempt.record, attempt.request, attempt.member
        prompt, lines = decision_prompt(
            self._markets,
            member,
            week=attempt.week,
            run_at=request.run_at,
            markets=markets,
            positions=positions,
            panel=panel,
        )
        context = AgentContext(
            member.agent_id, attempt.week, request.run_at, member.cash, lines, markets, panel
        )
        prefix = f"decisions/{record.decision_id}/claim-{record.claims}"
        consultation = consult(
            agent,
            prompt,
            context,
            blobs=self._blobs,
            blob_prefix=prefix,
            format_retries=self._settings.format_retries,
            excerpt_chars=self._settings.excerpt_chars,
            panel=panel,
        )
        if panel is not None:
            consultation = consultation.model_copy(update={"cash_before": member.cash})
        consultation = bounded(consultation, self._blobs, prefix)
        self._decisions.save_checkpoint(
            record.decision_id, owner=request.owner, checkpoint=consultation, now=self._clock.now()
        )
        return consultation

    def _finish(self, attempt: _Attempt, outcome: DecisionOutcome) -> DecideResult:
        record, request, cohort = attempt.record, attempt.request, attempt.cohort
        zero_trades = outcome.action is not Action.HOLD and outcome.executed == 0
        status = self._failure_status(record) if zero_trades else DecisionStatus.SUCCEEDED
        error = "the decision produced zero executed trades" if zero_trades else None
        now = self._clock.now()  # the completion time: in the commitment and on the decision
        if not zero_trades:
            outcome = self._commit(record, outcome, now)
        if outcome.coherence:
            self._panel_store.record_coherence(
                DecisionCoherence(
                    decision_id=record.decision_id,
                    agent_id=record.agent_id,
                    cohort_id=record.cohort_id,
                    family_id=attempt.member.family_id,
                    week=record.week,
                    trades=outcome.coherence,
                )
            )
        self._decisions.finish_decision(
            record.decision_id,
            owner=request.owner,
            status=status,
            now=now,
            outcome=outcome,
            error=error,
        )
        if not zero_trades and cohort.first_decision_at is None:
            self._cohorts.mark_first_decision(cohort.cohort_id, request.run_at)
        return DecideResult(record.decision_id, status, error=error, outcome=outcome)

    def _commit(
        self, record: DecisionRecord, outcome: DecisionOutcome, now: datetime
    ) -> DecisionOutcome:
        """The outcome with its commitment, published before the decision is marked succeeded:
        a succeeded decision always has its object (a crash in between leaves an object whose
        decision a retry completes again, at another time, under another name). Only the
        object: Finalize, the one writer of the log, lists it there."""
        commitment = commitment_of(record, outcome, now)
        if self._commitments is not None:
            publish_decision(self._commitments, commitment)
        return outcome.model_copy(update={"commitment": commitment.sha256})

    def _failure_status(self, record: DecisionRecord) -> DecisionStatus:
        """A failed attempt's status: exhausted (final) when it was the last one allowed, so
        nothing downstream (the panel's scoring) waits on a decision no run will retry."""
        if record.attempts + 1 >= self._settings.max_attempts:
            return DecisionStatus.EXHAUSTED
        return DecisionStatus.RETRYABLE_FAILURE

    def _record_failure(self, attempt: _Attempt, exc: Exception) -> None:
        """Close the claim as a failed attempt with its reason. After the checkpoint the answer
        is kept: trades of it may be applied, and the next attempt must finish that answer.
        A decision that cannot be stored or decoded is failed for good: no retry can help."""
        unstorable = isinstance(exc, StoreLimitError | CorruptRecordError)
        status = DecisionStatus.FAILED if unstorable else self._failure_status(attempt.record)
        self._close(
            attempt.record.decision_id,
            attempt.request.owner,
            status,
            _reason(exc),
            keep_checkpoint=attempt.checkpointed,
        )

    def _close(
        self,
        decision_id: str,
        owner: str,
        status: DecisionStatus,
        error: str,
        *,
        keep_checkpoint: bool = False,
    ) -> None:
        # If the store fails too (or the claim was taken), the lease expires, then a retry.
        with suppress(ArenaError):
            self._decisions.finish_decision(
                decision_id,
                owner=owner,
                status=status,
                now=self._clock.now(),
                error=error,
                keep_checkpoint=keep_checkpoint,
            )


def _reason(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"[:ERROR_CHARS]
