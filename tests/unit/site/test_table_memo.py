"""Site-wide tables written only when they changed (``site/table_memo.py``): left out only
when the manifest holds both files as they would be written now."""

from __future__ import annotations

from decimal import Decimal

import pytest

from arena_core.ports.publisher import digest
from arena_core.site import exports
from arena_core.site.table_memo import TableMemo, joined_csv

ROWS = [
    {"methodology": "v1", "family_id": f"f{i}", "display_name": f"Family {i}", "kind": "llm"}
    for i in range(3)
]


def _manifest(files: dict[str, bytes]) -> dict[str, str]:
    return {path: digest(body) for path, body in files.items()}


def test_a_table_is_written_then_left_out_while_unchanged() -> None:
    written: dict[str, tuple[str, str]] = {}
    first = TableMemo({}, written).files("data", "families", ROWS)
    assert first == exports.table_files("data", "families", ROWS)
    again = TableMemo(_manifest(first), written).files("data", "families", ROWS)
    assert again == {}
    changed = [*ROWS, {**ROWS[0], "family_id": "f9"}]
    assert TableMemo(_manifest(first), written).files("data", "families", changed) == (
        exports.table_files("data", "families", changed)
    )


@pytest.mark.parametrize("lost", ["data/families.csv", "data/families.json"])
def test_a_file_the_manifest_does_not_hold_as_written_is_written_again(lost: str) -> None:
    """As after a publication that uploaded the carried record but failed before the file."""
    written: dict[str, tuple[str, str]] = {}
    first = TableMemo({}, written).files("data", "families", ROWS)
    manifest = _manifest(first) | {lost: digest(b"an older version")}
    assert TableMemo(manifest, written).files("data", "families", ROWS) == first


def test_without_the_record_of_its_json_a_table_is_written_again() -> None:
    first = exports.table_files("data", "families", ROWS)
    assert TableMemo(_manifest(first), {}).files("data", "families", ROWS) == first


def test_a_csv_given_is_the_one_written() -> None:
    csv = exports.to_csv("families", ROWS)
    files = TableMemo({}, {}).files("data", "families", ROWS, csv)
    assert files["data/families.csv"] is csv


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
