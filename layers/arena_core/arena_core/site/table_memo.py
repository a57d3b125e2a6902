"""Site-wide tables written only when they changed.

The leaderboard's tables are regenerated after every snapshot; most of them (every forecast,
every completed cohort's position) change a few times a day, not every ten minutes. Serializing
them to CSV and JSON on every tick was most of a tick's time after a year. A table's CSV is
always computed (the leaderboard's statistics are computed from it, and it decides whether the
table changed); its files are left out of a publication when both are published as they would
be written now:

- the CSV, when the manifest's digest of it equals the digest of the CSV computed now;
- the JSON (the same rows, another projection), when the carried record says it was written
  from that same CSV and the manifest still holds the JSON it wrote.

The second condition needs the carried record (``Carried.tables``): it is compared with the
manifest, so a publication that failed after the record was uploaded but before the JSON was
is written again by the next one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from functools import cached_property

from arena_core.ports.publisher import digest as digest_of
from arena_core.site import exports

Written = tuple[str, str]  # (the CSV's digest, the JSON's digest) when the JSON was written


class Table:
    """A site-wide table: its rows and its CSV, each computed on first use. ``digest``: the
    CSV's digest when it is known without computing it (the forecasts', kept between
    publications with what they were computed from: ``site/collect.py``)."""

    def __init__(
        self,
        name: str,
        rows: Callable[[], Sequence[exports.Row]],
        *,
        csv: Callable[[], bytes] | None = None,
        digest: str | None = None,
    ) -> None:
        self.name = name
        self._rows = rows
        self._csv = csv
        self._digest = digest

    @classmethod
    def of(cls, name: str, rows: Sequence[exports.Row]) -> Table:
        return cls(name, lambda: rows)

    @cached_property
    def rows(self) -> Sequence[exports.Row]:
        return self._rows()

    @cached_property
    def csv(self) -> bytes:
        return self._csv() if self._csv is not None else exports.to_csv(self.name, self.rows)

    @property
    def digest(self) -> str:
        if self._digest is None:
            self._digest = digest_of(self.csv)
        return self._digest


class TableMemo:
    def __init__(self, published: Mapping[str, str], written: dict[str, Written]) -> None:
        """``published``: the manifest (path -> digest); ``written``: the carried record,
        updated in place with every table this memo writes."""
        self._published = published
        self._written = written

    def files(self, prefix: str, table: Table) -> dict[str, bytes]:
        """The table's files (as ``exports.table_files``), or none when both are published as
        they would be written now (then neither its rows nor its CSV need be computed, when
        its digest is known)."""
        csv_path, json_path = f"{prefix}/{table.name}.csv", f"{prefix}/{table.name}.json"
        key = f"{prefix}/{table.name}"
        earlier = self._written.get(key)
        if (
            self._published.get(csv_path) == table.digest
            and earlier is not None
            and earlier == (table.digest, self._published.get(json_path))
        ):
            return {}
        data = exports.to_json(table.name, table.rows)
        self._written[key] = (table.digest, digest_of(data))
        return {csv_path: table.csv, json_path: data}


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
        csv=lambda: joined_csv([part.csv for part in parts]),
    )


def joined_csv(parts: Sequence[bytes]) -> bytes:
    """One table's CSV from the CSVs of parts of its rows, in order: the first part's header,
    then every part's rows (a row's line does not depend on the rows around it)."""
    if not parts:
        raise ValueError("no part to join")
    first, *rest = parts
    return first + b"".join(part[part.index(b"\n") + 1 :] for part in rest)
