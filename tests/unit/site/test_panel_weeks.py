"""Each week's panel on the methodology page: its K, what qualified and, per stratum, its quota,
what qualified for it and what was drawn, from the questions registered for it."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

from arena_core.domain.panel import PanelMarket, PanelQuestion
from arena_core.site.panel_design import panel_page, panel_weeks
from tests.support.builders import RUN_AT


def question(cohort: str, week: int, market: str, stratum: str, eligible: int) -> PanelQuestion:
    run = RUN_AT + timedelta(weeks=week)
    return PanelQuestion(
        cohort_id=cohort,
        week=week + 1,
        run_at=run,
        market=PanelMarket(
            market_id=market,
            question=f"{market}?",
            category="x",
            end_date=run + timedelta(days=2),
            p_yes=Decimal("0.4"),
            stratum=stratum,
        ),
        agent_ids=("a",),
        requested=4,
        eligible=90,
        stratum=stratum,
        stratum_quota=2,
        stratum_eligible=eligible,
    )


def test_each_weeks_panel_counts_its_strata_once_whichever_cohorts_asked_it() -> None:
    asked = [
        question("c1", 0, "m1", "1 to 3 days", 50),
        question("c1", 0, "m2", "1 to 3 days", 50),
        question("c1", 0, "m3", "4 to 7 days", 40),
        question("c2", 0, "m3", "4 to 7 days", 40),  # a second cohort of the week: same panel
        question("c1", 1, "m9", "4 to 7 days", 1),
    ]
    first, second = reversed(panel_weeks(asked))
    assert (first.run_at, first.requested, first.eligible) == (RUN_AT, 4, 90)
    assert first.strata == (("1 to 3 days", 2, 50, 2), ("4 to 7 days", 2, 40, 1))
    assert second.strata == (("4 to 7 days", 2, 1, 1),)


def test_the_page_states_the_deployed_design() -> None:
    page = panel_page()
    assert page["size"] == 300 and page["horizon_days"] == 7
    assert [s["days"] for s in page["strata"]] == ["1 to 3 days", "4 to 7 days"]
