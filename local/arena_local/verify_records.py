"""A cohort's exports, read for ``arena verify``, and each decision's canonical record rebuilt
from them with the same definition the decide path commits (``arena_core.domain.commitments``).

The JSON exports are read (they keep text exactly; the CSV files guard formula-like text). The
prompt's hash is taken over the same transcript the audit stores (``Prompt.transcript``), each
reply's over its raw body as exported, in attempt order. ``differences`` says where a committed
record and a rebuilt one differ, for the report.

What the record does not hold is checked against what it does: the exported ``reasoning`` is
the one the committed replies give (``reasoning_problems``: parsed again with the decide path's
own parser), so it cannot be rewritten unnoticed; each reply's model, provider, finish reason,
tokens and cost are the ones its committed raw body states (when it is a completion), and a
decision's totals (replies, tokens, cost, executed and rejected) are its rows' sums
(``derived_problems``). Numbers a record holds are finite and within ``MAX_EXPONENT`` of one
(``1e999999999`` would be a gigabyte of digits); times carry a zone.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from arena_core.dataset.details import reply_text
from arena_core.domain.commitments import (
    CommittedForecast,
    CommittedInstruction,
    CommittedTrade,
    DecisionCommitment,
    sha256_hex,
)
from arena_core.errors import DecisionFormatError
from arena_core.protocol import parse_answer
from arena_core.protocol.prompt import Prompt

Row = Mapping[str, Any]
DECISION_TABLES = ("decisions", "instructions", "trades", "prompts", "replies")
PANEL_TABLE = "panel_forecasts"
MAX_EXPONENT = 100  # no amount, price, share count or probability is beyond 1e±100
FALLBACK_PREFIX = "[fallback HOLD] no valid decision after"


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
    """An exported number; ``ValueError`` for one no record holds (not finite, or beyond
    ``MAX_EXPONENT``), or for what is not a number at all."""
    if value is None or value == "":
        return None
    if isinstance(value, bool) or not isinstance(value, (str, int, float, Decimal)):
        raise ValueError(f"not a number: {str(value)[:40]!r}")
    try:
        number = Decimal(str(value))
    except ArithmeticError as exc:
        raise ValueError(f"not a number: {str(value)[:40]!r}") from exc
    if not number.is_finite() or (number and abs(number.adjusted()) > MAX_EXPONENT):
        raise ValueError(f"not a number a record holds: {str(value)[:40]!r}")
    return number


def _moment(value: Any, what: str) -> datetime:
    """An exported time: ISO 8601 with a zone (``ValueError`` otherwise)."""
    moment = datetime.fromisoformat(str(value))
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise ValueError(f"{what} {str(value)[:40]!r} has no time zone")
    moment.astimezone(UTC)  # OverflowError beyond the calendar's ends
    return moment


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
    completed_at = _moment(completed, "completed_at")
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
        completed_at=completed_at,
    )


UPSTREAM_CHARS = 100  # a reply's model, provider and finish reason as recorded (consult's bound)


def _upstream(value: Any) -> str | None:
    if not isinstance(value, str) or not value:
        return None
    return value if len(value) <= UPSTREAM_CHARS else value[:UPSTREAM_CHARS] + "…"


def _same_number(exported: Any, stated: Any) -> bool:
    """An exported number equals what the body states, at the exported number's places."""
    mine, theirs = _decimal(exported), _decimal(stated)
    if mine is None or theirs is None:
        return mine == theirs
    return theirs.quantize(mine) == mine if theirs.adjusted() < 20 else False


def _body_facts(body: str) -> dict[str, Any] | None:
    """What a completion body states about itself (None: the body is no completion)."""
    try:
        parsed = json.loads(body)
    except (ValueError, RecursionError):
        return None
    choices = parsed.get("choices") if isinstance(parsed, dict) else None
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        return None
    usage = parsed.get("usage") if isinstance(parsed.get("usage"), dict) else {}
    return {
        "model": _upstream(parsed.get("model")),
        "provider": _upstream(parsed.get("provider")),
        "finish_reason": _upstream(choices[0].get("finish_reason")),
        "tokens_in": usage.get("prompt_tokens") or 0,
        "tokens_out": usage.get("completion_tokens") or 0,
        "cost_usd": usage.get("cost"),
    }


def derived_problems(row: Row, exports: CohortExports) -> list[str]:
    """Exported fields derived from committed ones, checked against them: each reply's facts
    against its raw body, the decision's totals against its replies and instructions."""
    decision_id = str(row["decision_id"])
    replies = sorted(exports.rows(decision_id, "replies"), key=lambda r: int(r["attempt"]))
    found = []
    for reply in replies:
        facts = _body_facts(str(reply["raw_body"]))
        for name, stated in (facts or {}).items():
            if name in ("model", "provider") and stated is None:
                continue  # absent from the body: the client records what it asked for
            same = (
                _same_number(reply.get(name), stated)
                if name in ("tokens_in", "tokens_out", "cost_usd")
                else reply.get(name) == stated
            )
            if not same:
                found.append(
                    f"reply {reply['attempt']}: {name} {reply.get(name)!r} but its raw body "
                    f"says {stated!r}"
                )
    if replies and "replies" in row:
        costs = [_decimal(r.get("cost_usd")) for r in replies]
        totals = {
            "replies": len(replies),
            "tokens_in": sum(int(r.get("tokens_in") or 0) for r in replies),
            "tokens_out": sum(int(r.get("tokens_out") or 0) for r in replies),
            "cost_usd": sum((c for c in costs if c is not None), Decimal(0))
            if any(c is not None for c in costs)
            else None,
        }
        found += [
            f"{name} {row.get(name)!r} but its replies add up to {total}"
            for name, total in totals.items()
            if not _same_number(row.get(name), total)
        ]
    instructions = exports.rows(decision_id, "instructions")
    if instructions and "executed" in row:
        executed = sum(1 for r in instructions if r.get("executed") is True)
        counted = {"executed": executed, "rejected": len(instructions) - executed}
        found += [
            f"{name} {row.get(name)!r} but its instructions say {count}"
            for name, count in counted.items()
            if not _same_number(row.get(name), count)
        ]
    return found


def reasoning_problems(row: Row, exports: CohortExports) -> list[str]:
    """Whether the exported reasoning is the one the committed replies give. A fallback's is
    the arena's own words about its replies; any other is the reasoning of one of its replies
    (the one whose answer was taken), as the decide path's parser reads it again."""
    decision_id, reasoning = str(row["decision_id"]), row.get("reasoning")
    replies = sorted(exports.rows(decision_id, "replies"), key=lambda r: int(r["attempt"]))
    if not replies and not reasoning:
        return []
    if not isinstance(reasoning, str):
        return ["reasoning: not text"]
    if row.get("fallback") is True:
        if reasoning.startswith(f"{FALLBACK_PREFIX} {len(replies)} replies"):
            return []
        return ["reasoning: not the fallback's, for its replies"]
    for reply in reversed(replies):
        try:
            answer = parse_answer(reply_text(str(reply["raw_body"])))
        except DecisionFormatError:
            continue
        if answer.action.value == row.get("action") and answer.reasoning == reasoning:
            return []
    return ["reasoning: not what any of its committed replies says"]


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
