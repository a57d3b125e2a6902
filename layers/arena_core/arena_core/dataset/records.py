"""What a cohort's pages and tables are made from: its agents with their records (positions
marked to market, trades, settlements, scores, decisions, hourly snapshots), its panel, the
markets it touched and, when read, its decisions in full. The publication reads them
(``publication.collect``); the dataset's cohort tables and the site's pages are written from
them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from typing import Any

from arena_core.dataset.details import DecisionDetails
from arena_core.domain.cohort import Agent, Cohort
from arena_core.domain.decisions import DecisionOutcome, DecisionRecord
from arena_core.domain.lineup import AgentKind
from arena_core.domain.market import Market
from arena_core.domain.panel import PanelQuestion, PanelScore
from arena_core.domain.portfolio import (
    BetScore,
    PortfolioSnapshot,
    Position,
    Settlement,
    Trade,
)


@dataclass(frozen=True)
class PositionView:
    position: Position
    question: str
    mark_price: Decimal | None
    marked_value: Decimal | None


@dataclass(frozen=True)
class DecisionView:
    """A decision as the site shows it: ``reasoning`` is the whole text (read from the audit
    bucket when the record keeps an excerpt)."""

    record: DecisionRecord
    outcome: DecisionOutcome | None
    reasoning: str = ""
    # The cohort's markets its reasoning names by id, with their questions (``site/reasoning``).
    named: Mapping[str, str] = field(default_factory=dict)


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
    charts: list[Any] = field(default_factory=list)  # the site's (``site.charts.RangeChart``)


@dataclass
class CohortView:
    cohort: Cohort
    agents: list[AgentView]
    questions: list[PanelQuestion] = field(default_factory=list)  # v1+panel: the panel asked
    # Every decision in full (prompts, raw replies): read only when the cohort's decisions
    # changed since the last publication; None leaves its decision pages as published.
    details: list[DecisionDetails] | None = None
    # Only these decisions' pages are rendered (their results moved), not the tables of them.
    details_partial: bool = False
    markets: Mapping[str, Market] = field(default_factory=dict)  # held, traded or asked about
    peer: Mapping[str, float] = field(default_factory=dict)  # v1+panel: mean peer by agent
    panel_scores: list[PanelScore] = field(default_factory=list)  # v1+panel: scored so far

    def question(self, market_id: str) -> str:
        market = self.markets.get(market_id)
        return market.question if market else market_id

    def market_questions(self) -> dict[str, str]:
        """Every market of the cohort's, by id: its question."""
        return {market_id: market.question for market_id, market in self.markets.items()}

    def records(self) -> list[DecisionRecord]:
        return [d.record for a in self.agents for d in a.decisions]

    @property
    def measure(self) -> str:
        return "peer score" if self.questions else "Brier"

    def ranked_agents(self) -> list[AgentView]:
        """The models first, ordered by the ranked measure (v1: Brier of its scored bets, lower
        first; v1+panel: mean peer score, higher first; those without one after), then the
        baselines."""

        def key(view: AgentView) -> tuple[bool, bool, float, str]:
            if self.questions:
                peer = self.peer.get(view.agent.agent_id)
                value = -peer if peer is not None else None
            else:
                brier = view.latest.brier if view.latest else None
                value = float(brier) if brier is not None else None
            baseline = view.agent.kind is AgentKind.BASELINE
            return (baseline, value is None, value or 0.0, view.agent.display_name)

        return sorted(self.agents, key=key)

    def open_positions(self) -> list[Position]:
        return [p.position for a in self.agents for p in a.positions if p.position.is_open]

    def last_end(self) -> datetime | None:
        """The latest scheduled end among the markets of its open positions."""
        ends = [
            market.end_date
            for p in self.open_positions()
            if (market := self.markets.get(p.market_id)) is not None and market.end_date
        ]
        return max(ends, default=None)
