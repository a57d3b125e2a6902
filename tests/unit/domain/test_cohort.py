"""Week normalization, decision weeks, cohorts and the lineup."""

from datetime import UTC, datetime, timedelta, timezone

import pytest

from arena_core.domain.cohort import (
    Agent,
    Cohort,
    cohort_id_for,
    decision_week,
    week_start_for,
)
from arena_core.domain.lineup import BASELINES, LINEUP_V1, AgentKind, default_lineup
from arena_core.domain.rules import STARTING_BALANCE

SUNDAY = datetime(2026, 3, 1, tzinfo=UTC)


@pytest.mark.parametrize(
    "moment",
    [
        SUNDAY,
        SUNDAY + timedelta(minutes=5),
        SUNDAY + timedelta(days=3, hours=12),
        SUNDAY + timedelta(days=6, hours=23, minutes=59, seconds=59),
    ],
)
def test_week_start_is_the_preceding_sunday_midnight(moment: datetime) -> None:
    assert week_start_for(moment) == SUNDAY


def test_week_start_converts_other_timezones_to_utc() -> None:
    # Sunday 01:00 at UTC+2 is Saturday 23:00 UTC: still the previous week.
    moment = datetime(2026, 3, 1, 1, 0, tzinfo=timezone(timedelta(hours=2)))
    assert week_start_for(moment) == SUNDAY - timedelta(days=7)


def test_naive_datetimes_are_refused() -> None:
    with pytest.raises(ValueError, match="naive"):
        week_start_for(datetime(2026, 3, 1))


def test_decision_week_counts_whole_weeks_plus_one() -> None:
    assert decision_week(SUNDAY, SUNDAY + timedelta(minutes=5)) == 1
    assert decision_week(SUNDAY, SUNDAY + timedelta(days=6, hours=23)) == 1
    assert decision_week(SUNDAY, SUNDAY + timedelta(days=7, minutes=5)) == 2
    assert decision_week(SUNDAY, SUNDAY + timedelta(days=21)) == 4
    with pytest.raises(ValueError):
        decision_week(SUNDAY, SUNDAY - timedelta(seconds=1))


def test_cohort_open_normalizes_and_freezes_lineup() -> None:
    cohort = Cohort.open(SUNDAY + timedelta(days=2), default_lineup())
    assert cohort.week_start == SUNDAY
    assert cohort.cohort_id == cohort_id_for(SUNDAY) == "c2026-03-01"
    agents = cohort.agents()
    assert len(agents) == len(LINEUP_V1) + len(BASELINES) == 10
    assert {a.cash for a in agents} == {STARTING_BALANCE}
    assert len({a.agent_id for a in agents}) == 10
    assert agents[0].agent_id == Agent.id_for(cohort.cohort_id, "gpt-5.1")


def test_cohort_refuses_unnormalized_week_start() -> None:
    with pytest.raises(ValueError, match="Sunday"):
        Cohort(
            cohort_id="x",
            week_start=SUNDAY + timedelta(hours=1),
            created_at=SUNDAY,
            lineup=default_lineup(),
        )


def test_lineup_matches_methodology_table() -> None:
    table = {f.id: (f.display_name, f.openrouter_id) for f in LINEUP_V1}
    assert table["gpt-5.1"] == ("GPT-5.2", "openai/gpt-5.2")
    assert table["gemini-2.5-flash"] == ("Gemini 3 Pro", "google/gemini-3-pro-preview")
    assert table["qwen-3-next"] == ("Qwen 3", "qwen/qwen3-235b-a22b-2507")
    assert len(table) == 7
    assert all(b.kind is AgentKind.BASELINE for b in BASELINES)
    assert {b.model_id for b in BASELINES} == {"market-follower", "always-hold", "random"}
