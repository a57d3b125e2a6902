"""Defect 5: the checkpoint and the outcome held the whole reasoning in one item, so a long
reply in a multi-byte script failed after the trades were applied, or before the checkpoint on
every retry. Long reasoning now goes to the audit bucket; items hold a bounded excerpt. The
adapter checks DynamoDB's limits itself, with a typed error and nothing sent."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pytest

from arena_core.adapters.dynamodb.codec import to_attributes
from arena_core.adapters.dynamodb.limits import number_text
from arena_core.adapters.dynamodb.table import Table
from arena_core.adapters.site_publishers import LocalFolderPublisher
from arena_core.domain.decisions import REASONING_EXCERPT, DecisionStatus
from arena_core.errors import StoreLimitError
from arena_core.protocol.reply import MAX_REPLY_CHARS
from arena_core.services.publish_site import PublishSiteService
from tests.integration.decide.conftest import World
from tests.support.agents import ScriptedAgent
from tests.support.aws import TABLE, create_stores, dynamo_client, embedded_aws

FOUR_BYTES = "\U0001d54f"  # 𝕏, four bytes in UTF-8


def longest_reply() -> tuple[str, str]:
    head = '{"action": "BET", "bets": [{"market_id": "m1", "side": "YES", "amount": 500}], '
    head += '"reasoning": "'
    reasoning = FOUR_BYTES * (MAX_REPLY_CHARS - len(head) - 2)
    return head + reasoning + '"}', reasoning


def test_the_longest_reply_in_a_four_byte_script_goes_through(world: World, tmp_path: Path) -> None:
    text, reasoning = longest_reply()
    assert len(text) == MAX_REPLY_CHARS
    result = world.service().decide(world.request(), ScriptedAgent(text))
    assert (result.status, result.executed) == (DecisionStatus.SUCCEEDED, 1)
    record = world.stores.decisions.get_decision(result.decision_id)
    assert record is not None
    assert record.outcome is not None
    assert record.outcome.reasoning == reasoning[:REASONING_EXCERPT] + "…"
    assert record.outcome.reasoning_ref is not None
    assert world.blobs.get(record.outcome.reasoning_ref).decode() == reasoning
    publisher = LocalFolderPublisher(tmp_path)
    PublishSiteService(world.stores, publisher, world.blobs, world.clock).run()
    rows = json.loads(
        (tmp_path / f"data/cohorts/{world.cohort.cohort_id}/decisions.json").read_text()
    )
    assert [r["reasoning"] for r in rows if r["reasoning"]] == [reasoning]


def test_an_item_over_400_kb_is_refused_before_it_is_sent() -> None:
    with embedded_aws():
        create_stores()
        table = Table(dynamo_client(), TABLE)
        item = to_attributes({"PK": "x", "SK": "y", "text": "é" * 210_000})
        with pytest.raises(StoreLimitError, match="400 KB"):
            table.put(item)
        assert table.get({"PK": "x", "SK": "y"}) is None


def test_a_transaction_of_101_items_is_refused_before_it_is_sent() -> None:
    with embedded_aws():
        create_stores()
        table = Table(dynamo_client(), TABLE)
        put = {"Put": {"Item": to_attributes({"PK": "x", "SK": "y"})}}
        with pytest.raises(StoreLimitError, match="at most 100"):
            table.transact([(str(i), put) for i in range(101)])


@pytest.mark.parametrize(
    ("number", "text"),
    [
        (Decimal("0E-12"), "0.000000000000"),
        (Decimal("-1E-12"), "-0.000000000001"),
        (Decimal("1.5E+3"), "1500"),
        (Decimal("10000.00"), "10000.00"),
        (Decimal("1" + "0" * 38), "1" + "0" * 38),
    ],
)
def test_numbers_are_written_in_fixed_point(number: Decimal, text: str) -> None:
    assert number_text(number) == text


@pytest.mark.parametrize(
    "number", [Decimal("1" * 39), Decimal("1e126"), Decimal("1e-131"), Decimal("NaN")]
)
def test_numbers_dynamodb_cannot_store_are_refused(number: Decimal) -> None:
    with pytest.raises(StoreLimitError):
        number_text(number)
