"""Every page type in a real browser: loads clean, charts switch range, hostile text stays text,
accessible (axe-core), and screenshots for the README."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page

from tests.support.scenario import HOSTILE_FAMILY, HOSTILE_QUESTION, HOSTILE_REASONING, Scenario


def first_agent_page(scenario: Scenario) -> str:
    """The page of the agent whose reply and market question are hostile."""
    cohort = scenario.stores.cohorts.cohorts()[-1]
    return f"cohorts/{cohort.cohort_id}/{cohort.cohort_id}.{HOSTILE_FAMILY}.html"


def page_paths(scenario: Scenario) -> dict[str, str]:
    cohort = scenario.stores.cohorts.cohorts()[-1]
    family = "deepseek-v3.1"  # a scripted family with forecasts in every reliability range
    return {
        "leaderboard": "index.html",
        "model": f"models/{family}.html",
        "baseline model": "models/baseline-market-follower.html",
        "cohort": f"cohorts/{cohort.cohort_id}/index.html",
        "agent": first_agent_page(scenario),
        "methodology": "methodology.html",
        "pairwise": "pairwise.html",
        "data": "data/index.html",
        "market": f"markets/{market_of(scenario)}.html",
        "decision": f"decisions/{cohort.cohort_id}.{HOSTILE_FAMILY}.w001.html",
        "calibration": "calibration.html",
        "models": "models/index.html",
        "markets": "markets/index.html",
        "cohorts": "cohorts/index.html",
        "about": "about.html",
        "changelog": "changelog.html",
    }


def market_of(scenario: Scenario) -> str:
    """A market the hostile agent bought (its question is hostile too)."""
    cohort = scenario.stores.cohorts.cohorts()[-1]
    agent = f"{cohort.cohort_id}.{HOSTILE_FAMILY}"
    return scenario.stores.ledger.trades(agent)[0].market_id


def test_every_page_type_loads_without_errors(scenario: Scenario, visit: Any) -> None:
    for name, path in page_paths(scenario).items():
        page = visit(path)
        assert page.problems == [], f"{name}: {page.problems}"
        assert page.page.locator("h1").count() == 1, name


def column_values(page: Page, table: str, column: int) -> list[str]:
    """The sort keys (``data-value``) of one column of a table's first body, top to bottom."""
    cells = page.locator(f"{table} tbody").first.locator(f"tr td:nth-child({column})")
    return [cell.get_attribute("data-value") or "" for cell in cells.all()]


def test_leaderboard_rows_links_and_sorting(scenario: Scenario, visit: Any) -> None:
    page = visit("index.html").page
    rows = page.locator("#leaderboard tbody").first.locator("tr")
    assert rows.count() == 7  # the model families; the reference rows have a body of their own
    assert page.locator("#leaderboard tbody.reference tr.baseline").count() == 3
    assert page.locator("#leaderboard tbody.reference tr.market").count() == 1
    rule = page.locator("details.rule").text_content() or ""
    assert "Ranking rule" in rule and "8 matured forecasts over 2 cohorts" in rule
    header = page.locator("#leaderboard th button", has_text="P/L")
    header.click()
    first = [float(v) for v in column_values(page, "#leaderboard", 13)]
    assert first == sorted(first)
    header.click()
    second = [float(v) for v in column_values(page, "#leaderboard", 13)]
    assert second == sorted(second, reverse=True)


@pytest.mark.parametrize("clicks", [1, 2])
def test_missing_values_sort_last_in_both_directions(
    scenario: Scenario, visit: Any, clicks: int
) -> None:
    page = visit("index.html").page
    for _ in range(clicks):
        page.locator("#leaderboard th button", has_text="Skill vs market").click()
    values = column_values(page, "#leaderboard", 9)
    present = [float(v) for v in values if v != ""]
    assert values.count("") >= 2  # the unscored families and the hold baseline
    assert values == [repr(v) for v in present] + [""] * values.count("")
    assert present == sorted(present, reverse=clicks == 2)


def test_leaderboard_shows_intervals_rank_ranges_and_standings(
    scenario: Scenario, visit: Any
) -> None:
    page = visit("index.html").page
    ranked = page.locator("#leaderboard tbody tr.ranked")
    assert ranked.count() >= 3
    for i in range(ranked.count()):
        rank = ranked.nth(i).locator("td").first.inner_text()
        assert re.fullmatch(r"\d+ \(\d+–\d+\)", rank), rank
        brier = ranked.nth(i).locator("td").nth(2)  # the ranked measure, right after the name
        assert re.fullmatch(r"[01]\.\d{3} \[[01]\.\d{3}, [01]\.\d{3}\]", brier.inner_text())
        assert brier.locator(".ci").get_attribute("title") == "95% interval"
    provisional = page.locator("#leaderboard tbody tr.provisional")
    assert provisional.count() == 1
    assert provisional.locator("td").first.inner_text() == "prov."
    unscored = page.locator("#leaderboard tbody tr.unscored td:first-child").all_inner_texts()
    assert unscored and set(unscored) == {"unranked"}
    market = page.locator("#leaderboard tbody.reference tr.market td").nth(2).inner_text()
    assert re.fullmatch(r"[01]\.\d{3} \[[01]\.\d{3}, [01]\.\d{3}\]", market)


def test_pairwise_page_has_matrices_and_every_shared_pair(scenario: Scenario, visit: Any) -> None:
    page_visit = visit("pairwise.html")
    page = page_visit.page
    assert page_visit.problems == []
    matrices = page.locator("table.matrix")
    assert matrices.count() == 2  # Brier and return
    # The models with matured forecasts, and the market; a square matrix.
    compared = matrices.first.locator("tbody tr").count()
    assert compared >= 5
    assert matrices.first.locator("tbody tr").first.locator("td").count() == compared
    pairs = page.locator("#pairs-table tbody tr")
    assert pairs.count() > 10
    verdicts = set(page.locator("#pairs-table tbody tr td:last-child").all_inner_texts())
    undecided = {"undecided so far", "too few shared for a verdict"}
    assert verdicts & undecided
    assert verdicts <= undecided | {v for v in verdicts if v.endswith("better")}
    cell = matrices.first.locator("td.tie, td.sep").first
    assert "Holm p =" in (cell.get_attribute("title") or "")


def test_reliability_diagram_has_axes_ticks_counts_and_intervals(
    scenario: Scenario, visit: Any
) -> None:
    page = visit(page_paths(scenario)["model"]).page
    svg = page.locator("figure.reliability svg")
    labels = svg.locator("text.axis-label").all_text_contents()
    assert labels == ["Forecast probability for YES (bin mean)", "Observed frequency of YES"]
    texts = svg.locator("text").all_text_contents()
    assert texts.count("0.4") == 2 and texts.count("1.0") == 2  # ticks on both axes
    bins = svg.locator("g.bin")
    counts = [int(t) for t in svg.locator("text.count").all_text_contents()]
    assert bins.count() == len(counts) > 0
    table_counts = [
        int(row.locator("td").nth(2).inner_text())
        for row in page.locator("table.bins tbody tr").all()
        if row.locator("td").first.inner_text() == "Model"
    ]
    assert counts == table_counts
    assert bins.first.locator("line").count() == 1  # the Wilson interval's bar
    assert svg.locator("rect.market-point").count() > 0
    murphy = page.locator("table.murphy tbody tr")
    assert murphy.count() == 2
    assert murphy.nth(1).locator("th").inner_text() == "Market, same forecasts"


@pytest.mark.parametrize("kind", ["model", "agent"])
def test_range_buttons_change_the_plotted_series(scenario: Scenario, visit: Any, kind: str) -> None:
    page = visit(page_paths(scenario)[kind]).page
    visible = page.locator("section.chart figure:not([hidden])")
    assert visible.get_attribute("data-range") == "ALL"
    all_points = visible.locator("polyline").get_attribute("points")
    page.locator("section.chart button[data-range='1D']").click()
    assert visible.get_attribute("data-range") == "1D"
    assert (
        page.locator("section.chart button[data-range='1D']").get_attribute("aria-pressed")
        == "true"
    )
    assert (
        page.locator("section.chart button[data-range='ALL']").get_attribute("aria-pressed")
        == "false"
    )
    day = visible.locator("polyline")
    assert day.count() == 0 or day.get_attribute("points") != all_points


def test_hostile_text_renders_as_text_and_runs_nothing(scenario: Scenario, visit: Any) -> None:
    page_visit = visit(first_agent_page(scenario))
    page = page_visit.page
    assert page.evaluate("window.__pwned") is None
    assert page.locator("img[src='x']").count() == 0
    assert page.locator("script:not([src])").count() == 0
    text = page.locator("main").inner_text()
    assert HOSTILE_REASONING in text
    assert HOSTILE_QUESTION in text
    assert page_visit.problems == []


def test_axe_finds_no_serious_or_critical_violations(
    scenario: Scenario, visit: Any, axe_source: str
) -> None:
    for name, path in page_paths(scenario).items():
        page = visit(path).page
        page.evaluate(axe_source)
        result = page.evaluate("axe.run(document, {resultTypes: ['violations']})")
        serious = [
            f"{v['id']} ({v['impact']}): {v['help']}"
            for v in result["violations"]
            if v["impact"] in ("serious", "critical")
        ]
        assert serious == [], f"{name}: {serious}"


def test_screenshots_of_leaderboard_and_model_page(
    scenario: Scenario, visit: Any, artifacts: Path
) -> None:
    for name in ("leaderboard", "model", "pairwise"):
        page = visit(page_paths(scenario)[name]).page
        target = artifacts / f"{name.replace(' ', '-')}.png"
        page.screenshot(path=str(target), full_page=True)
        assert target.stat().st_size > 10_000


def test_a_live_cohorts_pages_take_their_figures_from_its_live_file(
    scenario: Scenario, visit: Any
) -> None:
    """The pages are redrawn daily; the script puts the live file's figures in place (here a
    file rewritten after the pages were drawn, as the next half hour's would be)."""
    cohort = scenario.stores.cohorts.cohorts()[-1]
    assert cohort.status.value == "active"
    path = scenario.site_dir / f"data/live/{cohort.cohort_id}.json"
    original = path.read_bytes()
    live = json.loads(original)
    agent = f"{cohort.cohort_id}.{HOSTILE_FAMILY}"
    position = scenario.stores.ledger.positions(agent)[0].position_id
    live["as_of"], live["at"] = "2099-01-01 00:00 UTC", "2099-01-01T00:00:00+00:00"
    live["values"] |= {f"{agent}/cash": "1,234.56", f"{position}/price": "0.9876"}
    path.write_text(json.dumps(live))
    try:
        cohort_page = visit(f"cohorts/{cohort.cohort_id}/index.html")
        agent_page = visit(first_agent_page(scenario))
        for page in (cohort_page, agent_page):
            assert page.problems == []
            page.page.locator('body[data-live="applied"]').wait_for(state="attached")
            cash = page.page.locator(f'[data-live="{agent}/cash"]')
            cash.filter(has_text="1,234.56").wait_for()
            assert page.page.locator("[data-live-as-of]").inner_text() == live["as_of"]
        price = agent_page.page.locator(f'[data-live="{position}/price"]')
        price.filter(has_text="0.9876").wait_for()
    finally:
        path.write_bytes(original)


@pytest.mark.parametrize("served", ["older", "missing", "garbage"])
def test_live_figures_never_roll_back_and_say_when_they_cannot_be_read(
    scenario: Scenario, visit: Any, served: str
) -> None:
    """A cached file older than the page is not applied (its figures and time stay the page's);
    a file that cannot be read makes the page say so."""
    cohort = scenario.stores.cohorts.cohorts()[-1]
    path = scenario.site_dir / f"data/live/{cohort.cohort_id}.json"
    original = path.read_bytes()
    live = json.loads(original)
    agent = f"{cohort.cohort_id}.{HOSTILE_FAMILY}"
    live["as_of"], live["at"] = "2000-01-01 00:00 UTC", "2000-01-01T00:00:00+00:00"
    live["values"] |= {f"{agent}/cash": "1.00"}
    if served == "older":
        path.write_text(json.dumps(live))
    elif served == "missing":
        path.unlink()
    else:
        path.write_text("{cut")
    try:
        page = visit(f"cohorts/{cohort.cohort_id}/index.html")
        expected = "kept" if served == "older" else "unavailable"
        page.page.locator(f'body[data-live="{expected}"]').wait_for(state="attached")
        drawn = page.page.locator("[data-live-as-of]").inner_text()
        cash = page.page.locator(f'[data-live="{agent}/cash"]').inner_text()
        status = page.page.locator("[data-live-status]")
        assert cash != "1.00" and drawn != live["as_of"]
        if served == "older":
            assert status.is_hidden()
        else:
            assert status.is_visible() and "cannot be read" in status.inner_text()
    finally:
        path.write_bytes(original)
