"""Cells of a published table are read strictly: what is not a number, an integer or within
range is a ``DatasetError`` naming the table, the line and the column, never another exception
deeper in the analysis or its printing."""

from __future__ import annotations

import pytest

from arena_core.analysis.dataset import KEYS, Cell, cells
from arena_core.dataset import fields
from arena_core.errors import DatasetError


def cell(**row: str) -> Cell:
    return Cell("forecasts", 2, row)


@pytest.mark.parametrize("raw", ["²", "١", "-³", "１"])
def test_an_integer_is_ascii_digits_only(raw: str) -> None:
    """``str.isdigit`` accepts superscripts (which ``int`` then refuses with a ValueError, a
    traceback in ``arena analyze``) and other scripts' digits (which ``int`` reads)."""
    with pytest.raises(DatasetError, match=r"line 2, column outcome: .* is not an integer"):
        cell(outcome=raw).integer("outcome")


def test_an_integer_still_reads_plain_digits() -> None:
    assert cell(outcome="1").integer("outcome") == 1
    assert cell(trades="-0").integer("trades") == 0


@pytest.mark.parametrize("raw", ["1e308", "-1e300", "1e15", "99999999999999999999.5", "1e999999"])
@pytest.mark.parametrize("read", ["number", "decimal"])
def test_a_number_too_large_for_any_figure_is_refused(raw: str, read: str) -> None:
    """Sums of such values overflow (``math.fsum`` raises) and their decimals cannot be
    printed at a column's places (``quantize`` raises): refused where they are read."""
    with pytest.raises(DatasetError, match=r"column return_pct: .* is out of range"):
        getattr(cell(return_pct=raw), read)("return_pct")


def test_numbers_in_range_are_read_exactly() -> None:
    assert cell(x="-99.5").number("x") == -99.5
    assert cell(x="999999999999999").number("x") == 999_999_999_999_999.0
    assert str(cell(x="12.340").decimal("x")) == "12.340"


@pytest.mark.parametrize("raw", ["wXXXX", "w2026-03-02", "2026-03-01", "w2026-02-30", "w"])
def test_a_run_week_is_w_and_a_sundays_date(raw: str) -> None:
    """Before, any text was a week: ``wXXXX`` clustered as a week of its own."""
    with pytest.raises(DatasetError, match=r"column run_week: .* is not a run week"):
        cell(run_week=raw).week("run_week")
    assert cell(run_week="w2026-03-01").week("run_week") == "w2026-03-01"


def test_a_row_read_twice_is_refused_not_counted_twice() -> None:
    rows = [
        {"trade_id": "t1", "x": "1"},
        {"trade_id": "t2", "x": "1"},
        {"trade_id": "t1", "x": "2"},
    ]
    with pytest.raises(DatasetError, match=r"forecasts.csv line 4 repeats line 2 \(trade_id\)"):
        list(cells("forecasts", rows))
    assert len(list(cells("forecasts", rows[:2]))) == 2
    assert len(list(cells("forecasts", [{"x": "1"}, {"x": "1"}]))) == 2  # no key column: unchecked


def test_the_input_tables_keys_are_the_datapackages_primary_keys() -> None:
    for table, key in KEYS.items():
        assert fields.KEYS[table] == key, table
