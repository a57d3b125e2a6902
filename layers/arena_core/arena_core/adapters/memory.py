"""In-memory implementations of the repository and blob-store ports.

The repository keeps the port's guarantees with one re-entrant lock: every method checks its
conditions and applies its changes inside the lock, which is what the DynamoDB adapter gets from
conditional writes and transactions. It serves service tests, the stateful comparison against the
DynamoDB adapter, and quick local runs.
"""

from __future__ import annotations

import bisect
import threading
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any, Generic, TypeVar

from arena_core.domain.accounting import Execution
from arena_core.domain.cohort import Agent, Cohort, CohortStatus
from arena_core.domain.market import Market
from arena_core.domain.portfolio import (
    BetScore,
    PortfolioSnapshot,
    Position,
    PositionStatus,
    SeriesPoint,
    Settlement,
    Trade,
    TradeKind,
)
from arena_core.errors import ClaimLostError, NotFoundError, VersionConflictError
from arena_core.ports.blob_store import BlobStore
from arena_core.ports.repository import (
    DecisionRecord,
    DecisionStatus,
    FamilyAggregate,
    Repository,
    add_to_aggregate,
    claim_refusal,
    newest_per_hour,
    score_sums,
    snapshot_hour,
)


class InMemoryBlobStore(BlobStore):
    def __init__(self) -> None:
        self._blobs: dict[str, bytes] = {}
        self._lock = threading.Lock()

    def put(self, key: str, body: bytes, *, content_type: str = "application/json") -> str:
        del content_type  # kept only by stores that serve blobs over HTTP
        with self._lock:
            self._blobs[key] = bytes(body)
        return key

    def find(self, key: str) -> str | None:
        with self._lock:
            return key if key in self._blobs else None

    def get(self, ref: str) -> bytes:
        with self._lock:
            if ref not in self._blobs:
                raise NotFoundError(f"no blob {ref!r}")
            return self._blobs[ref]


T = TypeVar("T")


class TimeIndex(Generic[T]):
    """Values by time, kept sorted, so a time-range read costs what it returns (as a DynamoDB
    range query does), not the whole history."""

    def __init__(self) -> None:
        self._times: list[datetime] = []
        self._values: dict[datetime, T] = {}

    def put(self, moment: datetime, value: T) -> None:
        if moment not in self._values:
            bisect.insort(self._times, moment)
        self._values[moment] = value

    def between(self, start: datetime, end: datetime) -> list[T]:
        low = bisect.bisect_left(self._times, start)
        high = bisect.bisect_right(self._times, end)
        return [self._values[t] for t in self._times[low:high]]


class InMemoryRepository(Repository):
    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._cohorts: dict[str, Cohort] = {}
        self._agents: dict[str, Agent] = {}
        self._decisions: dict[str, DecisionRecord] = {}
        self._trades: dict[str, dict[str, Trade]] = {}
        self._positions: dict[str, dict[str, Position]] = {}
        self._settlements: dict[str, dict[str, Settlement]] = {}
        self._scores: dict[str, dict[str, BetScore]] = {}
        self._markets: dict[str, Market] = {}
        self._resolved_markets: set[str] = set()
        self._open_counts: dict[str, int] = {}
        self._snapshots: dict[str, TimeIndex[PortfolioSnapshot]] = {}
        self._hourly: dict[str, TimeIndex[PortfolioSnapshot]] = {}
        self._latest: dict[str, PortfolioSnapshot] = {}
        self._aggregates: dict[str, FamilyAggregate] = {}
        self._series: dict[tuple[str, str], TimeIndex[SeriesPoint]] = {}

    # --- cohorts and agents -------------------------------------------------------------------

    def create_cohort(self, cohort: Cohort, agents: Sequence[Agent]) -> tuple[Cohort, bool]:
        with self._lock:
            existing = self._cohorts.get(cohort.cohort_id)
            if existing is not None:
                return existing, False
            self._cohorts[cohort.cohort_id] = cohort
            for agent in agents:
                self._agents[agent.agent_id] = agent
            return cohort, True

    def get_cohort(self, cohort_id: str) -> Cohort | None:
        with self._lock:
            return self._cohorts.get(cohort_id)

    def active_cohorts(self) -> list[Cohort]:
        with self._lock:
            active = [c for c in self._cohorts.values() if c.status is CohortStatus.ACTIVE]
        return sorted(active, key=lambda c: c.week_start)

    def cohorts(self) -> list[Cohort]:
        with self._lock:
            return sorted(self._cohorts.values(), key=lambda c: c.week_start)

    def mark_first_decision(self, cohort_id: str, at: datetime) -> None:
        with self._lock:
            cohort = self._require_cohort(cohort_id)
            if cohort.first_decision_at is None:
                self._cohorts[cohort_id] = cohort.model_copy(update={"first_decision_at": at})

    def complete_cohort(self, cohort_id: str, at: datetime) -> bool:
        with self._lock:
            cohort = self._require_cohort(cohort_id)
            if cohort.status is not CohortStatus.ACTIVE:
                return False
            self._cohorts[cohort_id] = cohort.model_copy(
                update={"status": CohortStatus.COMPLETED, "completed_at": at}
            )
            return True

    def _require_cohort(self, cohort_id: str) -> Cohort:
        cohort = self._cohorts.get(cohort_id)
        if cohort is None:
            raise NotFoundError(f"no cohort {cohort_id}")
        return cohort

    def agents(self, cohort_id: str) -> list[Agent]:
        with self._lock:
            return sorted(
                (a for a in self._agents.values() if a.cohort_id == cohort_id),
                key=lambda a: a.agent_id,
            )

    def get_agent(self, agent_id: str) -> Agent:
        with self._lock:
            agent = self._agents.get(agent_id)
        if agent is None:
            raise NotFoundError(f"no agent {agent_id}")
        return agent

    # --- decisions ----------------------------------------------------------------------------

    def claim_decision(
        self,
        agent: Agent,
        week: int,
        *,
        owner: str,
        now: datetime,
        lease: timedelta,
        max_attempts: int,
    ) -> DecisionRecord:
        decision_id = DecisionRecord.id_for(agent.agent_id, week)
        with self._lock:
            existing = self._decisions.get(decision_id)
            if existing is not None:
                refusal = claim_refusal(existing, now, max_attempts, owner)
                if refusal is not None:
                    raise refusal
            base = existing or DecisionRecord(
                decision_id=decision_id,
                agent_id=agent.agent_id,
                cohort_id=agent.cohort_id,
                week=week,
                status=DecisionStatus.CLAIMED,
                created_at=now,
                updated_at=now,
            )
            record = base.model_copy(
                update={
                    "status": DecisionStatus.CLAIMED,
                    "owner": owner,
                    "lease_until": now + lease,
                    "claims": base.claims + 1,
                    "updated_at": now,
                }
            )
            self._decisions[decision_id] = record
            return record

    def _owned(self, decision_id: str, owner: str) -> DecisionRecord:
        record = self._decisions.get(decision_id)
        if record is None or record.owner != owner or record.status is not DecisionStatus.CLAIMED:
            raise ClaimLostError(f"run {owner} does not hold decision {decision_id}")
        return record

    def extend_claim(self, decision_id: str, *, owner: str, lease_until: datetime) -> None:
        with self._lock:
            record = self._owned(decision_id, owner)
            self._decisions[decision_id] = record.model_copy(update={"lease_until": lease_until})

    def save_checkpoint(
        self, decision_id: str, *, owner: str, checkpoint: dict[str, Any], now: datetime
    ) -> None:
        with self._lock:
            record = self._owned(decision_id, owner)
            self._decisions[decision_id] = record.model_copy(
                update={"checkpoint": checkpoint, "updated_at": now}
            )

    def finish_decision(
        self,
        decision_id: str,
        *,
        owner: str,
        status: DecisionStatus,
        now: datetime,
        outcome: dict[str, Any] | None = None,
        error: str | None = None,
    ) -> DecisionRecord:
        if status is DecisionStatus.CLAIMED:
            raise ValueError("finish_decision needs a final or failure status")
        with self._lock:
            record = self._owned(decision_id, owner)
            failed = status is DecisionStatus.RETRYABLE_FAILURE
            finished = record.model_copy(
                update={
                    "status": status,
                    "outcome": outcome,
                    "error": error,
                    "lease_until": None,
                    "attempts": record.attempts + (1 if failed else 0),
                    # A retryable failure starts the next attempt from scratch.
                    "checkpoint": None if failed else record.checkpoint,
                    "updated_at": now,
                }
            )
            self._decisions[decision_id] = finished
            return finished

    def get_decision(self, decision_id: str) -> DecisionRecord | None:
        with self._lock:
            return self._decisions.get(decision_id)

    def decisions(self, agent_id: str) -> list[DecisionRecord]:
        with self._lock:
            found = [d for d in self._decisions.values() if d.agent_id == agent_id]
        return sorted(found, key=lambda d: d.week)

    # --- trades and positions -----------------------------------------------------------------

    def apply_trade(self, execution: Execution, *, expected_version: int, owner: str) -> bool:
        trade, position = execution.trade, execution.position
        with self._lock:
            if trade.trade_id in self._trades.get(trade.agent_id, {}):
                return False
            agent = self._agents.get(trade.agent_id)
            if agent is None:
                raise NotFoundError(f"no agent {trade.agent_id}")
            if agent.version != expected_version or agent.cash != trade.cash_before:
                raise VersionConflictError(f"agent {agent.agent_id} changed since it was read")
            record = self._owned(trade.decision_id, owner)
            held = self._positions.setdefault(trade.agent_id, {})
            opening = trade.kind is TradeKind.BUY and position.position_id not in held
            if opening and any(
                p.is_open and p.market_id == position.market_id and p.side == position.side
                for p in held.values()
            ):
                raise VersionConflictError(
                    f"agent {agent.agent_id} already holds {position.market_id}/{position.side}"
                )
            self._agents[agent.agent_id] = agent.model_copy(
                update={"cash": execution.cash_after, "version": agent.version + 1}
            )
            held[position.position_id] = position
            self._trades.setdefault(trade.agent_id, {})[trade.trade_id] = trade
            self._decisions[record.decision_id] = record.model_copy(
                update={"trades_applied": record.trades_applied + 1}
            )
            self._count_open(position.market_id, +1 if opening else 0)
            if position.status is PositionStatus.CLOSED:
                self._count_open(position.market_id, -1)
            self._bump_aggregate(agent.family_id, trades=1)
            return True

    def _count_open(self, market_id: str, delta: int) -> None:
        if delta:
            self._open_counts[market_id] = self._open_counts.get(market_id, 0) + delta

    def _bump_aggregate(self, family_id: str, **deltas: Any) -> None:
        current = self._aggregates.get(family_id) or FamilyAggregate(family_id=family_id)
        self._aggregates[family_id] = add_to_aggregate(current, deltas)

    def get_trade(self, agent_id: str, trade_id: str) -> Trade | None:
        with self._lock:
            return self._trades.get(agent_id, {}).get(trade_id)

    def trades(self, agent_id: str) -> list[Trade]:
        with self._lock:
            return sorted(self._trades.get(agent_id, {}).values(), key=lambda t: t.trade_id)

    def positions(self, agent_id: str) -> list[Position]:
        with self._lock:
            return sorted(self._positions.get(agent_id, {}).values(), key=lambda p: p.position_id)

    # --- markets and settlement ---------------------------------------------------------------

    def save_markets(self, markets: Sequence[Market]) -> None:
        with self._lock:
            for market in markets:
                self._markets[market.market_id] = market

    def get_markets(self, market_ids: Sequence[str]) -> dict[str, Market]:
        with self._lock:
            return {i: self._markets[i] for i in market_ids if i in self._markets}

    def markets_with_open_positions(self) -> list[str]:
        with self._lock:
            return sorted(m for m, n in self._open_counts.items() if n > 0)

    def open_positions_on(self, market_id: str) -> list[Position]:
        with self._lock:
            found = [
                p
                for held in self._positions.values()
                for p in held.values()
                if p.is_open and p.market_id == market_id
            ]
        return sorted(found, key=lambda p: (p.agent_id, p.position_id))

    def apply_settlement(
        self,
        position: Position,
        settlement: Settlement,
        scores: Sequence[BetScore],
        *,
        family_id: str,
        expected_version: int,
    ) -> bool:
        with self._lock:
            done = self._settlements.setdefault(settlement.agent_id, {})
            if settlement.settlement_id in done:
                return False
            agent = self._agents.get(settlement.agent_id)
            if agent is None:
                raise NotFoundError(f"no agent {settlement.agent_id}")
            if agent.version != expected_version:
                raise VersionConflictError(f"agent {agent.agent_id} changed since it was read")
            self._agents[agent.agent_id] = agent.model_copy(
                update={"cash": agent.cash + settlement.payout, "version": agent.version + 1}
            )
            self._positions.setdefault(position.agent_id, {})[position.position_id] = position
            done[settlement.settlement_id] = settlement
            held = self._scores.setdefault(settlement.agent_id, {})
            for score in scores:
                held[score.trade_id] = score
            self._count_open(settlement.market_id, -1)
            self._bump_aggregate(family_id, settled_positions=1, **score_sums(scores))
            return True

    def settlements(self, agent_id: str) -> list[Settlement]:
        with self._lock:
            return sorted(
                self._settlements.get(agent_id, {}).values(), key=lambda s: s.settlement_id
            )

    def bet_scores(self, agent_id: str) -> list[BetScore]:
        with self._lock:
            return sorted(self._scores.get(agent_id, {}).values(), key=lambda s: s.trade_id)

    def mark_market_resolved(self, market: Market, at: datetime) -> bool:
        del at  # the fake keeps no resolution times
        with self._lock:
            if market.market_id in self._resolved_markets:
                return False
            if self._open_counts.get(market.market_id, 0) > 0:
                return False
            self._resolved_markets.add(market.market_id)
            self._markets[market.market_id] = market
            return True

    # --- snapshots and aggregates -------------------------------------------------------------

    def put_snapshots(self, snapshots: Sequence[PortfolioSnapshot]) -> None:
        with self._lock:
            for snapshot in snapshots:
                self._snapshots.setdefault(snapshot.agent_id, TimeIndex()).put(
                    snapshot.taken_at, snapshot
                )
                latest = self._latest.get(snapshot.agent_id)
                if latest is None or latest.taken_at <= snapshot.taken_at:
                    self._latest[snapshot.agent_id] = snapshot
            for snapshot in newest_per_hour(snapshots):
                self._hourly.setdefault(snapshot.agent_id, TimeIndex()).put(
                    snapshot_hour(snapshot.taken_at), snapshot
                )

    def snapshots(self, agent_id: str, start: datetime, end: datetime) -> list[PortfolioSnapshot]:
        with self._lock:
            index = self._snapshots.get(agent_id)
            return index.between(start, end) if index else []

    def hourly_snapshots(
        self, agent_id: str, start: datetime, end: datetime
    ) -> list[PortfolioSnapshot]:
        with self._lock:
            index = self._hourly.get(agent_id)
            return index.between(snapshot_hour(start), snapshot_hour(end)) if index else []

    def latest_snapshots(self, cohort_id: str) -> dict[str, PortfolioSnapshot]:
        with self._lock:
            return {i: s for i, s in self._latest.items() if s.cohort_id == cohort_id}

    def family_latest(self, family_id: str) -> list[PortfolioSnapshot]:
        with self._lock:
            chosen = [s for s in self._latest.values() if s.family_id == family_id]
        return sorted(chosen, key=lambda s: s.cohort_id)

    def family_aggregates(self) -> dict[str, FamilyAggregate]:
        with self._lock:
            return dict(self._aggregates)

    def put_series(self, points: Sequence[SeriesPoint]) -> None:
        with self._lock:
            for point in points:
                key = (point.family_id, point.resolution)
                self._series.setdefault(key, TimeIndex()).put(point.bucket, point)

    def series(
        self, family_id: str, resolution: str, start: datetime, end: datetime
    ) -> list[SeriesPoint]:
        with self._lock:
            index = self._series.get((family_id, resolution))
            return index.between(start, end) if index else []
