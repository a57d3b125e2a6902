"""Read what the site shows from the repository, with reads bounded by what changes.

Global pages (leaderboard, model pages) read the running family aggregates, one latest snapshot
per agent of the family, and the family series at the resolution each chart range needs: no read
grows with the number of bets, trades or snapshots. Agent pages read the last day's snapshots
and one hourly snapshot per hour before it. Cohort and agent pages are built only for the
cohorts asked for (the live ones; a completed cohort is published once and left alone).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Protocol

from arena_core.domain import accounting
from arena_core.domain.aggregates import FamilyAggregate
from arena_core.domain.cohort import Agent, Cohort
from arena_core.domain.decisions import DecisionOutcome, DecisionRecord
from arena_core.domain.lineup import AgentKind, AgentSpec
from arena_core.domain.market import Market
from arena_core.domain.money import ZERO
from arena_core.domain.portfolio import BetScore, PortfolioSnapshot, Position, Settlement, Trade
from arena_core.errors import ArenaError
from arena_core.ports.blob_store import BlobStore
from arena_core.ports.stores import WithCohorts, WithMarkets, WithViews
from arena_core.site.charts import (
    Point,
    RangeChart,
    ReliabilityPoint,
    range_charts,
    reliability_points,
)

RAW_REPLY_LIMIT = 20_000


@dataclass(frozen=True)
class LeaderboardRow:
    family_id: str
    display_name: str
    kind: AgentKind
    rank: int | None
    cohorts: int
    return_pct_mean: Decimal | None
    total_pnl: Decimal
    brier: Decimal | None
    log_score: Decimal | None
    brier_skill_vs_market: Decimal | None
    win_rate: Decimal | None
    resolved_bets: int
    trades: int


@dataclass(frozen=True)
class PositionView:
    position: Position
    question: str
    mark_price: Decimal | None
    marked_value: Decimal | None


@dataclass(frozen=True)
class DecisionView:
    """A decision as the site shows it: ``reasoning`` is the whole text (read from the audit
    bucket when the record keeps an excerpt), ``raw_reply`` the model's last reply."""

    record: DecisionRecord
    outcome: DecisionOutcome | None
    raw_reply: str
    reasoning: str = ""


@dataclass
class AgentView:
    agent: Agent
    latest: PortfolioSnapshot | None
    positions: list[PositionView] = field(default_factory=list)
    trades: list[Trade] = field(default_factory=list)
    settlements: list[Settlement] = field(default_factory=list)
    scores: list[BetScore] = field(default_factory=list)
    decisions: list[DecisionView] = field(default_factory=list)
    hourly: list[PortfolioSnapshot] = field(default_factory=list)  # one per hour, oldest first
    charts: list[RangeChart] = field(default_factory=list)


@dataclass
class CohortView:
    cohort: Cohort
    agents: list[AgentView]


@dataclass
class FamilyView:
    spec: AgentSpec
    row: LeaderboardRow
    latest: list[PortfolioSnapshot]
    charts: list[RangeChart]
    reliability: list[ReliabilityPoint]
    recent: list[DecisionView] = field(default_factory=list)


def _ratio(numerator: Decimal, denominator: Decimal | int) -> Decimal | None:
    return numerator / denominator if denominator else None


def leaderboard_row(
    spec: AgentSpec, aggregate: FamilyAggregate, latest: Sequence[PortfolioSnapshot]
) -> LeaderboardRow:
    n = aggregate.scored_bets
    brier = _ratio(aggregate.brier_sum, n)
    market = _ratio(aggregate.market_brier_sum, n)
    return LeaderboardRow(
        family_id=spec.family_id,
        display_name=spec.display_name,
        kind=spec.kind,
        rank=None,
        cohorts=len(latest),
        return_pct_mean=_ratio(sum((s.total_pnl_pct for s in latest), ZERO), len(latest)),
        total_pnl=sum((s.total_pnl for s in latest), ZERO),
        brier=brier,
        log_score=_ratio(aggregate.log_score_sum, n),
        brier_skill_vs_market=(1 - brier / market) if brier is not None and market else None,
        win_rate=_ratio(Decimal(aggregate.wins), n),
        resolved_bets=n,
        trades=aggregate.trades,
    )


def ranked(rows: Sequence[LeaderboardRow]) -> list[LeaderboardRow]:
    """LLM families by mean Brier (lower first), unscored ones after by mean return;
    baselines follow as reference rows without a rank."""

    def key(row: LeaderboardRow) -> tuple[int, Decimal, Decimal]:
        worst = Decimal("Infinity")
        return (
            row.brier is None,
            row.brier if row.brier is not None else worst,
            -(row.return_pct_mean or ZERO),
        )

    models = sorted((r for r in rows if r.kind is AgentKind.LLM), key=key)
    baselines = sorted((r for r in rows if r.kind is AgentKind.BASELINE), key=key)
    numbered = [replace(r, rank=i) for i, r in enumerate(models, 1)]
    return numbered + baselines


def families(cohorts: Sequence[Cohort]) -> list[AgentSpec]:
    """Every family that ever had an agent, with its most recent display name."""
    seen: dict[str, AgentSpec] = {}
    for cohort in sorted(cohorts, key=lambda c: c.week_start):
        for spec in cohort.lineup:
            seen[spec.family_id] = spec
    return list(seen.values())


class SiteStores(WithCohorts, WithMarkets, WithViews, Protocol):
    """The roles the site reads: cohorts and agents, market questions, snapshots and records."""


class SiteCollector:
    def __init__(self, stores: SiteStores, blobs: BlobStore | None, now: datetime) -> None:
        self._cohorts = stores.cohorts
        self._markets = stores.markets
        self._views = stores.views
        self._blobs = blobs
        self.now = now

    def family_views(self, cohorts: Sequence[Cohort]) -> list[FamilyView]:
        aggregates = self._views.family_aggregates()
        views = []
        for spec in families(cohorts):
            aggregate = aggregates.get(spec.family_id) or FamilyAggregate(family_id=spec.family_id)
            latest = self._views.family_latest(spec.family_id)
            reliability = reliability_points(
                aggregate.cal_count, aggregate.cal_forecast, aggregate.cal_wins
            )
            row = leaderboard_row(spec, aggregate, latest)
            views.append(
                FamilyView(spec, row, latest, self._family_charts(spec.family_id), reliability)
            )
        rank = {r.family_id: r for r in ranked([v.row for v in views])}
        for view in views:
            view.row = rank[view.spec.family_id]
        return sorted(views, key=lambda v: list(rank).index(v.spec.family_id))

    def _family_charts(self, family_id: str) -> list[RangeChart]:
        def points(resolution: str, span: timedelta | None) -> list[Point]:
            start = self.now - span if span else datetime(2000, 1, 1, tzinfo=self.now.tzinfo)
            found = self._views.series(family_id, resolution, start, self.now)
            return [Point(p.taken_at, p.pnl) for p in found]

        day, month = points("raw", timedelta(days=1)), points("hour", timedelta(days=31))
        return range_charts(
            {
                "10M": day,
                "1H": day,
                "1D": day,
                "1W": month,
                "1M": month,
                "ALL": points("week", None),
            },
            self.now,
        )

    def cohort_view(self, cohort: Cohort) -> CohortView:
        latest = self._views.latest_snapshots(cohort.cohort_id)
        agents = [
            self._agent_view(a, latest.get(a.agent_id), cohort)
            for a in self._cohorts.agents(cohort.cohort_id)
        ]
        return CohortView(cohort, agents)

    def _agent_view(
        self, agent: Agent, latest: PortfolioSnapshot | None, cohort: Cohort
    ) -> AgentView:
        view = AgentView(agent, latest)
        records = self._views.agent_records(agent.agent_id)
        view.trades, view.settlements, view.scores = (
            records.trades,
            records.settlements,
            records.scores,
        )
        markets = self._markets.get_markets(sorted({p.market_id for p in records.positions}))
        view.positions = [
            self._position_view(p, markets.get(p.market_id)) for p in records.positions
        ]
        view.decisions = [self._decision_view(d) for d in records.decisions]
        view.hourly = self._views.hourly_snapshots(agent.agent_id, cohort.week_start, self.now)
        view.charts = self._agent_charts(agent, view.hourly, cohort)
        return view

    def _agent_charts(
        self, agent: Agent, hourly: list[PortfolioSnapshot], cohort: Cohort
    ) -> list[RangeChart]:
        """Every pass for the last day, hourly beyond: an agent page reads what its charts
        show, not every snapshot since the cohort opened (144 a day)."""
        since = max(cohort.week_start, self.now - timedelta(days=1))
        recent = self._views.snapshots(agent.agent_id, since, self.now)
        day = [Point(s.taken_at, s.total_value) for s in recent]
        hours = [Point(s.taken_at, s.total_value) for s in hourly]
        return range_charts(
            {"10M": day, "1H": day, "1D": day, "1W": hours, "1M": hours, "ALL": hours}, self.now
        )

    @staticmethod
    def _position_view(position: Position, market: Market | None) -> PositionView:
        question = market.question if market else position.market_id
        if not position.is_open:
            return PositionView(position, question, None, None)
        mark = accounting.mark(position, market)
        return PositionView(position, question, mark.price, mark.value)

    def _decision_view(self, record: DecisionRecord) -> DecisionView:
        outcome = record.outcome
        return DecisionView(record, outcome, self._raw_reply(outcome), self._reasoning(outcome))

    def _reasoning(self, outcome: DecisionOutcome | None) -> str:
        if outcome is None:
            return ""
        if outcome.reasoning_ref is None or self._blobs is None:
            return outcome.reasoning
        try:
            return self._blobs.get(outcome.reasoning_ref).decode("utf-8", "replace")
        except ArenaError:
            return outcome.reasoning  # the excerpt, when the whole text cannot be read

    def _raw_reply(self, outcome: DecisionOutcome | None) -> str:
        if outcome is None or not outcome.responses or self._blobs is None:
            return ""
        try:
            body = self._blobs.get(outcome.responses[-1].response_ref).decode("utf-8", "replace")
        except ArenaError:
            return "(raw reply unavailable)"
        return _reply_text(body)[:RAW_REPLY_LIMIT]


def _reply_text(body: str) -> str:
    """The assistant message of a stored completion body, or the body itself."""
    try:
        parsed = json.loads(body)
        message = parsed["choices"][0]["message"]
        return str(message.get("content") or message.get("reasoning") or body)
    except (ValueError, KeyError, IndexError, TypeError):
        return body
