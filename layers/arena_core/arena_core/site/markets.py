"""Market pages and the dataset's markets table: what each market is, what became of it, its
price at every weekly capture and every hourly mark the arena took, and every agent's position,
trades and reasoning on it (read by ``publication/markets.py``)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from typing import Any, Protocol

from arena_core.dataset.records import CohortView, DecisionView
from arena_core.domain.accounting import SPLIT_PAYOUT
from arena_core.domain.cohort import Agent, Cohort
from arena_core.domain.market import Market, ResolutionKind
from arena_core.domain.market_record import Capture, MarketRecord
from arena_core.domain.money import ONE, ZERO
from arena_core.domain.panel import PanelForecast
from arena_core.domain.portfolio import Position, PositionStatus, Trade, series_bucket
from arena_core.ports.stores import WithLedger, WithMarkets
from arena_core.site.charts import Fetch, Point, RangeChart, range_charts


@dataclass(frozen=True)
class Holder:
    """An agent as a market page names it."""

    agent_id: str
    cohort_id: str
    family_id: str
    display_name: str


@dataclass(frozen=True)
class MarketTrade:
    trade: Trade
    holder: Holder
    reasoning: str  # the reasoning of the decision that placed it
    named: Mapping[str, str] = field(default_factory=dict)  # the markets it names (its questions)


@dataclass(frozen=True)
class MarketForecast:
    holder: Holder
    decision_id: str
    forecast: PanelForecast


@dataclass
class MarketView:
    record: MarketRecord
    captures: list[Capture] = field(default_factory=list)
    marks: list[Point] = field(default_factory=list)  # the first outcome's price, hourly
    positions: list[tuple[Position, Holder]] = field(default_factory=list)
    trades: list[MarketTrade] = field(default_factory=list)
    forecasts: list[MarketForecast] = field(default_factory=list)
    asked: bool = False  # a forecast panel asked about it

    @property
    def market(self) -> Market:
        return self.record.market

    def right(self, position: Position) -> bool | None:
        """Whether the side held won: None until the market resolves with a winner."""
        resolution = self.market.resolution
        if resolution is None or resolution.kind is not ResolutionKind.WINNER:
            return None
        return self.market.side_won(position.side)

    def by_side(self) -> dict[str, list[Holder]]:
        """Which agents held which side (a position opened, whatever became of it)."""
        sides: dict[str, list[Holder]] = {}
        for position, holder in self.positions:
            sides.setdefault(position.side, []).append(holder)
        return sides


class MarketStores(WithLedger, WithMarkets, Protocol):
    """The roles market pages read: every position on a market, market state and captures."""


def holders(cohorts: Iterable[Cohort]) -> dict[str, Holder]:
    """Every agent of these cohorts by id, named as its cohort froze it."""
    found = {}
    for cohort in cohorts:
        for spec in cohort.lineup:
            agent_id = Agent.id_for(cohort.cohort_id, spec.family_id)
            found[agent_id] = Holder(agent_id, cohort.cohort_id, spec.family_id, spec.display_name)
    return found


def unknown_holder(agent_id: str) -> Holder:
    cohort_id, _, family_id = agent_id.partition(".")
    return Holder(agent_id, cohort_id, family_id, family_id)


def add_records(
    found: Mapping[str, MarketView], cohort: CohortView, names: Mapping[str, Holder]
) -> None:
    """The trades and panel forecasts ``cohort`` made on the markets of ``found``."""
    for question in cohort.questions:
        if question.market.market_id in found:
            found[question.market.market_id].asked = True
    for agent in cohort.agents:
        holder = names.get(agent.agent.agent_id) or unknown_holder(agent.agent.agent_id)
        decisions: dict[str, DecisionView] = {d.record.decision_id: d for d in agent.decisions}
        for trade in agent.trades:
            if trade.market_id in found:
                decision = decisions.get(trade.decision_id)
                reasoning, named = (decision.reasoning, decision.named) if decision else ("", {})
                found[trade.market_id].trades.append(MarketTrade(trade, holder, reasoning, named))
        for decision in agent.decisions:
            for forecast in decision.outcome.forecasts if decision.outcome else ():
                if forecast.market_id in found:
                    found[forecast.market_id].forecasts.append(
                        MarketForecast(holder, decision.record.decision_id, forecast)
                    )


def market_row(view: MarketView) -> dict[str, Any]:
    """The dataset's row of a market: what it is, what became of it, and the provenance of its
    resolution as the arena observed it."""
    market, record = view.market, view.record
    resolution = market.resolution
    return {
        "market_id": market.market_id,
        "event_id": market.event_id,
        "event_slug": market.event_slug,
        "question": market.question,
        "category": market.category,
        "outcomes": " | ".join(o.name for o in market.outcomes),
        "end_date": market.end_date,
        "status": market.status,
        "resolution": resolution.kind if resolution else None,
        "winner": resolution.winner if resolution else None,
        "resolved_at": record.resolved_at,
        "uma_status": market.uma_status,
        "uma_history": " > ".join(record.uma_history),
        "disputes": record.disputes,
        "split": resolution is not None and resolution.kind is ResolutionKind.SPLIT,
        "indeterminate": resolution is not None and resolution.kind is ResolutionKind.INDETERMINATE,
        "captures": len(view.captures),
        "positions": len(view.positions),
        "settled_positions": sum(
            p.status in (PositionStatus.SETTLED, PositionStatus.CANCELLED)
            for p, _ in view.positions
        ),
        "traded_by": " ".join(sorted({h.family_id for _, h in view.positions})),
        "asked_by_panel": bool(view.forecasts) or view.asked,
    }


def price_charts(view: MarketView) -> list[RangeChart]:
    """The first outcome's price at each hourly mark and weekly capture (the ALL range, read
    hourly, daily or weekly: the finest that stays light), when there is a line to draw,
    ending at the resolution where there is one: a point at what a share of that outcome paid
    (1, 0, or 0.50 on a split) and a mark."""
    points = _prices(view)
    events: list[tuple[datetime, str]] = []
    paid = _paid(view)
    resolved_at = view.record.resolved_at
    if resolved_at is not None and (not points or resolved_at >= points[-1].at):
        events.append((resolved_at, f"resolved: {_resolution_text(view.market)}"))
        if paid is not None:
            points.append(Point(resolved_at, paid))
    if len(points) < 2:
        return []  # one capture is a row of the table below, not a line
    uses = dict.fromkeys(("10M", "1H", "1D", "1W", "1M", "ALL"), "week")
    name = view.market.outcomes[0].name
    charts = range_charts([(name, _by_resolution(points))], points[-1].at, "p", uses, events)
    return [c for c in charts if c.label == "ALL"]


def _prices(view: MarketView) -> list[Point]:
    """The hourly marks and the captures in time order (a capture where both fall at once)."""
    merged = {p.at: p for p in view.marks}
    for capture in view.captures:
        if capture.first_price is not None:
            merged[capture.at] = Point(capture.at, capture.first_price)
    return [merged[at] for at in sorted(merged)]


def _by_resolution(points: Sequence[Point]) -> Fetch:
    """The points hourly, and thinned to the last of each UTC day and week (the first point
    kept: each line starts where the history does), for ``all_resolution`` to choose from."""

    def thinned(resolution: str) -> list[Point]:
        last = {series_bucket(p.at, resolution): p for p in points}
        return sorted({points[0], *last.values()}, key=lambda p: p.at)

    return {"hour": list(points), "day": thinned("day"), "week": thinned("week")}


def _paid(view: MarketView) -> Decimal | None:
    """What a share of the first outcome paid at resolution (None: refunded, or unresolved)."""
    resolution = view.market.resolution
    if resolution is None or resolution.kind is ResolutionKind.INDETERMINATE:
        return None
    if resolution.kind is ResolutionKind.SPLIT:
        return SPLIT_PAYOUT
    first = view.market.outcomes[0].name
    return ONE if view.market.side_won(first) else ZERO


def _resolution_text(market: Market) -> str:
    resolution = market.resolution
    if resolution is None:
        return "marked resolved"
    if resolution.kind is ResolutionKind.WINNER:
        return f"{resolution.winner} won"
    return "50/50 split" if resolution.kind is ResolutionKind.SPLIT else "refunded (indeterminate)"
