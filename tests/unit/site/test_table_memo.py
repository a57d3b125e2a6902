"""Site-wide tables written only when they changed (``site/table_memo.py``): left out only
when the manifest holds both files as they would be written now; a table whose digests are
known is then neither formatted nor serialized."""

from __future__ import annotations

from decimal import Decimal

import pytest

from arena_core.dataset import exports
from arena_core.dataset.table import Csvs, Table, joined, joined_csv, joined_json
from arena_core.ports.publisher import digest
from arena_core.publication.table_memo import TableMemo

ROWS: list[dict[str, object]] = [
    {"methodology": "v1", "family_id": f"f{i}", "display_name": f"Family {i}", "kind": "llm"}
    for i in range(3)
]


def _manifest(files: dict[str, bytes]) -> dict[str, str]:
    return {path: digest(body) for path, body in files.items()}


def _table(rows: list[dict[str, object]] = ROWS) -> Table:
    return Table.of("families", rows)


def test_a_table_is_written_then_left_out_while_unchanged() -> None:
    first = TableMemo({}).files("data", _table())
    assert first == exports.table_files("data", "families", ROWS)
    assert TableMemo(_manifest(first)).files("data", _table()) == {}
    changed = [*ROWS, {**ROWS[0], "family_id": "f9"}]
    assert TableMemo(_manifest(first)).files("data", _table(changed)) == (
        exports.table_files("data", "families", changed)
    )


@pytest.mark.parametrize("lost", ["data/families.csv", "data/families.json"])
def test_a_file_the_manifest_does_not_hold_as_written_is_written_again(lost: str) -> None:
    """As after a publication that failed before uploading the file."""
    first = TableMemo({}).files("data", _table())
    manifest = _manifest(first) | {lost: digest(b"an older version")}
    assert TableMemo(manifest).files("data", _table()) == first


def test_a_known_digest_spares_the_rows_and_the_files() -> None:
    first = TableMemo({}).files("data", _table())
    computed: list[str] = []

    def rows() -> list[dict[str, object]]:
        computed.append("rows")
        return list(ROWS)

    known = (digest(first["data/families.csv"]), digest(first["data/families.json"]))
    assert TableMemo(_manifest(first)).files("data", Table("families", rows, digests=known)) == {}
    assert computed == []
    # The same table, not published as it would be written: computed then
    stale = Table("families", rows, digests=known)
    assert TableMemo({}).files("data", stale) == first and computed == ["rows"]


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
    first = TableMemo({}).files("data", Table.of("families", old))
    files = TableMemo(_manifest(first)).files("data", Table.of("families", new))
    fresh = exports.table_files("data", "families", new)
    assert {**first, **files}["data/families.json"] == fresh["data/families.json"]
    assert files == fresh


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

    kept: dict[str, tuple[str, str]] = {}
    first = TableMemo({}, kept).keyed("families", rows, "k1")
    files = TableMemo({}, kept).files("data", first)
    assert files == exports.table_files("data", "families", ROWS) and made == ["rows"]
    again = TableMemo(_manifest(files), kept).keyed("families", rows, "k1")
    assert TableMemo(_manifest(files), kept).files("data", again) == {} and made == ["rows"]
    # Another key, no key, or nothing kept: formatted again
    others = [
        TableMemo(_manifest(files), kept).keyed("families", rows, "k2"),
        TableMemo(_manifest(files), kept).keyed("families", rows, None),
        TableMemo(_manifest(files)).keyed("families", rows, "k2"),
    ]
    assert {t.digests for t in others} == {again.digests} and made == ["rows"] * 4
    assert kept["tables/families"][0] == "k2"
