"""A table of the dataset: its rows, its CSV and its JSON, each computed on first use, and tables
joined from parts (each methodology's rows)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from functools import cached_property

from arena_core.dataset import exports
from arena_core.ports.publisher import digest as digest_of

Digests = tuple[str, str]  # the digests of a table's CSV and JSON


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
    def known_digests(self) -> Digests | None:
        """The digests, when known without computing the files (given, or computed already)."""
        return self._digests

    @property
    def digest(self) -> str:
        """The CSV's digest."""
        return self.digests[0]


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
