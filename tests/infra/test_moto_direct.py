"""The demo's direct client answers exactly as boto3's client on moto: same answers, same
state left behind, same errors (code, message, the old item, the cancellation reasons)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError

from arena_local.moto_direct import DirectDynamoDB
from tests.infra.test_local_run import (
    RICH_ITEM,
    TABLE,
    answers,
    every_answer,
    move_index_keys,
    populate,
    transfer,
)
from tests.support.aws import embedded_aws

KEY = {"PK": RICH_ITEM["PK"], "SK": RICH_ITEM["SK"]}


def refused(call: Callable[[], Any]) -> dict[str, Any]:
    """The error a request raises, as the stores read it (its response, metadata aside)."""
    with pytest.raises(ClientError) as raised:
        call()
    response = dict(raised.value.response)
    response.pop("ResponseMetadata", None)
    return {"class": type(raised.value).__name__, "operation": raised.value.operation_name} | (
        response
    )


def errors(client: Any) -> list[dict[str, Any]]:
    """Each kind of refusal the stores meet: a failed condition (with and without the old
    item), a cancelled transaction, an invalid expression, a missing table."""
    client.put_item(TableName=TABLE, Item=RICH_ITEM)
    absent = "attribute_not_exists(PK)"
    return [
        refused(
            lambda: client.put_item(
                TableName=TABLE,
                Item=RICH_ITEM,
                ConditionExpression=absent,
                ReturnValuesOnConditionCheckFailure="ALL_OLD",
            )
        ),
        refused(
            lambda: client.update_item(
                TableName=TABLE,
                Key=KEY,
                UpdateExpression="SET n = :v",
                ConditionExpression=absent,
                ExpressionAttributeValues={":v": {"N": "1"}},
            )
        ),
        refused(lambda: transfer(client, 4, must_exist="TRADE#999")),
        refused(
            lambda: client.query(
                TableName=TABLE,
                KeyConditionExpression="PK = :q",
                ExpressionAttributeValues={":p": {"S": "x"}},
            )
        ),
        refused(lambda: client.get_item(TableName="no-such-table", Key=KEY)),
    ]


def workload(client: Any) -> list[Any]:
    populate(client)
    before = answers(client)
    move_index_keys(client)
    return [before, answers(client), every_answer(client), errors(client)]


def test_the_direct_client_answers_as_boto3_does() -> None:
    found = []
    for direct in (False, True):
        with embedded_aws():  # moto as the demo runs it (lean)
            client = boto3.client("dynamodb")
            found.append(workload(_Late(client) if direct else client))
    assert found[1] == found[0]
    everything = dict(reversed(found[1][2]))  # the first answer of each operation
    assert everything["get_item"]["Item"]["blob"] == {"B": b"\x00\xffbytes"}
    assert [e["Error"]["Code"] for e in found[1][3]] == [
        "ConditionalCheckFailedException",
        "ConditionalCheckFailedException",
        "TransactionCanceledException",
        "ValidationException",
        "ResourceNotFoundException",
    ]
    assert found[1][3][0]["Item"] == RICH_ITEM  # the old item, as the stores read it
    reasons = [r["Code"] for r in found[1][3][2]["CancellationReasons"]]
    assert reasons == ["None", "None", "ConditionalCheckFailed"]


def test_requests_go_to_moto_directly() -> None:
    """Data-plane requests skip botocore (no event of its request path fires); the others
    (creating and describing the table) go through it."""
    with embedded_aws():
        client = boto3.client("dynamodb")
        sent: list[str] = []
        client.meta.events.register("before-call", lambda model, **_: sent.append(model.name))
        populate(client)
        direct = DirectDynamoDB(client, TABLE)
        direct.put_item(TableName=TABLE, Item=RICH_ITEM)
        assert direct.get_item(TableName=TABLE, Key=KEY)["Item"] == RICH_ITEM
        assert direct.describe_table(TableName=TABLE)["Table"]["TableName"] == TABLE
    assert sent.count("PutItem") == 60  # populate's, none of the direct client's
    assert "GetItem" not in sent
    assert sent.count("DescribeTable") == 2  # the direct client's own, and the call above


class _Late:
    """boto3's client until the table exists, then the direct client (as the demo has it)."""

    def __init__(self, client: Any) -> None:
        self.client = client
        self.direct: DirectDynamoDB | None = None

    def __getattr__(self, name: str) -> Any:
        if name == "create_table":
            return self._create
        return getattr(self.direct or self.client, name)

    def _create(self, **kwargs: Any) -> Any:
        created = self.client.create_table(**kwargs)
        self.direct = DirectDynamoDB(self.client, kwargs["TableName"])
        return created


def test_through_boto3_sends_every_request_through_botocore() -> None:
    """What the cost model's meter watches (botocore's calls) sees the requests made inside
    ``through_boto3``, a method kept from before included; none after it."""
    with embedded_aws():
        client = boto3.client("dynamodb")
        populate(client)
        direct = DirectDynamoDB(client, TABLE)
        kept = direct.get_item
        sent: list[str] = []
        client.meta.events.register("before-call", lambda model, **_: sent.append(model.name))
        with direct.through_boto3():
            direct.put_item(TableName=TABLE, Item=RICH_ITEM)
            assert kept(TableName=TABLE, Key=KEY)["Item"] == RICH_ITEM
        assert sent == ["PutItem", "GetItem"]
        assert kept(TableName=TABLE, Key=KEY)["Item"] == RICH_ITEM
    assert sent == ["PutItem", "GetItem"]
