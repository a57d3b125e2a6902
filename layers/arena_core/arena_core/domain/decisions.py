"""One agent-week's decision: its claim row, its state, and what is recorded about it.

The decide use case claims the row before the model is called, saves a ``Consultation`` (the
answer and its audit) as the checkpoint before any trade, and closes the row with a
``DecisionOutcome``. Every field the store, the site and the exports read is typed here, so a
renamed field is a type error, not a ``KeyError`` at run time.
"""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal

from arena_core.domain.answer import Action, Answer, BetInstruction, SellInstruction
from arena_core.domain.base import DomainModel
from arena_core.domain.coherence import TradeCoherence
from arena_core.domain.decision_status import DecisionStatus
from arena_core.domain.ids import AgentId, CohortId, DecisionId
from arena_core.domain.panel import PanelForecast
from arena_core.errors import (
    AttemptsExhaustedError,
    ClaimConflictError,
    ClaimHeldError,
    DecisionAlreadySucceededError,
)

REASONING_EXCERPT = 4_000  # characters of a reasoning kept in the records (the rest in a blob)

__all__ = [
    "Consultation",
    "DecisionOutcome",
    "DecisionRecord",
    "DecisionStatus",
    "ResponseAudit",
    "TradeAudit",
    "claim_refusal",
]


class ResponseAudit(DomainModel):
    """One reply of the model: where its raw body is stored, who answered, what it cost."""

    attempt: int
    response_ref: str
    model: str | None
    provider: str | None
    finish_reason: str | None
    prompt_tokens: int
    completion_tokens: int
    cost: Decimal | None
    latency_ms: int
    transport_attempts: int
    error: str | None = None  # why the reply could not be used (fed back to the model)
    # SHA-256 of the raw body exactly as stored, taken when it was stored: the decision's
    # commitment covers it without reading the blob again (None in records made before).
    body_sha256: str | None = None


class Consultation(DomainModel):
    """What asking the agent produced: the answer (or the HOLD fallback) and the audit. Saved as
    the decision's checkpoint before any trade, so a takeover never asks the model again.

    A reasoning longer than ``REASONING_EXCERPT`` characters is stored whole as a blob
    (``reasoning_ref``) and the answer keeps its beginning: a record stays far below
    DynamoDB's 400 KB item limit whatever the model wrote.
    """

    answer: Answer
    fallback: bool
    fallback_reason: str | None
    prompt_ref: str
    responses: tuple[ResponseAudit, ...]
    reasoning_ref: str | None = None
    prompt_sha256: str | None = None  # of the stored transcript (None in records made before)
    # v1+panel: one forecast per panel market (fill-ins flagged), and what was wrong with the
    # stated ones after the format retries, if anything.
    forecasts: tuple[PanelForecast, ...] = ()
    forecast_problems: str | None = None
    cash_before: Decimal | None = None  # v1+panel: cash when asked (bet sizes vs Kelly)


class TradeAudit(DomainModel):
    """What became of one instruction of the answer: executed (with its fill) or rejected."""

    index: int
    trade_id: str
    instruction: BetInstruction | SellInstruction
    executed: bool
    rule: str | None  # the rule that rejected it
    reason: str | None
    price: Decimal | None
    shares: Decimal | None
    amount: Decimal | None


class DecisionOutcome(DomainModel):
    """The final summary of a decision, as the site and the dataset show it."""

    action: Action
    reasoning: str
    fallback: bool
    fallback_reason: str | None
    prompt_ref: str
    responses: tuple[ResponseAudit, ...]
    model: str | None
    provider: str | None
    trades: tuple[TradeAudit, ...]
    executed: int
    rejected: int
    reasoning_ref: str | None = None  # the whole reasoning, when ``reasoning`` is an excerpt
    forecasts: tuple[PanelForecast, ...] = ()  # v1+panel: as in the consultation
    forecast_problems: str | None = None
    coherence: tuple[TradeCoherence, ...] = ()  # v1+panel: buys on panel markets vs forecasts
    prompt_sha256: str | None = None  # as in the consultation
    # The SHA-256 of the decision's canonical record (``domain.commitments``), set when it
    # succeeds and published at once in the commitments log.
    commitment: str | None = None

    @property
    def transport_retries(self) -> int:
        """Upstream requests repeated by the client's own retries, over every reply."""
        return sum(max(0, r.transport_attempts - 1) for r in self.responses)


class DecisionRecord(DomainModel):
    """The claim row of one agent-week, and what became of it.

    ``attempts`` counts failed attempts (retryable failures), ``claims`` counts how often the row
    was claimed (crash recoveries included). ``checkpoint`` holds what must survive a crash after
    the model call so a takeover never calls the model twice for trades already begun;
    ``outcome`` is the final summary.
    """

    decision_id: DecisionId
    agent_id: AgentId
    cohort_id: CohortId
    week: int
    status: DecisionStatus
    owner: str | None = None  # the invocation holding the claim (unique per invocation)
    run: str | None = None  # the run it belongs to: a later invocation of the run may take over
    lease_until: datetime | None = None
    attempts: int = 0
    claims: int = 0
    trades_applied: int = 0
    created_at: datetime
    updated_at: datetime
    checkpoint: Consultation | None = None
    outcome: DecisionOutcome | None = None
    error: str | None = None

    @staticmethod
    def id_for(agent_id: str, week: int) -> str:
        """Deterministic; zero-padded so ids sort in week order."""
        return f"{agent_id}.w{week:03d}"

    @staticmethod
    def agent_of(decision_id: str) -> str:
        """The agent id inside a decision id (the inverse of ``id_for``)."""
        return decision_id.rsplit(".w", 1)[0]


def claim_refusal(
    record: DecisionRecord, now: datetime, max_attempts: int, run: str
) -> ClaimConflictError | None:
    """Why an existing decision row cannot be claimed now, or None if it can.

    An invocation of the run that holds a live claim may take it over: a retried step of the
    same run picks up its work, and the invocation it replaces (if still alive) is fenced out,
    since every write is conditional on the owner. Any other run waits for the lease to expire.
    """
    status = record.status
    if status is DecisionStatus.SUCCEEDED:
        return DecisionAlreadySucceededError(f"decision {record.decision_id} already succeeded")
    if status in (DecisionStatus.FAILED, DecisionStatus.EXHAUSTED):
        return AttemptsExhaustedError(f"decision {record.decision_id} failed for good")
    if status is DecisionStatus.RETRYABLE_FAILURE and record.attempts >= max_attempts:
        return AttemptsExhaustedError(
            f"decision {record.decision_id} used {record.attempts} of {max_attempts} attempts"
        )
    # A lease is live up to and including its expiry instant; strictly later, it can be taken.
    if status is DecisionStatus.CLAIMED and record.run == run:
        return None
    if status is DecisionStatus.CLAIMED and record.lease_until and record.lease_until >= now:
        return ClaimHeldError(
            f"decision {record.decision_id} is held by another run until {record.lease_until}"
        )
    return None
