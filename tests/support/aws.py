"""Embedded AWS (moto) for tests: credentials that go nowhere and the arena table."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from typing import Any

import boto3
from moto import mock_aws

from arena_core.adapters.dynamodb import create_table_kwargs, dynamo_stores
from arena_core.ports.stores import Stores
from arena_local.moto_shims import AtomicClient, lean_dynamodb

TABLE = "arena-test"
FAKE_ENV = {
    "AWS_DEFAULT_REGION": "us-east-1",
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_SECURITY_TOKEN": "testing",
    "AWS_SESSION_TOKEN": "testing",
}


@contextmanager
def embedded_aws(*, lean: bool = True) -> Iterator[None]:
    """moto with the demo's DynamoDB speed-ups (``lean=False`` for moto as shipped): the whole
    persistence suite then also checks that they change no answer."""
    saved = {k: os.environ.get(k) for k in FAKE_ENV}
    os.environ.update(FAKE_ENV)
    try:
        with mock_aws(), lean_dynamodb() if lean else nullcontext():
            yield
    finally:
        for name, old in saved.items():
            if old is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = old


def dynamo_client() -> Any:
    return AtomicClient(boto3.client("dynamodb", region_name=FAKE_ENV["AWS_DEFAULT_REGION"]))


def create_stores(table: str = TABLE) -> Stores:
    """Create the table (same key schema as the CDK app) and the stores on it."""
    client = dynamo_client()
    client.create_table(**create_table_kwargs(table))
    return dynamo_stores(client, table)
