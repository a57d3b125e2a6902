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

from collections.abc import Mapping, Sequence

from arena_core.ports.publisher import digest
from arena_core.site import exports

Written = tuple[str, str]  # (the CSV's digest, the JSON's digest) when the JSON was written


class TableMemo:
    def __init__(self, published: Mapping[str, str], written: dict[str, Written]) -> None:
        """``published``: the manifest (path -> digest); ``written``: the carried record,
        updated in place with every table this memo writes."""
        self._published = published
        self._written = written

    def files(
        self, prefix: str, table: str, rows: Sequence[exports.Row], csv: bytes | None = None
    ) -> dict[str, bytes]:
        """The table's files (as ``exports.table_files``), or none when both are published as
        they would be written now. ``csv``: the table's CSV when already computed."""
        body = exports.to_csv(table, rows) if csv is None else csv
        csv_path, json_path = f"{prefix}/{table}.csv", f"{prefix}/{table}.json"
        key = f"{prefix}/{table}"
        csv_digest = digest(body)
        earlier = self._written.get(key)
        if (
            self._published.get(csv_path) == csv_digest
            and earlier is not None
            and earlier == (csv_digest, self._published.get(json_path))
        ):
            return {}
        data = exports.to_json(table, rows)
        self._written[key] = (csv_digest, digest(data))
        return {csv_path: body, json_path: data}


def joined_csv(parts: Sequence[bytes]) -> bytes:
    """One table's CSV from the CSVs of parts of its rows, in order: the first part's header,
    then every part's rows (a row's line does not depend on the rows around it)."""
    if not parts:
        raise ValueError("no part to join")
    first, *rest = parts
    return first + b"".join(part[part.index(b"\n") + 1 :] for part in rest)
