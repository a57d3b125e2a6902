"""The demo's ledger: decisions, trades, positions, settlements, cash and bet scores of every
agent, read from the repository and written as canonical JSON, so two runs compare byte for byte.

Operational fields that legitimately differ when a step crashed and was retried are left out:
claim owners, leases, attempt and claim counters, update times, transport attempts and the audit
references. What an agent decided and what the ledger holds must not differ.
"""

from __future__ import annotations

import csv
import io
import json
import zipfile
from collections.abc import Mapping
from decimal import Decimal
from pathlib import Path
from typing import Any

from arena_core.dataset.exports import cell
from arena_core.domain.decisions import DecisionRecord
from arena_core.ports.stores import Stores

DECISION_OUTCOME_FIELDS = (
    "action",
    "reasoning",
    "fallback",
    "fallback_reason",
    "executed",
    "forecasts",  # v1+panel: one per panel market, fill-ins flagged
    "forecast_problems",
    "coherence",
)
TABLES = (
    "agents",
    "decisions",
    "trades",
    "positions",
    "settlements",
    "bet_scores",
    "panel_questions",
    "panel_scores",
)


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
                {
                    "agent_id": agent.agent_id,
                    "cash": agent.cash,
                    "version": agent.version,
                    "trades": agent.trades,
                }
            )
            ledger["decisions"] += [_decision(d) for d in records.decisions]
            ledger["trades"] += [t.model_dump() for t in records.trades]
            ledger["positions"] += [p.model_dump() for p in records.positions]
            ledger["settlements"] += [s.model_dump() for s in records.settlements]
            ledger["bet_scores"] += [s.model_dump() for s in records.scores]
        ledger["panel_questions"] += [
            q.model_dump() for q in stores.panel.questions(cohort.cohort_id)
        ]
        ledger["panel_scores"] += [s.model_dump() for s in stores.panel.scores(cohort.cohort_id)]
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
    } | ({"panel_scores": len(ledger["panel_scores"])} if ledger.get("panel_scores") else {})


# Wall-clock measurements: how long a reply took on this machine, never the same twice.
MEASURED = frozenset({"latency_ms"})


def _without_measured(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_measured(v) for k, v in value.items() if k not in MEASURED}
    if isinstance(value, list):
        return [_without_measured(v) for v in value]
    return value


def comparable(name: str, body: bytes) -> Any:
    """An exported file as compared across runs: its content without wall-clock measurements
    (a zip, member by member); anything else byte for byte."""
    if name.endswith(".csv"):
        rows = list(csv.reader(io.StringIO(body.decode())))
        keep = [i for i, column in enumerate(rows[0] if rows else []) if column not in MEASURED]
        return [[row[i] for i in keep] for row in rows]
    if name.endswith(".json"):
        return _without_measured(json.loads(body))
    if name.endswith(".zip"):
        with zipfile.ZipFile(io.BytesIO(body)) as archive:
            return {m: comparable(m, archive.read(m)) for m in archive.namelist()}
    return body


def export_differences(left: Path, right: Path, limit: int = 5) -> list[str]:
    """The exported files (under two sites' ``data/``) that differ, measured latencies aside,
    or exist on one side only."""
    names = sorted(
        {str(p.relative_to(left)) for p in left.rglob("*") if p.is_file()}
        | {str(p.relative_to(right)) for p in right.rglob("*") if p.is_file()}
    )
    found = []
    for name in names:
        mine, theirs = left / name, right / name
        if not (mine.is_file() and theirs.is_file()):
            found.append(f"{name}: only in {'the clean' if mine.is_file() else 'the fault'} run")
        elif comparable(name, mine.read_bytes()) != comparable(name, theirs.read_bytes()):
            found.append(f"{name}: differs")
    return found[:limit] + ([f"... and {len(found) - limit} more"] if len(found) > limit else [])
