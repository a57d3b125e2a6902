"""The DynamoDB behaviours the application relies on, checked on DynamoDB Local and on moto.

The integrity claims (one cohort per week, one decision per agent-week, exactly-once trades) rest
on a few engine guarantees: a failed condition rejects the write, a cancelled transaction writes
nothing, oversized writes and requests are refused whole, strongly consistent reads see the last
write. Each test runs on DynamoDB Local (AWS's own engine, ``tests/support/dynamodb_local.py``)
and on moto (``tests/support/aws.py``, as the persistence suite uses it) and asserts what each
engine does, so a test fails if either engine's behaviour changes. Where moto differs from the
real engine the test says so; those are the places a suite green on moto alone proves nothing:

- BatchWriteItem with more than 25 requests: DynamoDB Local refuses it, moto writes them all.
- Numbers over 38 significant digits (sent as raw strings): DynamoDB Local refuses them, moto
  stores them.
- The item size limit: 409,600 bytes (400 KiB) on DynamoDB Local, 405,000 on moto.
- An UpdateItem that would grow the item past the limit: refused on both, but moto has already
  applied the actions before the one that overflowed, and leaves a key-only item behind when
  the item did not exist. DynamoDB Local applies nothing.
- An UpdateItem that replaces a large attribute with one of the same size: DynamoDB Local
  accepts it; moto counts the old and the new value together and refuses it.
- ``ADD`` (or ``SET a = a + :v``) with a number written in exponent form without a decimal point
  (``0E-12``, as ``Decimal.quantize`` yields for zero, or ``1E+2``): DynamoDB Local computes it;
  moto raises a bare Python ``ValueError`` out of the client call. moto also stores numbers as
  sent (DynamoDB Local normalizes ``0E-12`` to ``0``) and can itself store ``0E-12`` as the
  result of an ADD, which its next ADD on that attribute then fails on.
- Table names under 3 characters: refused by DynamoDB Local, accepted by moto.
"""

from __future__ import annotations

import decimal
import os
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

import boto3
import pytest
from boto3.dynamodb.types import TypeSerializer
from botocore.exceptions import ClientError

from arena_core.adapters.dynamodb.codec import value
from arena_core.adapters.dynamodb.schema import create_table_kwargs
from arena_core.errors import StoreLimitError
from tests.support.aws import dynamo_client, embedded_aws
from tests.support.dynamodb_local import (
    ACCESS_KEY_ID,
    REGION,
    SECRET_ACCESS_KEY,
    DynamoDBLocal,
    DynamoDBLocalError,
)

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient
    from mypy_boto3_dynamodb.type_defs import TransactWriteItemTypeDef

LOCAL, MOTO = "dynamodb-local", "moto"

# DynamoDB's item size: the UTF-8 lengths of attribute names and string values, added up.
MAX_ITEM_BYTES = 400 * 1024
MOTO_MAX_ITEM_BYTES = 405_000


@dataclass(frozen=True)
class Engine:
    name: str
    client: DynamoDBClient
    table: str

    @property
    def is_local(self) -> bool:
        return self.name == LOCAL

    def get(self, pk: str, sk: str = "1") -> dict[str, Any] | None:
        """The item, read strongly consistent (None when absent)."""
        found = self.client.get_item(TableName=self.table, Key=key(pk, sk), ConsistentRead=True)
        item: dict[str, Any] | None = found.get("Item")
        return item

    def count(self, pk: str) -> int:
        answer = self.client.query(
            TableName=self.table,
            KeyConditionExpression="PK = :pk",
            ExpressionAttributeValues={":pk": {"S": pk}},
            Select="COUNT",
            ConsistentRead=True,
        )
        return answer["Count"]


@pytest.fixture(params=[LOCAL, MOTO])
def engine(request: pytest.FixtureRequest) -> Iterator[Engine]:
    """The arena table on DynamoDB Local (the session's server) or on moto (lean, as the
    persistence suite runs it)."""
    if request.param == LOCAL:
        table = request.getfixturevalue("dynamodb_local_table")
        yield Engine(LOCAL, table.client, table.name)
        return
    with embedded_aws():
        client = dynamo_client()
        client.create_table(**create_table_kwargs("arena-engine"))
        yield Engine(MOTO, client, "arena-engine")


def key(pk: str, sk: str = "1") -> dict[str, Any]:
    return {"PK": {"S": pk}, "SK": {"S": sk}}


def item_of_size(pk: str, size: int) -> dict[str, Any]:
    """An item of exactly ``size`` bytes: the keys plus one string attribute ``b`` filling the
    rest (all ASCII, so characters are bytes)."""
    fixed = len("PK") + len(pk) + len("SK") + len("1") + len("b")
    return {**key(pk), "b": {"S": "x" * (size - fixed)}}


def error_code(error: ClientError) -> str:
    return error.response["Error"]["Code"]


def error_message(error: ClientError) -> str:
    return error.response["Error"]["Message"]


def test_create_table_answers_active_at_once(dynamodb_local: DynamoDBLocal) -> None:
    """DynamoDB Local creates tables synchronously: no waiter is needed (the fixture relies on
    it; the real service answers CREATING)."""
    client = dynamodb_local.client()
    created = client.create_table(**create_table_kwargs("arena-active-at-once"))
    try:
        description = created["TableDescription"]
        assert description["TableStatus"] == "ACTIVE"
        assert [index["IndexStatus"] for index in description["GlobalSecondaryIndexes"]] == [
            "ACTIVE",
            "ACTIVE",
        ]
    finally:
        client.delete_table(TableName="arena-active-at-once")


def test_table_names_need_three_characters(engine: Engine) -> None:
    if engine.is_local:
        with pytest.raises(ClientError) as raised:
            engine.client.create_table(**create_table_kwargs("ab"))
        assert error_code(raised.value) == "ValidationException"
    else:
        engine.client.create_table(**create_table_kwargs("ab"))
        assert "ab" in engine.client.list_tables()["TableNames"]


def test_failed_conditional_put_raises_and_returns_the_old_item(engine: Engine) -> None:
    old = {**key("COND"), "v": {"N": "1"}}
    engine.client.put_item(TableName=engine.table, Item=old)
    with pytest.raises(engine.client.exceptions.ConditionalCheckFailedException) as raised:
        engine.client.put_item(
            TableName=engine.table,
            Item={**key("COND"), "v": {"N": "2"}},
            ConditionExpression="attribute_not_exists(PK)",
            ReturnValuesOnConditionCheckFailure="ALL_OLD",
        )
    assert error_code(raised.value) == "ConditionalCheckFailedException"
    assert raised.value.response["Item"] == old  # type: ignore[typeddict-item]
    assert engine.get("COND") == old


def test_failed_conditional_put_without_return_values_has_no_item(engine: Engine) -> None:
    engine.client.put_item(TableName=engine.table, Item=key("COND"))
    with pytest.raises(engine.client.exceptions.ConditionalCheckFailedException) as raised:
        engine.client.put_item(
            TableName=engine.table, Item=key("COND"), ConditionExpression="attribute_not_exists(PK)"
        )
    assert "Item" not in raised.value.response


def test_cancelled_transaction_gives_reasons_per_item_and_writes_nothing(engine: Engine) -> None:
    existing = {**key("TXN", "guard"), "v": {"N": "1"}}
    engine.client.put_item(TableName=engine.table, Item=existing)
    with pytest.raises(engine.client.exceptions.TransactionCanceledException) as raised:
        engine.client.transact_write_items(
            TransactItems=[
                {"Put": {"TableName": engine.table, "Item": key("TXN", "trade")}},
                {
                    "Update": {
                        "TableName": engine.table,
                        "Key": key("TXN", "cash"),
                        "UpdateExpression": "SET v = :v",
                        "ExpressionAttributeValues": {":v": {"N": "5"}},
                    }
                },
                {
                    "Put": {
                        "TableName": engine.table,
                        "Item": key("TXN", "guard"),
                        "ConditionExpression": "attribute_not_exists(PK)",
                        "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
                    }
                },
            ]
        )
    reasons = raised.value.response["CancellationReasons"]  # type: ignore[typeddict-item]
    assert [reason["Code"] for reason in reasons] == ["None", "None", "ConditionalCheckFailed"]
    assert reasons[2]["Item"] == existing
    assert "ConditionalCheckFailed" in error_message(raised.value)
    assert engine.get("TXN", "trade") is None
    assert engine.get("TXN", "cash") is None
    assert engine.get("TXN", "guard") == existing


def test_item_size_limit(engine: Engine) -> None:
    """Over 400 KiB is refused whole on both; moto's own limit is 405,000 bytes, lower than
    the service's 409,600, so items between the two are refused on moto only."""
    engine.client.put_item(TableName=engine.table, Item=item_of_size("SIZE-A", MOTO_MAX_ITEM_BYTES))
    assert engine.get("SIZE-A") is not None

    with pytest.raises(ClientError) as raised:
        engine.client.put_item(
            TableName=engine.table, Item=item_of_size("SIZE-B", MAX_ITEM_BYTES + 1)
        )
    assert error_code(raised.value) == "ValidationException"
    assert error_message(raised.value) == "Item size has exceeded the maximum allowed size"
    assert engine.get("SIZE-B") is None

    at_limit = item_of_size("SIZE-C", MAX_ITEM_BYTES)
    if engine.is_local:
        engine.client.put_item(TableName=engine.table, Item=at_limit)
        assert engine.get("SIZE-C") == at_limit
    else:
        with pytest.raises(ClientError) as raised:
            engine.client.put_item(TableName=engine.table, Item=at_limit)
        assert error_code(raised.value) == "ValidationException"
        assert engine.get("SIZE-C") is None


def test_oversized_item_in_a_transaction_cancels_nothing_written(engine: Engine) -> None:
    with pytest.raises(ClientError) as raised:
        engine.client.transact_write_items(
            TransactItems=[
                {"Put": {"TableName": engine.table, "Item": key("TXN-BIG", "small")}},
                {"Put": {"TableName": engine.table, "Item": item_of_size("TXN-BIG", 410_000)}},
            ]
        )
    assert error_code(raised.value) == "ValidationException"
    assert engine.count("TXN-BIG") == 0


def test_update_growing_an_item_past_the_limit(engine: Engine) -> None:
    """Refused on both; DynamoDB Local applies none of it, moto keeps the actions it ran before
    the one that overflowed (here ``n``)."""
    third = "y" * (300 * 1024)
    original = {**key("GROW"), "a": {"S": third}, "n": {"N": "1"}}
    engine.client.put_item(TableName=engine.table, Item=original)
    with pytest.raises(ClientError) as raised:
        engine.client.update_item(
            TableName=engine.table,
            Key=key("GROW"),
            UpdateExpression="SET n = :n, b = :b",
            ExpressionAttributeValues={":n": {"N": "2"}, ":b": {"S": third}},
        )
    assert error_code(raised.value) == "ValidationException"
    assert (
        error_message(raised.value) == "Item size to update has exceeded the maximum allowed size"
    )
    if engine.is_local:
        assert engine.get("GROW") == original
    else:
        assert engine.get("GROW") == {**original, "n": {"N": "2"}}


def test_oversized_update_of_an_absent_item(engine: Engine) -> None:
    """DynamoDB Local writes nothing; moto creates the item (keys only) before it fails."""
    with pytest.raises(ClientError) as raised:
        engine.client.update_item(
            TableName=engine.table,
            Key=key("ABSENT"),
            UpdateExpression="SET b = :b",
            ExpressionAttributeValues={":b": {"S": "z" * (MAX_ITEM_BYTES + 1)}},
        )
    assert error_code(raised.value) == "ValidationException"
    if engine.is_local:
        assert engine.get("ABSENT") is None
    else:
        assert engine.get("ABSENT") == key("ABSENT")


def test_update_replacing_a_large_attribute(engine: Engine) -> None:
    """An item stays at ~250 KB; moto counts the replaced value too (~500 KB) and refuses."""
    engine.client.put_item(TableName=engine.table, Item={**key("BLOB"), "a": {"S": "q" * 256_000}})
    replacement = {"S": "r" * 256_000}

    def replace() -> None:
        engine.client.update_item(
            TableName=engine.table,
            Key=key("BLOB"),
            UpdateExpression="SET a = :a",
            ExpressionAttributeValues={":a": replacement},
        )

    if engine.is_local:
        replace()
        assert engine.get("BLOB") == {**key("BLOB"), "a": replacement}
    else:
        with pytest.raises(ClientError) as raised:
            replace()
        assert error_code(raised.value) == "ValidationException"
        assert engine.get("BLOB") == {**key("BLOB"), "a": {"S": "q" * 256_000}}
    # A PutItem replacing the whole item is fine on both.
    engine.client.put_item(TableName=engine.table, Item={**key("BLOB"), "a": replacement})


def _puts(engine: Engine, pk: str, count: int) -> list[TransactWriteItemTypeDef]:
    return [{"Put": {"TableName": engine.table, "Item": key(pk, f"{i:03d}")}} for i in range(count)]


def test_transaction_of_more_than_100_items_is_refused(engine: Engine) -> None:
    with pytest.raises(ClientError) as raised:
        engine.client.transact_write_items(TransactItems=_puts(engine, "TXN-101", 101))
    assert error_code(raised.value) == "ValidationException"
    assert "Member must have length less than or equal to 100" in error_message(raised.value)
    assert engine.count("TXN-101") == 0

    engine.client.transact_write_items(TransactItems=_puts(engine, "TXN-100", 100))
    assert engine.count("TXN-100") == 100


def test_batch_write_of_more_than_25_items(engine: Engine) -> None:
    """The service (and DynamoDB Local) refuse a batch over 25 requests; moto writes it."""

    def batch(pk: str, count: int) -> None:
        requests: Any = [{"PutRequest": {"Item": key(pk, f"{i:03d}")}} for i in range(count)]
        answer = engine.client.batch_write_item(RequestItems={engine.table: requests})
        assert answer["UnprocessedItems"] == {}

    batch("BATCH-25", 25)
    assert engine.count("BATCH-25") == 25
    if engine.is_local:
        with pytest.raises(ClientError) as raised:
            batch("BATCH-26", 26)
        assert error_code(raised.value) == "ValidationException"
        assert error_message(raised.value) == "Too many items requested for the BatchWriteItem call"
        assert engine.count("BATCH-26") == 0
    else:
        batch("BATCH-26", 26)
        assert engine.count("BATCH-26") == 26


def test_numbers_over_38_significant_digits(engine: Engine) -> None:
    """Raw number strings, as a low-level client sends them (boto3's serializer never lets such
    a Decimal through: see the next test)."""
    engine.client.put_item(TableName=engine.table, Item={**key("NUM", "38"), "n": {"N": "1" * 38}})
    # Trailing zeros are not significant: 1 followed by 38 zeros is accepted by both.
    engine.client.put_item(
        TableName=engine.table, Item={**key("NUM", "1e38"), "n": {"N": "1" + "0" * 38}}
    )
    too_precise = {**key("NUM", "39"), "n": {"N": "1" * 39}}
    if engine.is_local:
        with pytest.raises(ClientError) as raised:
            engine.client.put_item(TableName=engine.table, Item=too_precise)
        assert error_code(raised.value) == "ValidationException"
        assert error_message(raised.value) == "DynamoDB only supports precision up to 38 digits"
        assert engine.get("NUM", "39") is None
    else:
        engine.client.put_item(TableName=engine.table, Item=too_precise)
        assert engine.get("NUM", "39") == too_precise


def test_boto3_serializer_refuses_39_digits_before_sending(dynamodb_local: DynamoDBLocal) -> None:
    """boto3's ``TypeSerializer`` (what the resource API uses) quantizes with
    ``DYNAMODB_CONTEXT`` (precision 38, Inexact and Rounded trapped): a Decimal with 39
    significant digits raises ``decimal.Inexact`` (signals ``[Inexact, Rounded]``); one whose
    39th digit is a trailing zero raises ``decimal.Rounded``, although the engine would accept
    it. Neither is a ``ClientError``, and no request leaves the process. The codec checks the
    digits itself instead: a typed ``StoreLimitError`` for 39, the trailing zero accepted."""
    serializer = TypeSerializer()
    with pytest.raises(decimal.Inexact) as inexact:
        serializer.serialize(Decimal("1" * 39))
    assert type(inexact.value) is decimal.Inexact
    assert inexact.value.args == ([decimal.Inexact, decimal.Rounded],)

    with pytest.raises(decimal.Rounded) as rounded:
        serializer.serialize(Decimal("1" + "0" * 38))
    assert type(rounded.value) is decimal.Rounded
    assert rounded.value.args == ([decimal.Rounded],)

    with pytest.raises(StoreLimitError):
        value(Decimal("1" * 39))
    assert value(Decimal("1" + "0" * 38)) == {"N": "1" + "0" * 38}

    resource = boto3.session.Session().resource(
        "dynamodb",
        endpoint_url=dynamodb_local.endpoint_url,
        region_name=REGION,
        aws_access_key_id=ACCESS_KEY_ID,
        aws_secret_access_key=SECRET_ACCESS_KEY,
    )
    table = resource.Table("never-created")
    sent: list[str] = []
    table.meta.client.meta.events.register(
        "before-send.dynamodb", lambda request, **_: sent.append(request.url)
    )
    with pytest.raises(decimal.Inexact):
        table.put_item(Item={"PK": "NUM", "SK": "39", "n": Decimal("1" * 39)})
    assert sent == []


def _add(engine: Engine, pk: str, amount: dict[str, str]) -> dict[str, Any]:
    answer = engine.client.update_item(
        TableName=engine.table,
        Key=key(pk),
        UpdateExpression="ADD #n :v",
        ExpressionAttributeNames={"#n": "n"},
        ExpressionAttributeValues={":v": amount},  # type: ignore[dict-item]
        ReturnValues="ALL_NEW",
    )
    return answer["Attributes"]


def test_add_of_a_zero_in_exponent_form(engine: Engine) -> None:
    """Quantizing a zero to 12 places gives ``Decimal("0E-12")``, which boto3's serializer sends
    as ``{"N": "0E-12"}`` (the codec writes ``0.000000000000`` instead). DynamoDB Local adds it;
    moto's ``ADD`` parses a number without a decimal point with ``int()`` and raises
    ``ValueError`` out of the call."""
    twelve_places = (Decimal("0.25") - Decimal("0.25")).quantize(Decimal("1E-12"))
    zero: dict[str, str] = {"N": TypeSerializer().serialize(twelve_places)["N"]}
    assert zero == {"N": "0E-12"}
    assert value(twelve_places) == {"N": "0.000000000000"}
    engine.client.put_item(TableName=engine.table, Item={**key("ADD"), "n": {"N": "1.5"}})
    if engine.is_local:
        added = _add(engine, "ADD", zero)
        assert Decimal(added["n"]["N"]) == Decimal("1.5")
        # To an absent attribute or item: the zero itself.
        assert Decimal(_add(engine, "ADD-NEW", zero)["n"]["N"]) == 0
        # Other exponent forms too.
        assert Decimal(_add(engine, "ADD", {"N": "1E+2"})["n"]["N"]) == Decimal("101.5")
    else:
        with pytest.raises(ValueError, match=r"invalid literal for int\(\) with base 10: '0E-12'"):
            _add(engine, "ADD", zero)
        with pytest.raises(ValueError, match=r"'1E\+2'"):
            _add(engine, "ADD", {"N": "1E+2"})
        assert engine.get("ADD") == {**key("ADD"), "n": {"N": "1.5"}}


def test_moto_add_can_store_an_exponent_form_it_cannot_add_to(engine: Engine) -> None:
    """moto formats ADD results with ``str(Decimal)``: adding twelve decimal places of zero to an
    absent attribute stores ``0E-12``, and the next ADD on it fails. DynamoDB Local keeps adding."""
    first = _add(engine, "ADD-TWICE", {"N": "0.000000000000"})
    assert Decimal(first["n"]["N"]) == 0
    if engine.is_local:
        assert Decimal(_add(engine, "ADD-TWICE", {"N": "1"})["n"]["N"]) == 1
    else:
        assert first["n"] == {"N": "0E-12"}
        with pytest.raises(ValueError, match="'0E-12'"):
            _add(engine, "ADD-TWICE", {"N": "1"})


def test_numbers_written_by_put_are_normalized(engine: Engine) -> None:
    """DynamoDB Local stores a number in canonical form (no exponent, no trailing or leading
    zeros), so a put ``0E-12`` reads back ``0``; moto keeps the string as sent, and an ``0E-12``
    stored there breaks its later ADDs (previous tests)."""
    sent = ["0E-12", "1.500", "1E+2", "-0", "0.0", "00012", "1.5E-12"]
    attributes = {f"a{i}": {"N": number} for i, number in enumerate(sent)}
    engine.client.put_item(TableName=engine.table, Item={**key("CANON"), **attributes})
    stored = engine.get("CANON")
    assert stored is not None
    read = [stored[f"a{i}"]["N"] for i in range(len(sent))]
    if engine.is_local:
        assert read == ["0", "1.5", "100", "0", "0", "12", "0.0000000000015"]
    else:
        assert read == sent


def test_strongly_consistent_reads_see_the_last_write(engine: Engine) -> None:
    for version in range(1, 6):
        engine.client.put_item(
            TableName=engine.table,
            Item={**key("READ", f"{version:02d}"), "v": {"N": str(version)}},
        )
        engine.client.update_item(
            TableName=engine.table,
            Key=key("READ", "head"),
            UpdateExpression="SET v = :v",
            ExpressionAttributeValues={":v": {"N": str(version)}},
        )
        assert engine.get("READ", "head") == {**key("READ", "head"), "v": {"N": str(version)}}
        answer = engine.client.query(
            TableName=engine.table,
            KeyConditionExpression="PK = :pk AND begins_with(SK, :digit)",
            ExpressionAttributeValues={":pk": {"S": "READ"}, ":digit": {"S": "0"}},
            ConsistentRead=True,
        )
        assert [item["v"]["N"] for item in answer["Items"]] == [
            str(v) for v in range(1, version + 1)
        ]


def test_consistent_read_on_a_global_secondary_index(engine: Engine) -> None:
    """Global secondary indexes are eventually consistent: the service refuses ConsistentRead
    on them, and so does DynamoDB Local."""

    def query() -> Any:
        return engine.client.query(
            TableName=engine.table,
            IndexName="GSI1",
            KeyConditionExpression="GSI1PK = :pk",
            ExpressionAttributeValues={":pk": {"S": "OPENPOS#m"}},
            ConsistentRead=True,
        )

    with pytest.raises(ClientError) as raised:
        query()
    assert error_code(raised.value) == "ValidationException"
    assert "Consistent reads are not supported on global secondary indexes" in error_message(
        raised.value
    )


# The harness itself: its failures must say what went wrong and leave no JVM behind.


class _RecordingServer(DynamoDBLocal):
    """Remembers the pid of every process it starts."""

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.pids: list[int] = []

    def _spawn(self, port: int) -> None:
        super()._spawn(port)
        if self.pid is not None:
            self.pids.append(self.pid)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_harness_reports_a_missing_java() -> None:
    with pytest.raises(DynamoDBLocalError, match=r"'no-such-java' was not found.*ensure-java"):
        DynamoDBLocal(java="no-such-java").start()


def test_harness_reports_the_output_of_a_process_that_exits(tmp_path: Path) -> None:
    broken = tmp_path / "DynamoDBLocal.jar"
    broken.write_text("not a jar")
    server = _RecordingServer(jar=broken)
    with pytest.raises(DynamoDBLocalError) as raised:
        server.start()
    assert "exited with status 1 while starting" in str(raised.value)
    assert "Invalid or corrupt jarfile" in str(raised.value)
    assert server.pid is None
    assert not any(_alive(pid) for pid in server.pids)


def test_harness_times_out_and_stops_the_process() -> None:
    server = _RecordingServer(startup_timeout=0.2)
    with pytest.raises(DynamoDBLocalError, match=r"did not answer on http://127\.0\.0\.1:\d+"):
        server.start()
    assert server.pid is None
    assert not any(_alive(pid) for pid in server.pids)
