"""Lineup releases on DynamoDB: one item per release in the ``LINEUP`` partition, written once
with ``attribute_not_exists``, so two writers of the same release number cannot both win."""

from __future__ import annotations

from arena_core.adapters.dynamodb import schema as k
from arena_core.adapters.dynamodb.codec import decode, encode
from arena_core.adapters.dynamodb.table import ConditionFailed, Table
from arena_core.domain.releases import LineupRelease
from arena_core.ports.lineup_store import LineupStore


class DynamoLineupStore(LineupStore):
    def __init__(self, table: Table) -> None:
        self.table = table

    def releases(self) -> list[LineupRelease]:
        items = self.table.partition(k.LINEUP, k.RELEASE)
        return sorted((decode(LineupRelease, i) for i in items), key=lambda r: r.release)

    def add_release(self, release: LineupRelease) -> bool:
        item = encode(release, "lineup_release", k.lineup_release_key(release.release))
        try:
            self.table.put(item, condition="attribute_not_exists(PK)")
        except ConditionFailed:
            return False
        return True
