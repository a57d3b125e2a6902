"""Review 31: ``TableMemo`` leaves a table's JSON out when its CSV is unchanged, on the premise
that the JSON is a function of the CSV. Two rows that differ only where the CSV cannot show it
(a text cell the CSV guards against formulas, a cell cut at ``CSV_CELL_CHARS``) have the same
CSV and different JSON: a fresh publication writes the new JSON, a tick keeps the old."""

from __future__ import annotations

import pytest

from arena_core.ports.publisher import digest
from arena_core.site import exports
from arena_core.site.table_memo import Table, TableMemo


def _row(name: str) -> dict[str, object]:
    return {"methodology": "v1", "family_id": "f1", "display_name": name, "kind": "llm"}


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("=SUM(A1)", "'=SUM(A1)"),  # the CSV guards the first with the second's apostrophe
        ("x" * (exports.CSV_CELL_CHARS + 5), "x" * (exports.CSV_CELL_CHARS + 4) + "y"),
    ],
    ids=["formula-guard", "cut-cell"],
)
def test_a_change_only_the_json_shows_is_published(before: str, after: str) -> None:
    old, new = [_row(before)], [_row(after)]
    assert exports.to_csv("families", old) == exports.to_csv("families", new)  # the premise
    written: dict[str, tuple[str, str]] = {}
    first = TableMemo({}, written).files("data", Table.of("families", old))
    manifest = {path: digest(body) for path, body in first.items()}
    files = TableMemo(manifest, written).files("data", Table.of("families", new))
    fresh = exports.table_files("data", "families", new)
    published = {**first, **files}
    assert published["data/families.json"] == fresh["data/families.json"]
