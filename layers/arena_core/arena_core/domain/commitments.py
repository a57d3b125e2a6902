"""A decision's commitment: the SHA-256 of its canonical record, published when it completes.

The canonical record holds what the decision was shown, what it answered and what it did: the
hash of the prompt transcript, the hash of every raw reply body in order, the parsed decision
(action, fallback flag, every instruction; under v1+panel every forecast), the executed trades
and the completion time. It is serialized deterministically, so anyone can rebuild it from the
public exports and get the same bytes:

- a JSON object, keys sorted by code point, no whitespace (``","`` and ``":"``), UTF-8 with
  non-ASCII characters written as they are (Python's ``json.dumps(..., sort_keys=True,
  separators=(",", ":"), ensure_ascii=False)``);
- every number as a string in plain decimal notation without trailing zeros (``100``, ``0.5``,
  ``-2.25``; ``100.00`` is written ``100``), so equal amounts hash equally whatever their scale;
- times as ISO 8601 UTC with microseconds and ``Z`` (``2026-03-01T00:05:00.000000Z``);
- absent values as ``null``; instructions by index, forecasts by market id, trades by trade id.

The commitment is the lowercase hex SHA-256 of those bytes. Pure: no I/O, no clock.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from arena_core.domain.answer import BetInstruction, SellInstruction
from arena_core.domain.decisions import DecisionOutcome, DecisionRecord

RECORD_VERSION = "1"

Number = Decimal | int


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def number(value: Number) -> str:
    """A number as plain decimal text without trailing zeros; exact (no context rounding)."""
    sign, digits, exponent = Decimal(value).as_tuple()
    if not isinstance(exponent, int):
        raise ValueError(f"not a finite number: {value}")
    kept = list(digits)
    while len(kept) > 1 and kept[-1] == 0 and exponent < 0:
        kept.pop()
        exponent += 1
    if kept == [0]:
        return "0"  # -0 and 0E-6 are zero
    return format(Decimal((sign, tuple(kept), exponent)), "f")


def optional_number(value: Number | None) -> str | None:
    return None if value is None else number(value)


def timestamp(moment: datetime) -> str:
    """A moment as ISO 8601 UTC with microseconds: the one time format of every record."""
    if moment.tzinfo is None:
        raise ValueError(f"a committed time must be timezone-aware: {moment!r}")
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def canonical_json(document: Mapping[str, Any]) -> bytes:
    """The deterministic serialization every committed object uses."""
    text = json.dumps(document, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return text.encode("utf-8")


@dataclass(frozen=True)
class CommittedInstruction:
    """One instruction of the parsed answer: a bet (market, side, amount) or a sell
    (position, percentage)."""

    index: int
    kind: str  # "bet" or "sell"
    market_id: str | None = None
    side: str | None = None
    amount: Decimal | None = None
    position_id: str | None = None
    percentage: Decimal | None = None

    def document(self) -> dict[str, Any]:
        if self.kind == "bet":
            asked = {
                "market_id": self.market_id,
                "side": self.side,
                "amount": optional_number(self.amount),
            }
        else:
            asked = {
                "position_id": self.position_id,
                "percentage": optional_number(self.percentage),
            }
        return {"index": number(self.index), "kind": self.kind, **asked}


@dataclass(frozen=True)
class CommittedForecast:
    """Under v1+panel: what the reply stated for a panel market, and what is scored."""

    market_id: str
    stated: Decimal | None
    p_yes: Decimal

    def document(self) -> dict[str, Any]:
        return {
            "market_id": self.market_id,
            "stated": optional_number(self.stated),
            "p_yes": number(self.p_yes),
        }


@dataclass(frozen=True)
class CommittedTrade:
    trade_id: str
    price: Decimal | None
    shares: Decimal | None
    amount: Decimal | None

    def document(self) -> dict[str, Any]:
        return {
            "trade_id": self.trade_id,
            "price": optional_number(self.price),
            "shares": optional_number(self.shares),
            "amount": optional_number(self.amount),
        }


@dataclass(frozen=True)
class DecisionCommitment:
    """A decision's canonical record; ``sha256`` is its commitment."""

    decision_id: str
    agent_id: str
    cohort_id: str
    week: int
    prompt_sha256: str
    reply_sha256: tuple[str, ...]
    action: str
    fallback: bool
    instructions: tuple[CommittedInstruction, ...]
    forecasts: tuple[CommittedForecast, ...]
    trades: tuple[CommittedTrade, ...]
    completed_at: datetime

    def document(self) -> dict[str, Any]:
        return {
            "version": RECORD_VERSION,
            "decision_id": self.decision_id,
            "agent_id": self.agent_id,
            "cohort_id": self.cohort_id,
            "week": number(self.week),
            "prompt_sha256": self.prompt_sha256,
            "reply_sha256": list(self.reply_sha256),
            "action": self.action,
            "fallback": self.fallback,
            "instructions": [i.document() for i in sorted(self.instructions, key=_index)],
            "forecasts": [f.document() for f in sorted(self.forecasts, key=_market)],
            "trades": [t.document() for t in sorted(self.trades, key=_trade)],
            "completed_at": timestamp(self.completed_at),
        }

    def canonical(self) -> bytes:
        return canonical_json(self.document())

    @property
    def sha256(self) -> str:
        return sha256_hex(self.canonical())


def _index(instruction: CommittedInstruction) -> int:
    return instruction.index


def _market(forecast: CommittedForecast) -> str:
    return forecast.market_id


def _trade(trade: CommittedTrade) -> str:
    return trade.trade_id


def commitment_of(
    record: DecisionRecord, outcome: DecisionOutcome, completed_at: datetime
) -> DecisionCommitment:
    """The canonical record of a decision closing now with ``outcome``; the prompt's and the
    replies' hashes must have been taken when they were stored (``Consultation``)."""
    replies = sorted(outcome.responses, key=lambda r: r.attempt)
    hashes = [r.body_sha256 for r in replies]
    if outcome.prompt_sha256 is None or any(h is None for h in hashes):
        raise ValueError(f"decision {record.decision_id}: prompt or reply hashes are missing")
    return DecisionCommitment(
        decision_id=record.decision_id,
        agent_id=record.agent_id,
        cohort_id=record.cohort_id,
        week=record.week,
        prompt_sha256=outcome.prompt_sha256,
        reply_sha256=tuple(h for h in hashes if h is not None),
        action=outcome.action.value,
        fallback=outcome.fallback,
        instructions=tuple(_instruction(t.index, t.instruction) for t in outcome.trades),
        forecasts=tuple(
            CommittedForecast(f.market_id, f.stated, f.p_yes) for f in outcome.forecasts
        ),
        trades=tuple(
            CommittedTrade(t.trade_id, t.price, t.shares, t.amount)
            for t in outcome.trades
            if t.executed
        ),
        completed_at=completed_at,
    )


def _instruction(index: int, asked: BetInstruction | SellInstruction) -> CommittedInstruction:
    if isinstance(asked, BetInstruction):
        bet = asked
        return CommittedInstruction(
            index, "bet", market_id=bet.market_id, side=bet.side, amount=bet.amount
        )
    return CommittedInstruction(
        index, "sell", position_id=asked.position_id, percentage=asked.percentage
    )
