"""Site-wide tables through the writer (``publication/files.py``, ``adapters/manifest.py``):
each file written only when its content changed (the CSV and the JSON apart: neither is a
function of the other); a table whose digests are known is then neither formatted nor
serialized; a keyed table's digests are kept by the memo."""

from __future__ import annotations

from decimal import Decimal

import pytest

from arena_core.adapters.manifest import ManifestPublisher
from arena_core.dataset import exports
from arena_core.dataset.table import Csvs, Table, joined, joined_csv, joined_json
from arena_core.errors import PersistenceError
from arena_core.ports.publisher import digest
from arena_core.publication.files import keyed, table_files
from tests.support.buckets import MemoryBucket, publish
from tests.support.memo import Bookkeeping

ROWS: list[dict[str, object]] = [
    {"methodology": "v1", "family_id": f"f{i}", "display_name": f"Family {i}", "kind": "llm"}
    for i in range(3)
]
PATHS = ("data/families.csv", "data/families.json")


def _table(rows: list[dict[str, object]] = ROWS) -> Table:
    return Table.of("families", rows)


def test_a_table_is_written_then_left_out_while_unchanged() -> None:
    bucket = MemoryBucket()
    publisher = ManifestPublisher(bucket)
    assert publish(publisher, table_files("data", _table())).uploaded == PATHS
    assert {p: bucket.objects[p] for p in PATHS} == exports.table_files("data", "families", ROWS)
    assert publish(publisher, table_files("data", _table())).uploaded == ()
    changed = [*ROWS, {**ROWS[0], "family_id": "f9"}]
    assert publish(publisher, table_files("data", _table(changed))).uploaded == PATHS


def test_a_table_a_failed_publication_did_not_record_is_written_again() -> None:
    """The CSV uploaded, then the publication failed: nothing of it is recorded, so the next
    one writes both files again."""
    bucket = MemoryBucket()
    publisher = ManifestPublisher(bucket)
    bucket.fail_after = 2  # the root (the lease) and the CSV
    with pytest.raises(PersistenceError):
        publish(publisher, table_files("data", _table()))
    bucket.fail_after = None
    publisher = ManifestPublisher(bucket)
    assert publish(publisher, table_files("data", _table())).uploaded == PATHS


def test_a_known_digest_spares_the_rows_and_the_files() -> None:
    publisher = ManifestPublisher(MemoryBucket())
    publish(publisher, table_files("data", _table()))
    computed: list[str] = []

    def rows() -> list[dict[str, object]]:
        computed.append("rows")
        return list(ROWS)

    known = _table().digests
    report = publish(publisher, table_files("data", Table("families", rows, digests=known)))
    assert (report.uploaded, report.unchanged, computed) == ((), 2, [])
    # The same table, not published as it would be written (another site): computed then
    other = ManifestPublisher(MemoryBucket())
    found = publish(other, table_files("data", Table("families", rows, digests=known)))
    assert found.uploaded == PATHS and computed == ["rows"]


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("=SUM(A1)", "'=SUM(A1)"),  # the CSV guards the first with the second's apostrophe
        ("x" * (exports.CSV_CELL_CHARS + 5), "x" * (exports.CSV_CELL_CHARS + 4) + "y"),
        ("", None),  # both an empty CSV cell
    ],
    ids=["formula-guard", "cut-cell", "empty-or-missing"],
)
def test_a_change_only_the_json_shows_is_published(before: str, after: str | None) -> None:
    """Review 31: neither file is a function of the other. Two rows the CSV cannot tell apart
    have different JSON: a tick writes the new JSON, as a fresh publication does."""

    def row(name: str | None) -> dict[str, object]:
        return {"methodology": "v1", "family_id": "f1", "display_name": name, "kind": "llm"}

    old, new = [row(before)], [row(after)]
    assert exports.to_csv("families", old) == exports.to_csv("families", new)  # the premise
    bucket = MemoryBucket()
    publisher = ManifestPublisher(bucket)
    publish(publisher, table_files("data", Table.of("families", old)))
    report = publish(publisher, table_files("data", Table.of("families", new)))
    fresh = exports.table_files("data", "families", new)
    assert report.uploaded == ("data/families.json",)
    assert bucket.objects["data/families.json"] == fresh["data/families.json"]


def test_tables_read_as_csv_only_when_read() -> None:
    made: list[str] = []

    def rows() -> list[dict[str, object]]:
        made.append("rows")
        return list(ROWS)

    lazy = Table("families", rows)
    csvs = Csvs({"families": lazy})
    assert list(csvs) == ["families"] and len(csvs) == 1 and "families" in csvs
    assert "forecasts" not in csvs and made == []
    assert csvs["families"] == exports.to_csv("families", ROWS) and made == ["rows"]
    assert lazy.digest == digest(csvs["families"]) and made == ["rows"]


def test_joined_parts_are_the_csv_of_every_row() -> None:
    rows: list[dict[str, object]] = [
        {"methodology": m, "family_id": "f", "display_name": 'a "quoted", name\non two lines'}
        for m in ("v1", "v1+panel")
    ]
    rows += [{"methodology": "v1", "family_id": "g", "weight": Decimal("0.5")}]
    parts = [exports.to_csv("families", rows[:1]), exports.to_csv("families", rows[1:])]
    assert joined_csv(parts) == exports.to_csv("families", rows)
    assert joined_csv(parts[:1]) == parts[0]
    with pytest.raises(ValueError, match="no part"):
        joined_csv([])
    tables = [Table.of("families", rows[:1]), Table.of("families", rows[1:])]
    whole = joined("families", tables)
    assert (whole.csv, list(whole.rows)) == (exports.to_csv("families", rows), rows)
    assert whole.json == exports.to_json("families", rows)
    assert joined("families", tables[:1]) is tables[0]


@pytest.mark.parametrize("split", [0, 1, 2, 3])
def test_joined_json_is_the_json_of_every_row(split: int) -> None:
    rows: list[dict[str, object]] = [
        {"methodology": "v1", "family_id": f"f{i}", "display_name": f'"{i}"\n'} for i in range(3)
    ]
    parts = [exports.to_json("families", rows[:split]), exports.to_json("families", rows[split:])]
    assert joined_json(parts) == exports.to_json("families", rows)
    assert joined_json([exports.to_json("families", [])] * 2) == b"[]"


def test_bodies_are_the_csv_and_the_json() -> None:
    extra: dict[str, object] = {"methodology": "v1", "family_id": "g", "display_name": "=1+1"}
    rows = [*ROWS, {**extra, "kind": None}]
    assert exports.bodies("families", rows) == (
        exports.to_csv("families", rows),
        exports.to_json("families", rows),
    )


def test_a_keyed_table_is_formatted_once_per_key() -> None:
    made: list[str] = []

    def rows() -> list[dict[str, object]]:
        made.append("rows")
        return list(ROWS)

    books = Bookkeeping()
    memo, objects = books.open()
    first = keyed(memo)("families", rows, "k1")
    assert (first.csv, first.json) == exports.bodies("families", ROWS) and made == ["rows"]
    books.save(memo, objects)
    memo, objects = books.open()
    again = keyed(memo)("families", rows, "k1")
    assert again.known_digests == first.digests and made == ["rows"]  # nothing formatted
    # Another key, or no key: formatted again
    others = [keyed(memo)("families", rows, "k2"), keyed(memo)("families", rows, None)]
    assert {t.digests for t in others} == {first.digests} and made == ["rows"] * 3
    assert dict(memo.misses) == {"board/tables/families": "inputs changed"}
