"""Scored forecasts, their groupings and breakdowns, minimum samples, seeds, module boundary."""

from __future__ import annotations

import ast
import hashlib
import math
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from arena_core.scoring import brier_score, log_score, relative_log_score
from arena_core.scoring import statistics as public
from arena_core.scoring.statistics import (
    LONGER,
    UNDER_MONTH,
    UNDER_WEEK,
    UNKNOWN,
    ScoredForecast,
    by_category,
    by_time_to_close,
    cohort_bootstrap_mean,
    cohort_bootstrap_skill,
    difference_groups,
    groups_by_cohort,
    horizon_bucket,
    market_means,
    metric_interval,
    minimum_sample,
    paired_differences,
    seed_for,
    skill_groups_by_cohort,
    skill_interval,
    weekly_differences,
)


def _row(
    cohort: str = "w1",
    market: str = "m1",
    p: float = 0.7,
    price: float = 0.6,
    outcome: int = 1,
    family: str = "fam",
) -> ScoredForecast:
    return ScoredForecast(family, f"{family}-agent", cohort, market, p, price, outcome)


@pytest.mark.parametrize(
    ("p", "price", "outcome"), [(0.7, 0.6, 1), (0.7, 0.6, 0), (0.05, 0.5, 1), (1.0, 0.0, 0)]
)
def test_derived_scores_match_the_scoring_rules(p: float, price: float, outcome: int) -> None:
    row = _row(p=p, price=price, outcome=outcome)
    assert row.brier == pytest.approx(brier_score(p, outcome))
    assert row.market_brier == pytest.approx(brier_score(price, outcome))
    assert row.log_score == pytest.approx(log_score(p, outcome))
    assert row.market_log_score == pytest.approx(log_score(price, outcome))
    happened = (p, price) if outcome == 1 else (1 - p, 1 - price)
    assert row.relative_log_score == pytest.approx(100 * relative_log_score(*happened))


def test_log_scores_are_clipped() -> None:
    row = _row(p=1.0, price=0.0, outcome=0)
    assert row.log_score == pytest.approx(math.log(1e-12))
    assert row.market_log_score == pytest.approx(math.log(1 - 1e-12))
    assert row.relative_log_score == pytest.approx(100 * math.log(1e-12), rel=1e-9)


def test_scored_forecast_checks_and_normalises_its_fields() -> None:
    with pytest.raises(ValueError, match="p_yes"):
        _row(p=1.2)
    with pytest.raises(ValueError, match="market_p_yes"):
        _row(price=-0.1)
    with pytest.raises(ValueError, match="outcome"):
        _row(outcome=2)
    row = ScoredForecast("f", "a", "w", "m", 1, 0, True)  # type: ignore[arg-type]
    assert (type(row.p_yes), type(row.market_p_yes), type(row.outcome)) == (float, float, int)


def _rows() -> list[ScoredForecast]:
    return [
        _row("w2", "m1", 0.8, 0.7, 1),
        _row("w1", "m2", 0.3, 0.4, 0),
        _row("w1", "m3", 0.6, 0.5, 0),
        _row("w3", "m4", 0.9, 0.9, 1),
    ]


def test_groups_by_cohort_sorts_cohorts_and_keeps_each_row() -> None:
    groups = groups_by_cohort(_rows(), "brier")
    assert list(groups) == ["w1", "w2", "w3"]
    assert groups["w1"] == pytest.approx([0.09, 0.36])
    assert groups_by_cohort(_rows(), lambda row: row.p_yes)["w2"] == [0.8]
    with pytest.raises(ValueError, match="unknown metric"):
        groups_by_cohort(_rows(), "accuracy")


def test_skill_groups_pair_each_forecast_with_the_market() -> None:
    groups = skill_groups_by_cohort(_rows())
    flat = [value for pair in groups["w1"] for value in pair]
    assert flat == pytest.approx([0.09, 0.16, 0.36, 0.25])


def test_metric_and_skill_intervals_seed_from_the_data() -> None:
    rows = [
        _row(f"w{c}", f"m{i}", 0.1 + 0.02 * i, 0.5, (c + i) % 2) for c in range(6) for i in range(9)
    ]
    interval = metric_interval(rows, "log_score")
    groups = groups_by_cohort(rows, "log_score")
    assert interval == metric_interval(list(reversed(rows)), "log_score")
    assert interval is not None
    assert interval.estimate == pytest.approx(sum(r.log_score for r in rows) / len(rows))
    seed = seed_for("mean", "log_score", {k: sorted(v) for k, v in groups.items()})
    assert interval == cohort_bootstrap_mean(groups, seed=seed)
    skill = skill_interval(rows)
    pairs = skill_groups_by_cohort(rows)
    assert skill == skill_interval(list(reversed(rows)))
    seed = seed_for("skill", {k: sorted(v) for k, v in pairs.items()})
    assert skill == cohort_bootstrap_skill(pairs, seed=seed)
    assert metric_interval([], "brier") is None


def test_paired_differences_use_shared_markets_once() -> None:
    a = [
        _row("w1", "m1", 0.8, outcome=1, family="a"),
        _row("w1", "m1", 0.6, outcome=1, family="a"),  # a second bet: averaged
        _row("w1", "m2", 0.2, outcome=0, family="a"),
        _row("w2", "m3", 0.5, outcome=1, family="a"),  # b never saw m3
    ]
    b = [
        _row("w1", "m1", 0.5, outcome=1, family="b"),
        _row("w1", "m2", 0.4, outcome=0, family="b"),
        _row("w2", "m9", 0.5, outcome=1, family="b"),
    ]
    diffs = paired_differences(a, b, "brier")
    assert list(diffs) == ["w1"]
    assert diffs["w1"] == pytest.approx([(0.04 + 0.16) / 2 - 0.25, 0.04 - 0.16])
    assert diffs == difference_groups(market_means(a, "brier"), market_means(b, "brier"))


def test_weekly_differences() -> None:
    a = {"w1": 2.0, "w2": -1.0, "w3": 0.5}
    b = {"w2": 1.0, "w1": 0.5, "w4": 9.0}
    assert weekly_differences(a, b) == {"w1": [1.5], "w2": [-2.0]}


def test_minimum_sample_needs_both_forecasts_and_weeks() -> None:
    enough = [_row(f"w{i % 2}", f"m{i}") for i in range(30)]
    assert minimum_sample(enough)
    assert not minimum_sample(enough[:29])
    one_week = [_row("w1", f"m{i}") for i in range(40)]
    assert not minimum_sample(one_week)
    assert minimum_sample(one_week, min_cohorts=1)
    assert minimum_sample(enough[:10], min_forecasts=10, min_cohorts=2)


def test_breakdown_by_category_keeps_every_row() -> None:
    rows = _rows()
    parts = by_category(rows, {"m1": "politics", "m2": "sports", "m3": "politics"})
    assert {k: len(v) for k, v in parts.items()} == {"politics": 2, "sports": 1, UNKNOWN: 1}
    by_week = by_category(rows, lambda row: row.cohort_id)
    assert list(by_week) == ["w1", "w2", "w3"]


@pytest.mark.parametrize(
    ("delta", "bucket"),
    [
        (timedelta(hours=-1), UNDER_WEEK),
        (timedelta(days=6, hours=23), UNDER_WEEK),
        (timedelta(days=7), UNDER_MONTH),
        (timedelta(days=29, hours=23), UNDER_MONTH),
        (timedelta(days=30), LONGER),
        (timedelta(days=400), LONGER),
    ],
)
def test_horizon_buckets(delta: timedelta, bucket: str) -> None:
    assert horizon_bucket(delta) == bucket


def test_breakdown_by_time_to_close_with_mappings_or_functions() -> None:
    start = datetime(2024, 1, 7, tzinfo=UTC)
    rows = _rows()
    closes = {"m1": start + timedelta(days=40), "m2": start + timedelta(days=3)}
    closes["m3"] = start + timedelta(days=10)
    made = {"w1": start, "w2": start, "w3": start}
    parts = by_time_to_close(rows, closes, made)
    assert {k: [r.market_id for r in v] for k, v in parts.items()} == {
        LONGER: ["m1"],
        UNDER_MONTH: ["m3"],
        UNDER_WEEK: ["m2"],
        UNKNOWN: ["m4"],
    }
    same = by_time_to_close(rows, lambda row: closes.get(row.market_id), lambda row: start)
    assert same == parts


def test_seed_for_is_deterministic_and_order_free_for_mappings() -> None:
    groups = {"w1": [0.1, 0.2], "w2": [0.3]}
    assert seed_for("brier", groups) == seed_for("brier", {"w2": [0.3], "w1": [0.1, 0.2]})
    assert seed_for("brier", groups) != seed_for("brier", {"w1": [0.2, 0.1], "w2": [0.3]})
    assert seed_for("brier", groups) != seed_for("log", groups)
    assert len({seed_for(1), seed_for(1.0), seed_for("1"), seed_for(True)}) == 4
    assert seed_for([(0.1, 0.2)]) != seed_for([(0.2, 0.1)])
    assert seed_for({1, 2}) == seed_for({2, 1})
    assert seed_for(_row()) == seed_for(_row())
    assert seed_for(datetime(2024, 1, 1, tzinfo=UTC)) != seed_for(datetime(2024, 1, 2, tzinfo=UTC))
    assert seed_for(b"ab") != seed_for("ab")
    assert 0 <= seed_for("x") < 2**64
    with pytest.raises(TypeError):
        seed_for(object())


def test_seed_for_is_stable_across_runs() -> None:
    # A fixed value: seeds must not depend on hash randomisation or the machine.
    assert seed_for("brier", {"w1": [0.25, 0.5]}, [(0.1, 0.2)]) == seed_for(
        "brier", {"w1": [0.25, 0.5]}, [(0.1, 0.2)]
    )
    # The documented encoding of ("a",): a one-item sequence holding a 7-byte string token.
    expected = int.from_bytes(hashlib.sha256(b"[1:s7:str:'a'").digest()[:8], "big")
    assert seed_for("a") == expected


def test_public_face_exports_everything_it_lists() -> None:
    for name in public.__all__:
        assert hasattr(public, name), name


def test_statistics_modules_import_only_the_standard_library_and_scoring() -> None:
    scoring = Path(public.__file__).parent
    modules = ["statistics", "bootstrap", "comparisons", "reliability", "forecasts", "breakdowns"]
    for module in [*modules, "seeds", "_resample"]:
        tree = ast.parse((scoring / f"{module}.py").read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                allowed = top in sys.stdlib_module_names or name.startswith("arena_core.scoring")
                assert allowed, f"{module}.py imports {name}"
