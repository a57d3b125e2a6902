"""Positions, trades, settlements, bet scores and portfolio snapshots."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from decimal import Decimal
from enum import StrEnum

from arena_core.domain.base import DomainModel
from arena_core.domain.cohort import week_start_for
from arena_core.domain.money import ZERO


class PositionStatus(StrEnum):
    OPEN = "open"
    CLOSED = "closed"  # sold out completely
    SETTLED = "settled"  # paid out at resolution (won, lost or 50/50)
    CANCELLED = "cancelled"  # refunded at cost: the market's winner could not be determined


class Position(DomainModel):
    """An agent's holding on one side of one market (at most one open per market and side).

    ``cost_basis`` is the dollars still invested; ``last_mark_price`` is the per-share value of
    the last successful mark, the fallback while a closed market has no usable price.
    """

    position_id: str
    agent_id: str
    cohort_id: str
    market_id: str
    side: str
    shares: Decimal
    cost_basis: Decimal
    status: PositionStatus = PositionStatus.OPEN
    opened_at: datetime
    opened_by: str  # the trade id that opened it
    realized_pnl: Decimal = ZERO
    last_mark_price: Decimal | None = None

    @property
    def is_open(self) -> bool:
        return self.status is PositionStatus.OPEN

    @property
    def avg_entry_price(self) -> Decimal:
        """Average price paid per share still held (cost basis / shares)."""
        return self.cost_basis / self.shares if self.shares else ZERO


class TradeKind(StrEnum):
    BUY = "buy"
    SELL = "sell"


class Trade(DomainModel):
    """One executed BUY or SELL. ``amount`` is the cash that moved (spent or received)."""

    trade_id: str
    decision_id: str
    agent_id: str
    cohort_id: str
    position_id: str
    market_id: str
    side: str
    kind: TradeKind
    amount: Decimal
    shares: Decimal
    price: Decimal
    cash_before: Decimal
    cash_after: Decimal
    executed_at: datetime
    cost_basis_sold: Decimal = ZERO
    realized_pnl: Decimal = ZERO
    implied_confidence: Decimal | None = None  # BUY only: amount / (25% of cash before)


class SettlementKind(StrEnum):
    WON = "won"
    LOST = "lost"
    SPLIT = "split"
    CANCELLED = "cancelled"


class Settlement(DomainModel):
    """The closing of a position at resolution. ``payout`` is the cash credited.

    For CANCELLED the payout is a refund of the remaining cost basis; the ledger counts it among
    refunds rather than payouts.
    """

    settlement_id: str
    position_id: str
    agent_id: str
    cohort_id: str
    market_id: str
    side: str
    kind: SettlementKind
    shares: Decimal
    cost_basis: Decimal
    payout: Decimal
    realized_pnl: Decimal
    settled_at: datetime

    @property
    def is_refund(self) -> bool:
        return self.kind is SettlementKind.CANCELLED


class BetScore(DomainModel):
    """The Brier score of one BUY, written when its position settles won or lost.

    ``forecast`` is the implied probability that the bought side wins (the implied confidence);
    ``market_price`` is that side's price when the bet was made, the reference forecast for the
    Brier skill score. In YES terms, ``f_yes`` is the forecast for YES-side buys and its
    complement for NO-side buys; the Brier value is the same either way. ``market_brier`` scores
    the market price the same way (the Brier skill score's reference) and ``log_score`` is
    ln P(what happened) under the forecast, clipped like ``arena_core.scoring.log_score``.
    """

    trade_id: str
    agent_id: str
    cohort_id: str
    family_id: str
    market_id: str
    side: str
    amount: Decimal
    cash_before: Decimal
    forecast: Decimal
    market_price: Decimal
    won: bool
    brier: Decimal
    market_brier: Decimal
    log_score: Decimal
    scored_at: datetime
    # What the statistics break scores down by: when the bet was made, the market's category
    # and scheduled close (absent on scores recorded before they were kept).
    bet_at: datetime | None = None
    category: str | None = None
    closes_at: datetime | None = None
    event_id: str | None = None  # the market's Polymarket event


class PortfolioSnapshot(DomainModel):
    """An agent's marked portfolio at one exact moment (methodology v1 §12)."""

    agent_id: str
    cohort_id: str
    family_id: str
    taken_at: datetime
    cash: Decimal
    positions_value: Decimal
    total_value: Decimal
    total_pnl: Decimal
    total_pnl_pct: Decimal
    brier: Decimal | None
    resolved_bets: int
    open_positions: int
    trades: int = 0  # the agent's executed trades so far


class SeriesPoint(DomainModel):
    """One point of a model family's equity series across all its cohorts.

    ``pnl`` sums every agent's P/L (active agents at their latest mark, completed ones final);
    ``return_pct`` is the mean of the agents' return %. Points are kept at four resolutions,
    each bucket holding the last point that fell in it, so a chart of any range reads a bounded
    number of points however long the benchmark has run.
    """

    family_id: str
    resolution: str  # "raw" (every snapshot), "hour", "day" or "week"
    bucket: datetime
    taken_at: datetime
    pnl: Decimal
    return_pct: Decimal
    agents: int


SIX_HOURS = "6h"  # a resolution read from the hourly points (``six_hourly``), never stored
# A series point's mean return %, to a hundred-millionth of a point: a mean of a year's
# cohorts divides to 28 digits, which every stored and carried point would hold for nothing.
SERIES_RETURN_PLACES = Decimal("1e-8")


def six_hourly(hourly: Sequence[SeriesPoint]) -> list[SeriesPoint]:
    """The newest of ``hourly`` points in each six-hour bucket, as that bucket's point, oldest
    first."""
    newest: dict[datetime, SeriesPoint] = {}
    for point in hourly:
        bucket = series_bucket(point.bucket, SIX_HOURS)
        if bucket not in newest or newest[bucket].taken_at <= point.taken_at:
            newest[bucket] = point
    return [
        newest[b].model_copy(update={"resolution": SIX_HOURS, "bucket": b}) for b in sorted(newest)
    ]


def snapshot_hour(moment: datetime) -> datetime:
    """The hour a snapshot belongs to (its hourly row in charts and in the dataset)."""
    return moment.replace(minute=0, second=0, microsecond=0)


class FamilyTotals(DomainModel):
    """One family's agents of one completed cohort, summed for the family series: their final
    P/L, the sum of their final return %, and how many they are."""

    cohort_id: str
    family_id: str
    pnl: Decimal
    return_pct_sum: Decimal
    agents: int


def family_totals(cohort_id: str, finals: Sequence[PortfolioSnapshot]) -> list[FamilyTotals]:
    """A completed cohort's final snapshots summed per family."""
    by_family: dict[str, list[PortfolioSnapshot]] = {}
    for snapshot in finals:
        by_family.setdefault(snapshot.family_id, []).append(snapshot)
    return [
        FamilyTotals(
            cohort_id=cohort_id,
            family_id=family,
            pnl=sum((s.total_pnl for s in members), ZERO),
            return_pct_sum=sum((s.total_pnl_pct for s in members), ZERO),
            agents=len(members),
        )
        for family, members in sorted(by_family.items())
    ]


def series_bucket(moment: datetime, resolution: str) -> datetime:
    """The bucket of a family series point at ``resolution``: the hour, six hours (from 00:00,
    06:00, 12:00 or 18:00 UTC: a chart's reading of the hourly points, never stored), the UTC
    day, the week (from Sunday 00:00 UTC), or the moment itself for raw points."""
    if resolution == "hour":
        return snapshot_hour(moment)
    if resolution == SIX_HOURS:
        hour = snapshot_hour(moment)
        return hour.replace(hour=hour.hour - hour.hour % 6)
    if resolution == "day":
        return moment.replace(hour=0, minute=0, second=0, microsecond=0)
    if resolution == "week":
        return week_start_for(moment)
    return moment


def newest_per_hour(snapshots: Sequence[PortfolioSnapshot]) -> list[PortfolioSnapshot]:
    """The newest of each agent's snapshots in each hour: what a write of this batch leaves as
    the agents' hourly snapshots (a batch may not name one item twice)."""
    newest: dict[tuple[str, datetime], PortfolioSnapshot] = {}
    for snapshot in snapshots:
        slot = (snapshot.agent_id, snapshot_hour(snapshot.taken_at))
        if slot not in newest or snapshot.taken_at > newest[slot].taken_at:
            newest[slot] = snapshot
    return list(newest.values())
