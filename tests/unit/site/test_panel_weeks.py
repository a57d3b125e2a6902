"""Each week's panel on the methodology page: its K, what qualified and, per stratum, its quota,
what qualified for it and what was drawn, from the questions registered for it."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

from arena_core.analysis.figures import Rules
from arena_core.dataset.boards import build
from arena_core.dataset.exports import to_csv
from arena_core.domain.cohort import Cohort
from arena_core.domain.lineup import default_lineup
from arena_core.domain.panel import PanelMarket, PanelQuestion
from arena_core.publication.reads import covering_questions
from arena_core.site.panel_design import panel_page, panel_weeks
from arena_core.site.render import SiteRenderer
from arena_core.site.views import LeaderboardData
from tests.support.builders import RUN_AT, WEEK0


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


def test_the_publication_reads_as_few_cohorts_as_cover_every_weeks_panel() -> None:
    """Weekly v1+panel cohorts, each asking five weeks: the publication reads the first, then
    the newest opened by the week after the last week read, and so on; a v1 cohort is never
    read, and a week no cohort read before reaches is still covered."""
    lineup = default_lineup()
    opened = {w: Cohort.open(WEEK0 + timedelta(weeks=w), lineup, "v1+panel") for w in range(12)}
    v1 = Cohort.open(WEEK0 + timedelta(weeks=3), lineup, "v1")
    weeks_of = {c.cohort_id: range(w, min(w + 5, 12)) for w, c in opened.items()}
    read: list[str] = []

    def questions(cohort_id: str) -> list[PanelQuestion]:
        read.append(cohort_id)
        return [question(cohort_id, w, f"m{w}", "1 to 3 days", 9) for w in weeks_of[cohort_id]]

    found = covering_questions([v1, *reversed(opened.values())], questions)
    # 11 may still run past the weeks 10 reached: read too (a cohort's length is not known)
    assert read == [opened[w].cohort_id for w in (0, 5, 10, 11)]
    assert [w.run_at for w in panel_weeks(found)][::-1] == [
        RUN_AT + timedelta(weeks=w) for w in range(12)
    ]


def test_the_methodology_page_lists_the_panels_the_publication_passes() -> None:
    nothing = {
        name: to_csv(name, [])
        for name in ("families", "forecasts", "family_returns", "position_returns")
    }
    board = LeaderboardData("v1", [], [], {}, build(nothing, "v1", Rules()), Rules())
    weeks = panel_weeks([question("c1", 0, "m1", "1 to 3 days", 57)])
    page = SiteRenderer(RUN_AT).global_pages([board], [], panel_weeks=weeks)["methodology.html"]
    text = " ".join(page.decode().split())
    assert "The panels drawn." in text
    assert f"<td>{RUN_AT:%Y-%m-%d}</td><td>4</td><td>90</td><td>1 to 3 days: 2, 57, 1</td>" in text
