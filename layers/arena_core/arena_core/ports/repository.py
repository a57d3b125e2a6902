"""The repository port: everything the services persist, with the integrity rules built in.

Implementations must make these guarantees (the DynamoDB adapter with conditional writes and
transactions, the in-memory fake with one lock):

- one cohort per week start; its agents are created with it, atomically;
- one decision row per (agent, cohort, week), claimed before the model is called; only the
  owner of a live claim may checkpoint, extend, complete or fail it; a succeeded decision is final;
- a trade is applied at most once (deterministic id written with "not exists"), together with the
  agent's cash (version-checked), its position, the decision's progress, and the market's count
  of open positions, or not at all;
- a settlement is applied at most once, with the payout, the closed position, the bet scores and
  the family aggregate, or not at all; a market is marked resolved only when no open position
  remains on it.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from enum import StrEnum
from typing import Any

from arena_core.domain.accounting import Execution
from arena_core.domain.base import DomainModel
from arena_core.domain.cohort import Agent, Cohort
from arena_core.domain.market import Market
from arena_core.domain.money import ZERO
from arena_core.domain.portfolio import (
    BetScore,
    PortfolioSnapshot,
    Position,
    SeriesPoint,
    Settlement,
    Trade,
)
from arena_core.errors import (
    AttemptsExhaustedError,
    ClaimHeldError,
    DecisionAlreadySucceededError,
)
from arena_core.scoring.calibration import bin_index


class DecisionStatus(StrEnum):
    CLAIMED = "claimed"
    SUCCEEDED = "succeeded"
    RETRYABLE_FAILURE = "retryable_failure"
    FAILED = "failed"


class DecisionRecord(DomainModel):
    """The claim row of one agent-week, and what became of it.

    ``attempts`` counts failed attempts (retryable failures), ``claims`` counts how often the row
    was claimed (crash recoveries included). ``checkpoint`` holds what must survive a crash after
    the model call (the parsed decision and audit references) so a takeover never calls the model
    twice for trades already begun; ``outcome`` is the final summary.
    """

    decision_id: str
    agent_id: str
    cohort_id: str
    week: int
    status: DecisionStatus
    owner: str | None = None
    lease_until: datetime | None = None
    attempts: int = 0
    claims: int = 0
    trades_applied: int = 0
    created_at: datetime
    updated_at: datetime
    checkpoint: dict[str, Any] | None = None
    outcome: dict[str, Any] | None = None
    error: str | None = None

    @staticmethod
    def id_for(agent_id: str, week: int) -> str:
        """Deterministic; zero-padded so ids sort in week order."""
        return f"{agent_id}.w{week:03d}"


CALIBRATION_BINS = 10


class FamilyAggregate(DomainModel):
    """Running sums per model family, updated with each settlement and trade (never recomputed
    from history): mean Brier = brier_sum / scored_bets, and so on. ``cal_*`` hold, per
    right-closed tenth of implied confidence, the bet count, the forecast sum and the wins: the
    reliability diagram without reading a single bet."""

    family_id: str
    scored_bets: int = 0
    brier_sum: Decimal = ZERO
    market_brier_sum: Decimal = ZERO
    log_score_sum: Decimal = ZERO
    wins: int = 0
    trades: int = 0
    settled_positions: int = 0
    cal_count: tuple[int, ...] = (0,) * CALIBRATION_BINS
    cal_forecast: tuple[Decimal, ...] = (ZERO,) * CALIBRATION_BINS
    cal_wins: tuple[int, ...] = (0,) * CALIBRATION_BINS


def claim_refusal(
    record: DecisionRecord, now: datetime, max_attempts: int, owner: str
) -> Exception | None:
    """Why an existing decision row cannot be claimed now, or None if it can.

    The owner of a live claim may claim it again: a retried step of the same run picks up its
    own work; any other run waits for the lease to expire.
    """
    status = record.status
    if status is DecisionStatus.SUCCEEDED:
        return DecisionAlreadySucceededError(f"decision {record.decision_id} already succeeded")
    if status is DecisionStatus.FAILED:
        return AttemptsExhaustedError(f"decision {record.decision_id} failed for good")
    if status is DecisionStatus.RETRYABLE_FAILURE and record.attempts >= max_attempts:
        return AttemptsExhaustedError(
            f"decision {record.decision_id} used {record.attempts} of {max_attempts} attempts"
        )
    # A lease is live up to and including its expiry instant; strictly later, it can be taken.
    if status is DecisionStatus.CLAIMED and record.owner == owner:
        return None
    if status is DecisionStatus.CLAIMED and record.lease_until and record.lease_until >= now:
        return ClaimHeldError(
            f"decision {record.decision_id} is held by another run until {record.lease_until}"
        )
    return None


def snapshot_hour(moment: datetime) -> datetime:
    """The hour a snapshot belongs to (its hourly row in charts and in the dataset)."""
    return moment.replace(minute=0, second=0, microsecond=0)


def newest_per_hour(snapshots: Sequence[PortfolioSnapshot]) -> list[PortfolioSnapshot]:
    """The newest of each agent's snapshots in each hour: what a write of this batch leaves as
    the agents' hourly snapshots (a batch may not name one item twice)."""
    newest: dict[tuple[str, datetime], PortfolioSnapshot] = {}
    for snapshot in snapshots:
        slot = (snapshot.agent_id, snapshot_hour(snapshot.taken_at))
        if slot not in newest or snapshot.taken_at > newest[slot].taken_at:
            newest[slot] = snapshot
    return list(newest.values())


def score_sums(scores: Sequence[BetScore]) -> dict[str, Any]:
    """The aggregate increments one settlement's bet scores contribute, as flat counters
    (``cal_count_3`` is bin 3's count) so a store can add them atomically."""
    sums: dict[str, Any] = {
        "scored_bets": len(scores),
        "brier_sum": sum((s.brier for s in scores), ZERO),
        "market_brier_sum": sum((s.market_brier for s in scores), ZERO),
        "log_score_sum": sum((s.log_score for s in scores), ZERO),
        "wins": sum(1 for s in scores if s.won),
    }
    for score in scores:
        index = bin_index(score.forecast, CALIBRATION_BINS)
        sums[f"cal_count_{index}"] = sums.get(f"cal_count_{index}", 0) + 1
        sums[f"cal_forecast_{index}"] = sums.get(f"cal_forecast_{index}", ZERO) + score.forecast
        sums[f"cal_wins_{index}"] = sums.get(f"cal_wins_{index}", 0) + (1 if score.won else 0)
    return sums


def aggregate_from_flat(family_id: str, flat: Mapping[str, Any]) -> FamilyAggregate:
    """Rebuild an aggregate from flat counters (the inverse of ``score_sums``' naming)."""
    fields: dict[str, Any] = {k: v for k, v in flat.items() if not k.startswith("cal_")}
    for name, zero in (("cal_count", 0), ("cal_forecast", ZERO), ("cal_wins", 0)):
        fields[name] = tuple(flat.get(f"{name}_{i}", zero) for i in range(CALIBRATION_BINS))
    fields["family_id"] = family_id
    allowed = FamilyAggregate.model_fields
    return FamilyAggregate.model_validate({k: v for k, v in fields.items() if k in allowed})


def add_to_aggregate(current: FamilyAggregate, deltas: Mapping[str, Any]) -> FamilyAggregate:
    """``current`` plus flat increments, as a store that ADDs counters would compute it."""
    flat = flatten_aggregate(current)
    for name, delta in deltas.items():
        flat[name] = flat.get(name, 0) + delta
    return aggregate_from_flat(current.family_id, flat)


def flatten_aggregate(aggregate: FamilyAggregate) -> dict[str, Any]:
    flat: dict[str, Any] = aggregate.model_dump(exclude={"cal_count", "cal_forecast", "cal_wins"})
    for name in ("cal_count", "cal_forecast", "cal_wins"):
        for index, value in enumerate(getattr(aggregate, name)):
            flat[f"{name}_{index}"] = value
    return flat


@dataclass(frozen=True)
class AgentHoldings:
    """What marking an agent to market needs: its cash, positions and bet scores."""

    agent: Agent
    positions: list[Position]
    scores: list[BetScore]


@dataclass(frozen=True)
class AgentRecords:
    """Everything recorded under one agent, read together."""

    positions: list[Position]
    trades: list[Trade]
    settlements: list[Settlement]
    scores: list[BetScore]
    decisions: list[DecisionRecord]


class Repository(ABC):
    # --- cohorts and agents -------------------------------------------------------------------

    @abstractmethod
    def create_cohort(self, cohort: Cohort, agents: Sequence[Agent]) -> tuple[Cohort, bool]:
        """Create the week's cohort with its agents; if it exists, return it and create nothing."""

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
    def agents(self, cohort_id: str) -> list[Agent]: ...

    @abstractmethod
    def get_agent(self, agent_id: str) -> Agent:
        """The agent, or ``NotFoundError``."""

    # --- decisions ----------------------------------------------------------------------------

    @abstractmethod
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
        """Claim the agent-week: succeeds when no row exists, the row is a retryable failure
        under the attempt limit, its lease has expired, or ``owner`` already holds it.
        Raises a ``ClaimConflictError``."""

    @abstractmethod
    def extend_claim(self, decision_id: str, *, owner: str, lease_until: datetime) -> None: ...

    @abstractmethod
    def save_checkpoint(
        self, decision_id: str, *, owner: str, checkpoint: dict[str, Any], now: datetime
    ) -> None: ...

    @abstractmethod
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
        """Close the owner's claim as succeeded, retryable failure (attempts + 1, checkpoint
        cleared so the next attempt asks again) or failed."""

    @abstractmethod
    def get_decision(self, decision_id: str) -> DecisionRecord | None: ...

    @abstractmethod
    def decisions(self, agent_id: str) -> list[DecisionRecord]: ...

    # --- trades and positions -----------------------------------------------------------------

    @abstractmethod
    def apply_trade(self, execution: Execution, *, expected_version: int, owner: str) -> bool:
        """Apply one trade atomically. False (and no change) when this trade id was already
        applied; ``VersionConflictError`` when the agent changed since ``expected_version``;
        ``ClaimLostError`` when ``owner`` no longer holds the decision."""

    @abstractmethod
    def get_trade(self, agent_id: str, trade_id: str) -> Trade | None: ...

    @abstractmethod
    def trades(self, agent_id: str) -> list[Trade]: ...

    @abstractmethod
    def positions(self, agent_id: str) -> list[Position]:
        """All positions of the agent, open and closed."""

    def agent_records(self, agent_id: str) -> AgentRecords:
        """Positions, trades, settlements, bet scores and decisions of one agent. Stores that
        keep them together override this with a single read."""
        return AgentRecords(
            positions=self.positions(agent_id),
            trades=self.trades(agent_id),
            settlements=self.settlements(agent_id),
            scores=self.bet_scores(agent_id),
            decisions=self.decisions(agent_id),
        )

    def holdings(self, agent_id: str) -> AgentHoldings:
        """The agent, its positions and its bet scores (not its decisions or trades): what a
        snapshot reads every 10 minutes. Stores that keep them together read them at once."""
        return AgentHoldings(
            self.get_agent(agent_id), self.positions(agent_id), self.bet_scores(agent_id)
        )

    def holdings_of(self, agent_ids: Sequence[str]) -> dict[str, AgentHoldings]:
        """``holdings`` of several agents (stores may batch the reads)."""
        return {agent_id: self.holdings(agent_id) for agent_id in agent_ids}

    # --- markets and settlement ---------------------------------------------------------------

    @abstractmethod
    def save_markets(self, markets: Sequence[Market]) -> None:
        """Remember the latest known state of these markets."""

    @abstractmethod
    def get_markets(self, market_ids: Sequence[str]) -> dict[str, Market]: ...

    @abstractmethod
    def markets_with_open_positions(self) -> list[str]:
        """Distinct market ids that have at least one open position, in id order."""

    @abstractmethod
    def open_positions_on(self, market_id: str) -> list[Position]: ...

    @abstractmethod
    def apply_settlement(
        self,
        position: Position,
        settlement: Settlement,
        scores: Sequence[BetScore],
        *,
        family_id: str,
        expected_version: int,
    ) -> bool:
        """Settle one position atomically; False when it was already settled."""

    @abstractmethod
    def settlements(self, agent_id: str) -> list[Settlement]: ...

    @abstractmethod
    def bet_scores(self, agent_id: str) -> list[BetScore]: ...

    @abstractmethod
    def mark_market_resolved(self, market: Market, at: datetime) -> bool:
        """Record the resolution once no open position remains; False if positions remain or it
        was already marked."""

    # --- snapshots and aggregates -------------------------------------------------------------

    @abstractmethod
    def put_snapshots(self, snapshots: Sequence[PortfolioSnapshot]) -> None:
        """Write snapshots (idempotent per agent and timestamp), each agent's latest, and each
        agent's hourly snapshot: the newest of the batch in its hour replaces the hour's one, as
        the family series points do (passes run in time order, ten minutes apart)."""

    @abstractmethod
    def snapshots(self, agent_id: str, start: datetime, end: datetime) -> list[PortfolioSnapshot]:
        """An agent's snapshots with start <= taken_at <= end, oldest first."""

    @abstractmethod
    def hourly_snapshots(
        self, agent_id: str, start: datetime, end: datetime
    ) -> list[PortfolioSnapshot]:
        """An agent's hourly snapshots (the last written in each hour) of the hours from the one
        holding ``start`` to the one holding ``end``, oldest first. Reads one item per hour,
        however many passes ran: what charts over weeks and the dataset's hourly table need."""

    @abstractmethod
    def latest_snapshots(self, cohort_id: str) -> dict[str, PortfolioSnapshot]:
        """Each agent's most recent snapshot in a cohort, by agent id."""

    @abstractmethod
    def family_latest(self, family_id: str) -> list[PortfolioSnapshot]:
        """The latest snapshot of each of the family's agents (one per cohort), oldest first."""

    @abstractmethod
    def family_aggregates(self) -> dict[str, FamilyAggregate]: ...

    @abstractmethod
    def put_series(self, points: Sequence[SeriesPoint]) -> None:
        """Store family series points (idempotent per family, resolution and bucket)."""

    @abstractmethod
    def series(
        self, family_id: str, resolution: str, start: datetime, end: datetime
    ) -> list[SeriesPoint]:
        """A family's points at one resolution with start <= bucket <= end, oldest first."""
