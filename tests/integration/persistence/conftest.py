"""Every persistence test runs against the DynamoDB adapter (moto) and the in-memory fake."""

from collections.abc import Iterator

import pytest

from arena_core.adapters.memory import InMemoryRepository
from arena_core.ports.repository import Repository
from tests.support.aws import create_repository, embedded_aws


@pytest.fixture(params=["dynamodb", "memory"])
def repo(request: pytest.FixtureRequest) -> Iterator[Repository]:
    if request.param == "memory":
        yield InMemoryRepository()
        return
    with embedded_aws():
        yield create_repository()
