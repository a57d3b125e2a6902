"""A live cohort joins the returns a day after it opened: before, its marks are its purchase
prices, and the provisional mean return fell every Sunday (+117.14% = mean(265.24, 86.17, 0))."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

from arena_core.dataset.rows import SETTLING, return_rows
from arena_core.domain.cohort import Cohort, CohortStatus
from arena_core.domain.lineup import default_lineup
from arena_core.domain.portfolio import PortfolioSnapshot
from tests.support.builders import WEEK0


def mark(cohort: Cohort, after: timedelta, pct: str) -> PortfolioSnapshot:
    pnl = Decimal(pct) * 100
    return PortfolioSnapshot(
        agent_id=f"{cohort.cohort_id}-a",
        cohort_id=cohort.cohort_id,
        family_id="f",
        taken_at=cohort.week_start + after,
        cash=Decimal(10_000) + pnl,
        positions_value=Decimal(0),
        total_value=Decimal(10_000) + pnl,
        total_pnl=pnl,
        total_pnl_pct=Decimal(pct),
        brier=None,
        resolved_bets=0,
        open_positions=0,
    )


def test_a_cohort_opened_minutes_ago_is_left_out_until_a_day_has_passed() -> None:
    old = Cohort.open(WEEK0, default_lineup())
    new = Cohort.open(WEEK0 + timedelta(weeks=1), default_lineup())
    now = new.week_start + timedelta(minutes=20)
    latest = {
        "f": [
            mark(old, timedelta(days=7, minutes=10), "86.17"),
            mark(new, timedelta(minutes=10), "0"),
        ]
    }
    rows = return_rows("v1", latest, [old, new], [], now)
    assert [r["cohort_id"] for r in rows] == [old.cohort_id]
    latest["f"][1] = mark(new, SETTLING, "1.5")
    rows = return_rows("v1", latest, [old, new], [], now + SETTLING)
    assert [r["cohort_id"] for r in rows] == [old.cohort_id, new.cohort_id]


def test_a_completed_cohort_keeps_its_row_whenever_it_was_marked() -> None:
    done = Cohort.open(WEEK0, default_lineup()).model_copy(
        update={"status": CohortStatus.COMPLETED}
    )
    latest = {"f": [mark(done, timedelta(hours=2), "3")]}
    rows = return_rows("v1", latest, [done], [], WEEK0 + timedelta(days=30))
    assert len(rows) == 1 and rows[0]["completed"] is True
