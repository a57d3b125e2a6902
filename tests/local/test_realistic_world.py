"""The realistic validity world (issue 34 §4), small: what it takes from the recorded dump, the
panel rules it applies through the production draw, the seasons it reads at any week, and its
benchmark's tallies (the full size is ``bench/bench_power.py``)."""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from dataclasses import replace

import pytest

from arena_core.analysis.figures import Rules
from arena_core.analysis.validity import realistic_results, realistic_tables, text
from arena_core.domain.panel_design import panel_design
from arena_local.validity.fitted import recorded
from arena_local.validity.plans import REALISTIC, after, before, design_of
from arena_local.validity.power import Cell, check_promises, run_plan, weeks_of
from arena_local.validity.realistic import LLM, MARKET, simulate
from arena_local.validity.truth import truth_from, truth_of, truth_part

RULES = Rules(min_weeks=2, min_events=2, min_return_cohorts=2)
SMALL = replace(after(size=60), name="small")


def test_the_world_is_fitted_to_the_recorded_dump() -> None:
    """The figures the issue quotes of the dump: half of the open markets priced outside
    [0.05, 0.95], the median open market running about two months, most events single."""
    fitted = recorded()
    assert 0.45 <= 1 - fitted.share_priced_within(0.05, 0.95) <= 0.53
    assert 60 <= sorted(fitted.durations)[len(fitted.durations) // 2] <= 75  # open markets
    assert fitted.single_share > 0.8 and 0 < fitted.ladder_share < 1


def test_the_deployed_design_asks_fresh_questions_one_per_event() -> None:
    season = simulate(REALISTIC, SMALL, recorded(), 6, seed=3)
    assert season.asked == 6 * 60 and season.reasked == 0
    for week in range(6):
        questions = [q for q in season.rows if q[0].run == week]
        events = Counter(q[0].market.event for q in questions)
        assert len(questions) == 60 and max(events.values()) == 1
        assert all(0 < (q[0].market.end - week) * 7 <= 7 for q in questions)
    counts = season.strata[0]
    assert set(counts) == {"1 to 3 days", "4 to 7 days"}
    assert all(eligible >= chosen for eligible, chosen in counts.values())


def test_the_panel_before_re_asks_from_a_small_pool() -> None:
    season = simulate(REALISTIC, before(30), recorded(), 6, seed=3)
    assert season.reasked > 0.2 * season.asked  # the "half re-asked", nearly
    pool = [eligible for week in season.strata for eligible, _ in week.values()]
    assert max(pool) < 300  # the top-500 universe within 60 days: small


def test_a_season_read_at_a_week_holds_what_had_resolved_and_matured_by_then() -> None:
    season = simulate(REALISTIC, SMALL, recorded(), 8, seed=4)
    rows = season.read(5)
    assert rows and all(int(r.week[1:]) < 5 for r in rows)
    late = {f.family_id for f in REALISTIC.forecasters if f.joins}
    assert not any(r.family_id in late and int(r.week[1:]) < 4 for r in rows)
    models = {f.family_id for f in REALISTIC.forecasters if f.kind == LLM}
    peers: dict[tuple[str, str], float] = defaultdict(float)
    for row in rows:
        if row.family_id in models:
            peers[row.question] += row.peer or 0.0
    assert all(math.isclose(total, 0.0, abs_tol=1e-9) for total in peers.values())
    later = season.read(8)
    assert len(later) > len(rows)
    assert sum(r.matured for r in later) > sum(r.matured for r in rows)


@pytest.mark.slow
def test_the_benchmark_tallies_power_false_verdicts_and_coverage() -> None:
    truth = truth_of(REALISTIC, SMALL, recorded(), seed=5, weeks=40)
    gaps = {f: truth.after["brier", f] - truth.after["brier", "market"] for f in ("sharp", "fair")}
    assert abs(gaps["sharp"]) < 0.01 and 0.01 < gaps["fair"] < 0.03  # the gap the target names
    tallies = run_plan(
        REALISTIC, SMALL, recorded(), truth, rules=RULES, reads=(8,), seasons=3, seed=6
    )
    cell = Cell.of(SMALL.name, 8, tallies[8])
    assert cell.seasons == 3
    assert set(cell.power) >= {"primary", "best", "market", "pairs"}
    assert cell.compared["primary"] > 0 and cell.compared["pairs"] > 0
    assert all(0.0 <= v <= 1.0 for v in cell.false.values())
    assert {"brier", "peer", "pair95", "best", "market"} <= set(cell.coverage)
    assert all(v is None or v > 0.6 for v in cell.coverage.values())


def test_the_truth_pools_independent_seasons() -> None:
    """One long season knows its truth only to within its weeks' outcome shocks (its Brier
    truth moved by as much as a 13-week reading does, from seed to seed): the truth pools the
    sums of independent seasons, families of one specification together."""
    parts = [truth_part(REALISTIC, SMALL, recorded(), 5, 12, i) for i in range(2)]
    first, second = (truth_from([p], REALISTIC) for p in parts)
    pooled = truth_of(REALISTIC, SMALL, recorded(), seed=5, weeks=12, repeats=2)
    assert pooled == truth_from(parts, REALISTIC)
    for lineup in ("before", "after"):
        one, two, both = (getattr(t, lineup) for t in (first, second, pooled))
        assert one["brier", "sharp"] != two["brier", "sharp"]  # independent seasons
        for key in both:
            assert min(one[key], two[key]) <= both[key] <= max(one[key], two[key])
        assert both["brier", "good-a"] == both["brier", "good-b"]  # one specification
    assert pooled.after["brier", "sharp"] == pooled.after["brier", "late-sharp"]
    brier, market, _, _ = parts[0].after["poor"]  # no twin
    assert first.after["skill", "poor"] == pytest.approx(1.0 - brier / market)


def test_the_market_is_read_over_the_weeks_of_its_questions() -> None:
    """The market's own forecasts are not in a season's rows: its truth was the full lineup's
    whatever weeks its figure spanned (the lineup before the late families is a different
    truth for its peer score)."""
    rows = simulate(REALISTIC, SMALL, recorded(), 6, seed=4).read(6)
    weeks = weeks_of(rows)
    questions = {(r.week, r.market_id) for r in rows if r.matured}
    assert sorted(weeks[MARKET]) == sorted(int(w[1:]) for w, _ in questions)
    assert min(weeks[MARKET]) < 4  # before the late families join


def test_promises_are_checked_at_the_week_they_name() -> None:
    found = check_promises(
        REALISTIC, SMALL, recorded(), rules=RULES, first=3, last=6, seasons=1, seed=7
    )
    assert found.equal  # equal pairs were read, promised or not
    assert all(3 <= at < by <= 6 for at, by, _ in found.kept)


def test_the_published_realistic_results_are_of_the_deployed_design() -> None:
    """The methodology page's realistic-world tables come from validity_realistic.json: it
    must hold the design deployed now, the panel before beside it, every reading week the
    target speaks of, and the promises checked."""
    published = realistic_results()
    assert published, "layers/arena_core/arena_core/analysis/validity_realistic.json is missing"
    design = panel_design()
    assert published["design"] == design_of(design)
    assert published["design"]["size"] == design.size
    plans = {(c["plan"], c["weeks"]) for c in published["cells"]}
    assert {(after().name, w) for w in (4, 8, 13)} <= plans
    assert any(plan.startswith("top-500 (before)") for plan, _ in plans)
    lines = text(realistic_tables(published))
    assert any("'about N more weeks'" in line for line in lines)
