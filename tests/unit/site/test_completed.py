"""The completed cohorts' part of the returns tables (``site/completed.py``): assembled with
the live rows it is the table formatted whole; it holds under its key until a held position
ends; read back it is what was kept, and anything else is not trusted."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest

from arena_core.ports.publisher import digest
from arena_core.site import exports
from arena_core.site.completed import (
    CompletedPart,
    assembled_returns,
    completed_key,
    computed,
)

NOW = datetime(2026, 6, 1, tzinfo=UTC)
DONE = {"c2026-05-03", "c2026-05-10"}


def _row(family: str, cohort: str, pct: str) -> dict[str, object]:
    completed = cohort in DONE
    return {
        "methodology": "v1", "family_id": family, "cohort_id": cohort,
        "return_pct": Decimal(pct), "total_pnl": Decimal(pct) * 100, "trades": 2,
        "completed": completed, "matured": completed,
    }  # fmt: skip


ROWS = [  # the table's order: by family, then cohort
    _row(f, c, p)
    for f, p in (("a-family", "1.5"), ("b-family", "-2.25"), ("c-family", "0"))
    for c in ("c2026-05-03", "c2026-05-10", "c2026-05-17", "c2026-05-24")
]
DIGESTS = (digest(b"csv"), digest(b"json"))


def _part(until: timedelta | None = timedelta(days=3)) -> CompletedPart:
    positions: list[dict[str, object]] = [{"closes_at": NOW + until}] if until else []
    positions += [{"closes_at": NOW - timedelta(days=1)}, {"closes_at": None}]
    return computed(
        "key",
        NOW,
        returns=ROWS,
        completed=DONE,
        positions=positions,
        position_digests=DIGESTS,
        finals=[],
    )


def test_assembled_with_the_live_rows_it_is_the_table_formatted_whole() -> None:
    part = _part()
    assert len(part.returns) == 6  # three families, two completed cohorts
    live = [r for r in ROWS if r["cohort_id"] not in DONE]
    assert assembled_returns(part, live) == exports.bodies("family_returns", ROWS)
    # A live cohort's rows move: the completed lines stay as they were kept
    moved = [{**r, "return_pct": Decimal("9")} for r in live]
    whole = [r for r in ROWS if r["cohort_id"] in DONE] + moved
    whole.sort(key=lambda r: (str(r["family_id"]), str(r["cohort_id"])))
    assert assembled_returns(part, moved) == exports.bodies("family_returns", whole)


def test_the_part_holds_under_its_key_until_a_held_position_ends() -> None:
    part = _part()
    assert part.until == NOW + timedelta(days=3)
    assert part.holds("key", NOW + timedelta(days=2))
    assert not part.holds("key", NOW + timedelta(days=3))
    assert not part.holds("another key", NOW)
    assert _part(None).until is None and _part(None).holds("key", NOW + timedelta(days=999))


def test_the_key_moves_with_the_completed_cohorts_and_the_families() -> None:
    key = completed_key("v1", ["c1", "c2"], ["a", "b"])
    assert completed_key("v1", ["c2", "c1"], ["b", "a"]) == key
    assert completed_key("v1", ["c1"], ["a", "b"]) != key
    assert completed_key("v1", ["c1", "c2"], ["a"]) != key
    assert completed_key("v1+panel", ["c1", "c2"], ["a", "b"]) != key
    assert completed_key("v1", ["c1", "c2", "a"], ["b"]) != key  # no sliding across


def test_read_back_it_is_what_was_kept() -> None:
    part = _part()
    assert CompletedPart.load("key", part.dump()) == part


@pytest.mark.parametrize(
    "text",
    [
        "",
        "[]",
        '{"until": null, "returns": [], "positions": ["a", "b"], "as_of": null}',
        '{"until": "2026-06-04T00:00:00", "returns": [], "positions": [], "as_of": null}',
        '{"until": null, "returns": [[1, 2, 3, 4]], "positions": [], "as_of": null}',
        '{"until": null, "returns": [["a", "b", "c"]], "positions": [], "as_of": null}',
        '{"until": 5, "returns": [], "positions": [], "as_of": null}',
    ],
    ids=["empty", "list", "digests", "naive", "numbers", "three", "until"],
)
def test_anything_else_is_not_trusted(text: str) -> None:
    if text.startswith('{"until": "2026'):  # otherwise sound: only the moment is wrong
        text = text.replace('"positions": []', f'"positions": ["{DIGESTS[0]}", "{DIGESTS[1]}"]')
    assert CompletedPart.load("key", text) is None
