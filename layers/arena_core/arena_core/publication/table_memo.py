"""Site-wide tables written only when they changed.

The leaderboard's tables are regenerated after every snapshot; most of them (every forecast,
every completed cohort's position) change a few times a day, not every ten minutes. Serializing
them on every tick and uploading them was most of a tick's time after a year. A table's files
are left out of a publication when the manifest holds both as they would be written now: the
digests of its CSV and of its JSON equal those of the files computed now (or kept with what
they are computed from: the forecasts', ``site/collect.py``). Both are compared because
neither file is a function of the other: the CSV guards a formula-like text with an apostrophe
and cuts a very long one, an empty text and a missing value are both an empty CSV cell, and the
JSON keeps them apart. A publication that failed half-way is written again by the next one:
the manifest names only what was uploaded.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from arena_core.dataset import exports
from arena_core.dataset.table import Digests, Table

_HEX = frozenset("0123456789abcdef")


def kept_digests(text: str) -> Digests | None:
    """A table's digests as kept (``"csv json"``), or None when the text is not two digests
    (then the table is computed again, and its digests kept anew)."""
    parts = text.split(" ")
    if len(parts) == 2 and all(len(p) == 64 and set(p) <= _HEX for p in parts):
        return parts[0], parts[1]
    return None


class TableMemo:
    def __init__(
        self, published: Mapping[str, str], kept: dict[str, tuple[str, str]] | None = None
    ) -> None:
        """``published``: the manifest (path -> digest); ``kept``: the digests of tables that
        are a function of a key (``keyed``), carried between publications and updated in
        place."""
        self._published = published
        self._kept = kept

    def keyed(self, name: str, rows: Callable[[], Sequence[exports.Row]], key: str | None) -> Table:
        """A table whose files are a function of ``key`` (None: of nothing known): its
        digests as kept under the key, else computed (and kept under it)."""
        if key is None or self._kept is None:
            return Table(name, rows)
        slot = f"tables/{name}"
        earlier = self._kept.get(slot)
        known = kept_digests(earlier[1]) if earlier is not None and earlier[0] == key else None
        if known is not None:
            return Table(name, rows, digests=known)
        table = Table(name, rows)
        self._kept[slot] = (key, " ".join(table.digests))
        return table

    def files(self, prefix: str, table: Table) -> dict[str, bytes]:
        """The table's files (as ``exports.table_files``), or none when both are published as
        they would be written now (then neither its rows nor its files need be computed, when
        its digests are known)."""
        csv_path, json_path = f"{prefix}/{table.name}.csv", f"{prefix}/{table.name}.json"
        if table.digests == (self._published.get(csv_path), self._published.get(json_path)):
            return {}
        return {csv_path: table.csv, json_path: table.json}
