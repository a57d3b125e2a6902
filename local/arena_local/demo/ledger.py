"""The demo's ledger: decisions, trades, positions, settlements, cash and bet scores of every
agent, read from the repository and written as canonical JSON, so two runs compare byte for byte.

Operational fields that legitimately differ when a step crashed and was retried are left out:
claim owners, leases, attempt and claim counters, update times, transport attempts and the audit
references. What an agent decided and what the ledger holds must not differ.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from decimal import Decimal
from pathlib import Path
from typing import Any

from arena_core.domain.decisions import DecisionRecord
from arena_core.ports.stores import Stores
from arena_core.site.exports import cell

DECISION_OUTCOME_FIELDS = ("action", "reasoning", "fallback", "fallback_reason", "executed")
TABLES = ("agents", "decisions", "trades", "positions", "settlements", "bet_scores")


def _plain(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return cell(value)


def _decision(record: DecisionRecord) -> dict[str, Any]:
    outcome = record.outcome.model_dump(mode="json") if record.outcome else {}
    trades = [
        {k: t.get(k) for k in ("trade_id", "instruction", "executed", "rule")}
        for t in outcome.get("trades", [])
    ]
    return {
        "decision_id": record.decision_id,
        "agent_id": record.agent_id,
        "week": record.week,
        "status": record.status.value,
        "trades_applied": record.trades_applied,
        **{name: outcome.get(name) for name in DECISION_OUTCOME_FIELDS},
        "instructions": trades,
    }


def export_ledger(stores: Stores) -> dict[str, list[dict[str, Any]]]:
    ledger: dict[str, list[dict[str, Any]]] = {name: [] for name in TABLES}
    for cohort in sorted(stores.cohorts.cohorts(), key=lambda c: c.cohort_id):
        for agent in sorted(stores.cohorts.agents(cohort.cohort_id), key=lambda a: a.agent_id):
            records = stores.views.agent_records(agent.agent_id)
            ledger["agents"].append(
                {"agent_id": agent.agent_id, "cash": agent.cash, "version": agent.version}
            )
            ledger["decisions"] += [_decision(d) for d in records.decisions]
            ledger["trades"] += [t.model_dump() for t in records.trades]
            ledger["positions"] += [p.model_dump() for p in records.positions]
            ledger["settlements"] += [s.model_dump() for s in records.settlements]
            ledger["bet_scores"] += [s.model_dump() for s in records.scores]
    return {name: [_plain(row) for row in rows] for name, rows in ledger.items()}


def canonical(ledger: Mapping[str, Any]) -> str:
    return json.dumps(ledger, sort_keys=True, indent=1, default=str) + "\n"


def write_ledger(ledger: Mapping[str, Any], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(canonical(ledger))


def differences(left: Mapping[str, Any], right: Mapping[str, Any], limit: int = 5) -> list[str]:
    """Human-readable differences, table by table (empty when the ledgers are identical)."""
    found = []
    for table in TABLES:
        a, b = left.get(table, []), right.get(table, [])
        if len(a) != len(b):
            found.append(f"{table}: {len(a)} rows vs {len(b)}")
            continue
        for row_a, row_b in zip(a, b, strict=True):
            if row_a != row_b:
                keys = sorted(k for k in row_a if row_a.get(k) != row_b.get(k))
                found.append(f"{table}: row {row_a.get(next(iter(row_a)))} differs in {keys}")
                break
    return found[:limit]


def totals(ledger: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "decisions": len(ledger["decisions"]),
        "trades": len(ledger["trades"]),
        "settlements": len(ledger["settlements"]),
        "bet_scores": len(ledger["bet_scores"]),
        "cash": str(sum((Decimal(a["cash"]) for a in ledger["agents"]), Decimal(0))),
    }
