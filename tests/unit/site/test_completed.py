"""The sealed cohorts' part of the returns tables (``publication/completed.py``): assembled with
the live rows it is the table formatted whole, and its records are the table parsed whole; the
memo keeps it under what it is computed from until a held position ends; read back it is what
was kept, and anything else is not trusted."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest

from arena_core.analysis import dataset
from arena_core.dataset import exports
from arena_core.ports.publisher import digest
from arena_core.publication.completed import CompletedPart, LiveReturns, computed
from arena_core.publication.memo import inputs_digest
from arena_core.publication.slots import COMPLETED
from tests.support.memo import Bookkeeping

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
    assert LiveReturns(part, live).bodies() == exports.bodies("family_returns", ROWS)
    # A live cohort's rows move: the completed lines stay as they were kept
    moved = [{**r, "return_pct": Decimal("9")} for r in live]
    whole = [r for r in ROWS if r["cohort_id"] in DONE] + moved
    whole.sort(key=lambda r: (str(r["family_id"]), str(r["cohort_id"])))
    assert LiveReturns(part, moved).bodies() == exports.bodies("family_returns", whole)


def _parsed_whole(rows: list[dict[str, object]]) -> list[dataset.CohortRecord]:
    csv, _ = exports.bodies("family_returns", rows)
    table = dataset.parse_table("family_returns", csv, dataset.RETURN_COLUMNS)
    return dataset.cohort_records(table)


def test_its_records_with_the_live_rows_are_the_table_parsed_whole() -> None:
    part = CompletedPart.load(_part().dump())  # as a tick finds it: read back
    assert len(part.records) == 6
    live = [r for r in ROWS if r["cohort_id"] not in DONE]
    assert LiveReturns(part, live).records() == _parsed_whole(ROWS)
    moved = [{**r, "return_pct": Decimal("-7.125"), "trades": 5} for r in live]
    whole = sorted(
        [r for r in ROWS if r["cohort_id"] in DONE] + moved,
        key=lambda r: (str(r["family_id"]), str(r["cohort_id"])),
    )
    found = LiveReturns(part, moved).records()
    assert found == _parsed_whole(whole)
    assert [r.trades for r in found if r.result.cohort_id not in DONE] == [5] * 6


def _kept_at(books: Bookkeeping, at: datetime, inputs: object, part: CompletedPart) -> str:
    """Ask the memo for the part at ``at``: what it says of the kept one ("hit" or why not)."""
    memo, objects = books.open(at)
    memo.get(COMPLETED, "board/v1/completed", inputs, lambda: part, until=lambda p: p.until)
    books.save(memo, objects)
    return dict(memo.misses).get("board/v1/completed", "hit")


def test_the_part_holds_under_its_inputs_until_a_held_position_ends() -> None:
    part = _part()
    assert part.until == NOW + timedelta(days=3)
    books = Bookkeeping()
    assert _kept_at(books, NOW, ["v1", ["c1"]], part) == "absent"
    assert _kept_at(books, NOW + timedelta(days=2), ["v1", ["c1"]], part) == "hit"
    assert _kept_at(books, NOW + timedelta(days=2), ["v1", ["c2"]], part) == "inputs changed"
    found = _kept_at(books, NOW + timedelta(days=3), ["v1", ["c2"]], part)
    assert found.startswith("expired at 2026-06-04")
    assert _part(None).until is None
    assert _kept_at(books, NOW, ["v1"], _part(None)) == "inputs changed"
    assert _kept_at(books, NOW + timedelta(days=999), ["v1"], _part(None)) == "hit"


def test_the_inputs_move_with_the_sealed_cohorts_and_the_families() -> None:
    key = inputs_digest(["v1", ["c1", "c2"], ["a", "b"]])
    assert inputs_digest(["v1", ["c1", "c2"], ["a", "b"]]) == key
    assert inputs_digest(["v1", ["c1"], ["a", "b"]]) != key
    assert inputs_digest(["v1", ["c1", "c2"], ["a"]]) != key
    assert inputs_digest(["v1+panel", ["c1", "c2"], ["a", "b"]]) != key
    assert inputs_digest(["v1", ["c1", "c2", "a"], ["b"]]) != key  # no sliding across


def test_read_back_it_is_what_was_kept() -> None:
    part = _part()
    assert CompletedPart.load(part.dump()) == part


def _sound() -> dict[str, object]:
    """A kept part of one row that reads back."""
    return {
        "until": None, "family_id": ["a"], "cohort_id": ["c1"], "line": ["l"], "item": ["i"],
        "return_pct": [1.5], "total_pnl": ["150.00"], "trades": [2], "matured": [True],
        "positions": list(DIGESTS), "as_of": None,
    }  # fmt: skip


def test_a_sound_part_reads_back() -> None:
    part = CompletedPart.load(json.dumps(_sound()))
    assert part.returns == (("a", "c1", "l", "i"),)
    (record,) = part.records
    assert (record.result.family_id, record.result.cohort_id) == ("a", "c1")
    assert (record.result.return_pct, record.total_pnl, record.trades) == (1.5, Decimal(150), 2)


BROKEN: dict[str, dict[str, object]] = {
    "digests": {"positions": ["a", "b"]},
    "naive": {"until": "2026-06-04T00:00:00"},
    "until": {"until": 5},
    "numbers": {"family_id": [1]},
    "fewer-cohorts": {"cohort_id": []},
    "no-records": {"return_pct": None},
    "fewer-records": {"trades": []},
    "pnl-not-a-number": {"total_pnl": ["x"]},
    "pnl-a-number": {"total_pnl": [150.0]},
    "return-not-a-float": {"return_pct": [1]},
    "trades-a-flag": {"trades": [True]},
    "matured-a-count": {"matured": [1]},
}


@pytest.mark.parametrize("text", ["", "[]", "{}"], ids=["empty", "list", "object"])
def test_what_is_not_a_part_is_not_trusted(text: str) -> None:
    with pytest.raises((ValueError, TypeError)):
        CompletedPart.load(text)


@pytest.mark.parametrize("broken", list(BROKEN.values()), ids=list(BROKEN))
def test_anything_else_is_not_trusted(broken: dict[str, object]) -> None:
    text = json.dumps({**_sound(), **broken})
    with pytest.raises((ValueError, TypeError)):
        CompletedPart.load(text)
