"""The per-cohort tables of the dataset, from a cohort's view: agents, decisions (with their
instructions), trades, positions, settlements, bet scores and hourly snapshots; when the
cohort's decisions changed, their prompts and raw replies (read from the audit bucket); under
v1+panel also the panel asked and every agent's forecasts for it."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from arena_core.dataset.details import DecisionDetails
from arena_core.dataset.records import AgentView, CohortView
from arena_core.domain.answer import BetInstruction
from arena_core.domain.cohort import Cohort
from arena_core.domain.decision_status import DecisionStatus
from arena_core.domain.decisions import DecisionRecord
from arena_core.domain.panel import Methodology

COHORT_TABLES = (
    "agents",
    "decisions",
    "instructions",
    "trades",
    "positions",
    "settlements",
    "bet_scores",
    "snapshots",
)
DETAIL_TABLES = ("prompts", "replies")  # written when the cohort's decisions changed
PANEL_COHORT_TABLES = ("panel_questions", "panel_forecasts")
FINAL = frozenset({DecisionStatus.SUCCEEDED, DecisionStatus.EXHAUSTED, DecisionStatus.FAILED})

Rows = list[dict[str, Any]]


def cohort_tables(cohort: Cohort) -> tuple[str, ...]:
    """The tables a cohort's folder holds."""
    tables = COHORT_TABLES + DETAIL_TABLES
    if cohort.methodology_version == Methodology.V1_PANEL:
        return tables + PANEL_COHORT_TABLES
    return tables


def _keys(record: DecisionRecord) -> dict[str, Any]:
    return {
        "decision_id": record.decision_id,
        "agent_id": record.agent_id,
        "cohort_id": record.cohort_id,
        "week": record.week,
    }


def decision_cost(record: DecisionRecord) -> dict[str, Any]:
    """Tokens, dollars and waiting time over a decision's replies, and when it closed."""
    replies = record.outcome.responses if record.outcome else ()
    costs = [r.cost for r in replies if r.cost is not None]
    return {
        "tokens_in": sum(r.prompt_tokens for r in replies),
        "tokens_out": sum(r.completion_tokens for r in replies),
        "cost_usd": sum(costs, Decimal(0)) if costs else None,
        "latency_ms": sum(r.latency_ms for r in replies),
        "retries": max(len(replies) - 1, 0),
        "completed_at": record.updated_at if record.status in FINAL else None,
    }


def instruction_rows(record: DecisionRecord) -> Rows:
    rows = []
    for trade in record.outcome.trades if record.outcome else ():
        instruction = trade.instruction
        asked = (
            {"kind": "bet", **instruction.model_dump()}
            if isinstance(instruction, BetInstruction)
            else {"kind": "sell", **instruction.model_dump()}
        )
        rows.append(
            {
                **_keys(record),
                **asked,
                "index": trade.index,
                "trade_id": trade.trade_id,
                "executed": trade.executed,
                "rule": trade.rule,
                "reason": trade.reason,
                "price": trade.price,
                "shares": trade.shares,
                "filled_amount": trade.amount,
            }
        )
    return rows


def detail_rows(details: list[DecisionDetails]) -> dict[str, Rows]:
    """The prompts and replies tables of a cohort's decisions in full."""
    prompts = [
        {**_keys(d.record), "system_prompt": d.system_prompt, "user_prompt": d.user_prompt}
        for d in details
    ]
    replies = [
        {
            **_keys(d.record),
            **r.audit.model_dump(exclude={"cost"}),
            "tokens_in": r.audit.prompt_tokens,
            "tokens_out": r.audit.completion_tokens,
            "cost_usd": r.audit.cost,
            # Each raw body once: the message only when it is not the body itself.
            "reply_text": r.text if r.text != r.body else None,
            "raw_body": r.body,
        }
        for d in details
        for r in d.replies
    ]
    return {"prompts": prompts, "replies": replies}


def _decision_rows(agent: AgentView) -> Rows:
    rows = []
    for d in agent.decisions:
        outcome = d.outcome.model_dump() if d.outcome else {}
        rows.append(
            {
                **d.record.model_dump(exclude={"checkpoint", "outcome"}),
                **outcome,
                **decision_cost(d.record),
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
    names = [n for n in cohort_tables(view.cohort) if n not in DETAIL_TABLES]
    tables: dict[str, Rows] = {name: [] for name in names}
    for agent in view.agents:
        latest = agent.latest.model_dump() if agent.latest else {}
        tables["agents"].append(
            {**latest, **agent.agent.model_dump(), "snapshot_at": latest.get("taken_at")}
        )
        tables["decisions"] += _decision_rows(agent)
        tables["instructions"] += [r for d in agent.decisions for r in instruction_rows(d.record)]
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
    if view.details is not None and not view.details_partial:
        tables |= detail_rows(view.details)
    return tables
