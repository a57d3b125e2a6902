"""The speed-ups to moto's DynamoDB answer exactly as moto does without them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError

from arena_core.adapters.dynamodb import create_table_kwargs
from arena_local.moto_shims import lean_dynamodb, partitioned_queries, transactional_backups
from tests.support.aws import embedded_aws

TABLE = "lean"


def populate(client: Any) -> None:
    client.create_table(**create_table_kwargs(TABLE))
    for index in range(60):
        item = {
            "PK": {"S": f"AGENT#a{index % 4}"},
            "SK": {"S": f"{['POSITION', 'SCORE', 'TRADE'][index % 3]}#{index:03d}"},
            "n": {"N": str(index)},
        }
        if index % 5 == 0:
            item |= {"GSI1PK": {"S": f"OPENPOS#m{index % 2}"}, "GSI1SK": {"S": f"{index:03d}"}}
        client.put_item(TableName=TABLE, Item=item)


QUERIES: list[dict[str, Any]] = [
    {"KeyConditionExpression": "PK = :p", "ExpressionAttributeValues": {":p": {"S": "AGENT#a1"}}},
    {
        "KeyConditionExpression": "PK = :p AND begins_with(SK, :s)",
        "ExpressionAttributeValues": {":p": {"S": "AGENT#a2"}, ":s": {"S": "SCORE#"}},
        "ScanIndexForward": False,
    },
    {
        "KeyConditionExpression": "PK = :p AND SK BETWEEN :a AND :b",
        "ExpressionAttributeValues": {
            ":p": {"S": "AGENT#a0"},
            ":a": {"S": "POSITION#"},
            ":b": {"S": "SCORE#\uffff"},
        },
        "Limit": 3,
    },
    {"KeyConditionExpression": "PK = :p", "ExpressionAttributeValues": {":p": {"S": "AGENT#zz"}}},
    {
        "IndexName": "GSI1",
        "KeyConditionExpression": "GSI1PK = :p",
        "ExpressionAttributeValues": {":p": {"S": "OPENPOS#m0"}},
    },
    {
        "IndexName": "GSI1",
        "KeyConditionExpression": "GSI1PK = :p AND GSI1SK > :k",
        "ExpressionAttributeValues": {":p": {"S": "OPENPOS#m1"}, ":k": {"S": "020"}},
    },
]


def answers(client: Any) -> list[Any]:
    found = []
    for query in QUERIES:
        response = client.query(TableName=TABLE, **query)
        found.append((response["Items"], response.get("LastEvaluatedKey"), response["Count"]))
    return found


def test_partitioned_queries_answer_as_moto_does() -> None:
    with embedded_aws(lean=False):
        client = boto3.client("dynamodb")
        populate(client)
        plain = answers(client)
        with partitioned_queries():
            lean = answers(client)
    assert lean == plain
    assert [len(items) for items, _, _ in plain] == [15, 5, 3, 0, 6, 4]


def transfer(client: Any, amount: int, *, must_exist: str) -> None:
    client.transact_write_items(
        TransactItems=[
            {
                "Update": {
                    "TableName": TABLE,
                    "Key": {"PK": {"S": "AGENT#a0"}, "SK": {"S": "POSITION#000"}},
                    "UpdateExpression": "SET n = n - :a",
                    "ExpressionAttributeValues": {":a": {"N": str(amount)}},
                }
            },
            {
                "Put": {
                    "TableName": TABLE,
                    "Item": {"PK": {"S": "AGENT#a9"}, "SK": {"S": f"NEW#{amount}"}},
                }
            },
            {
                "ConditionCheck": {
                    "TableName": TABLE,
                    "Key": {"PK": {"S": "AGENT#a1"}, "SK": {"S": must_exist}},
                    "ConditionExpression": "attribute_exists(PK)",
                }
            },
        ]
    )


@pytest.mark.parametrize("patch", [transactional_backups, lean_dynamodb])
def test_transactions_apply_whole_or_not_at_all(patch: Callable[[], Any]) -> None:
    with embedded_aws(lean=False), patch():
        client = boto3.client("dynamodb")
        populate(client)
        key = {"PK": {"S": "AGENT#a0"}, "SK": {"S": "POSITION#000"}}
        with pytest.raises(ClientError) as failed:
            transfer(client, 5, must_exist="TRADE#999")
        assert failed.value.response["Error"]["Code"] == "TransactionCanceledException"
        assert client.get_item(TableName=TABLE, Key=key)["Item"]["n"] == {"N": "0"}
        new = {"PK": {"S": "AGENT#a9"}, "SK": {"S": "NEW#5"}}
        assert "Item" not in client.get_item(TableName=TABLE, Key=new)
        transfer(client, 7, must_exist="SCORE#001")
        assert client.get_item(TableName=TABLE, Key=key)["Item"]["n"] == {"N": "-7"}
        applied = {"PK": {"S": "AGENT#a9"}, "SK": {"S": "NEW#7"}}
        assert "Item" in client.get_item(TableName=TABLE, Key=applied)
