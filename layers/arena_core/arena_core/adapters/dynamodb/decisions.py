"""Decision claims on DynamoDB: claim before call, owner tokens, leases, attempt limits.

Claiming is one conditional update that succeeds only when the row does not exist, is a
retryable failure under the attempt limit, or holds a claim whose lease has expired (or is held
by the same owner). Leases are fixed-width UTC strings, so the lease comparison is a string
comparison inside the condition. Every later write on the row is conditional on the owner token
and the claimed status: a run whose lease was taken over cannot overwrite the new owner's work.
The checkpoint and the outcome are stored as JSON text.

The item is bounded as a whole, by construction: the checkpoint and the outcome each within
``PAYLOAD_BYTES`` (the reply parser and the decide path bound every model-supplied string and
list, and move long text to the audit bucket, so they stay far below it), the error within
``ERROR_BYTES``, and the rest a few hundred bytes of ids and times: together under DynamoDB's
400 KB. A payload beyond its bound is a ``StoreLimitError`` before anything is sent (the decide
path then closes the decision as failed, for good). A row the code cannot decode is a
``CorruptRecordError``.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from pydantic import ValidationError

from arena_core.adapters.dynamodb import schema as k
from arena_core.adapters.dynamodb.codec import from_attributes, from_fields
from arena_core.adapters.dynamodb.table import ConditionFailed, Expr, Table
from arena_core.domain.cohort import Agent
from arena_core.domain.decisions import (
    Consultation,
    DecisionOutcome,
    DecisionRecord,
    DecisionStatus,
    claim_refusal,
)
from arena_core.errors import ClaimConflictError, ClaimLostError, CorruptRecordError
from arena_core.ports.decision_store import (
    ERROR_BYTES,
    FAILURES,
    PAYLOAD_BYTES,
    DecisionStore,
    within,
)

CHECKPOINT, OUTCOME = "checkpoint_json", "outcome_json"


def decision_record(item: dict[str, Any]) -> DecisionRecord:
    """The stored row as a record; ``CorruptRecordError`` when it cannot be decoded."""
    fields = from_attributes(item)
    checkpoint, outcome = fields.pop(CHECKPOINT, None), fields.pop(OUTCOME, None)
    try:
        fields["checkpoint"] = Consultation.model_validate_json(checkpoint) if checkpoint else None
        fields["outcome"] = DecisionOutcome.model_validate_json(outcome) if outcome else None
        return from_fields(DecisionRecord, fields)
    except (ValidationError, ValueError, TypeError, RecursionError) as exc:
        raise CorruptRecordError(
            f"decision {str(fields.get('decision_id'))[:120]} cannot be decoded: "
            f"{type(exc).__name__}"
        ) from exc


def _claim_update(
    e: Expr, agent: Agent, week: int, *, owner: str, run: str, now: datetime, lease: timedelta
) -> str:
    attempts = e.n("attempts")
    return (
        f"SET {e.n('status')} = {e.v(DecisionStatus.CLAIMED)}, {e.n('owner')} = {e.v(owner)}, "
        f"{e.n('run')} = {e.v(run)}, "
        f"{e.n('lease_until')} = {e.v(k.stamp(now + lease))}, "
        f"{e.n('claims')} = if_not_exists({e.n('claims')}, {e.v(0)}) + {e.v(1)}, "
        f"{attempts} = if_not_exists({attempts}, {e.v(0)}), "
        f"{e.n('trades_applied')} = if_not_exists({e.n('trades_applied')}, {e.v(0)}), "
        f"{e.n('decision_id')} = {e.v(DecisionRecord.id_for(agent.agent_id, week))}, "
        f"{e.n('agent_id')} = {e.v(agent.agent_id)}, "
        f"{e.n('cohort_id')} = {e.v(agent.cohort_id)}, {e.n('week')} = {e.v(week)}, "
        f"{e.n('entity')} = {e.v('decision')}, "
        f"{e.n('created_at')} = if_not_exists({e.n('created_at')}, {e.v(now)}), "
        f"{e.n('updated_at')} = {e.v(now)}"
    )


def _claimable(e: Expr, run: str, now: datetime, max_attempts: int) -> str:
    status, lease_until = e.n("status"), e.n("lease_until")
    return (
        f"attribute_not_exists({e.n(k.PK)}) "
        f"OR ({status} = {e.v(DecisionStatus.RETRYABLE_FAILURE)} "
        f"AND {e.n('attempts')} < {e.v(max_attempts)}) "
        f"OR ({status} = {e.v(DecisionStatus.CLAIMED)} "
        f"AND {lease_until} < {e.v(k.stamp(now))}) "
        f"OR ({status} = {e.v(DecisionStatus.CLAIMED)} AND {e.n('run')} = {e.v(run)})"
    )


class DynamoDecisionStore(DecisionStore):
    def __init__(self, table: Table) -> None:
        self.table = table

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
        e = Expr()
        update = _claim_update(e, agent, week, owner=owner, run=run, now=now, lease=lease)
        condition = _claimable(e, run, now, max_attempts)
        try:
            item = self.table.update(
                k.decision_key(agent.agent_id, decision_id), update, e, condition=condition
            )
        except ConditionFailed as exc:
            raise self._refusal(exc, decision_id, now, max_attempts, run) from exc
        return decision_record(item)

    @staticmethod
    def _refusal(
        exc: ConditionFailed, decision_id: str, now: datetime, max_attempts: int, run: str
    ) -> ClaimConflictError:
        if exc.old_item:
            refusal = claim_refusal(decision_record(dict(exc.old_item)), now, max_attempts, run)
            if refusal is not None:
                return refusal
        return ClaimConflictError(f"decision {decision_id} could not be claimed")

    def _owned_update(
        self,
        decision_id: str,
        owner: str,
        sets: dict[str, Any],
        *,
        adds: dict[str, int] | None = None,
        removes: tuple[str, ...] = (),
    ) -> dict[str, Any]:
        e = Expr()
        update = "SET " + ", ".join(f"{e.n(name)} = {e.v(v)}" for name, v in sets.items())
        if adds:
            update += " ADD " + ", ".join(f"{e.n(name)} {e.v(v)}" for name, v in adds.items())
        if removes:
            update += " REMOVE " + ", ".join(e.n(name) for name in removes)
        condition = (
            f"{e.n('owner')} = {e.v(owner)} AND {e.n('status')} = {e.v(DecisionStatus.CLAIMED)}"
        )
        agent_id = DecisionRecord.agent_of(decision_id)
        try:
            return self.table.update(
                k.decision_key(agent_id, decision_id), update, e, condition=condition
            )
        except ConditionFailed as exc:
            raise ClaimLostError(f"run {owner} does not hold decision {decision_id}") from exc

    def extend_claim(self, decision_id: str, *, owner: str, lease_until: datetime) -> None:
        self._owned_update(decision_id, owner, {"lease_until": k.stamp(lease_until)})

    def save_checkpoint(
        self, decision_id: str, *, owner: str, checkpoint: Consultation, now: datetime
    ) -> None:
        payload = within(checkpoint.model_dump_json(), PAYLOAD_BYTES, "the checkpoint")
        self._owned_update(decision_id, owner, {CHECKPOINT: payload, "updated_at": now})

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
        sets: dict[str, Any] = {"status": status, "updated_at": now}
        removes = ["lease_until"]
        if outcome is not None:
            sets[OUTCOME] = within(outcome.model_dump_json(), PAYLOAD_BYTES, "the outcome")
        else:
            removes.append(OUTCOME)
        if error is not None:
            sets["error"] = within(error, ERROR_BYTES, "the error")
        else:
            removes.append("error")
        failed = {"attempts": 1} if status in FAILURES else None
        if failed and not keep_checkpoint:  # the next attempt starts from scratch
            removes.append(CHECKPOINT)
        item = self._owned_update(decision_id, owner, sets, adds=failed, removes=tuple(removes))
        return decision_record(item)

    def get_decision(self, decision_id: str) -> DecisionRecord | None:
        agent_id = DecisionRecord.agent_of(decision_id)
        item = self.table.get(k.decision_key(agent_id, decision_id))
        return None if item is None else decision_record(item)

    def decisions(self, agent_id: str) -> list[DecisionRecord]:
        items = self.table.partition(k.agent_pk(agent_id), k.DECISION)
        return [decision_record(i) for i in items]
