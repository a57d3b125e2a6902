"""The canonical record of a decision, its serialization, the Merkle root and the log lines."""

from __future__ import annotations

import hashlib
import json
from dataclasses import replace
from datetime import UTC, datetime, timedelta, timezone
from decimal import Decimal

import pytest

from arena_core.domain.answer import Action, BetInstruction, SellInstruction
from arena_core.domain.commitment_log import (
    LogEntry,
    RunSeal,
    appended,
    decision_key,
    logged_keys,
    merkle_root,
    run_key,
)
from arena_core.domain.commitments import (
    CommittedTrade,
    canonical_json,
    commitment_of,
    number,
    timestamp,
)
from arena_core.domain.decisions import (
    DecisionOutcome,
    DecisionRecord,
    DecisionStatus,
    ResponseAudit,
    TradeAudit,
)
from arena_core.domain.panel import PanelForecast
from arena_core.errors import InvalidIdError

AT = datetime(2026, 3, 1, 0, 5, tzinfo=UTC)
H1, H2, H3 = (hashlib.sha256(x).hexdigest() for x in (b"one", b"two", b"three"))


def record() -> DecisionRecord:
    return DecisionRecord(
        decision_id="c2026-03-01.gpt-5.1.w001",
        agent_id="c2026-03-01.gpt-5.1",
        cohort_id="c2026-03-01",
        week=1,
        status=DecisionStatus.CLAIMED,
        created_at=AT,
        updated_at=AT,
    )


def reply(attempt: int, digest: str) -> ResponseAudit:
    return ResponseAudit(
        attempt=attempt,
        response_ref=f"r{attempt}",
        model="m",
        provider="p",
        finish_reason="stop",
        prompt_tokens=1,
        completion_tokens=1,
        cost=None,
        latency_ms=1,
        transport_attempts=1,
        body_sha256=digest,
    )


def outcome(amount: str = "500", price: str = "0.4") -> DecisionOutcome:
    bet = BetInstruction(market_id="m1", side="YES", amount=Decimal(amount))
    sell = SellInstruction(position_id="p1", percentage=Decimal("50"))
    trades = (
        TradeAudit(
            index=0,
            trade_id="d.t00",
            instruction=bet,
            executed=True,
            rule=None,
            reason=None,
            price=Decimal(price),
            shares=Decimal("1250.000000"),
            amount=Decimal(amount),
        ),
        TradeAudit(
            index=1,
            trade_id="d.t01",
            instruction=sell,
            executed=False,
            rule="unknown_position",
            reason="no such position",
            price=None,
            shares=None,
            amount=None,
        ),
    )
    return DecisionOutcome(
        action=Action.BET,
        reasoning="r",
        fallback=False,
        fallback_reason=None,
        prompt_ref="prompt",
        prompt_sha256=H1,
        responses=(reply(2, H3), reply(1, H2)),
        model="m",
        provider="p",
        trades=trades,
        executed=1,
        rejected=1,
        forecasts=(PanelForecast(market_id="m9", stated=None, p_yes=Decimal("0.30")),),
    )


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (Decimal("100"), "100"),
        (Decimal("100.00"), "100"),
        (100, "100"),
        (Decimal("1E+2"), "100"),
        (Decimal("0.5000"), "0.5"),
        (Decimal("-2.250"), "-2.25"),
        (Decimal("0E-6"), "0"),
        (Decimal("-0.00"), "0"),
        (Decimal("0.000100"), "0.0001"),
        (
            Decimal("1234567890.123456789012345678901234567890"),
            "1234567890.12345678901234567890123456789",
        ),
    ],
)
def test_numbers_are_plain_decimals_without_trailing_zeros_and_never_rounded(
    value: Decimal | int, text: str
) -> None:
    assert number(value) == text


def test_times_are_utc_with_microseconds_and_z() -> None:
    assert timestamp(AT) == "2026-03-01T00:05:00.000000Z"
    paris = AT.astimezone(timezone(timedelta(hours=1)))
    assert timestamp(paris) == "2026-03-01T00:05:00.000000Z"
    with pytest.raises(ValueError, match="timezone"):
        timestamp(datetime(2026, 3, 1))


def test_serialization_sorts_keys_without_whitespace_and_keeps_utf8() -> None:
    assert (
        canonical_json({"b": "é", "a": [1, None, True]}) == '{"a":[1,null,true],"b":"é"}'.encode()
    )


def test_the_record_holds_what_the_decision_saw_said_and_did() -> None:
    # Given a decision's outcome, when its record is built at its completion time
    committed = commitment_of(record(), outcome(), AT)
    document = json.loads(committed.canonical())
    # Then it holds the hashes (replies in attempt order), the parsed decision, the executed
    # trades only, and the time, every number as text
    assert document == {
        "version": "1",
        "decision_id": "c2026-03-01.gpt-5.1.w001",
        "agent_id": "c2026-03-01.gpt-5.1",
        "cohort_id": "c2026-03-01",
        "week": "1",
        "prompt_sha256": H1,
        "reply_sha256": [H2, H3],
        "action": "BET",
        "fallback": False,
        "instructions": [
            {"index": "0", "kind": "bet", "market_id": "m1", "side": "YES", "amount": "500"},
            {"index": "1", "kind": "sell", "position_id": "p1", "percentage": "50"},
        ],
        "forecasts": [{"market_id": "m9", "stated": None, "p_yes": "0.3"}],
        "trades": [{"trade_id": "d.t00", "price": "0.4", "shares": "1250", "amount": "500"}],
        "completed_at": "2026-03-01T00:05:00.000000Z",
    }
    assert committed.sha256 == hashlib.sha256(committed.canonical()).hexdigest()


def test_equal_amounts_hash_equally_and_any_change_changes_the_hash() -> None:
    base = commitment_of(record(), outcome("500"), AT).sha256
    assert commitment_of(record(), outcome("500.00"), AT).sha256 == base
    assert commitment_of(record(), outcome("500.01"), AT).sha256 != base
    assert commitment_of(record(), outcome(price="0.41"), AT).sha256 != base
    assert commitment_of(record(), outcome(), AT + timedelta(microseconds=1)).sha256 != base
    other = commitment_of(record(), outcome(), AT)
    assert replace(other, trades=(CommittedTrade("d.t00", None, None, None),)).sha256 != base


def test_a_record_needs_the_hashes_taken_when_the_blobs_were_stored() -> None:
    unhashed = outcome().model_copy(update={"prompt_sha256": None})
    with pytest.raises(ValueError, match="hashes are missing"):
        commitment_of(record(), unhashed, AT)


def pair(left: str, right: str) -> str:
    return hashlib.sha256(bytes.fromhex(left) + bytes.fromhex(right)).hexdigest()


def test_the_merkle_root_pairs_in_order_and_promotes_an_odd_node() -> None:
    assert merkle_root([H1]) == H1
    assert merkle_root([H1, H2]) == pair(H1, H2)
    assert merkle_root([H2, H1]) != merkle_root([H1, H2])
    assert merkle_root([H1, H2, H3]) == pair(pair(H1, H2), H3)
    four = hashlib.sha256(b"four").hexdigest()
    assert merkle_root([H1, H2, H3, four]) == pair(pair(H1, H2), pair(H3, four))
    with pytest.raises(ValueError, match="at least one leaf"):
        merkle_root([])


def test_a_run_seal_commits_to_its_leaves_and_their_root() -> None:
    seal = RunSeal("run-1", AT, AT, (("a.w001", H1), ("b.w001", H2)))
    document = json.loads(seal.canonical())
    assert document["root"] == pair(H1, H2)
    assert document["leaves"] == [
        {"decision_id": "a.w001", "commitment": H1},
        {"decision_id": "b.w001", "commitment": H2},
    ]


def test_keys_are_safe_and_unique_per_run() -> None:
    assert decision_key("c.x.w001", H1) == f"commitments/decisions/c.x.w001/{H1}.json"
    with pytest.raises(ValueError):
        decision_key("../etc", H1)
    with pytest.raises(ValueError):
        decision_key("c.x.w001", "not-a-digest")
    assert run_key(AT, "run-1") == "commitments/runs/20260301T000500Z-run-1.json"
    # Distinct execution names are distinct runs (they all mapped to run-1 before)
    names = ["run-1", "run:1", "run-1-", "run-1.", "run_1"]
    assert len({run_key(AT, name) for name in names}) == len(names)
    for hostile in ("run 1/a", "", "-run", "x" * 81, "run\n1"):
        with pytest.raises(InvalidIdError):
            run_key(AT, hostile)


def test_the_log_only_appends_new_keys_ordered_by_time_then_key() -> None:
    early = LogEntry("decision", "commitments/decisions/b/x.json", H1, "2026-03-01T00:05:00Z", "b")
    late = LogEntry("decision", "commitments/decisions/a/y.json", H2, "2026-03-01T00:06:00Z", "a")
    first = appended(b"", [late])
    second = appended(first, [early, late])
    assert second.startswith(first)  # the bytes already logged stay as they are
    assert [LogEntry.parse(x) for x in second.decode().splitlines()] == [late, early]
    assert appended(second, [early]) == second
    assert logged_keys(second + b"not json\n") == {early.key, late.key}
    with pytest.raises(ValueError, match="not a log entry"):
        LogEntry.parse('{"kind": "decision"}')
