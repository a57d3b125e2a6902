"""A cohort's exports, read for ``arena verify``, and each decision's canonical record rebuilt
from them with the same definition the decide path commits (``arena_core.domain.commitments``).

The JSON exports are read (they keep text exactly; the CSV files guard formula-like text). The
prompt's hash is taken over the same transcript the audit stores (``Prompt.transcript``), each
reply's over its raw body as exported, in attempt order. ``differences`` says where a committed
record and a rebuilt one differ, for the report.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from typing import Any

from arena_core.domain.commitments import (
    CommittedForecast,
    CommittedInstruction,
    CommittedTrade,
    DecisionCommitment,
    sha256_hex,
)
from arena_core.protocol.prompt import Prompt

Row = Mapping[str, Any]
DECISION_TABLES = ("decisions", "instructions", "trades", "prompts", "replies")
PANEL_TABLE = "panel_forecasts"


@dataclass
class CohortExports:
    """One cohort's tables, each decision's rows grouped by its id."""

    cohort_id: str
    decisions: list[Row]
    by_decision: dict[str, dict[str, list[Row]]] = field(default_factory=dict)

    @classmethod
    def of(cls, cohort_id: str, tables: Mapping[str, Sequence[Row]]) -> CohortExports:
        grouped: dict[str, dict[str, list[Row]]] = defaultdict(lambda: defaultdict(list))
        for name, rows in tables.items():
            if name == "decisions":
                continue
            for row in rows:
                grouped[str(row["decision_id"])][name].append(row)
        return cls(cohort_id, list(tables.get("decisions", [])), grouped)

    def rows(self, decision_id: str, table: str) -> list[Row]:
        return list(self.by_decision.get(decision_id, {}).get(table, []))


def _decimal(value: Any) -> Decimal | None:
    return None if value is None or value == "" else Decimal(str(value))


def _required(value: Any, what: str) -> Decimal:
    found = _decimal(value)
    if found is None:
        raise ValueError(f"{what} is empty")
    return found


def _instruction(row: Row) -> CommittedInstruction:
    return CommittedInstruction(
        index=int(row["index"]),
        kind=str(row["kind"]),
        market_id=row.get("market_id"),
        side=row.get("side"),
        amount=_decimal(row.get("amount")),
        position_id=row.get("position_id"),
        percentage=_decimal(row.get("percentage")),
    )


def rebuild(row: Row, exports: CohortExports) -> DecisionCommitment:
    """The decision's canonical record from the exports; ``ValueError`` naming what is missing
    or unreadable."""
    decision_id = str(row["decision_id"])
    prompts = exports.rows(decision_id, "prompts")
    if len(prompts) != 1:
        raise ValueError(f"{len(prompts)} rows in prompts, not 1")
    prompt = Prompt(system=str(prompts[0]["system_prompt"]), user=str(prompts[0]["user_prompt"]))
    replies = sorted(exports.rows(decision_id, "replies"), key=lambda r: int(r["attempt"]))
    completed = row.get("completed_at")
    if not completed:
        raise ValueError("completed_at is empty")
    return DecisionCommitment(
        decision_id=decision_id,
        agent_id=str(row["agent_id"]),
        cohort_id=str(row["cohort_id"]),
        week=int(row["week"]),
        prompt_sha256=sha256_hex(prompt.transcript().encode("utf-8")),
        reply_sha256=tuple(sha256_hex(str(r["raw_body"]).encode("utf-8")) for r in replies),
        action=str(row["action"]),
        fallback=row["fallback"] is True,
        instructions=tuple(_instruction(r) for r in exports.rows(decision_id, "instructions")),
        forecasts=tuple(
            CommittedForecast(
                str(r["market_id"]), _decimal(r.get("stated")), _required(r["p_yes"], "p_yes")
            )
            for r in exports.rows(decision_id, "panel_forecasts")
        ),
        trades=tuple(
            CommittedTrade(
                str(r["trade_id"]),
                _decimal(r.get("price")),
                _decimal(r.get("shares")),
                _decimal(r.get("amount")),
            )
            for r in exports.rows(decision_id, "trades")
        ),
        completed_at=datetime.fromisoformat(str(completed)),
    )


def inconsistencies(decision_id: str, exports: CohortExports) -> list[str]:
    """Where the instructions table disagrees with the trades table about what executed: the
    record commits to the trades, so an instruction row must tell the same fill."""
    trades = {str(t["trade_id"]): t for t in exports.rows(decision_id, "trades")}
    found = []
    executed = set()
    for row in exports.rows(decision_id, "instructions"):
        if row.get("executed") is not True:
            continue
        trade_id = str(row["trade_id"])
        executed.add(trade_id)
        trade = trades.get(trade_id)
        if trade is None:
            found.append(f"instruction {row['index']} executed as {trade_id}, not in trades")
            continue
        for mine, theirs in (("price", "price"), ("shares", "shares"), ("filled_amount", "amount")):
            if _decimal(row.get(mine)) != _decimal(trade.get(theirs)):
                found.append(
                    f"instruction {row['index']}: {mine} {row.get(mine)} but trade {trade_id} "
                    f"has {theirs} {trade.get(theirs)}"
                )
    found += [f"trade {t} is not an executed instruction" for t in sorted(set(trades) - executed)]
    return found


def differences(committed: Mapping[str, Any], rebuilt: Mapping[str, Any]) -> list[str]:
    """Where two records differ, as paths (``trades[0].price: 0.55 != 0.54``); for reports."""
    found: list[str] = []
    _diff(committed, rebuilt, "", found)
    return found


def _diff(left: Any, right: Any, path: str, found: list[str]) -> None:
    if isinstance(left, Mapping) and isinstance(right, Mapping):
        for key in sorted(set(left) | set(right)):
            _diff(left.get(key), right.get(key), f"{path}.{key}" if path else str(key), found)
    elif isinstance(left, Sequence) and isinstance(right, Sequence) and not isinstance(left, str):
        if len(left) != len(right):
            found.append(f"{path}: {len(left)} entries committed, {len(right)} exported")
            return
        for i, (a, b) in enumerate(zip(left, right, strict=True)):
            _diff(a, b, f"{path}[{i}]", found)
    elif left != right:
        found.append(f"{path}: committed {left!r}, exported {right!r}")
