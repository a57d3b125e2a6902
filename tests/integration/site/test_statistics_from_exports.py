"""Every statistic the site shows recomputes from the exports alone.

A researcher holding only ``forecasts`` and ``family_returns`` (and the rules stated in the
leaderboard table) rebuilds the statistics with the library and gets every figure of the
leaderboard, pairwise, breakdown and calibration tables, and the numbers printed on the
leaderboard, the pairwise page and each model page.
"""

from __future__ import annotations

import csv
import io
from datetime import datetime
from decimal import Decimal
from pathlib import Path

import pytest

from arena_core.scoring.calibration import murphy_decomposition
from arena_core.scoring.statistics import UNKNOWN, Interval, ScoredForecast, horizon_bucket
from arena_core.site.statistics import RankingRules, Statistics, compute
from tests.support.html_tables import table, tables
from tests.support.scenario import PROVISIONAL_FAMILY, Scenario, build

RULES = RankingRules(min_forecasts=8, min_cohorts=2)


def read_csv(path: Path) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(path.read_text())))


def number(text: str) -> float | None:
    return None if text == "" else float(text)


def shown(value: float | None, places: int, signed: bool = False) -> str:
    """How a page prints a statistic: fixed places, no "-0", a plus sign where asked."""
    if value is None:
        return "—"
    text = f"{value:.{places}f}"
    if float(text) == 0:
        return text.lstrip("-")
    return f"+{text}" if signed and not text.startswith("-") else text


def shown_interval(i: Interval | None, places: int, signed: bool = False, unit: str = "") -> str:
    if i is None:
        return "—"
    low, high = shown(i.low, places, signed), shown(i.high, places, signed)
    return f"{shown(i.estimate, places, signed)}{unit} [{low}, {high}]"


def six(value: float | None) -> float | None:
    return None if value is None else round(value, 6)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Scenario:
    built = build(tmp_path_factory.mktemp("site"), weeks=3, extra=6, rules=RULES)
    built.publish()
    return built


@pytest.fixture(scope="module")
def recomputed(site: Scenario) -> Statistics:
    """The statistics from the two input tables and the stated rules, nothing else."""
    data = site.site_dir / "data"
    board = read_csv(data / "leaderboard.csv")
    rules = RankingRules(int(board[0]["min_forecasts"]), int(board[0]["min_cohorts"]))
    rows: dict[str, list[ScoredForecast]] = {}
    category: dict[ScoredForecast, str] = {}
    horizon: dict[ScoredForecast, str] = {}
    for r in read_csv(data / "forecasts.csv"):
        forecast = ScoredForecast(
            family_id=r["family_id"],
            agent_id=r["agent_id"],
            cohort_id=r["cohort_id"],
            market_id=r["market_id"],
            p_yes=float(Decimal(r["p_yes"])),
            market_p_yes=float(Decimal(r["market_p_yes"])),
            outcome=int(r["outcome"]),
        )
        rows.setdefault(r["family_id"], []).append(forecast)
        category[forecast] = r["category"] or "uncategorised"
        if r["bet_at"] and r["closes_at"]:
            span = datetime.fromisoformat(r["closes_at"]) - datetime.fromisoformat(r["bet_at"])
            horizon[forecast] = horizon_bucket(span)
        else:
            horizon[forecast] = UNKNOWN
    returns: dict[str, dict[str, float]] = {}
    for r in read_csv(data / "family_returns.csv"):
        returns.setdefault(r["family_id"], {})[r["cohort_id"]] = float(Decimal(r["return_pct"]))
    return compute(
        rows,
        returns,
        rankable={r["family_id"] for r in board if r["kind"] == "llm"},
        rules=rules,
        groups={"category": category.__getitem__, "time_to_close": horizon.__getitem__},
    )


def test_the_scenario_exercises_every_standing(site: Scenario, recomputed: Statistics) -> None:
    board = {r["family_id"]: r for r in read_csv(site.site_dir / "data/leaderboard.csv")}
    standings = {r["standing"] for r in board.values()}
    assert standings == {"ranked", "provisional", "unscored", "reference"}
    assert board[PROVISIONAL_FAMILY]["standing"] == "provisional"
    assert sum(p.result is not None for p in recomputed.pairs) >= 20


def test_leaderboard_table_recomputes(site: Scenario, recomputed: Statistics) -> None:
    for row in read_csv(site.site_dir / "data/leaderboard.csv"):
        if row["kind"] == "market":
            market = recomputed.market
            assert market is not None
            assert (number(row["brier"]), number(row["brier_low"]), number(row["brier_high"])) == (
                six(market.estimate),
                six(market.low),
                six(market.high),
            )
            assert int(row["forecasts"]) == market.n
            continue
        stats = recomputed.families[row["family_id"]]
        assert row["rank"] == ("" if stats.rank is None else str(stats.rank))
        expected_range = ("", "") if stats.rank_range is None else tuple(map(str, stats.rank_range))
        assert (row["rank_best"], row["rank_worst"]) == expected_range
        assert row["tied_with_leader"] == str(stats.tied_with_leader).lower()
        assert (int(row["forecasts"]), int(row["scored_cohorts"])) == (
            stats.forecasts,
            stats.cohorts,
        )
        for estimate, prefix, interval in (
            ("brier", "brier", stats.brier),
            ("market_brier", "market_brier", stats.market_brier),
            ("log_score", "log_score", stats.log_score),
            ("brier_skill_vs_market", "skill", stats.skill),
            ("relative_log_score", "relative_log", stats.relative_log),
            ("return_pct_mean", "return", stats.returns),
        ):
            found = (number(row[estimate]), number(row[f"{prefix}_low"]))
            assert (*found, number(row[f"{prefix}_high"])) == (
                (None, None, None)
                if interval is None
                else (six(interval.estimate), six(interval.low), six(interval.high))
            ), (row["family_id"], estimate)


def test_pairwise_breakdown_and_calibration_tables_recompute(
    site: Scenario, recomputed: Statistics
) -> None:
    data = site.site_dir / "data"
    pairs = {(p.family_a, p.family_b, p.measure): p for p in recomputed.pairs}
    exported = read_csv(data / "pairwise.csv")
    assert len(exported) == len(pairs)
    for row in exported:
        pair = pairs[(row["family_a"], row["family_b"], row["measure"])]
        assert row["verdict"] == pair.verdict
        if pair.result is None:
            assert row["difference"] == ""
            continue
        r = pair.result
        assert number(row["difference"]) == six(r.difference.estimate)
        assert (number(row["difference_low"]), number(row["difference_high"])) == (
            six(r.difference.low),
            six(r.difference.high),
        )
        assert (number(row["p_value"]), number(row["p_holm"])) == (six(r.p_value), six(r.p_holm))
        assert number(row["detectable"]) == six(r.detectable)
        assert number(row["more_needed"]) == r.more_needed
        assert (int(row["units"]), int(row["clusters"])) == (r.units, r.clusters)

    breakdowns = read_csv(data / "breakdowns.csv")
    assert len(breakdowns) == len(recomputed.breakdowns)
    for row, b in zip(breakdowns, recomputed.breakdowns, strict=True):
        assert (row["family_id"], row["dimension"], row["group"]) == (
            b.family_id,
            b.dimension,
            b.group,
        )
        assert int(row["forecasts"]) == b.forecasts
        assert number(row["brier"]) == six(b.brier.estimate if b.brier else None)
        assert number(row["skill_high"]) == six(b.skill.high if b.skill else None)

    calibration = read_csv(data / "calibration.csv")
    expected = [
        (family, forecaster, bin_)
        for family, stats in sorted(recomputed.families.items())
        for forecaster, bins in (
            ("model", stats.calibration.bins),
            ("market", stats.calibration.market_bins),
        )
        for bin_ in bins
    ]
    assert len(calibration) == len(expected)
    for row, (family, forecaster, found) in zip(calibration, expected, strict=True):
        assert (row["family_id"], row["forecaster"], int(row["bin"])) == (
            family,
            forecaster,
            found.index,
        )
        assert int(row["count"]) == found.count
        assert number(row["observed"]) == six(found.observed)
        assert (number(row["wilson_low"]), number(row["wilson_high"])) == (
            six(found.wilson_low),
            six(found.wilson_high),
        )


def test_leaderboard_page_prints_the_recomputed_figures(
    site: Scenario, recomputed: Statistics
) -> None:
    board = table((site.site_dir / "index.html").read_text(), "leaderboard")
    header = list(board.head[0])
    column = {name: header.index(name) for name in header}
    checked = 0
    for cells, link in zip(board.rows, board.row_ids, strict=True):
        if link is None:  # the market's reference row
            assert cells[column["Brier"]] == shown_interval(recomputed.market, 4)
            continue
        stats = recomputed.families[link.removeprefix("models/").removesuffix(".html")]
        rank = cells[column["Rank (range)"]]
        if stats.rank is None:
            assert rank in ("provisional", "unranked", "ref")
        else:
            best, worst = stats.rank_range or (0, 0)
            assert rank == f"{stats.rank} ({best}–{worst})"
        assert cells[column["Brier"]] == shown_interval(stats.brier, 4)
        assert cells[column["Market's Brier, same forecasts"]] == shown_interval(
            stats.market_brier, 4
        )
        assert cells[column["Skill vs market"]] == shown_interval(stats.skill, 3, signed=True)
        assert cells[column["Log score vs market (×100)"]] == shown_interval(
            stats.relative_log, 1, signed=True
        )
        assert cells[column["Log score"]] == shown_interval(stats.log_score, 3)
        assert cells[column["Return % (mean)"]] == shown_interval(
            stats.returns, 2, signed=True, unit="%"
        )
        assert cells[column["Forecasts (weeks)"]] == f"{stats.forecasts} ({stats.cohorts})"
        checked += 1
    assert checked == len(recomputed.families)


def test_pairwise_page_prints_the_recomputed_figures(
    site: Scenario, recomputed: Statistics
) -> None:
    page = table((site.site_dir / "pairwise.html").read_text(), "pairs-table")
    shared = [p for p in recomputed.pairs if p.result is not None]
    assert len(page.rows) == len(shared)
    for cells, pair in zip(page.rows, shared, strict=True):
        r = pair.result
        assert r is not None
        difference = cells[4]
        assert difference == shown_interval(r.difference, 4, signed=True)
        assert (cells[5], cells[6]) == (shown(r.p_value, 3), shown(r.p_holm, 3))
        assert cells[7] == shown(r.detectable, 4)
        indistinct = r.p_holm is None or r.p_holm >= 0.05
        assert (cells[9] == "indistinguishable so far") == indistinct


def test_model_pages_print_the_recomputed_calibration(
    site: Scenario, recomputed: Statistics
) -> None:
    data = site.site_dir / "data"
    forecasts: dict[str, list[tuple[float, float, int]]] = {}
    for r in read_csv(data / "forecasts.csv"):
        forecasts.setdefault(r["family_id"], []).append(
            (float(Decimal(r["p_yes"])), float(Decimal(r["market_p_yes"])), int(r["outcome"]))
        )
    for family, stats in recomputed.families.items():
        found = tables((site.site_dir / f"models/{family}.html").read_text())
        murphy = next(t for t in found if "murphy" in t.classes)
        rows = forecasts.get(family)
        if not rows:
            assert murphy.rows[0][1:] == ["—"]
            continue
        outcomes = [o for _, _, o in rows]
        for cells, probabilities in zip(
            murphy.rows, ([p for p, _, _ in rows], [m for _, m, _ in rows]), strict=True
        ):
            parts = murphy_decomposition(probabilities, outcomes)
            assert cells[1:] == [
                shown(parts[k], 4) for k in ("reliability", "resolution", "uncertainty", "brier")
            ]
        bins = next(t for t in found if "bins" in t.classes)
        model_counts = [int(c[2]) for c in bins.rows if c[0] == "Model"]
        assert model_counts == [b.count for b in stats.calibration.bins]
        assert sum(model_counts) == len(rows)
