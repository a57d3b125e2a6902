"""Open the week's cohort (Sunday 00:00 UTC): one per normalized week, with the lineup release
in force at that moment and the methodology frozen into it."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict

from arena_core.domain.cohort import Cohort
from arena_core.domain.lineup import AgentKind
from arena_core.domain.panel import Methodology
from arena_core.errors import ConfigurationError
from arena_core.ports.clock import Clock
from arena_core.ports.cohort_store import CohortStore
from arena_core.services.lineup import LineupService


class OpenCohortResult(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    cohort_id: str
    created: bool
    agents: int
    lineup_release: int | None = None


class OpenCohortService:
    def __init__(
        self,
        cohorts: CohortStore,
        clock: Clock,
        lineups: LineupService,
        methodology: Methodology = Methodology.V1,
        *,
        include_llms: bool = True,
        include_baselines: bool = True,
    ) -> None:
        self._cohorts = cohorts
        self._clock = clock
        self._lineups = lineups
        self._methodology = methodology
        # Deployment switches (arena:includeLlms): which kinds of the release's agents run.
        self._kinds = {AgentKind.LLM} if include_llms else set()
        self._kinds |= {AgentKind.BASELINE} if include_baselines else set()

    def open(self, at: datetime | None = None) -> OpenCohortResult:
        """Idempotent: a duplicate schedule delivery returns the existing cohort."""
        moment = at or self._clock.now()
        release = self._lineups.in_force(moment)
        lineup = tuple(spec for spec in release.lineup if spec.kind in self._kinds)
        if not lineup:  # a cohort without agents would never decide nor complete
            raise ConfigurationError(
                f"lineup release {release.release} has no agent this deployment runs"
            )
        cohort = Cohort.open(moment, lineup, self._methodology, release.release)
        stored, created = self._cohorts.create_cohort(cohort, cohort.agents())
        return OpenCohortResult(
            cohort_id=stored.cohort_id,
            created=created,
            agents=len(stored.lineup),
            lineup_release=stored.lineup_release,
        )
