"""Snapshots and the read models the site is built from (bounded reads, never history scans)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from datetime import datetime

from arena_core.domain.aggregates import FamilyAggregate
from arena_core.domain.cohort import Cohort
from arena_core.domain.holdings import AgentRecords
from arena_core.domain.portfolio import BetScore, FamilyTotals, PortfolioSnapshot, SeriesPoint


class ViewStore(ABC):
    @abstractmethod
    def agent_records(self, agent_id: str) -> AgentRecords:
        """Positions, trades, settlements, bet scores and decisions of one agent, read together."""

    @abstractmethod
    def put_snapshots(self, snapshots: Sequence[PortfolioSnapshot]) -> None:
        """Write a pass's snapshots (idempotent per agent and timestamp). Nothing else is
        written per agent: an active agent's newest snapshot is its latest."""

    @abstractmethod
    def put_hourly(self, snapshots: Sequence[PortfolioSnapshot]) -> None:
        """Write agents' hourly snapshots, once their hour has closed: each is the newest of
        its hour and replaces the hour's one (the newest of the batch, if it names one hour
        twice)."""

    @abstractmethod
    def put_finals(self, snapshots: Sequence[PortfolioSnapshot]) -> None:
        """A completed cohort's final snapshots: its agents' latest for good (an older one
        never replaces a newer)."""

    @abstractmethod
    def snapshots(self, agent_id: str, start: datetime, end: datetime) -> list[PortfolioSnapshot]:
        """An agent's snapshots with start <= taken_at <= end, oldest first."""

    @abstractmethod
    def hourly_snapshots(
        self, agent_id: str, start: datetime, end: datetime
    ) -> list[PortfolioSnapshot]:
        """An agent's hourly snapshots (the newest of each closed hour) of the hours from the one
        holding ``start`` to the one holding ``end``, oldest first. Reads one item per hour,
        however many passes ran: what charts over weeks and the dataset's hourly table need."""

    @abstractmethod
    def put_final_totals(self, totals: Sequence[FamilyTotals]) -> None:
        """A completed cohort's final snapshots summed per family (idempotent per cohort and
        family): what every pass adds to the families' series, read as one partition."""

    @abstractmethod
    def final_totals(self) -> list[FamilyTotals]:
        """Every completed cohort's family totals (they never change once written)."""

    @abstractmethod
    def latest_snapshots(self, cohort: Cohort) -> dict[str, PortfolioSnapshot]:
        """Each agent's most recent snapshot in a cohort, by agent id: a completed cohort's
        final ones, an active cohort's newest."""

    @abstractmethod
    def family_aggregates(self) -> dict[str, FamilyAggregate]: ...

    @abstractmethod
    def family_scores(self, family_id: str) -> list[BetScore]:
        """Every bet score of a family, across its cohorts, by trade id: what the statistics
        (intervals, paired comparisons, calibration) are computed from."""

    @abstractmethod
    def put_series(self, points: Sequence[SeriesPoint]) -> None:
        """Store family series points (idempotent per family, resolution and bucket)."""

    @abstractmethod
    def series(
        self, family_id: str, resolution: str, start: datetime, end: datetime
    ) -> list[SeriesPoint]:
        """A family's points at one resolution with start <= bucket <= end, oldest first."""

    @abstractmethod
    def record_job_run(self, job: str, at: datetime) -> None:
        """Note that a scheduled job (``snapshot``, ``resolve``) ran at ``at``; an older time
        never replaces a newer one (a late retry of an earlier delivery)."""

    @abstractmethod
    def job_runs(self) -> dict[str, datetime]:
        """When each scheduled job last ran, by job name: what ``arena status`` shows."""
