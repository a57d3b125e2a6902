"""Every persistence test runs against the DynamoDB adapter (moto) and the in-memory fake."""

from collections.abc import Iterator

import pytest

from arena_core.ports.stores import Stores
from arena_local.memory import memory_stores
from tests.support.aws import create_stores, embedded_aws


@pytest.fixture(params=["dynamodb", "memory"])
def stores(request: pytest.FixtureRequest) -> Iterator[Stores]:
    if request.param == "memory":
        yield memory_stores()
        return
    with embedded_aws():
        yield create_stores()
