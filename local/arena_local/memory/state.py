"""What the in-memory stores hold, behind one lock, and the time index they read ranges from."""

from __future__ import annotations

import bisect
import threading
from dataclasses import dataclass, field
from datetime import datetime
from typing import Generic, TypeVar

from arena_core.domain.aggregates import FamilyAggregate
from arena_core.domain.coherence import DecisionCoherence
from arena_core.domain.cohort import Agent, Cohort
from arena_core.domain.decisions import DecisionRecord
from arena_core.domain.market import Market
from arena_core.domain.market_record import Capture, HourlyMarks, MarketObservation
from arena_core.domain.panel import PanelQuestion, PanelScore
from arena_core.domain.portfolio import (
    BetScore,
    FamilyTotals,
    PortfolioSnapshot,
    Position,
    SeriesPoint,
    Settlement,
    Trade,
)
from arena_core.domain.releases import LineupRelease
from arena_core.errors import NotFoundError
from arena_core.scoring.aggregates import combined

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


@dataclass
class MemoryState:
    lock: threading.RLock = field(default_factory=threading.RLock)
    cohorts: dict[str, Cohort] = field(default_factory=dict)
    agents: dict[str, Agent] = field(default_factory=dict)
    decisions: dict[str, DecisionRecord] = field(default_factory=dict)
    trades: dict[str, dict[str, Trade]] = field(default_factory=dict)
    positions: dict[str, dict[str, Position]] = field(default_factory=dict)
    settlements: dict[str, dict[str, Settlement]] = field(default_factory=dict)
    scores: dict[str, dict[str, BetScore]] = field(default_factory=dict)
    markets: dict[str, Market] = field(default_factory=dict)
    resolved_markets: set[str] = field(default_factory=set)
    open_counts: dict[str, int] = field(default_factory=dict)
    snapshots: dict[str, TimeIndex[PortfolioSnapshot]] = field(default_factory=dict)
    hourly: dict[str, TimeIndex[PortfolioSnapshot]] = field(default_factory=dict)
    latest: dict[str, PortfolioSnapshot] = field(default_factory=dict)
    final_totals: dict[tuple[str, str], FamilyTotals] = field(default_factory=dict)
    aggregates: dict[str, FamilyAggregate] = field(default_factory=dict)
    series: dict[tuple[str, str], TimeIndex[SeriesPoint]] = field(default_factory=dict)
    panel_questions: dict[str, PanelQuestion] = field(default_factory=dict)  # by question id
    panel_scores: dict[str, list[PanelScore]] = field(default_factory=dict)  # by question id
    panel_coherence: dict[str, DecisionCoherence] = field(default_factory=dict)  # by decision
    resolved_at: dict[str, datetime] = field(default_factory=dict)  # markets marked resolved
    observations: dict[str, list[MarketObservation]] = field(default_factory=dict)
    captures: dict[str, dict[datetime, Capture]] = field(default_factory=dict)  # by market, time
    marks: TimeIndex[HourlyMarks] = field(default_factory=TimeIndex)  # each hour's sheet
    lineup_releases: dict[int, LineupRelease] = field(default_factory=dict)  # by number
    job_runs: dict[str, datetime] = field(default_factory=dict)  # the last run of each job

    def require_agent(self, agent_id: str) -> Agent:
        agent = self.agents.get(agent_id)
        if agent is None:
            raise NotFoundError(f"no agent {agent_id}")
        return agent

    def count_open(self, market_id: str, delta: int) -> None:
        if delta:
            self.open_counts[market_id] = self.open_counts.get(market_id, 0) + delta

    def add_to_aggregate(self, increment: FamilyAggregate) -> None:
        family_id = increment.family_id
        current = self.aggregates.get(family_id) or FamilyAggregate(family_id=family_id)
        self.aggregates[family_id] = combined(current, increment)
