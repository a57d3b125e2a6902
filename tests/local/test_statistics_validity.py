"""The validity benchmark, small: a change that breaks the intervals' coverage or lets false
verdicts through fails here, within Monte-Carlo tolerance; and the analysis' minimum samples
are the ones the full benchmark's published results derive."""

from __future__ import annotations

import math

import pytest

from arena_core.analysis.figures import Rules
from arena_core.analysis.validity import all_tables, results, text
from arena_local.validity.benchmark import OPEN_RULES, WORLD, cell_of, minimum_clusters
from arena_local.validity.evaluate import run_cell, truth_of
from arena_local.validity.world import Design

SEASONS = 24
TARGET = 0.93


def _tolerance(rate: float, n: int) -> float:
    return 3 * math.sqrt(rate * (1 - rate) / n)


@pytest.mark.slow
def test_coverage_and_false_verdicts_hold_on_a_known_truth() -> None:
    truth = truth_of(WORLD, "v1+panel", seed=11, weeks=300)
    design = Design("v1+panel", 13, panel_size=30, returns=False)
    tally = run_cell(WORLD, design, truth, rules=OPEN_RULES, seasons=SEASONS, seed=5)
    cell = cell_of(design, tally, OPEN_RULES.clustering)
    for kind in ("brier", "skill", "peer", "pair"):
        shown = cell.intervals[kind]
        assert shown >= SEASONS * 5, kind  # every family (pairs: every pair) has its interval
        coverage = cell.coverage[kind]
        assert coverage is not None and coverage >= TARGET - _tolerance(TARGET, shown), kind
    assert cell.false_verdicts <= 0.05 + _tolerance(0.05, SEASONS)
    assert cell.rank_coverage is not None and cell.rank_coverage >= 0.95 - _tolerance(
        0.95, SEASONS * 7
    )
    assert tally.brier_bias and all(len(v) == SEASONS for v in tally.brier_bias.values())


def test_the_analysis_uses_the_minimums_the_published_benchmark_derives() -> None:
    published = results()
    assert published, "layers/arena_core/arena_core/analysis/validity.json is missing"
    rules = Rules()
    assert rules.min_weeks == rules.min_events == published["minimum_clusters"]
    assert rules.min_return_cohorts == published["minimum_return_cohorts"]
    assert rules.clustering.value == published["scheme"]
    weeks = sorted({c["weeks"] for c in published["cells"]})
    assert published["minimum_clusters"] in weeks
    lines = text(all_tables(published))
    assert any("Coverage of nominal 95% intervals" in line for line in lines)


def test_the_minimum_is_the_first_season_length_from_which_coverage_holds() -> None:
    truth = truth_of(WORLD, "v1", seed=3, weeks=40)
    tally = run_cell(WORLD, Design("v1", 2), truth, rules=OPEN_RULES, seasons=1, seed=1)
    base = cell_of(Design("v1", 2), tally, OPEN_RULES.clustering)

    def cell(weeks: int, coverage: float) -> object:
        return type(base)(
            **{
                **base.__dict__,
                "weeks": weeks,
                "coverage": dict.fromkeys(base.coverage, coverage),
                "coverage_error": dict.fromkeys(base.coverage, 0.0),
            }
        )

    cells = [cell(2, 0.80), cell(4, 0.95), cell(8, 0.90), cell(13, 0.95), cell(26, 0.94)]
    assert minimum_clusters(cells, [2, 4, 8, 13, 26]) == 13  # type: ignore[arg-type]
