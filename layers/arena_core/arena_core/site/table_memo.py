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

from collections.abc import Callable, Iterator, Mapping, Sequence
from functools import cached_property

from arena_core.ports.publisher import digest as digest_of
from arena_core.site import exports

Digests = tuple[str, str]  # the digests of a table's CSV and JSON
_HEX = frozenset("0123456789abcdef")


def kept_digests(text: str) -> Digests | None:
    """A table's digests as kept (``"csv json"``), or None when the text is not two digests
    (then the table is computed again, and its digests kept anew)."""
    parts = text.split(" ")
    if len(parts) == 2 and all(len(p) == 64 and set(p) <= _HEX for p in parts):
        return parts[0], parts[1]
    return None


class Table:
    """A site-wide table: its rows, its CSV and its JSON, each computed on first use.
    ``bodies``: how its CSV and JSON are computed otherwise than from its rows (a joined
    table's, from its parts'); ``digests``: their digests when known without computing them
    (the forecasts', kept between publications with what they were computed from)."""

    def __init__(
        self,
        name: str,
        rows: Callable[[], Sequence[exports.Row]],
        *,
        bodies: Callable[[], tuple[bytes, bytes]] | None = None,
        digests: Digests | None = None,
    ) -> None:
        self.name = name
        self._rows = rows
        self._bodies = bodies
        self._digests = digests

    @classmethod
    def of(cls, name: str, rows: Sequence[exports.Row]) -> Table:
        return cls(name, lambda: rows)

    @cached_property
    def rows(self) -> Sequence[exports.Row]:
        return self._rows()

    @cached_property
    def _both(self) -> tuple[bytes, bytes]:
        if self._bodies is not None:
            return self._bodies()
        return exports.bodies(self.name, self.rows)

    @property
    def csv(self) -> bytes:
        return self._both[0]

    @property
    def json(self) -> bytes:
        return self._both[1]

    @property
    def digests(self) -> Digests:
        if self._digests is None:
            self._digests = (digest_of(self.csv), digest_of(self.json))
        return self._digests

    @property
    def digest(self) -> str:
        """The CSV's digest."""
        return self.digests[0]


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


class Csvs(Mapping[str, bytes]):
    """Tables by name as their CSV, each computed when first read (``boards.build`` reads
    the forecasts only when their statistics are not kept)."""

    def __init__(self, tables: Mapping[str, Table]) -> None:
        self._tables = tables

    def __getitem__(self, name: str) -> bytes:
        return self._tables[name].csv

    def __contains__(self, name: object) -> bool:  # without computing the CSV
        return name in self._tables

    def __iter__(self) -> Iterator[str]:
        return iter(self._tables)

    def __len__(self) -> int:
        return len(self._tables)


def joined(name: str, parts: Sequence[Table]) -> Table:
    """One table of several tables' rows, in order (each methodology's): the table itself when
    there is one part."""
    if len(parts) == 1:
        return parts[0]
    return Table(
        name,
        lambda: [row for part in parts for row in part.rows],
        bodies=lambda: (
            joined_csv([part.csv for part in parts]),
            joined_json([part.json for part in parts]),
        ),
    )


def joined_csv(parts: Sequence[bytes]) -> bytes:
    """One table's CSV from the CSVs of parts of its rows, in order: the first part's header,
    then every part's rows (a row's line does not depend on the rows around it)."""
    if not parts:
        raise ValueError("no part to join")
    first, *rest = parts
    return first + b"".join(part[part.index(b"\n") + 1 :] for part in rest)


def joined_json(parts: Sequence[bytes]) -> bytes:
    """One table's JSON from the JSON of parts of its rows, in order (``exports.to_json``'s
    layout: ``[]`` when empty, else one item per row between ``[\n`` and ``\n]``)."""
    items = [part[2:-2] for part in parts if part != b"[]"]
    return b"[\n" + b",\n".join(items) + b"\n]" if items else b"[]"
