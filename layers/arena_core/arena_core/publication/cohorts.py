"""A cohort's records as its pages and tables need them, read at once (``CohortReader``): its
agents with their positions (marked to market), trades, settlements, scores, decisions (with the
whole reasoning) and, where its pages are drawn, the snapshots their charts show; every market
it holds, traded or was asked about; under v1+panel its panel and scores. Also who the site's
families are, and the methodology versions in use.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import Protocol

from arena_core.dataset import rows as inputs
from arena_core.dataset.records import AgentView, CohortView, DecisionView, PositionView
from arena_core.domain import accounting
from arena_core.domain.cohort import Agent, Cohort, CohortStatus
from arena_core.domain.decisions import DecisionOutcome, DecisionRecord
from arena_core.domain.holdings import AgentRecords
from arena_core.domain.lineup import AgentSpec
from arena_core.domain.market import Market
from arena_core.domain.panel import Methodology, PanelScore
from arena_core.domain.portfolio import PortfolioSnapshot, Position, snapshot_hour
from arena_core.errors import ArenaError
from arena_core.ports.blob_store import BlobStore
from arena_core.ports.stores import (
    WithCohorts,
    WithLedger,
    WithLineups,
    WithMarkets,
    WithPanel,
    WithViews,
)
from arena_core.ports.view_store import ViewStore
from arena_core.publication.captured import captured_market
from arena_core.site.series import agent_charts


class SiteStores(WithCohorts, WithLedger, WithLineups, WithMarkets, WithViews, WithPanel, Protocol):
    """The roles the site reads: cohorts and agents, every position on a market, the lineup
    releases, market state, snapshots and records, and the forecast panel."""


def families(cohorts: Sequence[Cohort]) -> list[AgentSpec]:
    """Every family that ever had an agent, with its most recent display name."""
    seen: dict[str, AgentSpec] = {}
    for cohort in sorted(cohorts, key=lambda c: c.week_start):
        for spec in cohort.lineup:
            seen[spec.family_id] = spec
    return list(seen.values())


def methodologies(cohorts: Sequence[Cohort]) -> list[str]:
    """The methodology versions of the cohorts, the current one (the newest cohort's) first,
    then the others from the most recently used; v1 alone when there is no cohort yet."""
    order: list[str] = []
    for cohort in sorted(cohorts, key=lambda c: c.week_start, reverse=True):
        if cohort.methodology_version not in order:
            order.append(cohort.methodology_version)
    return order or [Methodology.V1.value]


def positions_of(stores: SiteStores, cohort: Cohort) -> list[inputs.Row]:
    """The rows of ``position_returns`` of a completed cohort, read from the ledger."""
    agents = stores.cohorts.agents(cohort.cohort_id)
    holdings = stores.ledger.holdings_of([a.agent_id for a in agents])
    ids = sorted({p.market_id for h in holdings.values() for p in h.positions})
    markets = stores.markets.get_markets(ids) if ids else {}
    return [
        row
        for agent in agents
        for row in inputs.position_rows(
            cohort.methodology_version,
            agent.family_id,
            holdings[agent.agent_id].positions if agent.agent_id in holdings else [],
            markets,
        )
    ]


class CohortReader:
    def __init__(
        self, stores: SiteStores, views: ViewStore, blobs: BlobStore | None, now: datetime
    ) -> None:
        """``views``: the view store read through (the publication's carried one)."""
        self._stores = stores
        self._views = views
        self._blobs = blobs
        self.now = now

    def cohort_view(self, cohort: Cohort, *, charts: bool = True) -> CohortView:
        """A cohort's agents with their records, and every market they hold, traded or were
        asked about, read at once; without ``charts``, not the snapshots the agents' charts and
        the hourly table are drawn from (what market pages and the feed do not need)."""
        latest = self._views.latest_snapshots(cohort)
        members = self._stores.cohorts.agents(cohort.cohort_id)
        records = {a.agent_id: self._views.agent_records(a.agent_id) for a in members}
        panel = self._stores.panel
        panelled = cohort.methodology_version == Methodology.V1_PANEL
        questions = panel.questions(cohort.cohort_id) if panelled else []
        ids = {q.market.market_id for q in questions}
        for found in records.values():
            ids |= {p.market_id for p in found.positions} | {t.market_id for t in found.trades}
        markets = self._stores.markets.get_markets(sorted(ids))
        for question in questions:  # asked before the arena stored it: as the panel captured it
            markets.setdefault(question.market.market_id, captured_market(question.market))
        agents = [
            self._agent_view(
                a, latest.get(a.agent_id), cohort, records[a.agent_id], markets, charts=charts
            )
            for a in members
        ]
        view = CohortView(cohort, agents, questions, markets=markets)
        if questions:  # v1+panel ranks on the peer score: the cohort page orders by it
            view.panel_scores = panel.scores(cohort.cohort_id)
            view.peer = peer_by_agent(view.panel_scores)
        return view

    def _agent_view(
        self,
        agent: Agent,
        latest: PortfolioSnapshot | None,
        cohort: Cohort,
        records: AgentRecords,
        markets: Mapping[str, Market],
        *,
        charts: bool = True,
    ) -> AgentView:
        view = AgentView(agent, latest)
        view.trades, view.settlements, view.scores = (
            records.trades,
            records.settlements,
            records.scores,
        )
        view.positions = [_position_view(p, markets.get(p.market_id)) for p in records.positions]
        view.decisions = [self._decision_view(d) for d in records.decisions]
        if not charts:
            return view
        view.hourly = with_open_hour(
            self._views.hourly_snapshots(agent.agent_id, cohort.week_start, self.now), latest
        )
        # A completed cohort's charts end where it ended, not at the publication.
        done = cohort.status is CohortStatus.COMPLETED and latest is not None
        end = latest.taken_at if done and latest is not None else self.now
        # Every pass for the last day, hourly beyond: an agent page reads what its charts
        # show, not every snapshot since the cohort opened (144 a day).
        since = max(cohort.week_start, end - timedelta(days=1))
        recent = self._views.snapshots(agent.agent_id, since, end)
        view.charts = agent_charts(agent.display_name, recent, view.hourly, end)
        return view

    def _decision_view(self, record: DecisionRecord) -> DecisionView:
        outcome = record.outcome
        return DecisionView(record, outcome, self._reasoning(outcome))

    def _reasoning(self, outcome: DecisionOutcome | None) -> str:
        if outcome is None:
            return ""
        if outcome.reasoning_ref is None or self._blobs is None:
            return outcome.reasoning
        try:
            return self._blobs.get(outcome.reasoning_ref).decode("utf-8", "replace")
        except ArenaError:
            return outcome.reasoning  # the excerpt, when the whole text cannot be read


def _position_view(position: Position, market: Market | None) -> PositionView:
    question = market.question if market else position.market_id
    if not position.is_open:
        return PositionView(position, question, None, None)
    mark = accounting.mark(position, market)
    return PositionView(position, question, mark.price, mark.value)


def with_open_hour(
    hourly: list[PortfolioSnapshot], latest: PortfolioSnapshot | None
) -> list[PortfolioSnapshot]:
    """The hourly snapshots and, for the hour still open, its newest snapshot so far: an
    hour's own is written when the hour closes (by the next hour's first pass)."""
    if latest is None or (
        hourly and snapshot_hour(hourly[-1].taken_at) >= snapshot_hour(latest.taken_at)
    ):
        return hourly
    return [*hourly, latest]


def peer_by_agent(scores: Sequence[PanelScore]) -> dict[str, float]:
    """Each agent's mean peer score over its scored panel forecasts."""
    found: dict[str, list[float]] = {}
    for score in scores:
        found.setdefault(score.agent_id, []).append(score.peer_score)
    return {agent: sum(v) / len(v) for agent, v in found.items()}
