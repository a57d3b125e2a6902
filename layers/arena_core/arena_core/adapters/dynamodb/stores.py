"""The store roles on one DynamoDB table: each role a store of its own over the same
``Table`` (one client, one retry policy), composed here."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from arena_core.adapters.dynamodb.cohorts import DynamoCohortStore
from arena_core.adapters.dynamodb.decisions import DynamoDecisionStore
from arena_core.adapters.dynamodb.ledger import DynamoLedgerStore
from arena_core.adapters.dynamodb.lineup import DynamoLineupStore
from arena_core.adapters.dynamodb.markets import DynamoMarketStore
from arena_core.adapters.dynamodb.panel import DynamoPanelStore
from arena_core.adapters.dynamodb.table import Table
from arena_core.adapters.dynamodb.views import DynamoViewStore
from arena_core.ports.stores import Stores


def dynamo_stores(
    client: Any,
    table_name: str,
    *,
    snapshot_ttl: timedelta | None = None,
    consistent_reads: bool = True,
) -> Stores:
    """Every role over one table, through ``client`` (a boto3 DynamoDB client); raw snapshots
    expire ``snapshot_ttl`` after they were taken (None: never). ``consistent_reads=False``
    gives stores for a reader that tolerates eventual consistency (a publication of the site):
    they must not be used to decide a write."""
    table = Table(client, table_name, consistent=consistent_reads)
    return Stores(
        cohorts=DynamoCohortStore(table),
        decisions=DynamoDecisionStore(table),
        ledger=DynamoLedgerStore(table),
        markets=DynamoMarketStore(table),
        views=DynamoViewStore(table, snapshot_ttl=snapshot_ttl),
        panel=DynamoPanelStore(table),
        lineups=DynamoLineupStore(table),
    )
