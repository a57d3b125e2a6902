"""DynamoDB Local beside moto: how long the server takes to answer, and sequential request rates.

Prints the start-up time of DynamoDB Local (process start until ``ListTables`` answers; three
starts with the JVM's defaults, three with ``FAST_START_JVM_OPTIONS``, C1-only JIT and the
serial collector, which the test fixtures use), the time ``stop()`` takes, then the rate of
PutItem, GetItem (strongly consistent) and TransactWriteItems (3 items: a conditional Put, an
ADD Update, a Put) on DynamoDB Local and on moto (``tests.support.aws``, as the persistence
suite runs it), 500 of each, one at a time, after 100 of each to warm up. Rough figures for
planning; never asserted. ``BENCH_DDB_REQUESTS`` changes the count.
Run with `make bench` or `PYTHONPATH=. .venv/bin/python bench/bench_dynamodb_local.py`.
"""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Callable
from typing import Any

from arena_core.adapters.dynamodb.schema import create_table_kwargs
from tests.support.aws import dynamo_client, embedded_aws
from tests.support.dynamodb_local import FAST_START_JVM_OPTIONS, DynamoDBLocal
from tests.support.dynamodb_local_fixture import create_local_table

REQUESTS = int(os.environ.get("BENCH_DDB_REQUESTS", "500"))
WARMUP = 100
STARTS = 3
TABLE = "arena-bench"


def item(agent: int, serial: int) -> dict[str, Any]:
    """A trade-sized item: keys, index keys and a dozen attributes (~400 bytes)."""
    return {
        "PK": {"S": f"AGENT#bench-{agent}"},
        "SK": {"S": f"TRADE#{serial:08d}"},
        "GSI1PK": {"S": "OPENPOS#market-1"},
        "GSI1SK": {"S": f"2024-01-07T00:00:{serial % 60:02d}.000000Z"},
        "entity": {"S": "trade"},
        "market_id": {"S": "market-1"},
        "side": {"S": "YES"},
        "shares": {"N": "123.456789"},
        "price": {"N": "0.615"},
        "cost": {"N": "75.925925"},
        "opened_by": {"S": f"bench-{agent}.w001.t{serial:04d}"},
        "reason": {"S": "x" * 200},
    }


def transaction(table: str, serial: int) -> dict[str, Any]:
    trade = item(1, serial)
    return {
        "TransactItems": [
            {
                "Put": {
                    "TableName": table,
                    "Item": trade,
                    "ConditionExpression": "attribute_not_exists(PK)",
                }
            },
            {
                "Update": {
                    "TableName": table,
                    "Key": {"PK": {"S": "AGENT#bench-1"}, "SK": {"S": "PROFILE"}},
                    "UpdateExpression": "ADD cash :delta, version :one",
                    "ExpressionAttributeValues": {":delta": {"N": "-1.5"}, ":one": {"N": "1"}},
                }
            },
            {
                "Put": {
                    "TableName": table,
                    "Item": {
                        "PK": {"S": "AGENT#bench-1"},
                        "SK": {"S": f"OPEN#market-{serial}#YES"},
                        "trade": {"S": f"TRADE#{serial:08d}"},
                    },
                }
            },
        ]
    }


def rate(count: int, call: Callable[[int], object], offset: int = 0) -> tuple[float, float]:
    """(requests per second, mean milliseconds) of ``count`` sequential calls."""
    began = time.perf_counter()
    for n in range(count):
        call(offset + n)
    elapsed = time.perf_counter() - began
    return count / elapsed, elapsed / count * 1000


def request_rates(client: Any, table: str) -> dict[str, tuple[float, float]]:
    """Warm up, then time PutItem, GetItem and TransactWriteItems on one engine."""

    def put(n: int) -> object:
        return client.put_item(TableName=table, Item=item(2, n))

    def get(n: int) -> object:
        key = {"PK": {"S": "AGENT#bench-2"}, "SK": {"S": f"TRADE#{n % REQUESTS:08d}"}}
        return client.get_item(TableName=table, Key=key, ConsistentRead=True)

    def transact(n: int) -> object:
        return client.transact_write_items(**transaction(table, n))

    for call in (put, get, transact):
        rate(WARMUP, call, offset=1_000_000)
    return {
        "PutItem": rate(REQUESTS, put),
        "GetItem": rate(REQUESTS, get),
        "TransactWriteItems (3 items)": rate(REQUESTS, transact),
    }


def startup(jvm_options: tuple[str, ...]) -> tuple[list[float], list[float]]:
    starts, stops = [], []
    for _ in range(STARTS):
        server = DynamoDBLocal(jvm_options=jvm_options).start()
        starts.append(server.startup_seconds or 0.0)
        began = time.perf_counter()
        server.stop()
        stops.append(time.perf_counter() - began)
    return starts, stops


def local_rates(jvm_options: tuple[str, ...]) -> dict[str, tuple[float, float]]:
    with DynamoDBLocal(jvm_options=jvm_options) as server:
        client = server.client()
        return request_rates(client, create_local_table(client, TABLE))


def moto_rates() -> dict[str, tuple[float, float]]:
    with embedded_aws():
        client = dynamo_client()
        client.create_table(**create_table_kwargs(TABLE))
        return request_rates(client, TABLE)


def seconds(values: list[float]) -> str:
    listed = ", ".join(f"{v:.2f}" for v in values)
    return f"median {statistics.median(values):.2f} s ({listed})"


def main() -> None:
    variants = {"default JVM": (), "C1-only JVM": FAST_START_JVM_OPTIONS}
    print(f"DynamoDB Local start-up until ListTables answers ({STARTS} starts each):")
    for name, options in variants.items():
        starts, stops = startup(options)
        print(f"  {name:<12} start {seconds(starts)}; stop {seconds(stops)}")

    results = {f"DynamoDB Local, {name}": local_rates(opts) for name, opts in variants.items()}
    results["moto (tests.support.aws)"] = moto_rates()
    print(f"\nSequential requests, {REQUESTS} of each after {WARMUP} to warm up (req/s, mean ms):")
    operations = list(next(iter(results.values())))
    print(f"  {'':<28}" + "".join(f"{engine:>34}" for engine in results))
    for operation in operations:
        cells = "".join(
            f"{f'{per_second:,.0f} req/s  {ms:.2f} ms':>34}"
            for per_second, ms in (results[engine][operation] for engine in results)
        )
        print(f"  {operation:<28}{cells}")


if __name__ == "__main__":
    main()
