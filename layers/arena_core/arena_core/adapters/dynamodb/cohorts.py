"""Cohorts and their agents on DynamoDB: one cohort per week, created with its agents in one
transaction (each item ``attribute_not_exists``)."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import suppress
from datetime import datetime
from typing import Any

from arena_core.adapters.dynamodb import schema as k
from arena_core.adapters.dynamodb.codec import decode, encode
from arena_core.adapters.dynamodb.table import ConditionFailed, Expr, Table, TransactionCancelled
from arena_core.domain.cohort import Agent, Cohort, CohortStatus
from arena_core.errors import PersistenceError
from arena_core.ports.cohort_store import CohortStore

ABSENT = "attribute_not_exists(PK)"


def cohort_item(cohort: Cohort) -> dict[str, Any]:
    index = {k.GSI1PK: k.cohorts_index(cohort.status.value), k.GSI1SK: k.stamp(cohort.week_start)}
    return encode(cohort, "cohort", k.cohort_key(cohort.cohort_id), **index)


def agent_item(agent: Agent) -> dict[str, Any]:
    index = {
        k.GSI2PK: k.family_index(agent.family_id),
        k.GSI2SK: k.family_agent_sort(agent.cohort_id),
    }
    return encode(agent, "agent", k.agent_key(agent.agent_id), **index)


class DynamoCohortStore(CohortStore):
    def __init__(self, table: Table) -> None:
        self.table = table

    def create_cohort(self, cohort: Cohort, agents: Sequence[Agent]) -> tuple[Cohort, bool]:
        operations = [
            ("cohort", {"Put": {"Item": cohort_item(cohort), "ConditionExpression": ABSENT}}),
            *(
                (a.agent_id, {"Put": {"Item": agent_item(a), "ConditionExpression": ABSENT}})
                for a in agents
            ),
        ]
        try:
            self.table.transact(operations)
        except TransactionCancelled as exc:
            existing = self.get_cohort(cohort.cohort_id)
            if exc.failed("cohort") and existing is not None:
                return existing, False
            raise PersistenceError(f"cohort {cohort.cohort_id} not created: {exc.reasons}") from exc
        return cohort, True

    def get_cohort(self, cohort_id: str) -> Cohort | None:
        item = self.table.get(k.cohort_key(cohort_id))
        return None if item is None else decode(Cohort, item)

    def active_cohorts(self) -> list[Cohort]:
        return self._in_status(CohortStatus.ACTIVE)

    def cohorts(self) -> list[Cohort]:
        found = [*self._in_status(CohortStatus.ACTIVE), *self._in_status(CohortStatus.COMPLETED)]
        return sorted(found, key=lambda c: c.week_start)

    def _in_status(self, status: CohortStatus) -> list[Cohort]:
        items = self.table.index_partition(k.GSI1, k.GSI1PK, k.cohorts_index(status.value))
        return sorted((decode(Cohort, i) for i in items), key=lambda c: c.week_start)

    def mark_first_decision(self, cohort_id: str, at: datetime) -> None:
        expr = Expr()
        field = expr.n("first_decision_at")
        unset = f"attribute_not_exists({field}) OR attribute_type({field}, {expr.v('NULL')})"
        # Already recorded: the first run's time stands.
        with suppress(ConditionFailed):
            self.table.update(
                k.cohort_key(cohort_id), f"SET {field} = {expr.v(at)}", expr, condition=unset
            )

    def complete_cohort(self, cohort_id: str, at: datetime) -> bool:
        expr = Expr()
        done = {
            "status": CohortStatus.COMPLETED,
            "completed_at": at,
            k.GSI1PK: k.cohorts_index(CohortStatus.COMPLETED.value),
        }
        update = f"SET {expr.assignments(done)}"
        condition = f"{expr.n('status')} = {expr.v(CohortStatus.ACTIVE)}"
        try:
            self.table.update(k.cohort_key(cohort_id), update, expr, condition=condition)
        except ConditionFailed:
            return False
        return True

    def agents(self, cohort_id: str) -> list[Agent]:
        cohort = self.get_cohort(cohort_id)
        if cohort is None:
            return []
        ids = [Agent.id_for(cohort_id, spec.family_id) for spec in cohort.lineup]
        found = [decode(Agent, i) for i in self.table.batch_get([k.agent_key(a) for a in ids])]
        return sorted(found, key=lambda a: a.agent_id)
