"""Mark every active portfolio to market and record it (methodology v1 §12), every 10 minutes.

Each agent costs one read (its cash, positions and bet scores together); cohorts come from one
listing. The distinct markets with open positions are refreshed in batches (``ceil(M / batch)``
upstream requests). A market whose refresh failed, or that came back without a usable price, is
valued at its last stored state, then at the position's last mark: a failed batch is reported
and never zeroes a position. One snapshot per agent at the exact snapshot time, each agent's latest,
and the per-family series points (raw, hourly, daily and weekly buckets) are written; a market's
stored state is rewritten only when it changed.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from arena_core.domain import accounting
from arena_core.domain.cohort import Agent, Cohort, CohortStatus, week_start_for
from arena_core.domain.market import Market
from arena_core.domain.market_record import new_observations
from arena_core.domain.money import ZERO
from arena_core.domain.portfolio import BetScore, PortfolioSnapshot, Position, SeriesPoint
from arena_core.domain.valuation import totals
from arena_core.ports.clock import Clock
from arena_core.ports.market_source import MarketSource
from arena_core.ports.stores import WithCohorts, WithLedger, WithMarkets, WithViews

RESOLUTIONS = ("raw", "hour", "day", "week")


@dataclass(frozen=True)
class SnapshotReport:
    taken_at: datetime
    agents: int
    positions: int
    markets: int
    requests: int
    failed_market_ids: tuple[str, ...]
    stale_positions: int
    seconds: float


def _has_prices(market: Market) -> bool:
    return market.resolution is not None or all(o.price is not None for o in market.outcomes)


def effective_markets(
    fresh: Mapping[str, Market], stored: Mapping[str, Market], market_ids: Iterable[str]
) -> dict[str, Market]:
    """The state to value each market at: fresh when usable, else the last stored one."""
    chosen = {}
    for market_id in market_ids:
        candidate = fresh.get(market_id)
        if candidate is None or not _has_prices(candidate):
            candidate = stored.get(market_id, candidate)
        if candidate is not None:
            chosen[market_id] = candidate
    return chosen


def changed_markets(fresh: Iterable[Market], stored: Mapping[str, Market]) -> list[Market]:
    """The fetched markets whose state differs from the stored one: the only ones to write."""
    return [m for m in fresh if stored.get(m.market_id) != m]


def bucket(moment: datetime, resolution: str) -> datetime:
    if resolution == "hour":
        return moment.replace(minute=0, second=0, microsecond=0)
    if resolution == "day":
        return moment.replace(hour=0, minute=0, second=0, microsecond=0)
    if resolution == "week":
        return week_start_for(moment)
    return moment


def family_points(snapshots: Sequence[PortfolioSnapshot], taken_at: datetime) -> list[SeriesPoint]:
    """Per family: summed P/L and mean return % of its agents, at each resolution."""
    by_family: dict[str, list[PortfolioSnapshot]] = {}
    for snapshot in snapshots:
        by_family.setdefault(snapshot.family_id, []).append(snapshot)
    points = []
    for family_id, members in sorted(by_family.items()):
        pnl = sum((s.total_pnl for s in members), ZERO)
        mean_return = sum((s.total_pnl_pct for s in members), ZERO) / len(members)
        for resolution in RESOLUTIONS:
            points.append(
                SeriesPoint(
                    family_id=family_id,
                    resolution=resolution,
                    bucket=bucket(taken_at, resolution),
                    taken_at=taken_at,
                    pnl=pnl,
                    return_pct=mean_return,
                    agents=len(members),
                )
            )
    return points


def snapshot_of(
    agent: Agent,
    positions: Sequence[Position],
    scores: Sequence[BetScore],
    markets: Mapping[str, Market],
    moment: datetime,
) -> tuple[PortfolioSnapshot, int]:
    """An agent's snapshot from its open positions marked at ``markets``, and how many of the
    marks were stale (a fallback price)."""
    marks = [accounting.mark(p, markets.get(p.market_id)) for p in positions]
    result = totals(agent.cash, (m.value for m in marks))
    brier = sum((s.brier for s in scores), ZERO) / len(scores) if scores else None
    snapshot = PortfolioSnapshot(
        agent_id=agent.agent_id,
        cohort_id=agent.cohort_id,
        family_id=agent.family_id,
        taken_at=moment,
        cash=result.cash,
        positions_value=result.positions_value,
        total_value=result.total_value,
        total_pnl=result.pnl,
        total_pnl_pct=result.pnl_pct,
        brier=brier,
        resolved_bets=len(scores),
        open_positions=len(positions),
        trades=agent.trades,
    )
    return snapshot, sum(1 for m in marks if m.stale)


class SnapshotStores(WithCohorts, WithLedger, WithMarkets, WithViews, Protocol):
    """The roles a snapshot pass uses (no decisions)."""


class SnapshotService:
    def __init__(self, stores: SnapshotStores, source: MarketSource, clock: Clock) -> None:
        self._cohorts = stores.cohorts
        self._ledger = stores.ledger
        self._markets = stores.markets
        self._views = stores.views
        self._source = source
        self._clock = clock

    def run(self, taken_at: datetime | None = None) -> SnapshotReport:
        started = time.perf_counter()
        moment = taken_at or self._clock.now()
        cohorts = self._cohorts.cohorts()
        active = [c for c in cohorts if c.status is CohortStatus.ACTIVE]
        agent_ids = [Agent.id_for(c.cohort_id, spec.family_id) for c in active for spec in c.lineup]
        holdings = self._ledger.holdings_of(agent_ids)
        held = {i: [p for p in h.positions if p.is_open] for i, h in holdings.items()}
        market_ids = sorted({p.market_id for positions in held.values() for p in positions})
        fetch = self._source.markets_by_id(market_ids)
        stored = self._markets.get_markets(market_ids)
        markets = effective_markets(fetch.markets, stored, market_ids)
        fresh = [m for m in fetch.markets.values() if _has_prices(m)]
        self._markets.record_observations(new_observations(fresh, stored, moment))
        self._markets.save_markets(changed_markets(fresh, stored))
        snapshots, stale = [], 0
        for agent_id, holding in holdings.items():
            snapshot, agent_stale = snapshot_of(
                holding.agent, held[agent_id], holding.scores, markets, moment
            )
            snapshots.append(snapshot)
            stale += agent_stale
        self._views.put_snapshots(snapshots)
        finished = [c for c in cohorts if c.status is not CohortStatus.ACTIVE]
        members = [*snapshots, *self._finals(finished)]
        self._views.put_series(family_points(members, moment))
        return SnapshotReport(
            taken_at=moment,
            agents=len(agent_ids),
            positions=sum(len(p) for p in held.values()),
            markets=len(market_ids),
            requests=fetch.requests,
            failed_market_ids=tuple(fetch.failed_ids),
            stale_positions=stale,
            seconds=time.perf_counter() - started,
        )

    def _finals(self, completed: Iterable[Cohort]) -> list[PortfolioSnapshot]:
        """Completed cohorts' final snapshots: their families' series keep counting them."""
        return [
            snapshot
            for cohort in completed
            for snapshot in self._views.latest_snapshots(cohort.cohort_id).values()
        ]
