"""Snapshots and read models on DynamoDB: raw and hourly snapshots, completed cohorts' final
snapshots, the families' series points and running aggregates, and an agent's records in one
query.

A pass writes one raw snapshot per agent and nothing else per agent: an active agent's latest
snapshot is its newest raw one (read back with one single-item query), so no "latest" item is
rewritten every ten minutes. Hourly snapshots are written when their hour has closed, and a
completed cohort's final snapshots become its agents' latest for good."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import suppress
from datetime import datetime, timedelta

from arena_core.adapters.dynamodb import schema as k
from arena_core.adapters.dynamodb.codec import (
    decode,
    encode,
    from_attributes,
    to_attributes,
)
from arena_core.adapters.dynamodb.counters import from_flat
from arena_core.adapters.dynamodb.decisions import decision_record
from arena_core.adapters.dynamodb.ledger import partition_by_kind
from arena_core.adapters.dynamodb.schema import parse_stamp
from arena_core.adapters.dynamodb.table import ConditionFailed, Expr, Table
from arena_core.domain.aggregates import FamilyAggregate
from arena_core.domain.cohort import Agent, Cohort, CohortStatus
from arena_core.domain.holdings import AgentRecords
from arena_core.domain.portfolio import (
    BetScore,
    FamilyTotals,
    PortfolioSnapshot,
    Position,
    SeriesPoint,
    Settlement,
    Trade,
    newest_per_hour,
    snapshot_hour,
)
from arena_core.ports.view_store import ViewStore


class DynamoViewStore(ViewStore):
    def __init__(self, table: Table, *, snapshot_ttl: timedelta | None = None) -> None:
        self.table = table
        # Raw snapshots expire this long after they were taken (None: kept forever).
        self.snapshot_ttl = snapshot_ttl

    def agent_records(self, agent_id: str) -> AgentRecords:
        """One query of the agent's partition instead of five."""
        kinds = partition_by_kind(self.table.partition(k.agent_pk(agent_id)))
        return AgentRecords(
            positions=[decode(Position, i) for i in kinds.get(k.POSITION, [])],
            trades=[decode(Trade, i) for i in kinds.get(k.TRADE, [])],
            settlements=[decode(Settlement, i) for i in kinds.get(k.SETTLEMENT, [])],
            scores=[decode(BetScore, i) for i in kinds.get(k.SCORE, [])],
            decisions=[decision_record(i) for i in kinds.get(k.DECISION, [])],
        )

    def put_snapshots(self, snapshots: Sequence[PortfolioSnapshot]) -> None:
        self.table.batch_put(
            [
                encode(s, "snapshot", k.snapshot_key(s.agent_id, s.taken_at), **self._expiry(s))
                for s in snapshots
            ]
        )

    def put_hourly(self, snapshots: Sequence[PortfolioSnapshot]) -> None:
        self.table.batch_put(
            [
                encode(s, "hourly", k.hourly_snapshot_key(s.agent_id, snapshot_hour(s.taken_at)))
                for s in newest_per_hour(snapshots)
            ]
        )

    def put_finals(self, snapshots: Sequence[PortfolioSnapshot]) -> None:
        latest: dict[str, PortfolioSnapshot] = {}
        for s in snapshots:
            if s.agent_id not in latest or s.taken_at > latest[s.agent_id].taken_at:
                latest[s.agent_id] = s
        for s in latest.values():
            self._put_latest(s)

    def _expiry(self, snapshot: PortfolioSnapshot) -> dict[str, int]:
        return self._expires(snapshot.taken_at)

    def _expires(self, taken_at: datetime) -> dict[str, int]:
        if self.snapshot_ttl is None:
            return {}
        return {k.EXPIRES_AT: int((taken_at + self.snapshot_ttl).timestamp())}

    def _put_latest(self, snapshot: PortfolioSnapshot) -> None:
        """Replace the agent's latest snapshot unless a newer one is already there (a rerun of
        an older completion never moves it back). No index key: the site reads a cohort's."""
        item = encode(snapshot, "latest", k.latest_key(snapshot.cohort_id, snapshot.agent_id))
        expr = Expr()
        taken = expr.n("taken_at")
        newer = f"attribute_not_exists({taken}) OR {taken} <= {expr.v(snapshot.taken_at)}"
        with suppress(ConditionFailed):  # a newer snapshot is already the latest
            self.table.put(item, condition=newer, expr=expr)

    def snapshots(self, agent_id: str, start: datetime, end: datetime) -> list[PortfolioSnapshot]:
        window = (k.stamp(start), k.stamp(end))
        items = self.table.partition(k.snapshot_pk(agent_id), between=window)
        return [decode(PortfolioSnapshot, i) for i in items]

    def hourly_snapshots(
        self, agent_id: str, start: datetime, end: datetime
    ) -> list[PortfolioSnapshot]:
        window = (k.stamp(snapshot_hour(start)), k.stamp(snapshot_hour(end)))
        items = self.table.partition(k.hourly_snapshot_pk(agent_id), between=window)
        return [decode(PortfolioSnapshot, i) for i in items]

    def put_final_totals(self, totals: Sequence[FamilyTotals]) -> None:
        self.table.batch_put(
            [
                encode(t, "final_totals", k.final_totals_key(t.cohort_id, t.family_id))
                for t in totals
            ]
        )

    def final_totals(self) -> list[FamilyTotals]:
        items = self.table.partition(k.FINALS, consistent=False)  # written once, never changed
        return [decode(FamilyTotals, i) for i in items]

    def latest_snapshots(self, cohort: Cohort) -> dict[str, PortfolioSnapshot]:
        """A completed cohort's final snapshots (one query; they never change, so eventual
        consistency reads them right); an active cohort's newest raw snapshot per agent (one
        single-item query each: no item is rewritten every pass to hold it)."""
        if cohort.status is CohortStatus.COMPLETED:
            items = self.table.partition(k.cohort_pk(cohort.cohort_id), k.LATEST, consistent=False)
            found = [decode(PortfolioSnapshot, i) for i in items]
            return {s.agent_id: s for s in found}
        latest = {}
        for spec in cohort.lineup:
            agent_id = Agent.id_for(cohort.cohort_id, spec.family_id)
            item = self.table.newest(k.snapshot_pk(agent_id))
            if item is not None:
                latest[agent_id] = decode(PortfolioSnapshot, item)
        return latest

    def family_aggregates(self) -> dict[str, FamilyAggregate]:
        found = []
        for item in self.table.partition(k.AGGREGATES):
            flat = from_attributes(item)
            found.append(from_flat(str(flat["family_id"]), flat))
        return {a.family_id: a for a in found}

    def family_scores(self, family_id: str) -> list[BetScore]:
        items = self.table.index_partition(k.GSI2, k.GSI2PK, k.family_scores_index(family_id))
        return sorted((decode(BetScore, i) for i in items), key=lambda s: s.trade_id)

    def put_series(self, points: Sequence[SeriesPoint]) -> None:
        """Raw (10-minute) points expire as raw snapshots do: the site reads the last day of
        them; hourly, daily and weekly points are kept."""
        self.table.batch_put(
            [
                encode(
                    p,
                    "series",
                    k.series_key(p.family_id, p.resolution, p.bucket),
                    **(self._expires(p.taken_at) if p.resolution == "raw" else {}),
                )
                for p in points
            ]
        )

    def series(
        self, family_id: str, resolution: str, start: datetime, end: datetime
    ) -> list[SeriesPoint]:
        window = (k.stamp(start), k.stamp(end))
        items = self.table.partition(k.series_pk(family_id, resolution), between=window)
        return [decode(SeriesPoint, i) for i in items]

    def record_job_run(self, job: str, at: datetime) -> None:
        expr = Expr()
        ran = expr.n("ran_at")
        newer = f"attribute_not_exists({ran}) OR {ran} <= {expr.v(at)}"
        item = to_attributes({**k.job_key(job), "entity": "job_run", "job": job, "ran_at": at})
        with suppress(ConditionFailed):  # a later run is already recorded
            self.table.put(item, condition=newer, expr=expr)

    def job_runs(self) -> dict[str, datetime]:
        runs = (from_attributes(i) for i in self.table.partition(k.JOBS, k.JOB))
        return {str(r["job"]): parse_stamp(str(r["ran_at"])) for r in runs}
