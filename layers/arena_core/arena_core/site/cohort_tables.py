"""The per-cohort tables of the dataset, from a cohort's view: agents, decisions, trades,
positions, settlements, bet scores and hourly snapshots; under v1+panel also the panel asked
and every agent's forecasts for it."""

from __future__ import annotations

from typing import Any

from arena_core.domain.cohort import Cohort
from arena_core.domain.panel import Methodology
from arena_core.site.collect import AgentView, CohortView

COHORT_TABLES = (
    "agents",
    "decisions",
    "trades",
    "positions",
    "settlements",
    "bet_scores",
    "snapshots",
)
PANEL_COHORT_TABLES = ("panel_questions", "panel_forecasts")

Rows = list[dict[str, Any]]


def cohort_tables(cohort: Cohort) -> tuple[str, ...]:
    """The tables a cohort's folder holds."""
    if cohort.methodology_version == Methodology.V1_PANEL:
        return COHORT_TABLES + PANEL_COHORT_TABLES
    return COHORT_TABLES


def _decision_rows(agent: AgentView) -> Rows:
    rows = []
    for d in agent.decisions:
        outcome = d.outcome.model_dump() if d.outcome else {}
        rows.append(
            {
                **d.record.model_dump(exclude={"checkpoint", "outcome"}),
                **outcome,
                "reasoning": d.reasoning,
                "replies": len(d.outcome.responses) if d.outcome else 0,
            }
        )
    return rows


def _forecast_rows(agent: AgentView) -> Rows:
    return [
        {
            "decision_id": d.record.decision_id,
            "agent_id": d.record.agent_id,
            "cohort_id": d.record.cohort_id,
            "week": d.record.week,
            **f.model_dump(),
        }
        for d in agent.decisions
        if d.outcome is not None
        for f in d.outcome.forecasts
    ]


def _question_rows(view: CohortView) -> Rows:
    return [
        {
            **q.model_dump(exclude={"market", "agent_ids"}),
            **q.market.model_dump(),
            "agents": " ".join(q.agent_ids),
        }
        for q in view.questions
    ]


def cohort_rows(view: CohortView) -> dict[str, Rows]:
    """The cohort's export tables, by name (those of ``cohort_tables``)."""
    tables: dict[str, Rows] = {name: [] for name in cohort_tables(view.cohort)}
    for agent in view.agents:
        latest = agent.latest.model_dump() if agent.latest else {}
        tables["agents"].append(
            {**latest, **agent.agent.model_dump(), "snapshot_at": latest.get("taken_at")}
        )
        tables["decisions"] += _decision_rows(agent)
        tables["trades"] += [t.model_dump() for t in agent.trades]
        tables["positions"] += [
            {
                **p.position.model_dump(),
                "avg_entry_price": p.position.avg_entry_price,
                "mark_price": p.mark_price,
                "marked_value": p.marked_value,
            }
            for p in agent.positions
        ]
        tables["settlements"] += [s.model_dump() for s in agent.settlements]
        tables["bet_scores"] += [s.model_dump() for s in agent.scores]
        tables["snapshots"] += [s.model_dump() for s in agent.hourly]
        if "panel_forecasts" in tables:
            tables["panel_forecasts"] += _forecast_rows(agent)
    if "panel_questions" in tables:
        tables["panel_questions"] = _question_rows(view)
    return tables
