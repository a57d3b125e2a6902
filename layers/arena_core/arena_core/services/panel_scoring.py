"""Score the forecast panel's resolved questions (methodology ``v1+panel``), with resolution.

A pending question is scored once its market has resolved with a winner and every agent the run
asked has a final decision (succeeded, exhausted or failed), or a week after the run, whichever
comes first: an agent still unfinished by then counts as having stated nothing. Its forecasts
come from the decision records (fill-ins flagged); the ensemble's from the models' forecasts and
the history before the run. 50/50 and indeterminate resolutions close the question as void,
unscored, as v1 leaves such bets out. Scores and the closing are one write, once.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Protocol

from arena_core.domain.cohort import Agent, Cohort
from arena_core.domain.decisions import DecisionRecord, DecisionStatus
from arena_core.domain.lineup import AgentKind
from arena_core.domain.market import Market, MarketStatus, ResolutionKind
from arena_core.domain.panel import (
    PanelForecast,
    PanelQuestion,
    PanelScore,
    QuestionStatus,
    ScoredBy,
)
from arena_core.ports.stores import WithCohorts, WithDecisions, WithPanel
from arena_core.scoring.panel import (
    ENSEMBLE,
    Entry,
    ensemble_forecast,
    ensemble_weights,
    question_scores,
)

FINAL = frozenset({DecisionStatus.SUCCEEDED, DecisionStatus.EXHAUSTED, DecisionStatus.FAILED})
PATIENCE = timedelta(days=7)  # after this, an unfinished decision counts as stating nothing


@dataclass(frozen=True)
class PanelScoringReport:
    scored: tuple[str, ...] = ()  # question ids scored now
    void: tuple[str, ...] = ()
    waiting: int = 0  # resolved, but decisions of the run are not final yet


class PanelStores(WithCohorts, WithDecisions, WithPanel, Protocol):
    """The roles panel scoring uses: cohorts (lineups), decisions (forecasts), the panel."""


@dataclass
class _History:
    """Every model score so far, read once per pass (the ensemble's weights come from it)."""

    scores: list[PanelScore] = field(default_factory=list)


class PanelScoringService:
    def __init__(self, stores: PanelStores) -> None:
        self._cohorts = stores.cohorts
        self._decisions = stores.decisions
        self._panel = stores.panel

    def pending_market_ids(self) -> list[str]:
        """Markets whose resolution pending questions wait for."""
        return sorted({q.market.market_id for q in self._panel.pending_questions()})

    def score(self, markets: Mapping[str, Market], at: datetime) -> PanelScoringReport:
        scored, void, waiting = [], [], 0
        history: _History | None = None
        cohorts: dict[str, Cohort | None] = {}
        for question in self._panel.pending_questions():
            market = markets.get(question.market.market_id)
            if market is None or market.status is not MarketStatus.RESOLVED:
                continue
            if market.resolution is None or market.resolution.kind is not ResolutionKind.WINNER:
                if self._panel.record_scores(question, (), QuestionStatus.VOID):
                    void.append(question.question_id)
                continue
            records, complete = self._records(question)
            if not complete and at < question.run_at + PATIENCE:
                waiting += 1
                continue
            if question.cohort_id not in cohorts:
                cohorts[question.cohort_id] = self._cohorts.get_cohort(question.cohort_id)
            cohort = cohorts[question.cohort_id]
            if cohort is None:
                continue
            history = history or _History(self._all_scores())
            outcome = 1 if market.side_won(market.sides[0]) else 0
            entries = self._entries(question, cohort, records, history)
            scores = question_scores(question, outcome, entries, at)
            if self._panel.record_scores(question, scores, QuestionStatus.SCORED):
                scored.append(question.question_id)
                history.scores += scores
        return PanelScoringReport(tuple(scored), tuple(void), waiting)

    def _records(self, question: PanelQuestion) -> tuple[dict[str, DecisionRecord], bool]:
        """The run's final decision records, and whether every asked agent has one."""
        found = {}
        for agent_id in question.agent_ids:
            record = self._decisions.get_decision(DecisionRecord.id_for(agent_id, question.week))
            if record is not None and record.status in FINAL:
                found[agent_id] = record
        return found, len(found) == len(question.agent_ids)

    def _all_scores(self) -> list[PanelScore]:
        return [s for c in self._cohorts.cohorts() for s in self._panel.scores(c.cohort_id)]

    def _entries(
        self,
        question: PanelQuestion,
        cohort: Cohort,
        records: Mapping[str, DecisionRecord],
        history: _History,
    ) -> list[Entry]:
        specs = {spec.family_id: spec for spec in cohort.lineup}
        entries = []
        for agent_id in question.agent_ids:
            family = Agent.family_of(agent_id)
            spec = specs.get(family)
            kind = ScoredBy.LLM if spec and spec.kind is AgentKind.LLM else ScoredBy.BASELINE
            forecast = _forecast_of(records.get(agent_id), question)
            entries.append(Entry(agent_id, family, kind, forecast))
        models = [e for e in entries if e.scored_by is ScoredBy.LLM]
        if models:
            families = [e.family_id for e in models]
            weights = ensemble_weights(history.scores, families, question.run_at)
            forecast = ensemble_forecast(question, models, weights)
            ensemble_id = Agent.id_for(question.cohort_id, ENSEMBLE)
            entries.append(Entry(ensemble_id, ENSEMBLE, ScoredBy.ENSEMBLE, forecast))
        return entries


def _forecast_of(record: DecisionRecord | None, question: PanelQuestion) -> PanelForecast:
    market = question.market
    outcome = record.outcome if record is not None else None
    for forecast in outcome.forecasts if outcome is not None else ():
        if forecast.market_id == market.market_id:
            return forecast
    return PanelForecast(market_id=market.market_id, stated=None, p_yes=market.p_yes, missing=True)
