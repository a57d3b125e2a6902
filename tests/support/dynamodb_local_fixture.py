"""pytest fixtures for DynamoDB Local: one server per test session, a fresh table per test.

A conftest (or a test module) makes them available by importing them::

    from tests.support.dynamodb_local_fixture import dynamodb_local, dynamodb_local_table

- ``dynamodb_local`` (session scope): a started :class:`DynamoDBLocal` (with
  ``FAST_START_JVM_OPTIONS``), stopped when the session ends. Under pytest-xdist each worker
  starts its own server, on its own free port.
- ``dynamodb_local_table`` (function scope): a :class:`LocalTable` (client and name) for a table
  created with the deployed key schema (``create_table_kwargs``) under a unique name, and
  deleted after the test.

:func:`create_local_table` does the same outside a fixture (benchmarks, other fixtures).

When the jar or Java is missing the fixtures fail (they do not skip) with the command that
installs it: ``make test`` runs ``npm ci`` and ``scripts/ensure-java`` before pytest.
"""

from __future__ import annotations

import atexit
import itertools
import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

import pytest

from arena_core.adapters.dynamodb.schema import create_table_kwargs
from tests.support.dynamodb_local import (
    FAST_START_JVM_OPTIONS,
    DynamoDBLocal,
    DynamoDBLocalError,
)

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient

# DynamoDB table names: 3 to 255 characters of [a-zA-Z0-9_.-] (DynamoDB Local enforces both).
_NOT_IN_TABLE_NAME = re.compile(r"[^a-zA-Z0-9_.-]+")
_TABLE_PREFIX_LENGTH = 60
_serial = itertools.count(1)


@dataclass(frozen=True)
class LocalTable:
    """A table on DynamoDB Local and a client for it."""

    client: DynamoDBClient
    name: str


def unique_table_name(hint: str = "arena") -> str:
    """A valid table name, unique in this process, that starts with ``hint`` (sanitized)."""
    prefix = _NOT_IN_TABLE_NAME.sub("-", hint).strip("-.")[:_TABLE_PREFIX_LENGTH] or "arena"
    return f"{prefix}-{next(_serial):05d}"


def create_local_table(client: DynamoDBClient, name: str | None = None) -> str:
    """Create the arena table (the CDK app's key schema) and return its name.

    DynamoDB Local creates a table synchronously: ``CreateTable`` already answers ``ACTIVE``
    (indexes included) unless the server runs with ``-delayTransientStatuses``, so no waiter
    runs in the usual case; one that polls every second covers the other.
    """
    table = name or unique_table_name()
    created = client.create_table(**create_table_kwargs(table))
    description = created["TableDescription"]
    indexes = description.get("GlobalSecondaryIndexes", [])
    if description.get("TableStatus") != "ACTIVE" or any(
        index.get("IndexStatus") != "ACTIVE" for index in indexes
    ):
        client.get_waiter("table_exists").wait(
            TableName=table, WaiterConfig={"Delay": 1, "MaxAttempts": 60}
        )
    return table


_shared: DynamoDBLocal | None = None
_shared_lock = threading.Lock()


def shared_server() -> DynamoDBLocal:
    """The process's DynamoDB Local server, started on first use and stopped at exit: for code
    that fixtures do not reach (hypothesis state machines, benchmarks)."""
    global _shared  # noqa: PLW0603 - one server per process
    with _shared_lock:
        if _shared is None:
            server = DynamoDBLocal(jvm_options=FAST_START_JVM_OPTIONS).start()
            atexit.register(server.stop)
            _shared = server
        return _shared


@pytest.fixture(scope="session")
def dynamodb_local() -> Iterator[DynamoDBLocal]:
    """One DynamoDB Local server for the whole session (stopped at its end)."""
    global _shared  # noqa: PLW0603
    try:
        server = shared_server()
    except DynamoDBLocalError as error:
        pytest.fail(f"DynamoDB Local did not start: {error}", pytrace=False)
    try:
        yield server
    finally:
        with _shared_lock:
            server.stop()
            _shared = None


@pytest.fixture
def dynamodb_local_table(
    dynamodb_local: DynamoDBLocal, request: pytest.FixtureRequest
) -> Iterator[LocalTable]:
    """A fresh arena table on the session's DynamoDB Local, deleted after the test."""
    client = dynamodb_local.client()
    name = create_local_table(client, unique_table_name(request.node.name))
    try:
        yield LocalTable(client, name)
    finally:
        client.delete_table(TableName=name)
