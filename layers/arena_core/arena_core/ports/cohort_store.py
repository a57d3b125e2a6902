"""Cohorts and their membership: one cohort per normalized week, its agents created with it."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from datetime import datetime

from arena_core.domain.cohort import Agent, Cohort


class CohortStore(ABC):
    @abstractmethod
    def create_cohort(self, cohort: Cohort, agents: Sequence[Agent]) -> tuple[Cohort, bool]:
        """Create the week's cohort with its agents, atomically; if it exists, return it and
        create nothing."""

    @abstractmethod
    def get_cohort(self, cohort_id: str) -> Cohort | None: ...

    @abstractmethod
    def active_cohorts(self) -> list[Cohort]:
        """Cohorts not yet completed, oldest first."""

    @abstractmethod
    def cohorts(self) -> list[Cohort]:
        """Every cohort, active or completed, oldest first."""

    @abstractmethod
    def mark_first_decision(self, cohort_id: str, at: datetime) -> None:
        """Record the first decision run's time (kept if already set)."""

    @abstractmethod
    def complete_cohort(self, cohort_id: str, at: datetime) -> bool:
        """Mark an active cohort completed; False if it already was."""

    @abstractmethod
    def agents(self, cohort_id: str) -> list[Agent]:
        """The cohort's agents (as they stand now: cash and version), by agent id."""
