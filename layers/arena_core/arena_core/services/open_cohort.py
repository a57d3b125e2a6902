"""Open the week's cohort (Sunday 00:00 UTC): one per normalized week, lineup frozen into it."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from arena_core.domain.cohort import Cohort
from arena_core.domain.lineup import AgentSpec
from arena_core.ports.clock import Clock
from arena_core.ports.repository import Repository


@dataclass(frozen=True)
class OpenCohortResult:
    cohort_id: str
    created: bool
    agents: int


class OpenCohortService:
    def __init__(self, repo: Repository, clock: Clock, lineup: tuple[AgentSpec, ...]) -> None:
        self._repo = repo
        self._clock = clock
        self._lineup = lineup

    def open(self, at: datetime | None = None) -> OpenCohortResult:
        """Idempotent: a duplicate schedule delivery returns the existing cohort."""
        cohort = Cohort.open(at or self._clock.now(), self._lineup)
        stored, created = self._repo.create_cohort(cohort, cohort.agents())
        return OpenCohortResult(stored.cohort_id, created, len(stored.lineup))
