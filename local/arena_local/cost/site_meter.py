"""What the meter cannot see in boto3 calls: the site's requests and the table's shape.

The demo publishes to a local folder, not to S3, so the site's requests are counted at the
publisher port (``MeteredPublisher``): each object uploaded (the manifest's parts included) is
a PUT, each object read back (the manifest's parts, the carried inputs, the tables carried over)
a GET, and the bytes uploaded are what becomes noncurrent versions once replaced.
``table_stats`` measures the table as DynamoDB bills its storage: each item's size plus 100
bytes of overhead, and once more in each global secondary index the item is in (both project
every attribute).
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from arena_core.adapters.dynamodb.limits import item_size
from arena_core.adapters.dynamodb.schema import GSI1PK, GSI2PK
from arena_core.ports.manifest import ManifestPublisher
from arena_core.ports.publisher import PublishReport
from arena_local.cost.meter import Meter

ITEM_OVERHEAD = 100  # bytes DynamoDB bills per item (and per item in each index)


class MeteredPublisher(ManifestPublisher):
    """A publisher counting its requests and bytes under the function publishing: each
    object it reads (a part of the manifest included) and each it writes, as S3 bills them."""

    def __init__(self, inner: ManifestPublisher, meter: Meter) -> None:
        self._inner = inner
        self._meter = meter
        self._lock = threading.Lock()

    def publish(
        self, files: Mapping[str, bytes], known: Mapping[str, str] | None = None
    ) -> PublishReport:
        with self._lock:  # one publication at a time, as the folder publisher it wraps
            return super().publish(files, known)

    def check(self, path: str) -> None:
        self._inner.check(path)

    def put(self, path: str, body: bytes) -> None:
        usage = self._meter.current()
        usage.site_uploads += 1
        usage.site_upload_bytes += len(body)
        self._inner.put(path, body)

    def read(self, path: str) -> bytes | None:
        self._meter.current().site_reads += 1
        return self._inner.read(path)


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
