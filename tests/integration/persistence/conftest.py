"""Every persistence test runs on three stores: the DynamoDB adapter on moto (requests
serialized, as moto needs), the same adapter on DynamoDB Local (AWS's own engine, with true
concurrency: no serialization), and the in-memory fake."""

from collections.abc import Iterator

import pytest

from arena_core.adapters.dynamodb import dynamo_stores
from arena_core.ports.stores import Stores
from arena_local.memory import memory_stores
from tests.support.aws import create_stores, embedded_aws
from tests.support.dynamodb_local import DynamoDBLocal
from tests.support.dynamodb_local_fixture import create_local_table, unique_table_name


@pytest.fixture(params=["dynamodb", "memory", "dynamodb-local"])
def stores(request: pytest.FixtureRequest) -> Iterator[Stores]:
    if request.param == "memory":
        yield memory_stores()
        return
    if request.param == "dynamodb-local":
        server: DynamoDBLocal = request.getfixturevalue("dynamodb_local")
        client = server.client()
        table = create_local_table(client, unique_table_name(request.node.name))
        try:
            yield dynamo_stores(client, table)
        finally:
            client.delete_table(TableName=table)
        return
    with embedded_aws():
        yield create_stores()
