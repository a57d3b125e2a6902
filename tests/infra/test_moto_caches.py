"""moto's DynamoDB with every speed-up (``lean_dynamodb``: kept orders, item caches, expression
shortcuts) answers a long mixed sequence of writes and reads exactly as moto does without them.

The sequence is drawn from a seed: puts (single, batched, in transactions), updates of every
kind the stores make and a few they do not (nested paths, list_append, ADD, REMOVE, arithmetic),
deletes, cancelled transactions, conditional writes that fail, and between them the reads whose
answers the caches could make stale: queries of every key condition, both directions, limits
and pages, index queries, scans in pages, gets and batch gets.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator
from contextlib import nullcontext
from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError

from arena_core.adapters.dynamodb import create_table_kwargs
from arena_local.moto_shims import lean_dynamodb
from tests.support.aws import embedded_aws

TABLE = "cached"
PARTITIONS = [f"SNAP#{letter}" for letter in "abc"]
STEPS = 200


def key(rng: random.Random) -> dict[str, Any]:
    return {"PK": {"S": rng.choice(PARTITIONS)}, "SK": {"S": f"T#{rng.randrange(40):04d}"}}


def item(rng: random.Random) -> dict[str, Any]:
    found = key(rng) | {
        "n": {"N": str(rng.randrange(-50, 50))},
        "doc": {"M": {"price": {"N": f"0.{rng.randrange(100):02d}"}, "tags": {"L": []}}},
        "names": {"SS": ["a", rng.choice("bcd")]},
    }
    if rng.random() < 0.5:
        found |= {"GSI1PK": {"S": f"OPEN#{rng.randrange(3)}"}, "GSI1SK": found["SK"]}
    return found


def distinct(found: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """One of each key (a batch refuses two requests for one item)."""
    return list({(i["PK"]["S"], i["SK"]["S"]): i for i in found}.values())


UPDATES: list[tuple[str, dict[str, Any]]] = [
    ("SET n = n + :one", {":one": {"N": "1"}}),
    ("SET doc.price = :p", {":p": {"N": "0.5"}}),
    ("SET doc.tags = list_append(doc.tags, :t)", {":t": {"L": [{"S": "x"}]}}),
    ("ADD names :s", {":s": {"SS": ["z"]}}),
    ("REMOVE GSI1PK, GSI1SK", {}),
    ("SET GSI1PK = :g, GSI1SK = SK", {":g": {"S": "OPEN#1"}}),
    ("SET #m = :m, extra = if_not_exists(extra, :e)", {":m": {"S": "m"}, ":e": {"N": "7"}}),
]


def write(client: Any, rng: random.Random) -> None:
    """One write of a randomly chosen kind (some of them fail, as they should)."""
    kind = rng.randrange(6)
    if kind == 0:
        client.put_item(TableName=TABLE, Item=item(rng))
    elif kind == 1:
        batch = [{"PutRequest": {"Item": i}} for i in distinct(item(rng) for _ in range(5))]
        client.batch_write_item(RequestItems={TABLE: batch})
    elif kind == 2:
        expression, values = rng.choice(UPDATES)
        kwargs: dict[str, Any] = {"UpdateExpression": expression}
        if values:
            kwargs["ExpressionAttributeValues"] = values
        if "#m" in expression:
            kwargs["ExpressionAttributeNames"] = {"#m": "marked"}
        client.update_item(
            TableName=TABLE, Key=key(rng), ConditionExpression="attribute_exists(PK)", **kwargs
        )
    elif kind == 3:
        client.delete_item(TableName=TABLE, Key=key(rng))
    else:
        first, second = key(rng), key(rng)
        if first == second:
            return
        check = "attribute_exists(PK)" if kind == 4 else "attribute_not_exists(PK)"
        client.transact_write_items(
            TransactItems=[
                {"Put": {"TableName": TABLE, "Item": item(rng) | first}},
                {
                    "Update": {
                        "TableName": TABLE,
                        "Key": second,
                        "UpdateExpression": "SET n = :n",
                        "ConditionExpression": check,
                        "ExpressionAttributeValues": {":n": {"N": "99"}},
                    }
                },
            ]
        )


CONDITIONS = [
    ("", {}),
    (" AND SK = :a", {":a": "T#0010"}),
    (" AND SK < :a", {":a": "T#0020"}),
    (" AND SK <= :a", {":a": "T#0020"}),
    (" AND SK > :a", {":a": "T#0005"}),
    (" AND SK >= :a", {":a": "T#0005"}),
    (" AND SK BETWEEN :a AND :b", {":a": "T#0008", ":b": "T#0031"}),
    (" AND SK BETWEEN :a AND :b", {":a": "T#0031", ":b": "T#0008"}),
    (" AND begins_with(SK, :a)", {":a": "T#001"}),
]


def pages(client: Any, **kwargs: Any) -> Iterator[dict[str, Any]]:
    """Every page of a query or scan, each without its request metadata."""
    operation = client.scan if "KeyConditionExpression" not in kwargs else client.query
    start = None
    while True:
        extra: dict[str, Any] = {"ExclusiveStartKey": start} if start else {}
        page = operation(TableName=TABLE, **kwargs, **extra)
        page.pop("ResponseMetadata")
        yield page
        start = page.get("LastEvaluatedKey")
        if not start:
            return


def read(client: Any, rng: random.Random) -> list[Any]:
    """Answers of a few reads of randomly chosen kinds."""
    condition, values = rng.choice(CONDITIONS)
    query: dict[str, Any] = {
        "KeyConditionExpression": "PK = :p" + condition,
        "ExpressionAttributeValues": {
            ":p": {"S": rng.choice(PARTITIONS)},
            **{name: {"S": value} for name, value in values.items()},
        },
        "ScanIndexForward": rng.random() < 0.5,
    }
    if rng.random() < 0.5:
        query["Limit"] = rng.randrange(1, 6)
    index = {
        "IndexName": "GSI1",
        "KeyConditionExpression": "GSI1PK = :g",
        "ExpressionAttributeValues": {":g": {"S": f"OPEN#{rng.randrange(3)}"}},
    }
    keys = distinct(key(rng) for _ in range(4))
    batch = client.batch_get_item(RequestItems={TABLE: {"Keys": keys}})
    return [
        list(pages(client, **query)),
        list(pages(client, **index)),
        list(pages(client, Limit=rng.randrange(3, 30))),
        client.get_item(TableName=TABLE, Key=key(rng)).get("Item"),
        sorted(map(str, batch["Responses"][TABLE])),
    ]


def run(seed: int, *, lean: bool) -> list[Any]:
    rng = random.Random(seed)
    answers: list[Any] = []
    with embedded_aws(lean=False), lean_dynamodb() if lean else nullcontext():
        client = boto3.client("dynamodb")
        client.create_table(**create_table_kwargs(TABLE))
        for _ in range(STEPS):
            try:
                write(client, rng)
                answers.append("written")
            except ClientError as error:
                answers.append(error.response["Error"]["Code"])
            if rng.random() < 0.3:
                answers.append(read(client, rng))
    return answers


@pytest.mark.parametrize("seed", [1, 2])
def test_a_mixed_sequence_is_answered_as_moto_does(seed: int) -> None:
    plain = run(seed, lean=False)
    lean = run(seed, lean=True)
    assert lean == plain
    outcomes = {answer for answer in plain if isinstance(answer, str)}
    assert {"written", "ConditionalCheckFailedException", "TransactionCanceledException"} <= (
        outcomes
    )
    pages_read = [answer[2] for answer in plain if isinstance(answer, list)]
    assert any(len(scan) > 1 for scan in pages_read)  # scans went past a first page


# (expression, attribute names): shapes that pass, and the same texts with names that make
# them update a key or one path twice, in turn, so a shape remembered as checked must still be
# checked under other names
SHAPES: list[tuple[str, dict[str, str]]] = [
    ("SET #a = :v", {"#a": "x"}),
    ("SET #a = :v", {"#a": "SK"}),  # a key attribute
    ("SET #a = :v, #b = :v", {"#a": "x", "#b": "y"}),
    ("SET #a = :v, #b = :v", {"#a": "y", "#b": "y"}),  # one path twice
    ("SET #a = :v", {"#a": "x"}),
    ("SET x = :v REMOVE x", {}),
    ("SET x = :v SET y = :v", {}),  # two SET clauses
    ("SET #a = :v", {"#a": "PK"}),
]


def shapes_answered(*, lean: bool) -> list[str]:
    answers = []
    with embedded_aws(lean=False), lean_dynamodb() if lean else nullcontext():
        client = boto3.client("dynamodb")
        client.create_table(**create_table_kwargs(TABLE))
        target = {"PK": {"S": "SNAP#a"}, "SK": {"S": "T#0001"}}
        for expression, names in SHAPES * 3:
            kwargs: dict[str, Any] = {"ExpressionAttributeNames": names} if names else {}
            try:
                client.update_item(
                    TableName=TABLE,
                    Key=target,
                    UpdateExpression=expression,
                    ExpressionAttributeValues={":v": {"S": "v"}},
                    **kwargs,
                )
                answers.append("written")
            except ClientError as error:
                answers.append(f"{error.response['Error']['Code']}: {error}")
    return answers


def test_an_update_s_shape_is_refused_every_time_as_moto_refuses_it() -> None:
    plain = shapes_answered(lean=False)
    assert shapes_answered(lean=True) == plain
    refused = [answer != "written" for answer in plain[: len(SHAPES)]]
    assert refused == [False, True, False, True, False, True, True, True]
