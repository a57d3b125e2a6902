"""Mark every active portfolio to market and record it (methodology v1 §12), every 10 minutes.

Each agent costs one read (its cash, positions and bet scores together); cohorts come from one
listing. The distinct markets with open positions are refreshed in batches (``ceil(M / batch)``
upstream requests). A market whose refresh failed, or that came back without a usable price, is
valued at its last stored state, then at the position's last mark: a failed batch is reported
and never zeroes a position.

Every pass writes one snapshot per agent at the exact snapshot time and one raw series point per
family, and a market's stored state only when what it shows changed (``changed_markets``: its
status, resolution or a shown price; never its volume alone). A pass whose every market failed
to refresh fails (``MarketRefreshError``) before it writes anything: its failure reaches the
operator (the dead-letter queue's alarm) instead of a pass that marks nothing looking good.

What summarises an hour is written once, by the first pass of the next hour, from the newest
snapshots of the hour that closed (each agent's latest, read back before this pass writes): each
agent's hourly snapshot and each family's hourly, daily and weekly points. Before, every pass
rewrote them (and each agent's latest snapshot, with an index key): most of the table's write
units, for values the next pass replaced ten minutes later.

The first pass of each hour also writes the hour's sheet of prices (``HourlyMarks``): the first
outcome's price of every held market it marked, one item for all of them, which the market
pages plot.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Protocol

from arena_core.constants import SNAPSHOT_PERIOD
from arena_core.domain import accounting
from arena_core.domain.cohort import Agent, Cohort, CohortStatus
from arena_core.domain.market import Market, shown_state
from arena_core.domain.market_record import HourlyMarks, new_observations
from arena_core.domain.money import ZERO
from arena_core.domain.portfolio import (
    SERIES_RETURN_PLACES,
    BetScore,
    FamilyTotals,
    PortfolioSnapshot,
    Position,
    SeriesPoint,
    family_totals,
    series_bucket,
    snapshot_hour,
)
from arena_core.domain.valuation import totals
from arena_core.errors import MarketRefreshError
from arena_core.ports.clock import Clock
from arena_core.ports.market_source import MarketFetch, MarketSource
from arena_core.ports.stores import WithCohorts, WithLedger, WithMarkets, WithViews

RESOLUTIONS = ("raw", "hour", "day", "week")
CLOSED_BUCKETS = ("hour", "day", "week")  # written once an hour, by the next hour's first pass


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
    snapshots: tuple[PortfolioSnapshot, ...] = ()  # what the pass wrote: the agents' latest


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
    """The fetched markets whose shown state differs from the stored one (``shown_state``: its
    status, resolution, a price at the precision pages show it, its text): the only ones to
    write. Never for volume alone: on live markets it moves with every trade, and writing each
    held market (two write units with its index copy) on every pass was most of the passes'
    writes. The hourly sheet of marks keeps the prices the market pages draw."""
    found = []
    for market in fresh:
        before = stored.get(market.market_id)
        if before is None or shown_state(before) != shown_state(market):
            found.append(market)
    return found


def refreshed_nothing(held: Sequence[str], fetch: MarketFetch) -> bool:
    """Whether a pass holding markets got none back because fetching failed (Polymarket
    unreachable, every batch refused): such a pass would value every position at its last
    price and look like a good one."""
    return bool(held) and not fetch.markets and bool(fetch.failed_ids)


def opens_hour(moment: datetime) -> bool:
    """Whether a pass at ``moment`` is the first of its hour (passes run every
    ``SNAPSHOT_PERIOD``, at whatever offset the schedule has)."""
    return moment - SNAPSHOT_PERIOD < snapshot_hour(moment)


def family_points(
    snapshots: Sequence[PortfolioSnapshot],
    taken_at: datetime,
    resolutions: Sequence[str] = RESOLUTIONS,
    finals: Sequence[FamilyTotals] = (),
) -> list[SeriesPoint]:
    """Per family: summed P/L and mean return % of its agents (the completed cohorts' with
    their final values, ``finals``), at each resolution."""
    sums: dict[str, tuple[Decimal, Decimal, int]] = {}
    for total in [*family_totals("", snapshots), *finals]:
        pnl, pct, agents = sums.get(total.family_id, (ZERO, ZERO, 0))
        sums[total.family_id] = (pnl + total.pnl, pct + total.return_pct_sum, agents + total.agents)
    points = []
    for family_id, (pnl, pct_sum, agents) in sorted(sums.items()):
        mean_return = (pct_sum / agents).quantize(SERIES_RETURN_PLACES)
        for resolution in resolutions:
            points.append(
                SeriesPoint(
                    family_id=family_id,
                    resolution=resolution,
                    bucket=series_bucket(taken_at, resolution),
                    taken_at=taken_at,
                    pnl=pnl,
                    return_pct=mean_return,
                    agents=agents,
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
    def __init__(
        self,
        stores: SnapshotStores,
        source: MarketSource,
        clock: Clock,
        *,
        reads: SnapshotStores | None = None,
        require_refresh: bool = True,
    ) -> None:
        """``reads``: the stores to read holdings, market states and latest snapshots from
        (eventually consistent ones, deployed: the last write they could miss is ten minutes
        old); writes go to ``stores``. ``require_refresh``: a pass that refreshed none of its
        markets fails (the scheduled passes); off, it marks at the last prices (the pass after
        a decision run, whose own failure would leave the run unreported)."""
        self._require_refresh = require_refresh
        self._cohorts = stores.cohorts
        self._ledger = (reads or stores).ledger
        self._markets = stores.markets
        self._stored_markets = (reads or stores).markets
        self._views = stores.views
        self._latest = (reads or stores).views
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
        if self._require_refresh and refreshed_nothing(market_ids, fetch):
            raise MarketRefreshError(
                f"no market refreshed: {len(fetch.failed_ids)} of {len(market_ids)} held "
                f"markets failed ({fetch.requests} requests); nothing was marked or written"
            )
        stored = self._stored_markets.get_markets(market_ids)
        markets = effective_markets(fetch.markets, stored, market_ids)
        fresh = [m for m in fetch.markets.values() if _has_prices(m)]
        self._markets.record_observations(new_observations(fresh, stored, moment))
        self._markets.save_markets(changed_markets(fresh, stored))
        finished = [c for c in cohorts if c.status is not CohortStatus.ACTIVE]
        finals = self._finals(finished)
        if opens_hour(moment):
            self._close_hour(active, finals, moment)
            self._markets.record_marks(HourlyMarks.of(snapshot_hour(moment), markets.values()))
        snapshots, stale = [], 0
        for agent_id, holding in holdings.items():
            snapshot, agent_stale = snapshot_of(
                holding.agent, held[agent_id], holding.scores, markets, moment
            )
            snapshots.append(snapshot)
            stale += agent_stale
        self._views.put_snapshots(snapshots)
        self._views.put_series(family_points(snapshots, moment, ("raw",), finals))
        return SnapshotReport(
            taken_at=moment,
            agents=len(agent_ids),
            positions=sum(len(p) for p in held.values()),
            markets=len(market_ids),
            requests=fetch.requests,
            failed_market_ids=tuple(fetch.failed_ids),
            stale_positions=stale,
            seconds=time.perf_counter() - started,
            snapshots=tuple(snapshots),
        )

    def _finals(self, completed: Iterable[Cohort]) -> list[FamilyTotals]:
        """Completed cohorts' final snapshots summed per family (their families' series keep
        counting them): one partition read, however many cohorts completed. A cohort completed
        before the totals were kept has them computed from its final snapshots, and written."""
        totals = self._latest.final_totals()
        known = {t.cohort_id for t in totals}
        for cohort in completed:
            if cohort.cohort_id not in known:
                finals = self._latest.latest_snapshots(cohort).values()
                missing = family_totals(cohort.cohort_id, list(finals))
                self._views.put_final_totals(missing)
                totals += missing
        return totals

    def _close_hour(
        self, active: Sequence[Cohort], finals: Sequence[FamilyTotals], moment: datetime
    ) -> None:
        """The hour before ``moment`` closed: its newest snapshots (the agents' latest, before
        this pass) become the agents' hourly snapshots and the families' hourly, daily and
        weekly points. Nothing when no agent was snapshotted in an earlier hour."""
        hour = snapshot_hour(moment)
        closed = [
            snapshot
            for cohort in active
            for snapshot in self._latest.latest_snapshots(cohort).values()
            if snapshot.taken_at < hour
        ]
        if not closed:
            return
        self._views.put_hourly(closed)
        newest = max(s.taken_at for s in closed)
        self._views.put_series(family_points(closed, newest, CLOSED_BUCKETS, finals))
