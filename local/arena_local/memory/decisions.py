"""Decision claims in memory: the same rules as the DynamoDB conditions, under the lock."""

from __future__ import annotations

from datetime import datetime, timedelta

from arena_core.domain.cohort import Agent
from arena_core.domain.decisions import (
    Consultation,
    DecisionOutcome,
    DecisionRecord,
    DecisionStatus,
    claim_refusal,
)
from arena_core.errors import ClaimLostError
from arena_core.ports.decision_store import (
    ERROR_BYTES,
    FAILURES,
    PAYLOAD_BYTES,
    DecisionStore,
    within,
)
from arena_local.memory.state import MemoryState


def owned(state: MemoryState, decision_id: str, owner: str) -> DecisionRecord:
    """The decision, if ``owner`` holds its live claim (call with the lock held)."""
    record = state.decisions.get(decision_id)
    if record is None or record.owner != owner or record.status is not DecisionStatus.CLAIMED:
        raise ClaimLostError(f"run {owner} does not hold decision {decision_id}")
    return record


class MemoryDecisionStore(DecisionStore):
    def __init__(self, state: MemoryState) -> None:
        self._s = state

    def claim_decision(
        self,
        agent: Agent,
        week: int,
        *,
        owner: str,
        now: datetime,
        lease: timedelta,
        max_attempts: int,
        run: str | None = None,
    ) -> DecisionRecord:
        decision_id = DecisionRecord.id_for(agent.agent_id, week)
        run = run or owner
        with self._s.lock:
            existing = self._s.decisions.get(decision_id)
            if existing is not None:
                refusal = claim_refusal(existing, now, max_attempts, run)
                if refusal is not None:
                    raise refusal
            base = existing or DecisionRecord(
                decision_id=decision_id,
                agent_id=agent.agent_id,
                cohort_id=agent.cohort_id,
                week=week,
                status=DecisionStatus.CLAIMED,
                created_at=now,
                updated_at=now,
            )
            record = base.model_copy(
                update={
                    "status": DecisionStatus.CLAIMED,
                    "owner": owner,
                    "run": run,
                    "lease_until": now + lease,
                    "claims": base.claims + 1,
                    "updated_at": now,
                }
            )
            self._s.decisions[decision_id] = record
            return record

    def extend_claim(self, decision_id: str, *, owner: str, lease_until: datetime) -> None:
        with self._s.lock:
            record = owned(self._s, decision_id, owner)
            self._s.decisions[decision_id] = record.model_copy(update={"lease_until": lease_until})

    def save_checkpoint(
        self, decision_id: str, *, owner: str, checkpoint: Consultation, now: datetime
    ) -> None:
        within(checkpoint.model_dump_json(), PAYLOAD_BYTES, "the checkpoint")
        with self._s.lock:
            record = owned(self._s, decision_id, owner)
            self._s.decisions[decision_id] = record.model_copy(
                update={"checkpoint": checkpoint, "updated_at": now}
            )

    def finish_decision(
        self,
        decision_id: str,
        *,
        owner: str,
        status: DecisionStatus,
        now: datetime,
        outcome: DecisionOutcome | None = None,
        error: str | None = None,
        keep_checkpoint: bool = False,
    ) -> DecisionRecord:
        if status is DecisionStatus.CLAIMED:
            raise ValueError("finish_decision needs a final or failure status")
        if outcome is not None:
            within(outcome.model_dump_json(), PAYLOAD_BYTES, "the outcome")
        if error is not None:
            within(error, ERROR_BYTES, "the error")
        with self._s.lock:
            record = owned(self._s, decision_id, owner)
            failed = status in FAILURES
            finished = record.model_copy(
                update={
                    "status": status,
                    "outcome": outcome,
                    "error": error,
                    "lease_until": None,
                    "attempts": record.attempts + (1 if failed else 0),
                    # A retryable failure starts the next attempt from scratch, unless trades of
                    # its answer may have been applied: then that answer must be finished.
                    "checkpoint": None if failed and not keep_checkpoint else record.checkpoint,
                    "updated_at": now,
                }
            )
            self._s.decisions[decision_id] = finished
            return finished

    def get_decision(self, decision_id: str) -> DecisionRecord | None:
        with self._s.lock:
            return self._s.decisions.get(decision_id)

    def decisions(self, agent_id: str) -> list[DecisionRecord]:
        with self._s.lock:
            found = [d for d in self._s.decisions.values() if d.agent_id == agent_id]
        return sorted(found, key=lambda d: d.week)
