"""What the meter cannot see in boto3 calls: the site's requests and the table's shape.

The demo publishes to a local folder, not to S3, so the site's requests are counted at the
bucket (``MeteredBucket``): each object uploaded (the root and the manifest's parts included) is
a PUT, each object read (the root, the manifest's parts, the publication's state) a GET, and the
bytes uploaded are what becomes noncurrent versions once replaced.
``table_stats`` measures the table as DynamoDB bills its storage: each item's size plus 100
bytes of overhead, and once more in each global secondary index the item is in (both project
every attribute).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from arena_core.adapters.dynamodb.limits import item_size
from arena_core.adapters.dynamodb.schema import GSI1PK, GSI2PK
from arena_core.adapters.manifest import Bucket, ManifestPublisher
from arena_core.ports.publisher import (
    LazyFile,
    Opened,
    PublishReport,
    PublishSession,
    SitePublisher,
)
from arena_local.cost.meter import Meter

ITEM_OVERHEAD = 100  # bytes DynamoDB bills per item (and per item in each index)


class MeteredBucket(Bucket):
    """A bucket counting its requests and bytes under the function publishing: each object read
    (the root and the manifest's parts included), each written and each listing, as S3 bills
    them."""

    def __init__(self, inner: Bucket, meter: Meter) -> None:
        self._inner = inner
        self._meter = meter

    @property
    def identity(self) -> str:
        return self._inner.identity

    def get(self, key: str) -> tuple[bytes, str] | None:
        self._meter.current().site_reads += 1
        return self._inner.get(key)

    def put(self, key: str, body: bytes, *, match: str | None = None, absent: bool = False) -> str:
        usage = self._meter.current()
        usage.site_uploads += 1
        usage.site_upload_bytes += len(body)
        return self._inner.put(key, body, match=match, absent=absent)

    def listing(self) -> dict[str, str]:
        self._meter.current().site_reads += 1  # a LIST is billed as a PUT-class request; rare
        return self._inner.listing()


class MeteredPublisher(SitePublisher):
    """A publisher over a metered bucket that meters each publication on its own (from its
    lease taken to its lease released), under ``PENDING`` until its function's result names
    the scope it published (``Meter.wrap``)."""

    def __init__(self, inner: ManifestPublisher, meter: Meter) -> None:
        self._inner = ManifestPublisher(MeteredBucket(inner.bucket, meter))
        self._meter = meter

    @property
    def identity(self) -> str:
        return self._inner.identity

    def open(
        self, owner: str, now: datetime, lease: timedelta, *, hold: bool = True
    ) -> PublishSession:
        self._meter.publication_started()
        try:
            return _Metered(self._inner.open(owner, now, lease, hold=hold), self._meter)
        except BaseException:
            self._meter.publication_ended()
            raise

    def get(self, path: str) -> bytes | None:
        return self._inner.get(path)


class _Metered(PublishSession):
    """A session whose end (committed or released) closes its publication's metering."""

    def __init__(self, inner: PublishSession, meter: Meter) -> None:
        self._inner = inner
        self._meter = meter

    @property
    def opened(self) -> Opened:
        return self._inner.opened

    def hold(self) -> None:
        self._inner.hold()

    def read(self, key: str) -> bytes | None:
        return self._inner.read(key)

    def known(self, path: str) -> str | None:
        return self._inner.known(path)

    def publish(self, files: Iterable[LazyFile], *, repair: bool = False) -> PublishReport:
        return self._inner.publish(files, repair=repair)

    def commit(self, state: bytes) -> None:
        try:
            self._inner.commit(state)
        finally:
            self._meter.publication_ended()

    def release(self) -> None:
        try:
            self._inner.release()
        finally:
            self._meter.publication_ended()


@dataclass
class TableStats:
    """Bytes and items by entity, and the bytes the indexes hold (billed as storage too)."""

    bytes: Counter[str] = field(default_factory=Counter)
    items: Counter[str] = field(default_factory=Counter)
    index_bytes: Counter[str] = field(default_factory=Counter)

    def billed(self, entity: str) -> float:
        """Storage bytes as billed: items, their overhead, and their index copies."""
        return self.bytes[entity] + ITEM_OVERHEAD * self.items[entity] + self.index_bytes[entity]

    def minus(self, earlier: TableStats) -> TableStats:
        return TableStats(
            self.bytes - earlier.bytes,
            self.items - earlier.items,
            self.index_bytes - earlier.index_bytes,
        )


def table_stats(client: Any, table: str) -> TableStats:
    """The table's items, their DynamoDB sizes, counts and index copies, by entity."""
    stats = TableStats()
    kwargs: dict[str, Any] = {"TableName": table}
    while True:
        page = client.scan(**kwargs)
        for item in page.get("Items", []):
            entity = item.get("entity", {}).get("S", "other")
            if entity == "series":  # raw points expire, the others stay: apart
                entity = f"series-{item.get('resolution', {}).get('S', '')}"
            size = item_size(item)
            stats.bytes[entity] += size
            stats.items[entity] += 1
            copies = sum(1 for key in (GSI1PK, GSI2PK) if key in item)
            stats.index_bytes[entity] += copies * (size + ITEM_OVERHEAD)
        if "LastEvaluatedKey" not in page:
            return stats
        kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]


def table_bytes(client: Any, table: str) -> Counter[str]:
    """The table's item sizes summed by entity (what the demo reports)."""
    return table_stats(client, table).bytes
