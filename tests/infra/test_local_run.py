"""The speed-ups to moto's DynamoDB answer exactly as moto does without them."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import nullcontext
from decimal import Decimal
from typing import Any
from unittest.mock import patch

import boto3
import pytest
from botocore.exceptions import ClientError
from moto.dynamodb.models.dynamo_type import DynamoType

from arena_core.adapters.dynamodb import create_table_kwargs
from arena_local.moto_queries import partitioned_queries
from arena_local.moto_shims import (
    json_responses,
    lean_dynamodb,
    sized_items,
    transactional_backups,
)
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


def move_index_keys(client: Any) -> None:
    """Writes that add, change and remove items' index hash keys, every way the stores write:
    put, update, delete, batch, a transaction and a cancelled transaction."""
    key = {"PK": {"S": "AGENT#a0"}, "SK": {"S": "POSITION#000"}}
    client.update_item(
        TableName=TABLE,
        Key=key,
        UpdateExpression="SET GSI1PK = :p",
        ExpressionAttributeValues={":p": {"S": "OPENPOS#m1"}},
    )
    moved = {"PK": {"S": "AGENT#a1"}, "SK": {"S": "TRADE#005"}}
    client.update_item(TableName=TABLE, Key=moved, UpdateExpression="REMOVE GSI1PK")
    client.delete_item(TableName=TABLE, Key={"PK": {"S": "AGENT#a0"}, "SK": {"S": "TRADE#020"}})
    fresh = {"GSI1PK": {"S": "OPENPOS#m0"}, "GSI1SK": {"S": "900"}}
    client.put_item(TableName=TABLE, Item={"PK": {"S": "AGENT#a5"}, "SK": {"S": "X"}} | fresh)
    batch = [
        {"PutRequest": {"Item": {"PK": {"S": "AGENT#a6"}, "SK": {"S": f"Y#{n}"}} | fresh}}
        for n in range(3)
    ]
    client.batch_write_item(RequestItems={TABLE: batch})
    transfer(client, 3, must_exist="SCORE#001")
    with pytest.raises(ClientError):
        transfer(client, 4, must_exist="TRADE#999")


def test_partitioned_queries_answer_as_moto_does() -> None:
    with embedded_aws(lean=False):
        client = boto3.client("dynamodb")
        populate(client)
        plain = answers(client)
        with partitioned_queries():
            lean = answers(client)
    assert lean == plain
    assert [len(items) for items, _, _ in plain] == [15, 5, 3, 0, 6, 4]


@pytest.mark.parametrize("patch", [partitioned_queries, lean_dynamodb])
def test_index_queries_follow_every_write(patch: Callable[[], Any]) -> None:
    found = []
    for patched in (False, True):
        with embedded_aws(lean=False), patch() if patched else nullcontext():
            client = boto3.client("dynamodb")
            populate(client)
            before = answers(client)  # a patched run builds its index book here
            move_index_keys(client)
            found.append((before, answers(client)))
    assert found[1] == found[0]
    _, after = found[0]
    assert [len(items) for items, _, _ in after] == [15, 5, 3, 0, 8, 4]


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


RICH_ITEM: dict[str, Any] = {
    "PK": {"S": "AGENT#rich"},
    "SK": {"S": "PROFILE"},
    "text": {"S": 'null, \u00e9t\u00e9 "quoted" \u2603'},
    "n": {"N": "-12.5000"},
    "flag": {"BOOL": False},
    "nothing": {"NULL": True},
    "nested": {"M": {"list": {"L": [{"N": "1"}, {"S": "two"}, {"M": {}}]}}},
    "names": {"SS": ["a", "b"]},
    "blob": {"B": b"\x00\xffbytes"},
}


def every_answer(client: Any) -> list[Any]:
    """One answer of each operation the stores use (and two with values JSON cannot carry)."""
    key = {"PK": RICH_ITEM["PK"], "SK": RICH_ITEM["SK"]}
    calls: list[tuple[str, dict[str, Any]]] = [
        ("put_item", {"Item": RICH_ITEM, "ReturnValues": "ALL_OLD"}),
        ("get_item", {"Key": key}),
        ("get_item", {"Key": {"PK": {"S": "AGENT#none"}, "SK": {"S": "PROFILE"}}}),
        ("batch_get_item", {}),
        (
            "update_item",
            {
                "Key": key,
                "UpdateExpression": "SET n = n + :d",
                "ExpressionAttributeValues": {":d": {"N": "1"}},
                "ReturnValues": "ALL_NEW",
            },
        ),
        (
            "query",
            {
                "KeyConditionExpression": "PK = :p",
                "Limit": 2,
                "ExpressionAttributeValues": {":p": {"S": "AGENT#a1"}},
            },
        ),
        (
            "query",
            {
                "KeyConditionExpression": "PK = :p",  # the last page: no LastEvaluatedKey
                "ExpressionAttributeValues": {":p": {"S": "AGENT#a1"}},
            },
        ),
        ("scan", {"Limit": 5}),
        ("describe_table", {}),
        ("delete_item", {"Key": key, "ReturnValues": "ALL_OLD"}),
    ]
    found = []
    for operation, kwargs in calls:
        if operation == "batch_get_item":
            request = {TABLE: {"Keys": [key, {"PK": {"S": "AGENT#a1"}, "SK": {"S": "TRADE#001"}}]}}
            response = client.batch_get_item(RequestItems=request)
        else:
            response = getattr(client, operation)(TableName=TABLE, **kwargs)
        response.pop("ResponseMetadata")
        for moment in ("CreationDateTime", "TableId", "TableArn"):  # differ between tables
            response.get("Table", {}).pop(moment, None)
        found.append((operation, response))
    return found


def test_json_responses_answer_as_moto_does() -> None:
    plain: list[Any] = []
    fast: list[Any] = []
    for patched, found in ((False, plain), (True, fast)):
        with embedded_aws(lean=False), json_responses() if patched else nullcontext():
            client = boto3.client("dynamodb")
            populate(client)
            found.extend(every_answer(client))
    assert fast == plain
    items = dict(reversed(plain))  # the first answer of each operation
    assert items["get_item"]["Item"]["blob"] == {"B": b"\x00\xffbytes"}
    assert Decimal(items["update_item"]["Attributes"]["n"]["N"]) == Decimal("-11.5")
    assert items["query"]["Count"] == 2 and "LastEvaluatedKey" in items["query"]


@pytest.mark.parametrize("patched", [False, True])
def test_items_are_measured_as_moto_does(patched: bool) -> None:
    """Just under moto's limit is stored whole; just over it is refused, with or without
    ``sized_items``."""
    with embedded_aws(lean=False), sized_items() if patched else nullcontext():
        client = boto3.client("dynamodb")
        client.create_table(**create_table_kwargs(TABLE))
        key = {"PK": {"S": "AGENT#big"}, "SK": {"S": "PROFILE"}}
        overhead = sum(len(name) + len(value["S"]) for name, value in key.items())
        room = 405000 - overhead - len("a") - len("b")
        fits = key | {"a": {"S": "x" * (room - 10)}, "b": {"S": "y" * 10}}
        client.put_item(TableName=TABLE, Item=fits)
        stored = client.get_item(TableName=TABLE, Key=key)["Item"]
        assert stored == fits
        with pytest.raises(ClientError) as refused:
            client.put_item(TableName=TABLE, Item=key | {"a": fits["a"], "b": {"S": "y" * 11}})
        assert "Item size has exceeded" in refused.value.response["Error"]["Message"]


SORTED: list[dict[str, Any]] = [  # base-table queries on one partition, every way it narrows
    {"ScanIndexForward": False, "Limit": 1},  # the newest item
    {"Limit": 2},
    {"KeyConditionExpression": "PK = :p AND SK < :k", "Limit": 4},
    {"KeyConditionExpression": "PK = :p AND SK <= :k", "ScanIndexForward": False},
    {"KeyConditionExpression": "PK = :p AND SK > :k", "Limit": 3},
    {"KeyConditionExpression": "PK = :p AND SK >= :k", "ScanIndexForward": False, "Limit": 2},
    {"KeyConditionExpression": "PK = :p AND SK = :k"},
    {"KeyConditionExpression": "PK = :p AND begins_with(SK, :s)", "Limit": 5},  # exactly all
    {"KeyConditionExpression": "PK = :p AND begins_with(SK, :s)", "ScanIndexForward": False},
    {"KeyConditionExpression": "PK = :p AND SK BETWEEN :a AND :b", "Limit": 2},
    {"KeyConditionExpression": "PK = :p AND SK BETWEEN :c AND :d"},  # nothing between
    {"KeyConditionExpression": "PK = :p AND SK BETWEEN :a AND :b", "FilterExpression": "n > :n"},
]
SORTED_VALUES = {
    ":p": {"S": "SNAP#a"},
    ":k": {"S": "T#0030"},
    ":s": {"S": "T#001"},
    ":a": {"S": "T#0012"},
    ":b": {"S": "T#0047"},
    ":c": {"S": "T#0047a"},
    ":d": {"S": "T#0047z"},
    ":n": {"N": "20"},
}


def populate_sorted(client: Any) -> None:
    """One partition of 60 items written out of order, and a neighbour."""
    client.create_table(**create_table_kwargs(TABLE))
    for index in [*range(30, 60), *range(29, -1, -1)]:
        item = {"PK": {"S": "SNAP#a"}, "SK": {"S": f"T#{index:04d}"}, "n": {"N": str(index)}}
        client.put_item(TableName=TABLE, Item=item)
    client.put_item(TableName=TABLE, Item={"PK": {"S": "SNAP#b"}, "SK": {"S": "T#0001"}})


def sorted_answers(client: Any) -> list[Any]:
    found = []
    for query in SORTED:
        kwargs = {"KeyConditionExpression": "PK = :p", **query}
        used = {k: v for k, v in SORTED_VALUES.items() if k in str(kwargs)}
        pages, start = [], None
        while True:  # every page: a page after ExclusiveStartKey is moto's alone
            extra: dict[str, Any] = {"ExclusiveStartKey": start} if start else {}
            page = client.query(TableName=TABLE, ExpressionAttributeValues=used, **kwargs, **extra)
            pages.append((page["Items"], page.get("LastEvaluatedKey"), page["ScannedCount"]))
            start = page.get("LastEvaluatedKey")
            if not start:
                break
        found.append(pages)
    return found


def test_narrowed_queries_answer_as_moto_does() -> None:
    found = []
    for patched in (False, True):
        with embedded_aws(lean=False), partitioned_queries() if patched else nullcontext():
            client = boto3.client("dynamodb")
            populate_sorted(client)
            found.append(sorted_answers(client))
    assert found[1] == found[0]
    firsts = [pages[0][0] for pages in found[0]]
    assert firsts[0][0]["SK"] == {"S": "T#0059"}
    assert [len(items) for items in firsts] == [1, 2, 4, 31, 3, 2, 1, 5, 10, 2, 0, 27]


def test_a_newest_item_query_sorts_no_partition() -> None:
    """The newest of 60 items: moto compares every sort key to sort them all; the narrowed
    query hands it two items."""
    compared = 0
    original = DynamoType.__lt__

    def counted(self: DynamoType, other: DynamoType) -> bool:
        nonlocal compared
        compared += 1
        return original(self, other)

    with embedded_aws(), patch.object(DynamoType, "__lt__", counted):
        client = boto3.client("dynamodb")
        populate_sorted(client)
        compared = 0
        newest = client.query(
            TableName=TABLE,
            KeyConditionExpression="PK = :p",
            ExpressionAttributeValues={":p": {"S": "SNAP#a"}},
            ScanIndexForward=False,
            Limit=1,
        )
    assert newest["Items"][0]["SK"] == {"S": "T#0059"}
    assert compared <= 2
