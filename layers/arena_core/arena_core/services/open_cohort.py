"""Open the week's cohort (Sunday 00:00 UTC): one per normalized week, lineup and methodology
frozen into it."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict

from arena_core.domain.cohort import Cohort
from arena_core.domain.lineup import AgentSpec
from arena_core.domain.panel import Methodology
from arena_core.ports.clock import Clock
from arena_core.ports.cohort_store import CohortStore


class OpenCohortResult(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    cohort_id: str
    created: bool
    agents: int


class OpenCohortService:
    def __init__(
        self,
        cohorts: CohortStore,
        clock: Clock,
        lineup: tuple[AgentSpec, ...],
        methodology: Methodology = Methodology.V1,
    ) -> None:
        self._cohorts = cohorts
        self._clock = clock
        self._lineup = lineup
        self._methodology = methodology

    def open(self, at: datetime | None = None) -> OpenCohortResult:
        """Idempotent: a duplicate schedule delivery returns the existing cohort."""
        cohort = Cohort.open(at or self._clock.now(), self._lineup, self._methodology)
        stored, created = self._cohorts.create_cohort(cohort, cohort.agents())
        return OpenCohortResult(
            cohort_id=stored.cohort_id, created=created, agents=len(stored.lineup)
        )
