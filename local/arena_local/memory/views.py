"""Snapshots and read models in memory."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from arena_core.domain.aggregates import FamilyAggregate
from arena_core.domain.cohort import Cohort
from arena_core.domain.holdings import AgentRecords
from arena_core.domain.portfolio import (
    BetScore,
    FamilyTotals,
    PortfolioSnapshot,
    SeriesPoint,
    newest_per_hour,
    snapshot_hour,
)
from arena_core.ports.view_store import ViewStore
from arena_local.memory.state import MemoryState, TimeIndex


class MemoryViewStore(ViewStore):
    def __init__(self, state: MemoryState) -> None:
        self._s = state

    def agent_records(self, agent_id: str) -> AgentRecords:
        s = self._s
        with s.lock:
            decisions = [d for d in s.decisions.values() if d.agent_id == agent_id]
            return AgentRecords(
                positions=sorted(
                    s.positions.get(agent_id, {}).values(), key=lambda p: p.position_id
                ),
                trades=sorted(s.trades.get(agent_id, {}).values(), key=lambda t: t.trade_id),
                settlements=sorted(
                    s.settlements.get(agent_id, {}).values(), key=lambda x: x.settlement_id
                ),
                scores=sorted(s.scores.get(agent_id, {}).values(), key=lambda x: x.trade_id),
                decisions=sorted(decisions, key=lambda d: d.week),
            )

    def put_snapshots(self, snapshots: Sequence[PortfolioSnapshot]) -> None:
        s = self._s
        with s.lock:
            for snapshot in snapshots:
                s.snapshots.setdefault(snapshot.agent_id, TimeIndex()).put(
                    snapshot.taken_at, snapshot
                )
                self._raise_latest(snapshot)

    def put_hourly(self, snapshots: Sequence[PortfolioSnapshot]) -> None:
        s = self._s
        with s.lock:
            for snapshot in newest_per_hour(snapshots):
                s.hourly.setdefault(snapshot.agent_id, TimeIndex()).put(
                    snapshot_hour(snapshot.taken_at), snapshot
                )

    def put_finals(self, snapshots: Sequence[PortfolioSnapshot]) -> None:
        with self._s.lock:
            for snapshot in snapshots:
                self._raise_latest(snapshot)

    def _raise_latest(self, snapshot: PortfolioSnapshot) -> None:
        latest = self._s.latest.get(snapshot.agent_id)
        if latest is None or latest.taken_at <= snapshot.taken_at:
            self._s.latest[snapshot.agent_id] = snapshot

    def snapshots(self, agent_id: str, start: datetime, end: datetime) -> list[PortfolioSnapshot]:
        with self._s.lock:
            index = self._s.snapshots.get(agent_id)
            return index.between(start, end) if index else []

    def hourly_snapshots(
        self, agent_id: str, start: datetime, end: datetime
    ) -> list[PortfolioSnapshot]:
        with self._s.lock:
            index = self._s.hourly.get(agent_id)
            return index.between(snapshot_hour(start), snapshot_hour(end)) if index else []

    def put_final_totals(self, totals: Sequence[FamilyTotals]) -> None:
        with self._s.lock:
            for total in totals:
                self._s.final_totals[(total.cohort_id, total.family_id)] = total

    def final_totals(self) -> list[FamilyTotals]:
        with self._s.lock:
            return [self._s.final_totals[key] for key in sorted(self._s.final_totals)]

    def latest_snapshots(self, cohort: Cohort) -> dict[str, PortfolioSnapshot]:
        with self._s.lock:
            return {i: s for i, s in self._s.latest.items() if s.cohort_id == cohort.cohort_id}

    def family_aggregates(self) -> dict[str, FamilyAggregate]:
        with self._s.lock:
            return dict(self._s.aggregates)

    def family_scores(self, family_id: str) -> list[BetScore]:
        with self._s.lock:
            found = [
                score
                for held in self._s.scores.values()
                for score in held.values()
                if score.family_id == family_id
            ]
        return sorted(found, key=lambda s: s.trade_id)

    def put_series(self, points: Sequence[SeriesPoint]) -> None:
        with self._s.lock:
            for point in points:
                key = (point.family_id, point.resolution)
                self._s.series.setdefault(key, TimeIndex()).put(point.bucket, point)

    def series(
        self, family_id: str, resolution: str, start: datetime, end: datetime
    ) -> list[SeriesPoint]:
        with self._s.lock:
            index = self._s.series.get((family_id, resolution))
            return index.between(start, end) if index else []

    def record_job_run(self, job: str, at: datetime) -> None:
        with self._s.lock:
            if job not in self._s.job_runs or self._s.job_runs[job] <= at:
                self._s.job_runs[job] = at

    def job_runs(self) -> dict[str, datetime]:
        with self._s.lock:
            return dict(self._s.job_runs)
