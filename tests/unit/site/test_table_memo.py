"""Site-wide tables written only when they changed (``site/table_memo.py``): left out only
when the manifest holds both files as they would be written now; a table whose digest is known
is then neither formatted nor serialized."""

from __future__ import annotations

from decimal import Decimal

import pytest

from arena_core.ports.publisher import digest
from arena_core.site import exports
from arena_core.site.table_memo import Csvs, Table, TableMemo, joined, joined_csv

ROWS: list[dict[str, object]] = [
    {"methodology": "v1", "family_id": f"f{i}", "display_name": f"Family {i}", "kind": "llm"}
    for i in range(3)
]


def _manifest(files: dict[str, bytes]) -> dict[str, str]:
    return {path: digest(body) for path, body in files.items()}


def _table(rows: list[dict[str, object]] = ROWS) -> Table:
    return Table.of("families", rows)


def test_a_table_is_written_then_left_out_while_unchanged() -> None:
    written: dict[str, tuple[str, str]] = {}
    first = TableMemo({}, written).files("data", _table())
    assert first == exports.table_files("data", "families", ROWS)
    assert TableMemo(_manifest(first), written).files("data", _table()) == {}
    changed = [*ROWS, {**ROWS[0], "family_id": "f9"}]
    assert TableMemo(_manifest(first), written).files("data", _table(changed)) == (
        exports.table_files("data", "families", changed)
    )


@pytest.mark.parametrize("lost", ["data/families.csv", "data/families.json"])
def test_a_file_the_manifest_does_not_hold_as_written_is_written_again(lost: str) -> None:
    """As after a publication that uploaded the carried record but failed before the file."""
    written: dict[str, tuple[str, str]] = {}
    first = TableMemo({}, written).files("data", _table())
    manifest = _manifest(first) | {lost: digest(b"an older version")}
    assert TableMemo(manifest, written).files("data", _table()) == first


def test_without_the_record_of_its_json_a_table_is_written_again() -> None:
    first = exports.table_files("data", "families", ROWS)
    assert TableMemo(_manifest(first), {}).files("data", _table()) == first


def test_a_known_digest_spares_the_rows_and_the_csv() -> None:
    written: dict[str, tuple[str, str]] = {}
    first = TableMemo({}, written).files("data", _table())
    computed: list[str] = []

    def rows() -> list[dict[str, object]]:
        computed.append("rows")
        return list(ROWS)

    known = Table("families", rows, digest=digest(first["data/families.csv"]))
    assert TableMemo(_manifest(first), written).files("data", known) == {}
    assert computed == []
    # The same table, not published as it would be written: computed then
    stale = Table("families", rows, digest=digest(first["data/families.csv"]))
    assert TableMemo({}, written).files("data", stale) == first and computed == ["rows"]


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
    assert joined("families", tables[:1]) is tables[0]
