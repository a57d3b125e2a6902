"""Cohorts and their agents, in memory."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from arena_core.domain.cohort import Agent, Cohort, CohortStatus
from arena_core.errors import NotFoundError
from arena_core.ports.cohort_store import CohortStore
from arena_local.memory.state import MemoryState


class MemoryCohortStore(CohortStore):
    def __init__(self, state: MemoryState) -> None:
        self._s = state

    def create_cohort(self, cohort: Cohort, agents: Sequence[Agent]) -> tuple[Cohort, bool]:
        with self._s.lock:
            existing = self._s.cohorts.get(cohort.cohort_id)
            if existing is not None:
                return existing, False
            self._s.cohorts[cohort.cohort_id] = cohort
            for agent in agents:
                self._s.agents[agent.agent_id] = agent
            return cohort, True

    def get_cohort(self, cohort_id: str) -> Cohort | None:
        with self._s.lock:
            return self._s.cohorts.get(cohort_id)

    def active_cohorts(self) -> list[Cohort]:
        return [c for c in self.cohorts() if c.status is CohortStatus.ACTIVE]

    def cohorts(self) -> list[Cohort]:
        with self._s.lock:
            return sorted(self._s.cohorts.values(), key=lambda c: c.week_start)

    def mark_first_decision(self, cohort_id: str, at: datetime) -> None:
        with self._s.lock:
            cohort = self._require(cohort_id)
            if cohort.first_decision_at is None:
                self._s.cohorts[cohort_id] = cohort.model_copy(update={"first_decision_at": at})

    def complete_cohort(self, cohort_id: str, at: datetime) -> bool:
        with self._s.lock:
            cohort = self._require(cohort_id)
            if cohort.status is not CohortStatus.ACTIVE:
                return False
            self._s.cohorts[cohort_id] = cohort.model_copy(
                update={"status": CohortStatus.COMPLETED, "completed_at": at}
            )
            return True

    def _require(self, cohort_id: str) -> Cohort:
        cohort = self._s.cohorts.get(cohort_id)
        if cohort is None:
            raise NotFoundError(f"no cohort {cohort_id}")
        return cohort

    def agents(self, cohort_id: str) -> list[Agent]:
        with self._s.lock:
            members = [a for a in self._s.agents.values() if a.cohort_id == cohort_id]
        return sorted(members, key=lambda a: a.agent_id)
